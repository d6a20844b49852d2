//! `forge-replay` subcommand (not yet built).

use crate::args::CapabilitiesArgs;
use crate::Exit;

pub fn run(_args: CapabilitiesArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("this command is not built yet")
}
