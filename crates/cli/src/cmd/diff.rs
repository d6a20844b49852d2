//! `forge-replay` subcommand (not yet built).

use crate::args::DiffArgs;
use crate::Exit;

pub fn run(_args: DiffArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("this command is not built yet")
}
