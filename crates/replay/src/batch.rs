//! `forge-replay check` over many files: the paths given expanded to session files (directories
//! searched for `*.jsonl`), each file checked on its own rayon task, the reports in input order.
//!
//! One file's checks are the session reader's structural diagnostics, the `pi-release` note
//! (and, with an expected release, a warning when the session shows another one), and unless
//! `structural` the recovery checks of [`crate::recovery`]. A file that is not a readable session
//! is a recorded failure, never an aborted batch.

use std::path::{Path, PathBuf};

use forge_replay_model::error::chain as error_chain;
use forge_replay_model::release::PiRelease;
use forge_replay_session::input::VisitedDirs;
use forge_replay_session::{Diagnostic, Session, Severity};
use rayon::prelude::*;
use serde_json::{Map, Value};

/// What checking one file found.
#[derive(Debug, Clone)]
pub struct FileReport {
    pub path: PathBuf,
    /// `Err` = the file is not a readable session (the cause).
    pub result: Result<Vec<Diagnostic>, String>,
}

/// The text of `check` over `reports`: each file's [`FileReport::to_text`], in order.
pub fn reports_text(reports: &[FileReport]) -> String {
    reports.iter().map(FileReport::to_text).collect()
}

/// The `check --format json` document: `{"files": [...]}`, each [`FileReport::to_json`].
pub fn reports_json(reports: &[FileReport]) -> Value {
    let files: Vec<Value> = reports.iter().map(FileReport::to_json).collect();
    serde_json::json!({ "files": files })
}

impl FileReport {
    /// Whether the file has warnings or errors (notes do not count).
    pub fn has_findings(&self) -> bool {
        self.result
            .as_ref()
            .is_ok_and(|d| d.iter().any(Diagnostic::is_finding))
    }

    /// The report's text: each diagnostic with its code, then `<file>: ok (N notes)` or the
    /// counts; `<file>: unreadable` for a file that is not a session (the cause is said apart).
    pub fn to_text(&self) -> String {
        let diags = match &self.result {
            Err(_) => return format!("{}: unreadable\n", self.path.display()),
            Ok(d) => d,
        };
        let mut out = String::new();
        for d in diags {
            out.push_str(&format!("{}\n", d.display_with_code(&self.path)));
        }
        let count = |s: Severity| diags.iter().filter(|d| d.severity == s).count();
        let (errors, warnings, notes) = (
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info),
        );
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        out.push_str(&format!(
            "{}: {}\n",
            self.path.display(),
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
        out
    }

    /// `{path, status: ok|findings|unreadable, diagnostics | error}`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("path".into(), Value::from(self.path.display().to_string()));
        match &self.result {
            Err(e) => {
                m.insert("status".into(), Value::from("unreadable"));
                m.insert("error".into(), Value::from(e.clone()));
            }
            Ok(diags) => {
                let status = if self.has_findings() {
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
}

/// The files to check: a directory is searched (recursively, sorted) for `*.jsonl`, any other
/// path is taken as given. A directory without any is a report of its own (returned second).
pub fn expand(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<FileReport>) {
    let mut files = Vec::new();
    let mut reports = Vec::new();
    for p in paths {
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
    (files, reports)
}

fn collect_jsonl(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut stack = vec![dir.to_path_buf()];
    let mut found = Vec::new();
    // Each directory once, whatever symlink leads to it (a link back up the tree is no loop).
    let mut visited = VisitedDirs::new();
    while let Some(d) = stack.pop() {
        if !visited.first_visit(&d) {
            continue;
        }
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        // forge-replay's own temporary files and staged sets are not sessions to check.
        let mut entries: Vec<PathBuf> = rd
            .flatten()
            .filter(|e| !forge_replay_io::is_temp_name(&e.file_name()))
            .map(|e| e.path())
            .collect();
        // Sorted, so the path a directory is first reached by (and named by) is always the same.
        entries.sort();
        for p in entries.into_iter().rev() {
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

/// Checks one file.
pub fn check_file(path: PathBuf, expected: Option<PiRelease>, structural: bool) -> FileReport {
    let result = match Session::open(&path) {
        Ok((session, mut diags)) => {
            let evidence = forge_replay_session::release::detect(&session);
            diags.extend(forge_replay_session::release::diagnostic(
                &evidence, expected,
            ));
            if !structural {
                // Recovery checks on every leaf and request.
                diags.extend(crate::recovery::check(&session));
            }
            Ok(diags)
        }
        Err(e) => Err(error_chain(&e)),
    };
    FileReport { path, result }
}

/// Checks the files in parallel (each opened, checked and dropped on its own task); the reports
/// keep the files' order. `progress` is called once per file started (from rayon workers).
pub fn check_files(
    files: Vec<PathBuf>,
    expected: Option<PiRelease>,
    structural: bool,
    progress: &(dyn Fn() + Sync),
) -> Vec<FileReport> {
    files
        .into_par_iter()
        .map(|path| {
            progress();
            check_file(path, expected, structural)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reports_of_many_files_keep_their_order() {
        let report = |p: &str| FileReport {
            path: PathBuf::from(p),
            result: Err("no".into()),
        };
        let reports = [report("a.jsonl"), report("b.jsonl")];
        assert_eq!(
            reports_text(&reports),
            "a.jsonl: unreadable\nb.jsonl: unreadable\n"
        );
        let doc = reports_json(&reports);
        assert_eq!(doc["files"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn directories_expand_to_sorted_jsonl_files_and_temporaries_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/b.jsonl"), "").unwrap();
        std::fs::write(dir.path().join("a.jsonl"), "").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "").unwrap();
        std::fs::write(dir.path().join(".forge-replay-tmp.x.jsonl"), "").unwrap();
        let empty = tempfile::tempdir().unwrap();
        let (files, reports) = expand(&[dir.path().to_path_buf(), empty.path().to_path_buf()]);
        assert_eq!(
            files,
            [dir.path().join("a.jsonl"), dir.path().join("sub/b.jsonl")]
        );
        assert_eq!(reports.len(), 1);
        assert!(reports[0]
            .result
            .as_ref()
            .is_err_and(|e| e.contains("no *.jsonl")));
        assert_eq!(
            reports[0].to_text(),
            format!("{}: unreadable\n", empty.path().display())
        );
    }
}
