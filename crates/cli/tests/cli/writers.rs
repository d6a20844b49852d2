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

/// The writers `every_writer_says_what_it_wrote` leaves out: one line on stderr each, stdout
/// left to the command's output.
#[test]
fn every_other_writer_says_what_it_wrote_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    let session = fixture("agent/anthropic-opus-tools/session.jsonl");
    let cases: Vec<(Vec<String>, Vec<String>)> = vec![
        (
            vec![
                "gen-corpus".into(),
                "--out".into(),
                p("corpus"),
                "--sessions".into(),
                "1".into(),
                "--entries".into(),
                "20".into(),
            ],
            vec![format!(
                "wrote 1 session (0 forks), 20 lines each, 0.0 MB under {}",
                p("corpus")
            )],
        ),
        (
            vec![
                "scenario".into(),
                fixture("../scenarios/06-reset.toml"),
                "--out".into(),
                p("s"),
            ],
            vec![
                "06-reset: wrote ".into(),
                format!(" entries to {}", p("s/session.jsonl")),
            ],
        ),
        (
            vec![
                "replay".into(),
                session.clone(),
                "--out".into(),
                p("requests"),
            ],
            vec![format!(
                "wrote 7 requests to {} (and index.json)",
                p("requests")
            )],
        ),
        (
            vec![
                "report".into(),
                "session".into(),
                session.clone(),
                "--out".into(),
                p("r.html"),
            ],
            vec![format!("wrote {} (7 requests, 1 cache break)", p("r.html"))],
        ),
        (
            vec![
                "usage".into(),
                "--corpus".into(),
                fixture("agent"),
                "--csv".into(),
                p("u.csv"),
                "--format".into(),
                "json".into(),
            ],
            vec![format!("wrote {}", p("u.csv"))],
        ),
    ];
    for (args, said) in cases {
        let out = Test::new().args(&args).run();
        let stderr = String::from_utf8_lossy(&out.stderr);
        for part in &said {
            assert!(
                stderr.contains(part.as_str()),
                "{args:?}: stderr lacks {part:?}:\n{stderr}"
            );
        }
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("wrote "),
            "{args:?}"
        );
    }
}

/// gen-corpus never mixes an old corpus with a new one: a folder of other files is refused
/// (exit 2, nothing touched), a previous gen-corpus output is replaced whole, and it says so.
#[test]
fn gen_corpus_refuses_a_foreign_folder_and_replaces_its_own_whole() {
    let dir = tempfile::tempdir().unwrap();
    let foreign = dir.path().join("mine");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "keep me").unwrap();
    Test::new()
        .args([
            "gen-corpus",
            "--out",
            foreign.to_str().unwrap(),
            "--sessions",
            "2",
        ])
        .status(2)
        .stderr_contains("was not written by forge-replay")
        .run();
    let names: Vec<_> = std::fs::read_dir(&foreign)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names, ["notes.txt"]);
    assert_eq!(
        std::fs::read_to_string(foreign.join("notes.txt")).unwrap(),
        "keep me"
    );

    let out = dir.path().join("corpus");
    let gen = |n: &str| {
        Test::new()
            .args([
                "gen-corpus",
                "--out",
                out.to_str().unwrap(),
                "--sessions",
                n,
                "--entries",
                "20",
            ])
            .run()
    };
    gen("3");
    let again = gen("2");
    assert!(String::from_utf8_lossy(&again.stderr).contains("replaced whole"));
    let mut files = Vec::new();
    let mut stack = vec![out.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else if e.path().extension().is_some_and(|x| x == "jsonl") {
                files.push(e.path());
            }
        }
    }
    assert_eq!(files.len(), 2, "{files:?}");
}

