//! `forge-replay releases`, `--pi` and `FORGE_REPLAY_PI`, release detection of sessions and
//! `models --changes`.

use crate::support::{fixture, repo_root, Test};

/// `docs/releases.md` is generated from the table the code follows; it must not drift.
#[test]
fn docs_releases_md_is_the_generated_page() {
    let out = Test::new().args(["releases", "--format", "md"]).run();
    let generated = String::from_utf8_lossy(&out.stdout).into_owned();
    let committed =
        std::fs::read_to_string(repo_root().join("docs/releases.md")).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/releases.md is stale; regenerate it with\n  cargo run -p forge-replay -- releases --format md > docs/releases.md"
    );
}

#[test]
fn unknown_release_is_exit_2_naming_the_supported_ones() {
    for args in [
        vec!["models", "--pi", "2.0"],
        vec![
            "replay",
            "--pi",
            "1.3",
            &fixture("agent/anthropic-opus-tools/session.jsonl"),
        ],
    ] {
        Test::new()
            .args(args)
            .stderr_contains("unknown Pi release")
            .stderr_contains("supported releases: 0.87.1, 1.3.0")
            .status(2)
            .run();
    }
    Test::new()
        .args(["models"])
        .env("FORGE_REPLAY_PI", "0.88")
        .stderr_contains("FORGE_REPLAY_PI: unknown Pi release \"0.88\"")
        .status(2)
        .run();
}

#[test]
fn sessions_say_which_release_they_follow() {
    let session = fixture("agent/anthropic-opus-tools/session.jsonl");
    Test::new()
        .args(["replay", "--format", "text", &session])
        .stderr_contains("following Pi 0.87.1, the release that wrote it")
        .run();
    // --pi against the evidence: followed, with a warning.
    Test::new()
        .args(["replay", "--format", "text", "--pi", "1.3.0", &session])
        .stderr_contains("warning:")
        .stderr_contains("following --pi 1.3.0 as asked, but it shows Pi 0.87.1")
        .run();
    Test::new()
        .args(["replay", "--format", "text", &session])
        .env("FORGE_REPLAY_PI", "1.3.0")
        .stderr_contains("following FORGE_REPLAY_PI 1.3.0 as asked")
        .run();
    // --pi wins over the environment.
    Test::new()
        .args(["replay", "--format", "text", "--pi", "0.87.1", &session])
        .env("FORGE_REPLAY_PI", "1.3.0")
        .stderr_not_contains("warning:")
        .run();
}

#[test]
fn check_names_the_release_and_pi_expects_one() {
    let session = fixture("agent/anthropic-opus-tools/session.jsonl");
    // A session without markers is the default release: nothing to say.
    Test::new()
        .args(["check", "--structural", &session])
        .stdout_not_contains("pi-release")
        .status(0)
        .run();
    Test::new()
        .args(["check", "--structural", "--pi", "1.3.0", &session])
        .stdout_contains(
            "warning[pi-release]: expected a session of Pi 1.3.0, but it shows Pi 0.87.1",
        )
        .status(1)
        .run();
}

#[test]
fn models_per_release_and_changes() {
    Test::new()
        .args([
            "models",
            "--pi",
            "1.3.0",
            "--api",
            "azure-openai-responses",
            "--format",
            "text",
        ])
        .stdout_contains("azure/gpt-5.5")
        .stdout_contains("pi-ai 1.3.0")
        .run();
    let out = Test::new()
        .args(["models", "--changes", "0.87.1..1.3.0", "--format", "json"])
        .run();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["added"].as_array().map(Vec::len), Some(201));
    assert_eq!(v["removed"].as_array().map(Vec::len), Some(82));
    // The azure rename is not churn.
    assert!(!v["added"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m == "azure/gpt-5.5"));
    Test::new()
        .args(["models", "--changes", "0.87.1-1.3.0"])
        .stderr_contains("expected FROM..TO")
        .status(2)
        .run();
}

/// A session whose responses carry 1.3's markers is followed as 1.3.0, said on stderr; `check`
/// notes it, and `check --pi 0.87.1` warns.
#[test]
fn a_1_3_session_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s13.jsonl");
    let text = [
        r#"{"type":"session","version":3,"id":"019c0000-0000-7000-8000-000000000013","timestamp":"2026-10-01T08:00:00.000Z","cwd":"/w"}"#,
        r#"{"type":"model_change","id":"01","parentId":null,"timestamp":"2026-10-01T08:00:01.000Z","provider":"anthropic","modelId":"claude-opus-4-8"}"#,
        r#"{"type":"message","id":"02","parentId":"01","timestamp":"2026-10-01T08:00:02.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
        r#"{"type":"message","id":"03","parentId":"02","timestamp":"2026-10-01T08:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-8","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2,"thinkingLevel":"high","durationMs":420}}"#,
    ]
    .join("\n")
        + "\n";
    std::fs::write(&path, &text).unwrap();
    let p = path.display().to_string();
    let out = Test::new()
        .args(["replay", &p])
        .stderr_contains("following Pi 1.3.0, the release that wrote it (an assistant message with `thinkingLevel` (1×, first on line 4)")
        .run();
    // The recorded level is the request's: adaptive thinking with effort high.
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["requests"][0]["payload"]["output_config"]["effort"],
        "high"
    );
    assert!(!v["requests"][0]["payload"]["betas"]
        .to_string()
        .contains("mid-conversation-tool-changes"),);
    Test::new()
        .args(["check", "--structural", &p])
        .stdout_contains("info[pi-release]: written by Pi 1.3.0")
        .stdout_not_contains("unknown")
        .status(0)
        .run();
    Test::new()
        .args(["check", "--structural", "--pi", "0.87.1", &p])
        .stdout_contains(
            "warning[pi-release]: expected a session of Pi 0.87.1, but it was written by Pi 1.3.0",
        )
        .status(1)
        .run();
    // The input is never modified.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

/// A 1.6.0 strict-tool limit sequence (real pi-ai golden): the first request is resent with its
/// `prefer` tools non-strict, the session's later requests start non-strict.
#[test]
fn assemble_names_strict_tools_fallbacks() {
    let case = fixture("releases/1.6.0/wire/strict-anthropic-first-turn.case.json");
    Test::new()
        .args(["assemble", "--format", "text", &case])
        .stdout_contains("resent non-strict (anthropic_strict_tools_fallback)")
        .stdout_contains("non-strict (session over the strict-tool limits)")
        .run();
    let out = Test::new()
        .args(["assemble", "--format", "json", &case])
        .run();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let r = &v["requests"];
    assert_eq!(
        r[0]["strictFallback"]["type"],
        "anthropic_strict_tools_fallback"
    );
    assert_eq!(
        r[0]["strictFallback"]["rejectedPayload"]["tools"][0]["strict"],
        true
    );
    assert!(r[0]["payload"]["tools"][0].get("strict").is_none());
    assert!(r[1].get("strictFallback").is_none());
    assert_eq!(r[1]["thread"], "continue");
}
