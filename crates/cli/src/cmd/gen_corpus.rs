//! `forge-replay gen-corpus`: write realistic generated Pi sessions in Pi's directory layout.

use anyhow::Context;
use forge_replay_usage::gen::{generate, GenOptions};

use crate::args::GenCorpusArgs;
use crate::out::{self, outln, Out};
use crate::Exit;

pub fn run(args: GenCorpusArgs) -> anyhow::Result<Exit> {
    if !(0.0..=1.0).contains(&args.forks) {
        out::error!("--forks must be a fraction between 0 and 1");
        return Ok(Exit::BadInput);
    }
    let opts = GenOptions {
        sessions: args.sessions,
        entries: args.entries,
        seed: args.seed,
        forks: args.forks,
    };
    let summary = generate(&args.out, &opts)
        .with_context(|| format!("generating a corpus in {}", args.out.display()))?;
    let mut out = Out::stdout();
    outln!(
        out,
        "wrote {} sessions ({} forks), {} lines each, {:.1} MB under {}",
        summary.files.len(),
        summary.forks,
        opts.entries.max(8),
        summary.bytes as f64 / 1e6,
        args.out.display()
    )?;
    out.flush()?;
    Ok(Exit::Ok)
}
