//! `forge-replay report session`: the HTML page is written atomically, to a file or to stdout;
//! bad input writes nothing.

use crate::support::{fixture, Test};

#[test]
fn report_session_writes_one_self_contained_page() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("nested/report.html");
    let session = fixture("cache/report/session.jsonl");
    let before = std::fs::read(&session).unwrap();
    Test::new()
        .args(["report", "session", &session, "--out"])
        .arg(&out)
        .stderr_contains("(9 requests, 4 cache breaks)")
        .status(0)
        .run();
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("id=\"report-data\""));
    // Nothing is loaded from anywhere.
    assert!(!page.contains(" src=") && !page.contains("<link") && !page.contains("url("));
    // The input is untouched; no temporary file is left beside the page.
    assert_eq!(std::fs::read(&session).unwrap(), before);
    let names: Vec<_> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["report.html"]);
}

#[test]
fn report_session_prints_to_a_pipe_and_is_deterministic() {
    let args = ["report", "session", &fixture("cache/report/session.jsonl")];
    let a = Test::new().args(args).stdout_contains("</html>").run();
    let b = Test::new().args(args).run();
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn report_session_bad_input_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.html");
    Test::new()
        .args(["report", "session", "no-such-session.jsonl", "--out"])
        .arg(&out)
        .stderr_contains("no-such-session.jsonl")
        .status(2)
        .run();
    Test::new()
        .args(["report", "session", &fixture("cache/report/session.jsonl")])
        .args(["--leaf", "nowhere", "--out"])
        .arg(&out)
        .stderr_contains("cannot select the leaf: no entry with id \"nowhere\"")
        .status(2)
        .run();
    assert!(!out.exists());
    // An output path below a file cannot be written.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "x").unwrap();
    Test::new()
        .args([
            "report",
            "session",
            &fixture("cache/report/session.jsonl"),
            "--out",
        ])
        .arg(blocker.join("report.html"))
        .stderr_contains("forge-replay: error: cannot write")
        .stderr_contains("File exists")
        .status(2)
        .run();
}

#[test]
fn report_session_with_a_replay_that_stops_is_written_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("stopped.html");
    Test::new()
        .args([
            "report",
            "session",
            &fixture("cache/stopped/session.jsonl"),
            "--out",
        ])
        .arg(&out)
        .stderr_contains("could not be rebuilt")
        .status(1)
        .run();
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .contains("could not be rebuilt"));
}

/// A file's findings are said on stderr as every session command says them (at most 20 of a
/// code, then how many more), while the page lists every one.
#[test]
fn report_session_caps_the_findings_on_stderr_like_the_other_commands() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = std::fs::read_to_string(fixture("cache/report/session.jsonl")).unwrap();
    for k in 0..25 {
        text.push_str(&format!("not json {k}\n"));
    }
    let session = dir.path().join("s.jsonl");
    std::fs::write(&session, &text).unwrap();
    let out = dir.path().join("r.json");
    let run = Test::new()
        .args(["report", "session"])
        .arg(&session)
        .args(["--format", "json", "--out"])
        .arg(&out)
        .stderr_contains("5 more [")
        .status(1)
        .run();
    let stderr = String::from_utf8_lossy(&run.stderr);
    let said = stderr
        .lines()
        .filter(|l| l.contains("line is not JSON"))
        .count();
    assert_eq!(said, 20, "{stderr}");
    assert!(!stderr.contains("forge-replay: /"), "{stderr}");
    let page: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let notes = page["notes"].as_array().map_or(0, Vec::len);
    assert!(notes >= 25, "the page lists {notes} notes");
}
