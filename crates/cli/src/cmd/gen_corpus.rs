//! `forge-replay` subcommand (not yet built).

use crate::args::GenCorpusArgs;
use crate::Exit;

pub fn run(_args: GenCorpusArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("this command is not built yet")
}
