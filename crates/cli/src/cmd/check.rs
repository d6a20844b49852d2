//! `forge-replay check`: diagnostics for session files, with codes and line numbers.
//!
//! Exit 0 when every file is clean (notes allowed), 1 when any file has warnings or errors,
//! 2 when any file cannot be read as a session. Directories are searched for `*.jsonl`.
//! Structural checks come from the session crate; later checks (capabilities, request recovery)
//! plug in at [`extra_checks`]. Each file also gets a `pi-release` note naming the Pi release it
//! shows; with `--pi R` (or `FORGE_REPLAY_PI`) a session showing another release is a warning.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

use forge_replay_model::error::chain as error_chain;
use forge_replay_model::json;
use forge_replay_session::{Diagnostic, Session};
use rayon::prelude::*;
use serde_json::{Map, Value};

use crate::args::{CheckArgs, TextOrJson};
use crate::out::{self, Out};
use crate::Exit;

/// Fewer files than this finish in about a second: no progress bar.
const PROGRESS_MIN_FILES: usize = 20;

/// What checking one file found.
struct FileReport {
    path: PathBuf,
    /// `Err` = the file is not a readable session.
    result: Result<Vec<Diagnostic>, String>,
}

pub fn run(args: CheckArgs) -> anyhow::Result<Exit> {
    let expected = args.pi.requested()?.map(|(r, _)| r);
    let mut files = Vec::new();
    let mut reports = Vec::new();
    // No paths: Pi's own sessions directory, as `usage --corpus` reads it.
    let paths = match super::paths_or_pi_sessions(&args.paths) {
        Ok(p) => p,
        Err(exit) => return Ok(exit),
    };
    for p in &paths {
        if p.is_dir() {
            let before = files.len();
            collect_jsonl(p, &mut files);
            if files.len() == before {
                reports.push(FileReport {
                    path: p.clone(),
                    result: Err(format!(
                        "{}: no *.jsonl files in this directory",
                        p.display()
                    )),
                });
            }
        } else {
            files.push(p.clone());
        }
    }
    // Progress on stderr, only on a terminal and only for runs long enough to need it.
    let bar = (files.len() >= PROGRESS_MIN_FILES && std::io::stderr().is_terminal()).then(|| {
        let pb = indicatif::ProgressBar::new(files.len() as u64);
        pb.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} files {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    });
    // Sessions are checked in parallel (each opened, checked and dropped on its own task); the
    // reports keep the files' order.
    let checked: Vec<FileReport> = files
        .into_par_iter()
        .map(|path| {
            if let Some(b) = &bar {
                b.inc(1);
            }
            let result = match Session::open(&path) {
                Ok((session, mut diags)) => {
                    let evidence = forge_replay_session::release::detect(&session);
                    diags.extend(forge_replay_session::release::diagnostic(
                        &evidence, expected,
                    ));
                    if !args.structural {
                        diags.extend(extra_checks(&session));
                    }
                    Ok(diags)
                }
                Err(e) => Err(error_chain(&e)),
            };
            FileReport { path, result }
        })
        .collect();
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    reports.extend(checked);

    let mut out = String::new();
    match args.format.text_or_json() {
        TextOrJson::Text => {
            for r in &reports {
                match &r.result {
                    // The cause goes to stderr (below); the report says which file.
                    Err(_) => {
                        out.push_str(&format!("{}: unreadable\n", r.path.display()));
                    }
                    Ok(diags) => {
                        for d in diags {
                            out.push_str(&format!("{}\n", d.display_with_code(&r.path)));
                        }
                        let count =
                            |f: fn(&Diagnostic) -> bool| diags.iter().filter(|d| f(d)).count();
                        let errors = count(|d| d.severity == forge_replay_session::Severity::Error);
                        let warnings =
                            count(|d| d.severity == forge_replay_session::Severity::Warning);
                        let notes = count(|d| d.severity == forge_replay_session::Severity::Info);
                        out.push_str(&format!(
                            "{}: {}\n",
                            r.path.display(),
                            if errors + warnings == 0 {
                                format!("ok ({notes} note{})", plural(notes))
                            } else {
                                format!(
                                    "{errors} error{}, {warnings} warning{}, {notes} note{}",
                                    plural(errors),
                                    plural(warnings),
                                    plural(notes)
                                )
                            }
                        ));
                    }
                }
            }
        }
        TextOrJson::Json => {
            let files: Vec<Value> = reports.iter().map(report_json).collect();
            let mut doc = Map::new();
            doc.insert("files".into(), Value::Array(files));
            out = json::stringify_pretty(&Value::Object(doc)) + "\n";
        }
    }
    let mut stdout = Out::stdout();
    match args.format.text_or_json() {
        TextOrJson::Text => stdout.text(&out)?,
        TextOrJson::Json => stdout.json(&out)?,
    }
    stdout.flush()?;
    // One error line per unreadable file, after the report: `forge-replay: error: <file>: <cause>`.
    for r in &reports {
        if let Err(e) = &r.result {
            out::error!("{}", with_path(&r.path, e));
        }
    }

    let unreadable = reports.iter().any(|r| r.result.is_err());
    let findings = reports.iter().any(|r| {
        r.result
            .as_ref()
            .is_ok_and(|d| d.iter().any(Diagnostic::is_finding))
    });
    Ok(if unreadable {
        Exit::BadInput
    } else if findings {
        Exit::Findings
    } else {
        Exit::Ok
    })
}

/// Hook for checks beyond the structural ones (capability state, request recovery: issues 4
/// and 5). Runs unless `--structural`.
fn extra_checks(session: &Session) -> Vec<Diagnostic> {
    // Recovery checks on every leaf and request (forge_replay_engine::recovery).
    forge_replay_engine::recovery::check(session)
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

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn collect_jsonl(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut stack = vec![dir.to_path_buf()];
    let mut found = Vec::new();
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in rd.flatten() {
            // forge-replay's own temporary files and staged sets are not sessions to check.
            if forge_replay_io::is_temp_name(&entry.file_name()) {
                continue;
            }
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "jsonl") {
                found.push(p);
            }
        }
    }
    found.sort();
    out.extend(found);
}

fn report_json(r: &FileReport) -> Value {
    let mut m = Map::new();
    m.insert("path".into(), Value::from(r.path.display().to_string()));
    match &r.result {
        Err(e) => {
            m.insert("status".into(), Value::from("unreadable"));
            m.insert("error".into(), Value::from(e.clone()));
        }
        Ok(diags) => {
            let status = if diags.iter().any(Diagnostic::is_finding) {
                "findings"
            } else {
                "ok"
            };
            m.insert("status".into(), Value::from(status));
            m.insert(
                "diagnostics".into(),
                Value::Array(
                    diags
                        .iter()
                        .map(|d| {
                            let mut o = Map::new();
                            o.insert("severity".into(), Value::from(d.severity.as_str()));
                            o.insert("code".into(), Value::from(d.code));
                            o.insert("line".into(), d.line.map_or(Value::Null, Value::from));
                            o.insert("message".into(), Value::from(d.message.clone()));
                            Value::Object(o)
                        })
                        .collect(),
                ),
            );
        }
    }
    Value::Object(m)
}
