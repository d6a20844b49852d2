//! `forge-replay assemble CASE.json [--catalog F]`: the request pi-ai 0.87.1 would send for a case.
//!
//! Prints `{"api", "payload", "wire": {url, method, body} | null}` (secrets redacted). Bad input
//! (unreadable or malformed case, unknown model or api, a context pi-ai refuses) exits 2 with the
//! reason on stderr.

use forge_replay_model::error::chain as error_chain;
use forge_replay_model::json;
use forge_replay_wire::{assemble_case, AssembleError, Case, Catalog};

use crate::args::AssembleArgs;
use crate::out::{self, Out};
use crate::Exit;

pub fn run(args: AssembleArgs) -> anyhow::Result<Exit> {
    let path = args.case.display().to_string();
    let text = match forge_replay_session::input::read_to_string(&args.case) {
        Ok(t) => t,
        Err(e) => return bad_input(&format!("{path}: cannot read: {e}")),
    };
    let case = match Case::parse(&text) {
        Ok(c) => c,
        Err(e) => return bad_input(&format!("{path}: malformed case: {e}")),
    };
    let catalog = match load_catalog(args.catalog.as_deref()) {
        Ok(c) => c,
        Err(msg) => return bad_input(&msg),
    };
    match assemble_case(&case, &catalog) {
        Ok(assembled) => {
            let mut out = Out::stdout();
            out.json(&(json::stringify_pretty(&assembled.to_json()) + "\n"))?;
            out.flush()?;
            Ok(Exit::Ok)
        }
        Err(AssembleError::Rejected { message }) => bad_input(&format!(
            "{path}: pi-ai 0.87.1 refuses this request: {message}"
        )),
        Err(e) => bad_input(&format!("{path}: {}", error_chain(&e))),
    }
}

/// The built-in catalog, or it with a user catalog file layered on top.
pub(crate) fn load_catalog(path: Option<&std::path::Path>) -> Result<Catalog, String> {
    match path {
        None => Ok(Catalog::builtin().clone()),
        Some(p) => {
            let text = forge_replay_session::input::read_to_string(p)
                .map_err(|e| format!("{}: cannot read catalog: {e}", p.display()))?;
            Catalog::with_user_file(&text, &p.display().to_string()).map_err(|e| error_chain(&e))
        }
    }
}

fn bad_input(msg: &str) -> anyhow::Result<Exit> {
    out::error!("{msg}");
    Ok(Exit::BadInput)
}
