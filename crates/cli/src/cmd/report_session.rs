//! `forge-replay report session SESSION [--out FILE.html]`: one self-contained HTML page about one
//! session (the page model, its HTML and its JSON are `forge_replay_report::session`).
//!
//! Exit codes: 0 written; 1 written, but the replay stopped before the leaf or the file has
//! findings (the page lists them); 2 bad input (unreadable session or catalog, unknown leaf,
//! unwritable output, no `--out` on a terminal).

use std::io::{IsTerminal, Write};

use forge_replay_report::session::{self, html, ReportOptions};
use forge_replay_session::Session;
use forge_replay_usage::explain::Retention;

use crate::args::{CacheRetention, Format, ReportSessionArgs};
use crate::cmd::error_chain;
use crate::out::{self, error, note};
use crate::Exit;

pub fn run(args: ReportSessionArgs) -> anyhow::Result<Exit> {
    if args.format == Format::Html && args.out.is_none() && std::io::stdout().is_terminal() {
        error!("the report is an HTML page; give --out FILE.html (or redirect stdout)");
        return Ok(Exit::BadInput);
    }
    let (session, diagnostics) = match Session::open(&args.session) {
        Ok(v) => v,
        Err(e) => {
            error!("{}", error_chain(&e));
            return Ok(Exit::BadInput);
        }
    };
    let catalog = match args
        .pi
        .for_session(&session)
        .and_then(|release| super::load_catalog(release, args.catalog.path()))
    {
        Ok(c) => c,
        Err(e) => {
            error!("{e:#}");
            return Ok(Exit::BadInput);
        }
    };
    let mut opts = ReportOptions::new(&catalog);
    opts.leaf = args.leaf.leaf.clone();
    opts.redact = out::redacting();
    opts.retention = match args.retention.retention {
        CacheRetention::Short => Retention::Short,
        CacheRetention::Long => Retention::Long,
    };
    let report = match session::build(&session, &diagnostics, &opts) {
        Ok(r) => r,
        Err(e) => {
            error!("{}", error_chain(&e));
            return Ok(Exit::BadInput);
        }
    };
    // The page quotes session text: redacted like every other output.
    let rendered = if args.format == Format::Json {
        forge_replay_model::json::stringify_pretty(&session::json::to_json(&report)) + "\n"
    } else {
        html::render(&report)
    };
    let page = if args.format == Format::Json {
        out::json(&rendered)
    } else {
        out::text(&rendered)
    };
    match &args.out {
        Some(path) => {
            if let Err(e) = forge_replay_io::write_atomic(path, page.as_bytes()) {
                error!("{}", error_chain(&e));
                return Ok(Exit::BadInput);
            }
            note!(
                "wrote {} ({}, {})",
                path.display(),
                forge_replay_model::text::count(report.requests.len(), "request", "requests"),
                forge_replay_model::text::count(report.breaks.len(), "cache break", "cache breaks")
            );
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(page.as_bytes())?; // already redacted above
            stdout.flush()?;
        }
    }
    for note in &report.notes {
        note!("forge-replay: {note}");
    }
    Ok(if report.notes.is_empty() {
        Exit::Ok
    } else {
        Exit::Findings
    })
}
