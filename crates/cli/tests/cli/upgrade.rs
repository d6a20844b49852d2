//! `forge-replay upgrade`: exit codes, `--fail-on`, unknown releases, a model the target release
//! lacks, a bad input in a batch.

use crate::support::{fixture, Test};

#[test]
fn no_change_is_exit_0_and_a_change_is_exit_1() {
    // pi-ai 0.87.1 and 1.3.0 build this request identically (both goldens are equal).
    Test::new()
        .args(["upgrade", "--from", "0.87.1", "--to", "1.3.0"])
        .arg(fixture("wire/anthropic-cache-none.case.json"))
        .stdout_contains("anthropic/claude-sonnet-4-6: unchanged")
        .stdout_contains("1 input, 1 request: 0 changed, 1 unchanged")
        .status(0)
        .run();
    // 1.3 estimates 3.5 characters per token, so the clamped max_tokens changes.
    Test::new()
        .args(["upgrade", "--from", "0.87.1", "--to", "1.3.0"])
        .arg(fixture("agent/completions-kimi-tools/session.jsonl"))
        .stdout_contains("moonshotai/kimi-k3: max-tokens")
        .stdout_contains("max-tokens changed body     $.max_tokens")
        .stdout_contains(
            "body: first change at byte 334 of 1605; cache prefix kept 334 of 1606 bytes",
        )
        .stdout_contains("requests changed by kind: max-tokens 4")
        .status(1)
        .run();
    // The same release on both sides changes nothing.
    Test::new()
        .args(["upgrade", "--from", "1.3.0", "--to", "1.3.0"])
        .arg(fixture("agent/completions-kimi-tools/session.jsonl"))
        .stdout_contains("0 changed, 4 unchanged")
        .status(0)
        .run();
}

#[test]
fn fail_on_names_the_kinds_that_fail() {
    let session = fixture("agent/completions-kimi-tools/session.jsonl");
    for (kinds, status) in [
        ("tools,thinking", 0),
        ("tools,max-tokens", 1),
        ("missing-model", 0),
    ] {
        Test::new()
            .args([
                "upgrade",
                "--from",
                "0.87.1",
                "--to",
                "1.3.0",
                "--fail-on",
                kinds,
            ])
            .arg(&session)
            .status(status)
            .run();
    }
    Test::new()
        .args(["upgrade", "--from", "0.87.1", "--to", "1.3.0", "--fail-on", "tool"])
        .arg(&session)
        .stderr_contains("--fail-on: unknown kind \"tool\"; expected headers, tools, system, thinking, max-tokens, sampling, messages, threading, other, missing-model")
        .status(2)
        .run();
}

#[test]
fn an_unknown_release_is_exit_2_listing_the_supported_ones() {
    for (flag, args) in [
        ("--to", ["--from", "0.87.1", "--to", "1.5.2"]),
        ("--from", ["--from", "0.87", "--to", "1.3.0"]),
    ] {
        Test::new()
            .arg("upgrade")
            .args(args)
            .arg(fixture("agent/completions-kimi-tools/session.jsonl"))
            .stderr_contains(format!("{flag}: unknown Pi release"))
            .stderr_contains("supported releases: 0.87.1, 1.3.0, 1.6.0")
            .stdout("")
            .status(2)
            .run();
    }
}

#[test]
fn a_model_missing_from_the_target_catalog_is_reported_per_request() {
    // mistral/magistral-small is gone from pi-ai 1.3.0's catalog; the other input is compared.
    Test::new()
        .args(["upgrade", "--from", "0.87.1", "--to", "1.3.0"])
        .arg(fixture("wire/mistral-magistral-off-headers.case.json"))
        .arg(fixture("agent/completions-kimi-tools/session.jsonl"))
        .stdout_contains("mistral/magistral-small: model missing in 1.3.0: unknown model `mistral/magistral-small` in the pi-ai 1.3.0 catalog")
        .stdout_contains("2 inputs, 5 requests: 4 changed, 0 unchanged, 1 model missing in the target release")
        .status(1)
        .run();
    // With --fail-on, a missing model fails only when named.
    for (kinds, status) in [("tools", 0), ("tools,missing-model", 1)] {
        Test::new()
            .args([
                "upgrade",
                "--from",
                "0.87.1",
                "--to",
                "1.3.0",
                "--fail-on",
                kinds,
            ])
            .arg(fixture("wire/mistral-magistral-off-headers.case.json"))
            .status(status)
            .run();
    }
    let out = Test::new()
        .args([
            "upgrade", "--from", "0.87.1", "--to", "1.3.0", "--format", "json",
        ])
        .arg(fixture("wire/mistral-magistral-off-headers.case.json"))
        .status(1)
        .run();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["missingInTarget"], 1);
    assert_eq!(v["inputs"][0]["requests"][0]["status"], "missing-in-target");
}

