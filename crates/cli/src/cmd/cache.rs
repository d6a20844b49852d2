//! `forge-replay` subcommand (not yet built).

use crate::args::CacheExplainArgs;
use crate::Exit;

pub fn run(_args: CacheExplainArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("this command is not built yet")
}
