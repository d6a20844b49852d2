//! The malformed-input corpus (issue 17 item 6). `tests/malformed/inputs/` holds hostile inputs,
//! made by `tests/malformed/make.py` from one good session: truncated lines, invalid UTF-8, NUL,
//! a BOM, CRLF, deep nesting, a parent cycle, a duplicate id, a missing parent, numbers beyond
//! the double range, wrong types, binary garbage, a directory and a symlink loop given as a
//! session, and bad scenarios, cases and payloads. `tests/malformed/cases.toml` says, for every
//! command run on each input, the exit code and the exact lines on stderr (the release notes
//! aside). This test runs them all and reports every mismatch at once. It also checks the rules
//! every failure follows (one `forge-replay: error:` line, last, naming the input), that every
//! input is covered, and that no input was modified.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::support::{repo_root, Test};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Cases {
    case: Vec<Case>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// Relative to `tests/malformed/inputs`, which is the working directory of every command.
    input: String,
    /// Argument lists; `{input}` is the input, `{tmp}` a fresh empty directory.
    commands: Vec<Vec<String>>,
    exit: i32,
    /// Every stderr line but `forge-replay: note: …`, in order (`{tmp}` for the directory).
    stderr: Vec<String>,
}

fn corpus() -> PathBuf {
    repo_root().join("tests/malformed")
}

/// Every path under `dir` (files, directories, symlinks), relative to it; a directory given as
/// an input is not descended into.
fn inputs(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for kind in std::fs::read_dir(dir).unwrap() {
        let kind = kind.unwrap().path();
        for entry in std::fs::read_dir(&kind).unwrap() {
            let p = entry.unwrap().path();
            out.push(p.strip_prefix(dir).unwrap().to_string_lossy().into_owned());
        }
    }
    out.sort();
    out
}

/// The bytes of every regular file of the corpus (symlinks not followed).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                stack.push(p);
            } else if meta.is_file() {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn every_malformed_input_gets_its_documented_exit_code_and_error_line() {
    let root = corpus().join("inputs");
    let text = std::fs::read_to_string(corpus().join("cases.toml")).unwrap();
    let cases: Cases = toml::from_str(&text).expect("tests/malformed/cases.toml");
    let before = snapshot(&root);

    let mut failures = Vec::new();
    let mut runs = 0;
    for case in &cases.case {
        for command in &case.commands {
            let tmp = tempfile::tempdir().unwrap();
            let args: Vec<String> = command
                .iter()
                .map(|a| {
                    a.replace("{input}", &case.input)
                        .replace("{tmp}", &tmp.path().display().to_string())
                })
                .collect();
            let out = Test::new()
                .current_dir(&root)
                .args(&args)
                .any_status()
                .within(60)
                .run();
            runs += 1;
            let stderr = String::from_utf8_lossy(&out.stderr);
            // The temporary directory is volatile: shown as `{tmp}`.
            let stderr = stderr.replace(&tmp.path().display().to_string(), "{tmp}");
            let lines: Vec<&str> = stderr
                .lines()
                .filter(|l| !l.starts_with("forge-replay: note:"))
                .collect();
            let shown = format!(
                "forge-replay {}",
                command.join(" ").replace("{input}", &case.input)
            );
            if out.status.code() != Some(case.exit) {
                failures.push(format!(
                    "{shown}: exit {:?}, expected {}",
                    out.status.code(),
                    case.exit
                ));
            }
            if lines != case.stderr {
                failures.push(format!(
                    "{shown}: stderr\n    got:      {lines:?}\n    expected: {:?}",
                    case.stderr
                ));
            }
            // The rules every failure follows, whatever cases.toml says.
            let errors: Vec<&&str> = lines
                .iter()
                .filter(|l| l.starts_with("forge-replay: error: "))
                .collect();
            if case.exit == 2 {
                let last = lines.last().copied().unwrap_or_default();
                if errors.len() != 1 || !last.starts_with("forge-replay: error: ") {
                    failures.push(format!(
                        "{shown}: a failure must end with exactly one `forge-replay: error:` line, got {lines:?}"
                    ));
                }
                if !last.contains(case.input.trim_end_matches('/'))
                    && !args.iter().any(|a| last.contains(a.as_str()))
                {
                    failures.push(format!(
                        "{shown}: the error line names neither the input nor an argument: {last}"
                    ));
                }
            } else if !errors.is_empty() {
                failures.push(format!(
                    "{shown}: exit {} with an error line: {errors:?}",
                    case.exit
                ));
            }
        }
    }

    // Every input is run by some case, and every case names an input that exists.
    let covered: Vec<&str> = cases
        .case
        .iter()
        .flat_map(|c| {
            std::iter::once(c.input.as_str()).chain(
                c.commands
                    .iter()
                    .flatten()
                    .map(String::as_str)
                    .filter(|a| a.contains('/') && !a.contains('{')),
            )
        })
        .collect();
    let all = inputs(&root);
    for input in &all {
        if !covered.contains(&input.as_str()) {
            failures.push(format!("{input}: no case in cases.toml runs it"));
        }
    }
    for case in &cases.case {
        if !all.contains(&case.input) {
            failures.push(format!(
                "cases.toml names {}, which is not in inputs/",
                case.input
            ));
        }
    }
    assert_eq!(before, snapshot(&root), "a command modified the corpus");
    assert!(runs >= 150, "only {runs} runs: the corpus lost its cases");
    assert!(
        failures.is_empty(),
        "{} of {runs} runs differ from tests/malformed/cases.toml:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
