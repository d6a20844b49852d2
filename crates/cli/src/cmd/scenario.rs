//! `forge-replay` subcommand (not yet built).

use crate::args::ScenarioArgs;
use crate::Exit;

pub fn run(_args: ScenarioArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("this command is not built yet")
}
