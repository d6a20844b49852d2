//! `forge-replay diff A.json B.json`: structural diff of two payload files.

use std::io::IsTerminal as _;

use forge_replay_engine::{diff, payload};

use crate::args::{DiffArgs, TextOrJson};
use crate::out;
use crate::Exit;

pub fn run(args: DiffArgs) -> anyhow::Result<Exit> {
    let (a, b) = (payload::load(&args.a)?, payload::load(&args.b)?);
    let (left, right) = payload::comparable(&a, &b);
    let d = diff::diff(&left, &right);
    // Compared on the real values; shown with both sides of a secret redacted.
    let shown = if out::redacting() {
        diff::redacted(&d)
    } else {
        d.clone()
    };
    match args.format.text_or_json() {
        TextOrJson::Json => out::print_json(&diff::render_json(&shown))?,
        TextOrJson::Text => {
            let color = std::io::stdout().is_terminal();
            out::print_text(&diff::report_text(&args.a, &args.b, &shown, color))?;
        }
    }
    Ok(Exit::findings_if(!d.is_empty()))
}
