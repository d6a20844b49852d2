//! `forge-replay completions bash|zsh|fish` and `forge-replay man` (issue 18.4), generated from
//! the clap definitions.

use std::process::Command;

use clap::CommandFactory;

use super::support::Test;

/// `forge-replay` and every command below it (groups included).
fn page_count() -> usize {
    fn count(c: &clap::Command) -> usize {
        c.get_subcommands().map(|s| 1 + count(s)).sum()
    }
    1 + count(&forge_replay::args::Cli::command())
}

const COMMANDS: [&str; 6] = [
    "replay",
    "verify",
    "cache",
    "explain",
    "gen-corpus",
    "completions",
];

#[test]
fn completion_scripts_know_every_command() {
    for shell in ["bash", "zsh", "fish"] {
        let out = Test::new().args(["completions", shell]).stderr("").run();
        let script = String::from_utf8(out.stdout).unwrap();
        for c in COMMANDS {
            assert!(script.contains(c), "{shell}: {c} missing");
        }
        // Flags with allowed values complete to those values.
        assert!(
            script.contains("anthropic-messages"),
            "{shell}: --api values"
        );
    }
    // The bash script is valid bash.
    let out = Test::new().args(["completions", "bash"]).run();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forge-replay.bash");
    std::fs::write(&path, &out.stdout).unwrap();
    if let Ok(st) = Command::new("bash").arg("-n").arg(&path).status() {
        assert!(st.success(), "bash -n rejects the completion script");
    }
    Test::new()
        .args(["completions", "tcsh"])
        .status(2)
        .stderr_contains("forge-replay: error: invalid value 'tcsh' for '<SHELL>'")
        .stderr_contains("bash")
        .run();
}

#[test]
fn man_pages_for_every_command() {
    let out = Test::new().args(["man"]).stderr("").run();
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH forge-replay 1"), "{page}");
    assert!(page.contains(".SH SUBCOMMANDS"));
    assert!(page.contains("forge\\-replay\\-cache(1)"));
    let dir = tempfile::tempdir().unwrap();
    let man = dir.path().join("man");
    let pages = page_count();
    assert!(pages >= 22, "{pages}");
    Test::new()
        .args(["man", "--out", man.to_str().unwrap()])
        .stdout("")
        .stderr_contains(format!("wrote {pages} man pages to "))
        .run();
    for name in [
        "forge-replay",
        "forge-replay-replay",
        "forge-replay-cache-explain",
        "forge-replay-report-session",
        "forge-replay-man",
    ] {
        let text = std::fs::read_to_string(man.join(format!("{name}.1"))).unwrap();
        assert!(text.contains(&format!(".TH {name} 1")), "{name}");
    }
    let written = std::fs::read_dir(&man)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "1")
        })
        .count();
    assert_eq!(written, pages);
    // Written again over itself (one set, replaced whole).
    Test::new()
        .args(["man", "--out", man.to_str().unwrap()])
        .run();
}
