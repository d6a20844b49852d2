//! Silent work (issue 19.7): every writer says what it wrote, and `replay` / `cache explain`
//! warn about a skipped truncated last line as `tree`, `usage` and `check` do.

use super::support::{fixture, Test};

#[test]
fn every_writer_says_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    Test::new()
        .args(["report", "providers", "--out", &p("providers.md")])
        .stdout("")
        .stderr_contains(format!("wrote {}", p("providers.md")))
        .run();
    Test::new()
        .args([
            "verify",
            &fixture("../scenarios/06-reset.toml"),
            "--apis",
            "anthropic-messages",
            "--junit",
            &p("junit.xml"),
        ])
        .stderr_contains(format!("wrote {}", p("junit.xml")))
        .run();
    Test::new()
        .args([
            "cache",
            "explain",
            &fixture("agent/anthropic-opus-tools/session.jsonl"),
            "--plot",
            &p("breaks.svg"),
        ])
        .stderr_contains(format!("wrote {}", p("breaks.svg")))
        .run();
    assert!(dir.path().join("breaks.svg").is_file());
}

#[test]
fn replay_and_cache_explain_warn_about_a_truncated_last_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut text =
        std::fs::read_to_string(fixture("agent/anthropic-opus-tools/session.jsonl")).unwrap();
    let lines = text.lines().count();
    text.push_str("{\"type\":\"message\",\"id\":\"trunc");
    let path = dir.path().join("truncated.jsonl");
    std::fs::write(&path, &text).unwrap();
    let shown = path.display().to_string();
    let at = format!("{shown}:{}: ", lines + 1);
    for args in [
        vec!["replay", shown.as_str(), "--format", "text"],
        vec!["cache", "explain", shown.as_str()],
    ] {
        Test::new().args(&args).status(0).stderr_contains(&at).run();
    }
}
