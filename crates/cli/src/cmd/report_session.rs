//! `forge-replay report session SESSION [--out FILE.html]`: one self-contained HTML page about one
//! session (the page model and its rendering are `forge_replay_report::session`).
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
        forge_replay_model::json::stringify_pretty(&to_json(&report)) + "\n"
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

/// `report session --format json`: the numbers of the page (summary, one object per request,
/// the breaks, the notes).
fn to_json(r: &session::SessionReport) -> serde_json::Value {
    use forge_replay_model::json::f64_to_value as num;
    use serde_json::json;
    let rate = |v: Option<f64>| v.map_or(serde_json::Value::Null, num);
    let requests: Vec<_> = r
        .requests
        .iter()
        .map(|q| {
            json!({
                "index": q.index,
                "entryId": q.entry_id,
                "line": q.line,
                "provider": q.provider,
                "model": q.model,
                "api": q.api,
                "timestamp": q.timestamp,
                "usage": q.usage.map(|u| u.to_json()),
                "hitRate": rate(q.hit_rate()),
                "nestedHitRate": rate(q.nested_hit_rate()),
                "cumulative": q.cumulative.to_json(),
                "cost": num(q.cost),
                "cumulativeCost": num(q.cumulative_cost),
                "keptPercent": rate(q.kept_percent),
                "divergedAt": q.diverged_at,
                "break": q.break_index,
            })
        })
        .collect();
    let breaks: Vec<_> = r
        .breaks
        .iter()
        .map(|b| {
            json!({
                "request": b.request,
                "entryId": b.entry_id,
                "previous": b.previous,
                "cause": b.cause.name(),
                "detail": b.detail,
                "expected": num(b.expected),
                "cacheRead": num(b.cache_read),
            })
        })
        .collect();
    json!({
        "file": r.file,
        "sessionId": r.session_id,
        "leaf": r.leaf_id,
        "retention": r.retention,
        "entries": r.entries,
        "pathEntries": r.path_entries,
        "leaves": r.leaves,
        "summary": {
            "main": r.summary.main.to_json(),
            "nested": r.summary.nested.to_json(),
            "combined": r.summary.combined.to_json(),
            "cost": num(r.summary.cost),
            "models": r.summary.models,
        },
        "noCacheData": r.no_cache_data,
        "requests": requests,
        "breaks": breaks,
        "notes": r.notes,
    })
}
