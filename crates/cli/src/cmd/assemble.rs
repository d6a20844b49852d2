//! `forge-replay assemble CASE.json [--catalog F] [--pi R]`: the request pi-ai would send for a
//! case, as the release the case names (`"pi"`), `--pi` or the default follows.
//!
//! Prints `{"api", "payload", "wire": {url, method, body} | null}` (secrets redacted). Bad input
//! (unreadable or malformed case, unknown model or api, a context pi-ai refuses) exits 2 with the
//! reason on stderr.

use forge_replay_model::error::chain as error_chain;
use forge_replay_model::json;
use forge_replay_wire::{assemble_case, AssembleError, Case};

use crate::args::AssembleArgs;
use crate::out::{self, Out};
use crate::Exit;

pub fn run(args: AssembleArgs) -> anyhow::Result<Exit> {
    let path = args.case.display().to_string();
    let text = match forge_replay_session::input::read_to_string(&args.case) {
        Ok(t) => t,
        Err(e) => return bad_input(&format!("{path}: cannot read: {e}")),
    };
    let mut case = match Case::parse(&text) {
        Ok(c) => c,
        Err(e) => return bad_input(&format!("{path}: malformed case: {e}")),
    };
    let release = args.pi.for_named(case.pi, &args.case)?;
    case.pi = Some(release);
    let catalog = match super::load_catalog(release, args.catalog.as_deref()) {
        Ok(c) => c,
        Err(e) => return bad_input(&format!("{e:#}")),
    };
    match assemble_case(&case, &catalog) {
        Ok(assembled) => {
            let mut out = Out::stdout();
            out.json(&(json::stringify_pretty(&assembled.to_json()) + "\n"))?;
            out.flush()?;
            Ok(Exit::Ok)
        }
        Err(AssembleError::Rejected { message }) => bad_input(&format!(
            "{path}: pi-ai {release} refuses this request: {message}"
        )),
        Err(e) => bad_input(&format!("{path}: {}", error_chain(&e))),
    }
}

fn bad_input(msg: &str) -> anyhow::Result<Exit> {
    out::error!("{msg}");
    Ok(Exit::BadInput)
}
