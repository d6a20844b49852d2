//! `forge-replay scenario FILE --out DIR`: compile a scenario into a Pi session JSONL plus its
//! capability library.

use forge_replay_engine::scenario;

use crate::args::ScenarioArgs;
use crate::out;
use crate::Exit;

pub fn run(args: ScenarioArgs) -> anyhow::Result<Exit> {
    let compiled = scenario::compile(&scenario::load(&args.scenario)?)?;
    scenario::write(&compiled, &args.out, out::redacting())?;
    // Every writer says what it wrote, on stderr.
    out::note!("{}", scenario::wrote(&compiled, &args.out));
    Ok(Exit::Ok)
}
