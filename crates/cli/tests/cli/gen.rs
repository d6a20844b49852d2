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
        .stderr_contains("wrote 30 sessions (11 forks)")
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

/// Issue 18.5: every command that takes a session directory reads Pi's own one by default:
/// `$PI_CODING_AGENT_DIR/sessions`, else `~/.pi/agent/sessions` (HOME), in Pi's layout.
#[test]
fn commands_that_take_a_sessions_directory_default_to_pis() {
    let agent = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let write = |dir: &std::path::Path| {
        Test::new()
            .args([
                "gen-corpus",
                "--out",
                dir.to_str().unwrap(),
                "--sessions",
                "2",
                "--entries",
                "20",
            ])
            .run();
    };
    write(&agent.path().join("sessions"));
    write(&home.path().join(".pi/agent/sessions"));
    let agent_dir = agent.path().to_str().unwrap().to_string();
    let home_dir = home.path().to_str().unwrap().to_string();
    // (PI_CODING_AGENT_DIR, HOME): the variable wins; without it, HOME's ~/.pi/agent.
    for (env, expect) in [
        (
            vec![
                ("PI_CODING_AGENT_DIR", agent_dir.as_str()),
                ("HOME", home_dir.as_str()),
            ],
            &agent_dir,
        ),
        (
            vec![("PI_CODING_AGENT_DIR", ""), ("HOME", home_dir.as_str())],
            &home_dir,
        ),
    ] {
        let with = |t: Test| env.iter().fold(t, |t, (k, v)| t.env(k, v));
        let check = with(Test::new().args(["check", "--structural"])).run();
        let report = String::from_utf8_lossy(&check.stdout);
        assert_eq!(
            report
                .lines()
                .filter(|l| l.starts_with(expect.as_str()))
                .count(),
            2,
            "{report}"
        );
        let usage = with(Test::new().args(["usage", "--corpus", "--format", "json"])).run();
        let v: serde_json::Value = serde_json::from_slice(&usage.stdout).unwrap();
        assert_eq!(v["files"], 2);
        let upgrade = with(Test::new().args([
            "upgrade", "--from", "0.87.1", "--to", "1.3.0", "--format", "json",
        ]))
        .any_status()
        .run();
        assert_ne!(
            upgrade.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(&upgrade.stderr)
        );
        let up: serde_json::Value = serde_json::from_slice(&upgrade.stdout).unwrap();
        assert_eq!(up["inputs"].as_array().map(Vec::len), Some(2), "{up}");
        let providers = with(Test::new().args(["report", "providers", "--sessions"])).run();
        let text = String::from_utf8_lossy(&providers.stdout);
        assert!(text.contains(&format!("sessions: `{expect}")), "{text}");
    }
}

/// Too few lines per session is refused by name (it was quietly raised to 8), and nothing is
/// written.
#[test]
fn gen_corpus_refuses_fewer_than_eight_lines() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("corpus");
    for n in ["3", "0", "eight"] {
        Test::new()
            .args(["gen-corpus", "--out", out.to_str().unwrap(), "--entries", n])
            .status(2)
            .stderr_contains("--entries")
            .stderr_contains("expected a whole number of lines, at least 8")
            .run();
    }
    assert!(!out.exists());
}
