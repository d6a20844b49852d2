//! `forge-replay` subcommand (not yet built).

use crate::args::VerifyArgs;
use crate::Exit;

pub fn run(_args: VerifyArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("this command is not built yet")
}
