//! `forge-replay diff A.json B.json`: structural diff of two payload files.

use std::io::{IsTerminal as _, Write as _};

use forge_replay_engine::{diff, payload};
use forge_replay_model::json;

use crate::args::{DiffArgs, TextOrJson};
use crate::Exit;

pub fn run(args: DiffArgs) -> anyhow::Result<Exit> {
    let a = match payload::load(&args.a) {
        Ok(d) => d,
        Err(e) => return bad_input(&e),
    };
    let b = match payload::load(&args.b) {
        Ok(d) => d,
        Err(e) => return bad_input(&e),
    };
    let (left, right) = payload::comparable(&a, &b);
    let d = diff::diff(&left, &right);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match args.format {
        TextOrJson::Json => writeln!(out, "{}", json::stringify_pretty(&diff::render_json(&d)))?,
        TextOrJson::Text => {
            if d.is_empty() {
                writeln!(out, "equal")?;
            } else {
                writeln!(out, "--- {}\n+++ {}", args.a.display(), args.b.display())?;
                let opts = diff::RenderOptions {
                    color: std::io::stdout().is_terminal(),
                    max_changes: 0,
                };
                out.write_all(diff::render_text(&d, opts).as_bytes())?;
                writeln!(out, "{} change(s)", d.changes.len())?;
            }
        }
    }
    Ok(if d.is_empty() {
        Exit::Ok
    } else {
        Exit::Findings
    })
}

fn bad_input(e: &dyn std::error::Error) -> anyhow::Result<Exit> {
    eprintln!("forge-replay: error: {e}");
    Ok(Exit::BadInput)
}
