//! `forge-replay` subcommand (not yet built).

use crate::args::CheckArgs;
use crate::Exit;

pub fn run(_args: CheckArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("this command is not built yet")
}
