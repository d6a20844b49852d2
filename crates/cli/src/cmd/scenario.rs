//! `forge-replay scenario FILE --out DIR`: compile a scenario into a Pi session JSONL plus its
//! capability library.

use forge_replay_engine::scenario;

use crate::args::ScenarioArgs;
use crate::out;
use crate::Exit;

pub fn run(args: ScenarioArgs) -> anyhow::Result<Exit> {
    let loaded = match scenario::load(&args.scenario) {
        Ok(l) => l,
        Err(e) => {
            out::error!("{}", crate::cmd::error_chain(&e));
            return Ok(Exit::BadInput);
        }
    };
    let compiled = match scenario::compile(&loaded) {
        Ok(c) => c,
        Err(e) => {
            out::error!("{}", crate::cmd::error_chain(&e));
            return Ok(Exit::BadInput);
        }
    };
    scenario::write(&compiled, &args.out, out::redacting())?;
    // Every writer says what it wrote, on stderr.
    out::note!(
        "{}: wrote {} entries to {} (and its capability library under {})",
        compiled.name,
        compiled.entries,
        args.out.join("session.jsonl").display(),
        args.out.display()
    );
    Ok(Exit::Ok)
}
