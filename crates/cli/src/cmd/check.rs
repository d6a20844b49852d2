//! `forge-replay check`: diagnostics for session files, with codes and line numbers.
//!
//! Exit 0 when every file is clean (notes allowed), 1 when any file has warnings or errors,
//! 2 when any file cannot be read as a session. The files are found and checked by
//! `forge_replay_engine::batch` (structural checks from the session crate, recovery checks
//! unless `--structural`, a `pi-release` note per file; with `--pi R` or `FORGE_REPLAY_PI` a
//! session showing another release is a warning).

use std::io::IsTerminal as _;

use forge_replay_engine::batch::{self, FileReport};
use forge_replay_model::error::with_path;
use forge_replay_session::dirs::paths_or_pi_sessions;

use crate::args::{CheckArgs, TextOrJson};
use crate::out;
use crate::Exit;

/// Fewer files than this finish in about a second: no progress bar.
const PROGRESS_MIN_FILES: usize = 20;

pub fn run(args: CheckArgs) -> anyhow::Result<Exit> {
    let expected = args.pi.requested()?.map(|(r, _)| r);
    // No paths: Pi's own sessions directory, as `usage --corpus` reads it.
    let paths = paths_or_pi_sessions(&args.paths)?;
    let (files, mut reports) = batch::expand(&paths);
    // Progress on stderr, only on a terminal and only for runs long enough to need it.
    let bar = (files.len() >= PROGRESS_MIN_FILES && std::io::stderr().is_terminal())
        .then(|| out::progress_bar(files.len(), "{bar:30} {pos}/{len} files {elapsed}"));
    let tick = || bar.iter().for_each(|b| b.inc(1));
    let checked = batch::check_files(files, expected, args.structural, &tick);
    bar.iter().for_each(|b| b.finish_and_clear());
    reports.extend(checked);

    match args.format.text_or_json() {
        TextOrJson::Text => out::print_text(&batch::reports_text(&reports))?,
        TextOrJson::Json => out::print_json(&batch::reports_json(&reports))?,
    }
    // One error line per unreadable file, after the report: `forge-replay: error: <file>: <cause>`.
    for r in &reports {
        if let Err(e) = &r.result {
            out::error!("{}", with_path(&r.path, e));
        }
    }
    let unreadable = reports.iter().any(|r| r.result.is_err());
    Ok(Exit::of(
        unreadable,
        reports.iter().any(FileReport::has_findings),
    ))
}
