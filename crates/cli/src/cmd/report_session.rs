//! `forge-replay report session SESSION [--out FILE.html]`: one self-contained HTML page about one
//! session (the page model, its HTML and its JSON are `forge_replay_report::session`).
//!
//! Exit codes: 0 written; 1 written, but the replay stopped before the leaf or the file has
//! findings (the page lists them); 2 bad input (unreadable session or catalog, unknown leaf,
//! unwritable output, no `--out` on a terminal).

use std::io::IsTerminal;

use forge_replay_report::session::{self, ReportOptions};
use forge_replay_session::Session;

use crate::args::{Format, ReportSessionArgs};
use crate::out::{self, note};
use crate::Exit;

pub fn run(args: ReportSessionArgs) -> anyhow::Result<Exit> {
    if args.format == Format::Html && args.out.is_none() && std::io::stdout().is_terminal() {
        anyhow::bail!("the report is an HTML page; give --out FILE.html (or redirect stdout)");
    }
    let (session, diagnostics) = Session::open(&args.session)?;
    let release = args.pi.for_session(&session)?;
    let catalog = forge_replay_engine::catalog::load(release, args.catalog.path())?;
    let mut opts = ReportOptions::new(&catalog);
    opts.leaf = args.leaf.leaf.clone();
    opts.redact = out::redacting();
    opts.retention = args.retention.retention;
    let report = session::build(&session, &diagnostics, &opts)?;
    // The page quotes session text: redacted like every other output.
    let json = args.format == Format::Json;
    let rendered = report.render(json);
    let shown = if json { out::json } else { out::text };
    let page = shown(&rendered);
    match &args.out {
        Some(path) => {
            forge_replay_io::write_atomic(path, page.as_bytes())?;
            note!("{}", report.wrote(path));
        }
        // Already redacted above.
        None => out::print_frame(page.as_bytes())?,
    }
    // The file's findings as every command that reads a session says them (the page lists
    // all), then what happened to the replay.
    crate::cmd::say_findings(&args.session, &diagnostics);
    for note in report.notes.iter().skip(report.findings) {
        note!("forge-replay: {note}");
    }
    Ok(Exit::findings_if(!report.notes.is_empty()))
}
