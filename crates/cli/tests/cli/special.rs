//! Special files as inputs: a FIFO (a real `mkfifo`, with nobody writing to it) given wherever
//! forge-replay reads a file must be refused with a clear error, never waited on. Every run has
//! a watchdog, so a regression fails the test instead of hanging the suite.

#![cfg(unix)]

use std::path::{Path, PathBuf};

use crate::support::{fixture, Test};

/// Seconds a refused input may take (it should take milliseconds).
const LIMIT: u64 = 30;

const REFUSED: &str = "is a FIFO (named pipe), not a regular file";

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("run mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

struct Dir {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Dir {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        Dir { _tmp: tmp, root }
    }
    fn fifo(&self, name: &str) -> String {
        let p = self.root.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        mkfifo(&p);
        p.display().to_string()
    }
    fn path(&self, name: &str) -> String {
        self.root.join(name).display().to_string()
    }
}

#[test]
fn a_fifo_session_is_refused_by_every_session_command() {
    let d = Dir::new();
    let fifo = d.fifo("s.jsonl");
    for args in [
        vec!["context", &fifo],
        vec!["tree", &fifo],
        vec!["replay", &fifo],
        vec!["cache", "explain", &fifo],
        vec!["capabilities", &fifo],
        vec!["usage", &fifo],
        vec!["report", "session", &fifo],
        vec!["upgrade", &fifo, "--from", "0.87.1", "--to", "1.3.0"],
    ] {
        Test::new()
            .args(&args)
            .within(LIMIT)
            .status(2)
            // The file is named once, before its causes (`upgrade`: `…/s.jsonl: cannot read the
            // session: is a FIFO …`).
            .stderr_contains("s.jsonl: ")
            .stderr_contains(format!(": {REFUSED}"))
            .run();
    }
    // `check` reports it like any unreadable session.
    Test::new()
        .args(["check", &fifo])
        .within(LIMIT)
        .status(2)
        .stdout_contains("s.jsonl: unreadable")
        .stderr_contains(format!("s.jsonl: {REFUSED}"))
        .run();
}

#[test]
fn a_fifo_in_a_walked_directory_is_a_recorded_failure() {
    let d = Dir::new();
    std::fs::copy(
        fixture("sessions/branches/session.jsonl"),
        d.root.join("good.jsonl"),
    )
    .unwrap();
    d.fifo("bad.jsonl");
    let dir = d.root.display().to_string();
    // `check DIR`: the good session is still checked, the FIFO is one failure.
    Test::new()
        .args(["check", &dir])
        .within(LIMIT)
        .status(2)
        .stdout_contains("bad.jsonl: unreadable")
        .stderr_contains(format!("bad.jsonl: {REFUSED}"))
        .stdout_contains("good.jsonl: ok")
        .run();
    // `usage --corpus DIR`: the good session is counted, the FIFO is named as unreadable.
    let out = Test::new()
        .args(["usage", "--corpus", &dir, "--format", "json"])
        .within(LIMIT)
        .any_status()
        .run();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("bad.jsonl"), "{text}");
    assert!(text.contains(REFUSED), "{text}");
}

#[test]
fn fifo_cases_catalogs_payloads_and_capabilities_are_refused() {
    let d = Dir::new();
    let fifo = d.fifo("x.json");
    let session = fixture("agent/anthropic-opus-tools/session.jsonl");
    let case = fixture("wire/anthropic-cache-none.case.json");
    for (args, status) in [
        (vec!["assemble", &fifo], 2),
        (vec!["assemble", &case, "--catalog", &fifo], 2),
        (vec!["replay", &session, "--catalog", &fifo], 2),
        (vec!["cache", "explain", &session, "--catalog", &fifo], 2),
        (vec!["diff", &fifo, &case], 2),
        (vec!["report", "providers", "--catalog", &fifo], 2),
    ] {
        Test::new()
            .args(&args)
            .within(LIMIT)
            .status(status)
            .stderr_contains(REFUSED)
            .run();
    }
    // A capability file: pi-forge's fault for it, with the reason.
    Test::new()
        .args(["capability", "validate", &fifo])
        .within(LIMIT)
        .any_status()
        .stdout_contains(REFUSED)
        .run();
}

