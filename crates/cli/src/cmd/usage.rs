//! `forge-replay` subcommand (not yet built).

use crate::args::UsageArgs;
use crate::Exit;

pub fn run(_args: UsageArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("this command is not built yet")
}
