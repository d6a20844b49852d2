//! `forge-replay` subcommand (not yet built).

use crate::args::ValidateArgs;
use crate::Exit;

pub fn run(_args: ValidateArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("this command is not built yet")
}