#[test]
fn fifo_scenarios_are_refused_and_verify_records_them() {
    let d = Dir::new();
    let fifo = d.fifo("scenarios/zz-fifo.toml");
    Test::new()
        .args(["scenario", &fifo, "--out", &d.path("out")])
        .within(LIMIT)
        .status(2)
        .stderr_contains(REFUSED)
        .run();
    // In a directory of scenarios, the FIFO is one failure; the real scenario is still verified.
    std::fs::copy(
        Path::new(&fixture("../scenarios/06-reset.toml")),
        d.root.join("scenarios/06-reset.toml"),
    )
    .unwrap();
    std::fs::create_dir_all(d.root.join("scenarios/capabilities")).unwrap();
    for f in std::fs::read_dir(fixture("../scenarios/capabilities")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(
            &f,
            d.root
                .join("scenarios/capabilities")
                .join(f.file_name().unwrap()),
        )
        .unwrap();
    }
    let out = Test::new()
        .args([
            "verify",
            &d.path("scenarios"),
            "--golden-dir",
            &fixture("golden"),
        ])
        .within(LIMIT)
        .any_status()
        .run();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("zz-fifo.toml"), "{text}");
    assert!(text.contains(REFUSED), "{text}");
    assert!(text.contains("passed, 0 failed, 1 error\n"), "{text}");
}

/// A symlink that points back up the tree (`sub/up -> ..`) is walked once, not until the path is
/// too long: every directory walk (`check`, `usage --corpus`, `upgrade`, `report providers
/// --sessions`, `verify`) found the same session or scenario 41 times, and `usage` counted it 41
/// times in its totals.
#[test]
fn a_symlink_loop_in_a_walked_directory_is_walked_once() {
    let d = Dir::new();
    let sessions = d.root.join("sessions/sub");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::copy(
        fixture("agent/anthropic-opus-tools/session.jsonl"),
        sessions.join("a.jsonl"),
    )
    .unwrap();
    std::os::unix::fs::symlink("..", sessions.join("up")).unwrap();
    let scenarios = d.root.join("scenarios");
    std::fs::create_dir_all(&scenarios).unwrap();
    std::fs::copy(
        fixture("../scenarios/03-native-delivery.toml"),
        scenarios.join("03-native-delivery.toml"),
    )
    .unwrap();
    std::os::unix::fs::symlink(".", scenarios.join("again")).unwrap();
    let root = d.path("sessions");
    let once = format!("{root}/sub/a.jsonl");
    let count = |out: &std::process::Output, needle: &str| {
        String::from_utf8_lossy(&out.stdout).matches(needle).count()
    };

    let o = Test::new().args(["check", &root]).within(LIMIT).run();
    assert_eq!(
        count(&o, "a.jsonl"),
        1,
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );

    let o = Test::new()
        .args(["usage", "--corpus", &root, "--no-cache", "--format", "json"])
        .within(LIMIT)
        .run();
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["sessions"], 1, "{doc}");

    let o = Test::new()
        .args(["upgrade", "--from", "0.87.1", "--to", "1.3.0", &root])
        .status(1)
        .within(LIMIT)
        .run();
    assert_eq!(
        count(&o, &format!("{once}:6 request 0")),
        1,
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert_eq!(count(&o, "/up/"), 0);

    let o = Test::new()
        .args(["report", "providers", "--sessions", &root])
        .within(LIMIT)
        .run();
    assert_eq!(count(&o, "/up/"), 0, "report providers walks the loop");

    let o = Test::new()
        .args([
            "verify",
            scenarios.to_str().unwrap(),
            "--apis",
            "anthropic-messages",
            "--golden-dir",
            &fixture("golden"),
        ])
        .within(LIMIT)
        .run();
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("1 case, "),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}
