//! `forge-replay check`: diagnostics for session files, with codes and line numbers.
//!
//! Exit 0 when every file is clean (notes allowed), 1 when any file has warnings or errors,
//! 2 when any file cannot be read as a session. The files are found and checked by
//! `forge_replay_engine::batch` (structural checks from the session crate, recovery checks
//! unless `--structural`, a `pi-release` note per file; with `--pi R` or `FORGE_REPLAY_PI` a
//! session showing another release is a warning).

use std::io::IsTerminal as _;
use std::path::Path;

use forge_replay_engine::batch::{self, FileReport};
use forge_replay_model::json;
use serde_json::{Map, Value};

use crate::args::{CheckArgs, TextOrJson};
use crate::out::{self, Out};
use crate::Exit;

/// Fewer files than this finish in about a second: no progress bar.
const PROGRESS_MIN_FILES: usize = 20;

pub fn run(args: CheckArgs) -> anyhow::Result<Exit> {
    let expected = args.pi.requested()?.map(|(r, _)| r);
    // No paths: Pi's own sessions directory, as `usage --corpus` reads it.
    let paths = match super::paths_or_pi_sessions(&args.paths) {
        Ok(p) => p,
        Err(exit) => return Ok(exit),
    };
    let (files, mut reports) = batch::expand(&paths);
    // Progress on stderr, only on a terminal and only for runs long enough to need it.
    let bar = (files.len() >= PROGRESS_MIN_FILES && std::io::stderr().is_terminal()).then(|| {
        let pb = indicatif::ProgressBar::new(files.len() as u64);
        pb.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} files {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    });
    let tick = || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let checked = batch::check_files(files, expected, args.structural, &tick);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    reports.extend(checked);

    let mut stdout = Out::stdout();
    match args.format.text_or_json() {
        TextOrJson::Text => {
            let text: String = reports.iter().map(FileReport::to_text).collect();
            stdout.text(&text)?;
        }
        TextOrJson::Json => {
            let files: Vec<Value> = reports.iter().map(FileReport::to_json).collect();
            let mut doc = Map::new();
            doc.insert("files".into(), Value::Array(files));
            stdout.json(&(json::stringify_pretty(&Value::Object(doc)) + "\n"))?;
        }
    }
    stdout.flush()?;
    // One error line per unreadable file, after the report: `forge-replay: error: <file>: <cause>`.
    for r in &reports {
        if let Err(e) = &r.result {
            out::error!("{}", with_path(&r.path, e));
        }
    }
    Ok(if reports.iter().any(|r| r.result.is_err()) {
        Exit::BadInput
    } else if reports.iter().any(FileReport::has_findings) {
        Exit::Findings
    } else {
        Exit::Ok
    })
}

/// `<file>: <cause>`, unless the cause already starts with the file.
pub(crate) fn with_path(path: &Path, cause: &str) -> String {
    let shown = path.display().to_string();
    if cause.starts_with(&shown) {
        cause.to_string()
    } else {
        format!("{shown}: {cause}")
    }
}
