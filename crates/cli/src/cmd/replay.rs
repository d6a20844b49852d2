//! `forge-replay` subcommand (not yet built).

use crate::args::ReplayArgs;
use crate::Exit;

pub fn run(_args: ReplayArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("this command is not built yet")
}
