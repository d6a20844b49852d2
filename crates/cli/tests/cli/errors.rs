//! One error style (issues 17.4, 19.5): every failure prints `forge-replay: error: <file>[:<line>]:
//! <cause>` on stderr, keeps the OS cause, names the faulty flag, says its text once, on one
//! stream. One test per bug found on the way.

use super::support::{fixture, Test};

/// The lines of stderr that carry the error prefix.
fn error_lines(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| l.contains("error:"))
        .map(String::from)
        .collect()
}

#[test]
fn an_unreadable_scenario_keeps_the_os_cause() {
    let dir = tempfile::tempdir().unwrap();
    Test::new()
        .current_dir(dir.path())
        .args(["scenario", "nope.toml", "--out", "out"])
        .status(2)
        .stderr("forge-replay: error: nope.toml: cannot read scenario: No such file or directory (os error 2)\n")
        .run();
    Test::new()
        .current_dir(dir.path())
        .args(["diff", "nope.json", "nope.json"])
        .status(2)
        .stderr(
            "forge-replay: error: nope.json: cannot read: No such file or directory (os error 2)\n",
        )
        .run();
}

#[test]
fn a_bad_model_flag_is_named_not_a_line_of_the_session() {
    let session = fixture("agent/anthropic-opus-tools/session.jsonl");
    let out = Test::new()
        .args(["replay", &session, "--model", "anthropic/no-such-model"])
        .status(2)
        .run();
    assert_eq!(
        error_lines(&out.stderr),
        ["forge-replay: error: --model anthropic/no-such-model: unknown model `anthropic/no-such-model` in the pi-ai 0.87.1 catalog"]
    );
    Test::new()
        .args(["replay", &session, "--model", "no-slash"])
        .status(2)
        .stderr_contains("forge-replay: error: invalid value 'no-slash' for '--model <PROVIDER/ID>': expected provider/id")
        .stderr_not_contains(":0:")
        .run();
}

#[test]
fn a_stopped_cache_explain_says_its_cause_once_on_stderr() {
    let out = Test::new()
        .args([
            "cache",
            "explain",
            &fixture("cache/stopped/session.jsonl"),
            "--format",
            "text",
        ])
        .status(2)
        .stdout_contains("stopped before the leaf")
        .stdout_not_contains("Snapshot fingerprint mismatch")
        .run();
    let lines = error_lines(&out.stderr);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = &lines[0];
    assert!(line.starts_with("forge-replay: error: "), "{line}");
    assert!(
        line.contains("stopped/session.jsonl:14: entry 0000000d: "),
        "{line}"
    );
    assert!(
        line.ends_with("Invalid Forge capability history: Snapshot fingerprint mismatch"),
        "{line}"
    );
    // Forge's own message already says what is invalid: the wrapper does not say it again.
    assert_eq!(
        line.to_lowercase().matches("capability history").count(),
        1,
        "{line}"
    );
}

#[test]
fn check_reports_an_unreadable_file_with_the_one_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let out = Test::new()
        .current_dir(dir.path())
        .args(["check", "nope.jsonl"])
        .status(2)
        .stdout("nope.jsonl: unreadable\n")
        .run();
    assert_eq!(
        error_lines(&out.stderr),
        ["forge-replay: error: nope.jsonl: no such file"]
    );
    // The JSON report keeps the cause, without any prefix.
    Test::new()
        .current_dir(dir.path())
        .args(["check", "nope.jsonl", "--format", "json"])
        .status(2)
        .stdout_contains("\"error\": \"nope.jsonl: no such file\"")
        .stderr("forge-replay: error: nope.jsonl: no such file\n")
        .run();
}

#[test]
fn an_orphan_tool_result_with_an_empty_id_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("sessions/linear-tools/session.jsonl")).unwrap();
    let text = text.replacen("\"toolCallId\":\"toolu_01A\"", "\"toolCallId\":\"\"", 1);
    let path = dir.path().join("empty-id.jsonl");
    std::fs::write(&path, text).unwrap();
    Test::new()
        .args(["check", &path.display().to_string()])
        .status(1)
        .stdout_contains("tool result with an empty toolCallId has no matching tool call")
        .stdout_not_contains("tool result for  has")
        .run();
}