/// One command's output directory is never replaced by another command's: `gen-corpus`, `man`
/// and `usage --parquet` pointed at a `replay --out` directory exit 2 and leave it whole (they
/// replaced it, deleting the requests, and gen-corpus even said it replaced its own output).
#[test]
fn a_writer_refuses_another_commands_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("requests");
    let out_s = out.to_str().unwrap();
    Test::new()
        .args([
            "replay",
            &fixture("agent/anthropic-opus-tools/session.jsonl"),
            "--out",
            out_s,
        ])
        .run();
    let before: Vec<_> = {
        let mut v: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        v.sort();
        v
    };
    assert!(before.len() > 2, "{before:?}");
    let refusal =
        format!("{out_s} holds the output of another forge-replay command (a replay set, not a");
    for args in [
        vec![
            "gen-corpus",
            "--out",
            out_s,
            "--sessions",
            "1",
            "--entries",
            "10",
        ],
        vec!["man", "--out", out_s],
        vec![
            "usage",
            "--corpus",
            &fixture("usage"),
            "--no-cache",
            "--parquet",
            out_s,
        ],
    ] {
        Test::new()
            .args(&args)
            .status(2)
            .stderr_contains(&refusal)
            .run();
        let mut after: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        after.sort();
        assert_eq!(after, before, "{args:?}");
    }
    // The same command replaces its own set.
    Test::new()
        .args([
            "replay",
            &fixture("agent/anthropic-opus-tools/session.jsonl"),
            "--out",
            out_s,
        ])
        .run();
}

/// An empty sessions folder is not an error (exit 0: the report is empty), but says so.
#[test]
fn an_empty_corpus_says_so() {
    let dir = tempfile::tempdir().unwrap();
    Test::new()
        .args([
            "report",
            "providers",
            "--sessions",
            dir.path().to_str().unwrap(),
        ])
        .status(0)
        .stderr_contains(
            "no session files (*.jsonl) in it; the report has no measured cache behaviour",
        )
        .run();
    Test::new()
        .args([
            "usage",
            "--corpus",
            dir.path().to_str().unwrap(),
            "--format",
            "text",
        ])
        .status(0)
        .stdout_contains("0 files · 0 sessions (0 forks) · 0 requests")
        .stderr_contains("forge-replay: warning: no session files (*.jsonl) under ")
        .run();
}

/// Plural rules in text output (issue 19.7): no `(s)`, no `1 files`, no `hit rate no cache data`.
#[test]
fn text_output_counts_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one");
    std::fs::create_dir_all(&one).unwrap();
    std::fs::copy(
        fixture("cache/no-cache-data/session.jsonl"),
        one.join("s.jsonl"),
    )
    .unwrap();
    let corpus = Test::new()
        .args([
            "usage",
            "--corpus",
            one.to_str().unwrap(),
            "--format",
            "text",
        ])
        .stdout_contains("1 file · 1 session (0 forks) · ")
        .stdout_contains(", no cache data · abandoned branches: 0 requests, ")
        .run();
    let explain = Test::new()
        .args([
            "cache",
            "explain",
            &fixture("cache/tool-change/session.jsonl"),
            "--format",
            "text",
        ])
        .stdout_contains("1 confirmed cache break\n")
        .run();
    let verify = Test::new()
        .args([
            "verify",
            &fixture("../scenarios/06-reset.toml"),
            "--apis",
            "anthropic-messages",
        ])
        .stdout_contains(" 0 errors")
        .run();
    for out in [corpus, explain, verify] {
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        for bad in [
            "(s)",
            " 1 files",
            " 1 sessions",
            " 1 errors",
            "hit rate no cache data",
        ] {
            assert!(!text.contains(bad), "{bad:?} in\n{text}");
        }
    }
}

/// Progress bars (issue 19.7): on stderr, only when it is a terminal. Piped, a long
/// `usage --corpus` prints no bar; under a pseudo-terminal (`script`, util-linux) it does.
#[test]
fn progress_is_drawn_on_a_terminal_only() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    Test::new()
        .args([
            "gen-corpus",
            "--out",
            corpus.to_str().unwrap(),
            "--sessions",
            "260",
            "--entries",
            "10",
        ])
        .run();
    let args = [
        "usage",
        "--corpus",
        corpus.to_str().unwrap(),
        "--format",
        "text",
    ];
    let piped = Test::new().args(args).run();
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(
        !stderr.contains("files read") && !stderr.contains('█'),
        "{stderr}"
    );
    let script = std::process::Command::new("script")
        .arg("--version")
        .output();
    if script.is_err() {
        eprintln!("skipped the terminal half: `script` (util-linux) is not installed");
        return;
    }
    let line = format!("{} {}", env!("CARGO_BIN_EXE_forge-replay"), args.join(" "));
    let out = std::process::Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .output()
        .expect("script runs");
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("/260 files read"), "{shown}");
}
