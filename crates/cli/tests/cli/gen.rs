//! `gen-corpus` writes sessions the tool itself accepts (issue 19.2): every file passes `check`
//! (structural and recovery checks) and replays on the APIs it records.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::support::Test;

fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            jsonl_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

#[test]
fn a_generated_corpus_passes_check_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    Test::new()
        .args([
            "gen-corpus",
            "--out",
            corpus.to_str().unwrap(),
            "--sessions",
            "30",
            "--entries",
            "80",
            "--forks",
            "0.4",
            "--seed",
            "3",
        ])
        .stdout_contains("wrote 30 sessions")
        .run();
    let out = Test::new()
        .args(["check", corpus.to_str().unwrap()])
        .status(0)
        .stdout_not_contains("error[")
        .stdout_not_contains("warning[")
        .run();
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        report
            .lines()
            .filter(|l| l.ends_with(": ok (0 notes)"))
            .count(),
        30,
        "{report}"
    );
    let mut files = Vec::new();
    jsonl_files(&corpus, &mut files);
    files.sort();
    assert_eq!(files.len(), 30);
    let mut apis = BTreeSet::new();
    for f in &files {
        let out = Test::new()
            .args(["replay", f.to_str().unwrap(), "--format", "json"])
            .status(0)
            .stderr_not_contains("error")
            .stderr_not_contains("warning")
            .run();
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("replay JSON");
        for r in doc["requests"].as_array().expect("requests") {
            apis.insert(r["api"].as_str().expect("api").to_string());
        }
        Test::new()
            .args(["cache", "explain", f.to_str().unwrap()])
            .status(0)
            .run();
    }
    // The generator's six models span five APIs; this corpus uses all of them.
    assert_eq!(
        apis.into_iter().collect::<Vec<_>>(),
        [
            "anthropic-messages",
            "google-generative-ai",
            "mistral-conversations",
            "openai-codex-responses",
            "openai-responses"
        ]
    );
}

/// Issue 18.5: with no paths, `check` reads Pi's own sessions directory, as `usage --corpus`.
#[test]
fn check_defaults_to_pi_sessions_directory() {
    let dir = tempfile::tempdir().unwrap();
    Test::new()
        .args([
            "gen-corpus",
            "--out",
            dir.path().join("sessions").to_str().unwrap(),
            "--sessions",
            "3",
            "--entries",
            "30",
        ])
        .run();
    let out = Test::new()
        .args(["check"])
        .env("PI_CODING_AGENT_DIR", dir.path())
        .status(0)
        .run();
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        report
            .lines()
            .filter(|l| l.ends_with(": ok (0 notes)"))
            .count(),
        3,
        "{report}"
    );
    Test::new()
        .args(["check"])
        .env("PI_CODING_AGENT_DIR", dir.path().join("nowhere"))
        .status(2)
        .stderr_contains("forge-replay: error: ")
        .stderr_contains("nowhere/sessions: Pi's sessions directory does not exist")
        .run();
}
