//! `forge-replay` subcommand (not yet built).

use crate::args::TreeArgs;
use crate::Exit;

pub fn run(_args: TreeArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("this command is not built yet")
}