#[test]
fn one_bad_input_is_a_recorded_failure_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.jsonl");
    std::fs::write(&bad, "{\"type\":\"session\"\nnot json\n").unwrap();
    let before = std::fs::read(&bad).unwrap();
    Test::new()
        .args(["upgrade", "--from", "0.87.1", "--to", "1.3.0"])
        .arg(&bad)
        .arg(fixture("agent/completions-kimi-tools/session.jsonl"))
        .stdout_contains("moonshotai/kimi-k3: max-tokens")
        .stdout_contains("1 input failed")
        .stderr_contains("broken.jsonl")
        .status(2)
        .run();
    assert_eq!(
        std::fs::read(&bad).unwrap(),
        before,
        "the input was modified"
    );
}

#[test]
fn json_and_markdown_formats() {
    let session = fixture("agent/completions-kimi-tools/session.jsonl");
    let out = Test::new()
        .args([
            "upgrade", "--from", "0.87.1", "--to", "1.3.0", "--format", "json",
        ])
        .arg(&session)
        .status(1)
        .run();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["from"], "0.87.1");
    assert_eq!(v["to"], "1.3.0");
    assert_eq!(v["summary"]["changed"], 4);
    assert_eq!(v["summary"]["byKind"]["max-tokens"], 4);
    let r = &v["inputs"][0]["requests"][0];
    assert_eq!(r["changes"][0]["path"], "$.max_tokens");
    assert_eq!(r["changes"][0]["kind"], "max-tokens");
    assert_eq!(r["firstChangedByte"], 334);
    assert_eq!(r["cache"]["commonPrefixBytes"], 334);
    assert!(r["cache"]["cacheWriteTokens"].as_u64().unwrap() > 0);
    Test::new()
        .args([
            "upgrade", "--from", "0.87.1", "--to", "1.3.0", "--format", "md",
        ])
        .arg(&session)
        .stdout_contains("# Pi 0.87.1 → 1.3.0")
        .stdout_contains("| changed: max-tokens | 4 |")
        .status(1)
        .run();
}

/// An input that is not there says so, and each failed input names its file once.
#[test]
fn a_missing_input_is_named_once_with_its_cause() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("gone");
    let gone_jsonl = dir.path().join("gone.jsonl");
    let out = Test::new()
        .args([
            "upgrade", "--from", "0.87.1", "--to", "1.6.0", "--format", "text",
        ])
        .arg(&gone)
        .arg(&gone_jsonl)
        .stdout_contains("gone: error: cannot read the input: No such file or directory")
        .stdout_contains("gone.jsonl: error: cannot read the session: no such file")
        .stdout_contains("2 inputs failed")
        .status(2)
        .run();
    let text = String::from_utf8_lossy(&out.stdout);
    for path in [&gone, &gone_jsonl] {
        let named = text.matches(&format!("{}:", path.display())).count();
        assert_eq!(named, 1, "{} named {named} times:\n{text}", path.display());
    }
}

/// What reading a session finds (a blank line, a bad line, a truncated last line) is said on
/// stderr with file and line, as every other command that reads a session says it; upgrade
/// dropped it, so a session cut short looked like one with fewer requests.
#[test]
fn the_warnings_of_reading_a_session_are_said() {
    let path = fixture("sessions/tolerated-defects/session.jsonl");
    Test::new()
        .args(["upgrade", "--from", "0.87.1", "--to", "1.3.0", &path])
        .stderr_contains(format!("{path}:2: warning: blank line skipped, as Pi does"))
        .stderr_contains(format!("{path}:6: warning: line is not JSON"))
        .stderr_contains(format!("{path}:12: warning: truncated last line"))
        .stdout_contains("1 input, 3 requests: 0 changed, 3 unchanged")
        .status(0)
        .run();
}
