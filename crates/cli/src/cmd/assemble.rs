//! `forge-replay` subcommand (not yet built).

use crate::args::AssembleArgs;
use crate::Exit;

pub fn run(_args: AssembleArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("this command is not built yet")
}
