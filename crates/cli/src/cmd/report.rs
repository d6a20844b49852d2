//! `forge-replay` subcommand (not yet built).

use crate::args::ReportProvidersArgs;
use crate::Exit;

pub fn run(_args: ReportProvidersArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("this command is not built yet")
}
