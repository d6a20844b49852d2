//! `replay`, `verify`, `diff`, `scenario` and the recovery part of `check`.

use crate::support::{fixture, repo_root, Test};

fn scenario(name: &str) -> String {
    repo_root()
        .join("scenarios")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn diff_exit_codes_and_paths() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    std::fs::write(
        &a,
        r#"{"messages":[{"content":[{"text":"hi"}]}],"max_tokens":5}"#,
    )
    .unwrap();
    std::fs::write(
        &b,
        r#"{"messages":[{"content":[{"text":"ho"}]}],"max_tokens":5}"#,
    )
    .unwrap();
    Test::new()
        .args(["diff", a.to_str().unwrap(), a.to_str().unwrap()])
        .stdout("equal\n")
        .status(0)
        .run();
    Test::new()
        .args(["diff", a.to_str().unwrap(), b.to_str().unwrap()])
        .stdout_contains("~ $.messages[0].content[0].text")
        .stdout_not_contains("\u{1b}[")
        .status(1)
        .run();
    Test::new()
        .args([
            "diff",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--format",
            "json",
        ])
        .stdout_contains("\"path\": \"$.messages[0].content[0].text\"")
        .status(1)
        .run();
    // A pi-forge `/forge payload next save=` file: redacted keys compare equal.
    let saved = dir.path().join("saved.json");
    std::fs::write(&saved, "{\n  \"messages\": [\n    {\n      \"content\": [\n        {\n          \"text\": \"hi\"\n        }\n      ]\n    }\n  ],\n  \"max_tokens\": \"[redacted]\"\n}").unwrap();
    Test::new()
        .args(["diff", saved.to_str().unwrap(), a.to_str().unwrap()])
        .stdout("equal\n")
        .status(0)
        .run();
    std::fs::write(&b, "{ not json").unwrap();
    Test::new()
        .args(["diff", a.to_str().unwrap(), b.to_str().unwrap()])
        .stderr_contains("b.json:1:")
        .status(2)
        .run();
}

#[test]
fn scenario_compiles_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s1");
    Test::new()
        .args([
            "scenario",
            &scenario("01-read-first-worker.toml"),
            "--out",
            out.to_str().unwrap(),
        ])
        .stderr_contains("01-read-first-worker: wrote 26 entries to")
        .run();
    assert!(out.join(".pi/forge/capabilities/implement.json").exists());
    let session = out.join("session.jsonl");
    Test::new()
        .args(["replay", session.to_str().unwrap(), "--format", "text"])
        .stdout_contains("anthropic/claude-opus-4-8  anthropic-messages")
        .run();
    let dest = dir.path().join("requests");
    Test::new()
        .args([
            "replay",
            session.to_str().unwrap(),
            "--api",
            "google-generative-ai",
            "--out",
            dest.to_str().unwrap(),
        ])
        .run();
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dest.join("index.json")).unwrap()).unwrap();
    let reqs = index["requests"].as_array().unwrap();
    assert_eq!(reqs.len(), 7);
    assert!(dest.join(reqs[0]["file"].as_str().unwrap()).exists());
    Test::new()
        .args(["replay", session.to_str().unwrap(), "--api", "nope"])
        .stderr_contains("invalid value 'nope' for '--api <API>'")
        .status(2)
        .run();
}

#[test]
fn replay_json_shape() {
    let out = Test::new()
        .args([
            "replay",
            &fixture("agent/anthropic-opus-tools/session.jsonl"),
        ])
        .run();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v["requests"][0];
    for k in ["entryId", "api", "provider", "model", "payload", "wire"] {
        assert!(r.get(k).is_some(), "missing {k}");
    }
}

#[test]
fn verify_fails_on_one_flipped_golden_byte_with_its_json_path() {
    let dir = tempfile::tempdir().unwrap();
    let goldens = dir.path().join("golden");
    let junit = dir.path().join("junit.xml");
    let s = scenario("05-deactivation-notice.toml");
    let g = goldens.to_str().unwrap();
    Test::new()
        .args([
            "verify",
            &s,
            "--apis",
            "openai-responses",
            "--golden-dir",
            g,
        ])
        .stdout_contains("missing golden")
        .status(1)
        .run();
    Test::new()
        .args([
            "verify",
            &s,
            "--apis",
            "openai-responses",
            "--golden-dir",
            g,
            "--bless",
        ])
        .stdout_contains("blessed")
        .run();
    Test::new()
        .args([
            "verify",
            &s,
            "--apis",
            "openai-responses",
            "--golden-dir",
            g,
        ])
        .stdout_contains("1 passed, 0 failed")
        .run();
    let file = goldens.join("05-deactivation-notice/openai--gpt-5.5/001.json");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replacen("Skip the tests", "Skip the tesTs", 1)).unwrap();
    Test::new()
        .args([
            "verify",
            &s,
            "--apis",
            "openai-responses",
            "--golden-dir",
            g,
            "--junit",
            junit.to_str().unwrap(),
        ])
        .stdout_contains("FAIL 05-deactivation-notice × openai/gpt-5.5")
        .stdout_contains("first at $.payload.input[")
        .stdout_contains("- \"Skip the tesTs")
        .status(1)
        .run();
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.starts_with("<?xml"));
    assert!(
        xml.contains("<testsuites") && xml.contains("<testsuite name=\"05-deactivation-notice\"")
    );
    assert!(xml.contains("<testcase classname=\"05-deactivation-notice\" name=\"openai/gpt-5.5\""));
    assert!(xml.contains("<failure message=\""));
}

#[test]
fn verify_the_shipped_goldens() {
    Test::new()
        .current_dir(repo_root())
        .args(["verify", "scenarios", "--format", "json"])
        .stdout_contains("\"failed\": 0")
        .run();
}

#[test]
fn check_runs_recovery_checks() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.toml");
    std::fs::write(
        &f,
        "format = \"forge-replay-scenario\"\nversion = 1\nmodel = \"anthropic/claude-opus-4-8\"\ntools = [\"read\"]\n\n[[step]]\nuser = \"go\"\n\n[[step]]\nassistant.tool_calls = [{ name = \"write\", arguments = { path = \"b\" } }]\n\n[[step]]\nassistant.text = \"done\"\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    Test::new()
        .args([
            "scenario",
            f.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .run();
    Test::new()
        .args(["check", out.join("session.jsonl").to_str().unwrap()])
        .stdout_contains("undeclared-tool")
        .status(1)
        .run();
    Test::new()
        .args([
            "check",
            out.join("session.jsonl").to_str().unwrap(),
            "--structural",
        ])
        .stdout_not_contains("undeclared-tool")
        .run();
}
