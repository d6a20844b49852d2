//! `forge-replay gen-corpus`: write realistic generated Pi sessions in Pi's directory layout.

use anyhow::Context;
use forge_replay_usage::gen::{generate, GenOptions};

use crate::args::GenCorpusArgs;
use crate::out;
use crate::Exit;

pub fn run(args: GenCorpusArgs) -> anyhow::Result<Exit> {
    // clap has checked that --forks is a fraction from 0 to 1 and --entries at least 8.
    let opts = GenOptions {
        sessions: args.sessions,
        entries: args.entries,
        seed: args.seed,
        forks: args.forks,
    };
    // A folder of other files is refused (exit 2, nothing touched); a previous gen-corpus output
    // is replaced whole (the set is renamed in complete), never mixed with the new files.
    let summary = generate(&args.out, &opts)
        .with_context(|| format!("generating a corpus in {}", args.out.display()))?;
    out::note!("{}", summary.wrote(&opts, &args.out));
    Ok(Exit::Ok)
}
