//! `forge-replay capability validate <FILE|DIR>...`: pi-forge's capability resource
//! diagnostics (`parseCapability`, spec §1), exit 1 when any file is invalid.
//!
//! The reading and the document are `forge_replay_capability::validation`; this module prints
//! and picks the exit code.

use forge_replay_capability::validation::Validation;
use forge_replay_model::json;

use crate::args::{TextOrJson, ValidateArgs};
use crate::out;
use crate::Exit;

pub fn run(args: ValidateArgs) -> anyhow::Result<Exit> {
    let validation = Validation::of_paths(&args.paths)?;
    let mut out = out::stdout();
    match args.format.text_or_json() {
        TextOrJson::Json => out.json(&(json::stringify_pretty(&validation.to_json()) + "\n"))?,
        TextOrJson::Text => out.text(&validation.to_text())?,
    }
    out.flush()?;
    Ok(if validation.invalid() > 0 {
        Exit::Findings
    } else {
        Exit::Ok
    })
}