#[test]
fn unknown_apis_list_the_valid_ones() {
    for args in [
        &["verify", "--apis", "anthropic"][..],
        &["models", "--api", "anthropic"],
        &["replay", "x.jsonl", "--api", "anthropic"],
    ] {
        Test::new()
            .args(args)
            .status(2)
            .stderr_contains("forge-replay: error: invalid value 'anthropic' for '--api")
            .stderr_contains("anthropic-messages, bedrock-converse-stream, google-generative-ai")
            .run();
    }
}

#[test]
fn verify_puts_a_case_error_on_stderr_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = Test::new()
        .current_dir(dir.path())
        .args(["verify", "nope.toml"])
        .status(2)
        .stdout_contains("ERROR nope × *\n")
        .stdout_not_contains("No such file")
        .run();
    assert_eq!(
        error_lines(&out.stderr),
        ["forge-replay: error: nope.toml: cannot read scenario: No such file or directory (os error 2)"]
    );
}

#[test]
fn usage_errors_carry_the_one_prefix() {
    Test::new()
        .args(["frobnicate"])
        .status(2)
        .stderr_contains("forge-replay: error: unrecognized subcommand 'frobnicate'")
        .run();
}

/// A leaf that is not in the session: the file is said once, though two layers name it.
#[test]
fn an_unknown_leaf_names_the_file_once() {
    let session = fixture("agent/anthropic-opus-tools/session.jsonl");
    for args in [
        vec!["cache", "explain", &session, "--leaf", "nope"],
        vec!["replay", &session, "--leaf", "nope"],
        vec!["report", "session", &session, "--leaf", "nope"],
    ] {
        let out = Test::new().args(args.clone()).status(2).run();
        let lines = error_lines(&out.stderr);
        assert_eq!(lines.len(), 1, "{args:?}: {lines:?}");
        assert_eq!(
            lines[0].matches("session.jsonl").count(),
            1,
            "{args:?}: {}",
            lines[0]
        );
        assert!(
            lines[0].ends_with("no entry with id \"nope\""),
            "{}",
            lines[0]
        );
    }
}

/// A stdout that cannot be written (a full disk) is named in the error line, as every other
/// output is: `forge-replay: error: stdout: No space left on device`, not a bare OS reason.
#[cfg(target_os = "linux")]
#[test]
fn a_stdout_that_cannot_be_written_is_named() {
    for args in [
        vec!["models"],
        vec!["releases"],
        vec!["tree", &fixture("sessions/branches/session.jsonl")],
        vec![
            "replay",
            &fixture("agent/anthropic-opus-tools/session.jsonl"),
        ],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_forge-replay"))
            .args(&args)
            .env_remove("FORGE_REPLAY_PI")
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(
            error_lines(&o.stderr),
            ["forge-replay: error: stdout: No space left on device (os error 28)"],
            "{args:?}"
        );
    }
}

/// A case file or catalog of several lines that is not valid JSON says the line where parsing
/// stopped, not only the column (`at column 0` of a file cut on line 12 pointed nowhere).
#[test]
fn a_bad_multi_line_case_or_catalog_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("cut.case.json");
    std::fs::write(&case, "{\n  \"model\": {\n    \"id\": \"x\",\n").unwrap();
    Test::new()
        .args(["assemble", case.to_str().unwrap()])
        .status(2)
        .stderr_contains(
            "malformed case: $: not valid JSON: EOF while parsing a value at line 4 column 0",
        )
        .run();
    let catalog = dir.path().join("cut.catalog.json");
    std::fs::write(&catalog, "{\n  \"anthropic\": [\n").unwrap();
    Test::new()
        .args([
            "replay",
            &fixture("agent/anthropic-opus-tools/session.jsonl"),
        ])
        .arg(format!("--catalog={}", catalog.display()))
        .status(2)
        .stderr_contains("not valid JSON: EOF while parsing a list at line 3 column 0")
        .run();
}
