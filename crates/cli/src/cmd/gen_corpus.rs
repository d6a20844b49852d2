//! `forge-replay gen-corpus`: write realistic generated Pi sessions in Pi's directory layout.

use anyhow::Context;
use forge_replay_usage::gen::{generate, GenOptions};

use crate::args::GenCorpusArgs;
use crate::out;
use crate::Exit;
use forge_replay_model::text::count;

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
    out::note!(
        "wrote {} ({}), {} lines each, {:.1} MB under {}{}",
        count(summary.files.len(), "session", "sessions"),
        count(summary.forks, "fork", "forks"),
        opts.entries,
        summary.bytes as f64 / 1e6,
        args.out.display(),
        if summary.replaced {
            " (the previous gen-corpus output there was replaced whole)"
        } else {
            ""
        }
    );
    Ok(Exit::Ok)
}
