//! `forge-replay` subcommand (not yet built).

use crate::args::ContextArgs;
use crate::Exit;

pub fn run(_args: ContextArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("this command is not built yet")
}
