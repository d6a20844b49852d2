//! `forge-replay` subcommand (not yet built).

use crate::args::ModelsArgs;
use crate::Exit;

pub fn run(_args: ModelsArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("this command is not built yet")
}
