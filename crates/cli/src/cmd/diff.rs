//! `forge-replay diff A.json B.json`: structural diff of two payload files.

use std::io::IsTerminal as _;

use forge_replay_engine::{diff, payload};

use crate::args::{DiffArgs, TextOrJson};
use crate::out::{self, outln};
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
            let mut out = out::stdout();
            if d.is_empty() {
                outln!(out, "equal")?;
            } else {
                outln!(out, "--- {}\n+++ {}", args.a.display(), args.b.display())?;
                let opts = diff::RenderOptions {
                    color: std::io::stdout().is_terminal(),
                    max_changes: 0,
                };
                out.text(&diff::render_text(&shown, opts))?;
                outln!(
                    out,
                    "{}",
                    forge_replay_model::text::count(d.changes.len(), "change", "changes")
                )?;
            }
            out.flush()?;
        }
    }
    Ok(Exit::findings_if(!d.is_empty()))
}
