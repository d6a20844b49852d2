//! `forge-replay context`, `tree` and `check` (issue 2).

use std::path::{Path, PathBuf};

use forge_replay_model::json;
use serde_json::{json, Value};

use crate::support::{fixture, Test};

fn session_fixtures() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = ["sessions", "agent"]
        .iter()
        .flat_map(|g| {
            std::fs::read_dir(fixture(g))
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|e| e.path())
        .filter(|p| p.join("expected.json").is_file() && p.join("session.jsonl").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// `context` and `context --llm` print exactly Pi's messages (JSON and key order) for every
/// expected case of every fixture.
#[test]
fn context_equals_pi_for_every_fixture_case() {
    let dirs = session_fixtures();
    assert!(dirs.len() >= 8, "fixtures missing: {dirs:?}");
    for dir in dirs {
        let session = dir.join("session.jsonl");
        let expected =
            json::parse(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
        for case in expected["cases"].as_array().unwrap() {
            let leaf = case["leafId"].as_str().unwrap();
            for llm in [false, true] {
                let mut t = Test::new().arg("context").arg(&session);
                if case["kind"] != "default" {
                    t = t.args(["--leaf", leaf]);
                }
                if llm {
                    t = t.arg("--llm");
                }
                let out = t.any_status().run();
                assert_eq!(out.status.code(), Some(0), "{} @ {leaf}", dir.display());
                let text = String::from_utf8(out.stdout).unwrap();
                let doc = json::parse(&text).unwrap();
                let want = &case[if llm { "llm" } else { "messages" }];
                assert_eq!(doc["leafId"], case["leafId"], "{}", dir.display());
                assert_eq!(
                    json::stringify(&doc["messages"]),
                    json::stringify(want),
                    "{} @ {leaf} llm={llm}",
                    dir.display()
                );
                // The document is `JSON.stringify(doc, null, 2)` plus a newline.
                assert_eq!(text, json::stringify_pretty(&doc) + "\n");
            }
        }
    }
}

#[test]
fn context_rejects_an_unknown_leaf() {
    Test::new()
        .args([
            "context",
            &fixture("sessions/branches/session.jsonl"),
            "--leaf",
            "nope",
        ])
        .status(2)
        .stderr_contains("cannot select the leaf: no entry with id \"nope\"")
        .stdout("")
        .run();
}

#[test]
fn warnings_go_to_stderr_with_file_and_line() {
    let path = fixture("sessions/tolerated-defects/session.jsonl");
    Test::new()
        .args(["context", &path])
        .stderr_contains(format!("{path}:2: warning: blank line skipped, as Pi does"))
        .stderr_contains(format!("{path}:6: warning: line is not JSON"))
        .stderr_contains(format!("{path}:12: warning: truncated last line"))
        .stdout_contains("\"leafId\": \"d0000006\"")
        .run();
}

#[test]
fn unreadable_input_is_exit_2_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let v4 = dir.path().join("v4.jsonl");
    std::fs::write(
        &v4,
        "{\"v\":4,\"kind\":\"header\",\"id\":\"x\",\"cwd\":\"/\"}\n",
    )
    .unwrap();
    let missing = dir.path().join("missing.jsonl");
    for cmd in ["context", "tree"] {
        Test::new()
            .args([cmd, empty.to_str().unwrap()])
            .status(2)
            .stderr_contains("empty.jsonl: empty file, not a pi session")
            .run();
        Test::new()
            .args([cmd, v4.to_str().unwrap()])
            .status(2)
            .stderr_contains("v4.jsonl:1: unsupported session version 4")
            .run();
        Test::new()
            .args([cmd, missing.to_str().unwrap()])
            .status(2)
            .stderr_contains("missing.jsonl: no such file")
            .run();
        Test::new()
            .args([cmd, dir.path().to_str().unwrap()])
            .status(2)
            .stderr_contains("is a directory, not a session file")
            .run();
    }
}

#[test]
fn tree_text_shows_branches_leaves_labels_and_counts() {
    Test::new()
        .args([
            "tree",
            &fixture("sessions/branches/session.jsonl"),
            "--format",
            "text",
        ])
        .stdout_contains("33 entries, 3 roots, 6 leaves, default leaf 00000021")
        .stdout_contains("├─ 00000004 assistant anthropic/claude-opus-4-8 [stop]")
        .stdout_contains("label 00000005 = \"naming\"")
        .stdout_contains("\"Shipped.\"  ● leaf, 9 messages (default)  (line 34)")
        .stdout_contains("branch summary (from 0000000e)")
        .run();
    Test::new()
        .args([
            "tree",
            &fixture("sessions/compactions/session.jsonl"),
            "--format",
            "text",
        ])
        .stdout_contains("compaction (keeps from 00000008, tokensBefore 2480, system checkpoint)")
        .stdout_contains("compaction (keeps nothing")
        .run();
}

#[test]
fn tree_json_lists_entries_and_leaves() {
    let out = Test::new()
        .args([
            "tree",
            &fixture("sessions/branches/session.jsonl"),
            "--format",
            "json",
        ])
        .run();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["defaultLeafId"], "00000021");
    assert_eq!(doc["entries"].as_array().unwrap().len(), 33);
    let leaves = doc["leaves"].as_array().unwrap();
    assert_eq!(leaves.len(), 6);
    let default: Vec<&Value> = leaves.iter().filter(|l| l["default"] == true).collect();
    assert_eq!(default.len(), 1);
    assert_eq!(default[0]["messages"], 9);
    assert_eq!(
        default[0]["model"],
        json!({"provider": "anthropic", "modelId": "claude-opus-4-8"})
    );
}

#[test]
fn check_exit_codes() {
    // Clean: 0.
    Test::new()
        .args(["check", &fixture("sessions/linear-tools/session.jsonl")])
        .stdout_contains("linear-tools/session.jsonl: ok")
        .run();
    // Tolerated defects: 1, with codes and lines.
    let path = fixture("sessions/tolerated-defects/session.jsonl");
    Test::new()
        .args(["check", &path])
        .status(1)
        .stdout_contains(format!("{path}:2: warning[blank-line]: blank line skipped"))
        .stdout_contains(format!(
            "{path}:9: error[duplicate-id]: duplicate id \"d0000004\" (also line 8)"
        ))
        .stdout_contains(format!("{path}:12: warning[truncated-line]"))
        .run();
    // Unreadable: 2, even next to readable files.
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    Test::new()
        .args(["check", &path, empty.to_str().unwrap()])
        .status(2)
        .stdout_contains("empty.jsonl: unreadable\n")
        .stderr_contains("forge-replay: error: ")
        .stderr_contains("empty.jsonl: empty file")
        .run();
}

#[test]
fn check_walks_directories_and_speaks_json() {
    let out = Test::new()
        .args(["check", &fixture("sessions"), "--format", "json"])
        .status(1)
        .run();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = doc["files"].as_array().unwrap();
    assert!(files.len() >= 8);
    let defects = files
        .iter()
        .find(|f| f["path"].as_str().unwrap().contains("tolerated-defects"))
        .unwrap();
    assert_eq!(defects["status"], "findings");
    assert!(defects["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["code"] == "duplicate-id" && d["line"] == 9 && d["severity"] == "error"));
}

fn snapshot(p: &Path) -> (Vec<u8>, std::time::SystemTime) {
    (
        std::fs::read(p).unwrap(),
        std::fs::metadata(p).unwrap().modified().unwrap(),
    )
}

/// Pi appends a newline to a file whose last line lacks one, and rewrites migrated files;
/// forge-replay never writes its input.
#[test]
fn input_files_are_never_modified() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["tolerated-defects", "legacy-v1"] {
        let src = PathBuf::from(fixture(&format!("sessions/{name}/session.jsonl")));
        let p = dir.path().join(format!("{name}.jsonl"));
        std::fs::copy(&src, &p).unwrap();
        let before = snapshot(&p);
        std::thread::sleep(std::time::Duration::from_millis(20));
        for args in [
            vec!["context"],
            vec!["context", "--llm"],
            vec!["tree"],
            vec!["tree", "--format", "json"],
            vec!["check"],
        ] {
            Test::new().args(args).arg(&p).any_status().run();
        }
        assert_eq!(snapshot(&p), before, "{name} was modified");
    }
}

#[test]
fn a_header_only_session_has_an_empty_context() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("h.jsonl");
    std::fs::write(
        &p,
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n",
    )
    .unwrap();
    Test::new()
        .arg("context")
        .arg(&p)
        .stdout("{\n  \"leafId\": null,\n  \"messages\": []\n}\n")
        .run();
    Test::new()
        .arg("tree")
        .arg(&p)
        .args(["--format", "text"])
        .stdout_contains("0 entries, 0 roots, 0 leaves, default leaf none")
        .run();
    Test::new()
        .arg("check")
        .arg(&p)
        .stdout_contains("h.jsonl: ok")
        .run();
}
