//! `forge-replay capability validate <FILE|DIR>...`: pi-forge's capability resource
//! diagnostics (`parseCapability`, spec §1), exit 1 when any file is invalid.
//!
//! The reading and the document are `forge_replay_capability::validation`; this module prints
//! and picks the exit code.

use forge_replay_capability::validation::Validation;

use crate::args::{TextOrJson, ValidateArgs};
use crate::out;
use crate::Exit;

pub fn run(args: ValidateArgs) -> anyhow::Result<Exit> {
    let validation = Validation::of_paths(&args.paths)?;
    match args.format.text_or_json() {
        TextOrJson::Json => out::print_json(&validation.to_json())?,
        TextOrJson::Text => out::print_text(&validation.to_text())?,
    }
    Ok(Exit::findings_if(validation.invalid() > 0))
}
