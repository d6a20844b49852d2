//! Snapshots of what a person reads (issues 12.6, 19.8): every command's `--help`, the text
//! output of the main commands on fixtures, and every command's `--format` values and default.
//! They are regression snapshots of our own output (not Pi goldens): a change shows up in review
//! as a `.snap` diff. Update with `cargo insta review` or `INSTA_UPDATE=always`; `scripts/test`
//! runs with `INSTA_UPDATE=no`, so a changed snapshot fails and writes nothing.

use clap::CommandFactory;
use forge_replay::args::Cli;

use super::support::{repo_root, Test};

/// Every command path (`["cache", "explain"]`), groups included, depth first.
fn command_paths() -> Vec<Vec<String>> {
    fn walk(prefix: &[String], c: &clap::Command, out: &mut Vec<Vec<String>>) {
        for sub in c.get_subcommands() {
            let mut path = prefix.to_vec();
            path.push(sub.get_name().to_string());
            out.push(path.clone());
            walk(&path, sub, out);
        }
    }
    let mut out = Vec::new();
    walk(&[], &Cli::command(), &mut out);
    out
}

/// Runs the binary from the repository root (fixture paths stay relative, so nothing
/// machine-specific is in the output) at a fixed help width.
fn stdout_of(args: &[&str], status: i32) -> String {
    let out = Test::new()
        .current_dir(repo_root())
        .env("COLUMNS", "100")
        .args(args)
        .status(status)
        .run();
    String::from_utf8(out.stdout).expect("utf-8 output")
}

#[test]
fn help_of_every_command() {
    insta::assert_snapshot!("help", stdout_of(&["--help"], 0));
    for path in command_paths() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        insta::assert_snapshot!(format!("help-{}", path.join("-")), stdout_of(&args, 0));
    }
}

/// Every command's `--format`: its values and its default, one line per command (issue 19.3).
/// The values come from one vocabulary; a flag without a fixed default follows the one rule (text
/// on a terminal, json when piped) and says so; a fixed default says which and why.
#[test]
fn format_values_and_defaults() {
    let vocabulary = ["text", "json", "csv", "md", "html"];
    let root = Cli::command();
    let mut lines = Vec::new();
    let mut wrong = Vec::new();
    for path in command_paths() {
        let mut cmd = &root;
        for name in &path {
            cmd = cmd.find_subcommand(name).expect("listed subcommand");
        }
        if cmd.has_subcommands() {
            continue;
        }
        let name = path.join(" ");
        let line = match cmd.get_arguments().find(|a| a.get_id() == "format") {
            None => "(no --format)".to_string(),
            Some(a) => {
                let values: Vec<String> = a
                    .get_possible_values()
                    .iter()
                    .map(|v| v.get_name().to_string())
                    .collect();
                for v in &values {
                    if !vocabulary.contains(&v.as_str()) {
                        wrong.push(format!("{name}: --format {v} is not in the vocabulary"));
                    }
                }
                let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
                let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
                let default: Vec<String> = a
                    .get_default_values()
                    .iter()
                    .map(|v| v.to_string_lossy().into_owned())
                    .collect();
                let rule = if default.is_empty() {
                    if !help.contains(forge_replay::args::FORMAT_RULE) {
                        wrong.push(format!(
                            "{name}: no default, and the help does not state the rule: {help}"
                        ));
                    }
                    if !values.iter().any(|v| v == "text") || !values.iter().any(|v| v == "json") {
                        wrong.push(format!("{name}: the rule needs both text and json"));
                    }
                    "text on a terminal, json when piped".to_string()
                } else {
                    let d = default.join(",");
                    if !help.contains(&format!("default `{d}`, also")) {
                        wrong.push(format!(
                            "{name}: fixed default {d} without its reason: {help}"
                        ));
                    }
                    format!("{d}, fixed")
                };
                format!("{} (default: {rule})", values.join("|"))
            }
        };
        lines.push(format!("{name:<20} {line}"));
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    insta::assert_snapshot!("formats", lines.join("\n"));
}

/// The rule as it runs: piped, every command that follows it prints JSON without `--format`.
#[test]
fn piped_output_is_json_by_default() {
    let session = "fixtures/agent/anthropic-opus-tools/session.jsonl";
    for args in [
        &["replay", session][..],
        &["context", session],
        &["tree", session],
        &["usage", session],
        &["cache", "explain", session],
        &["models", "--api", "pi-messages"],
        &["releases"],
        &["assemble", "fixtures/wire/anthropic-cache-none.case.json"],
        &[
            "capabilities",
            "fixtures/capabilities/sessions/idle-on-off.jsonl",
        ],
    ] {
        let out = stdout_of(args, 0);
        let parsed: Result<serde_json::Value, _> = serde_json::from_str(&out);
        assert!(parsed.is_ok(), "{args:?} piped is not JSON: {out}");
    }
}

#[test]
fn text_output_of_the_main_commands() {
    let session = "fixtures/agent/anthropic-opus-tools/session.jsonl";
    let cases: &[(&str, &[&str], i32)] = &[
        (
            "tree",
            &[
                "tree",
                "fixtures/sessions/branches/session.jsonl",
                "--format",
                "text",
            ],
            0,
        ),
        ("check", &["check", "fixtures/sessions"], 1),
        ("replay", &["replay", session, "--format", "text"], 0),
        ("context", &["context", session, "--format", "text"], 0),
        (
            "assemble",
            &[
                "assemble",
                "fixtures/wire/anthropic-cache-none.case.json",
                "--format",
                "text",
            ],
            0,
        ),
        (
            "replay-all-apis",
            &[
                "replay",
                "fixtures/sessions/linear-tools/session.jsonl",
                "--all-apis",
                "--format",
                "text",
            ],
            0,
        ),
        (
            "cache-explain",
            &["cache", "explain", session, "--format", "text"],
            0,
        ),
        ("usage", &["usage", session, "--format", "text"], 0),
        (
            "usage-requests",
            &["usage", session, "--requests", "--format", "text"],
            0,
        ),
        (
            "capabilities",
            &[
                "capabilities",
                "fixtures/capabilities/sessions/idle-on-off.jsonl",
                "--format",
                "text",
            ],
            0,
        ),
        (
            "models",
            &["models", "--api", "pi-messages", "--format", "text"],
            0,
        ),
        (
            "verify",
            &[
                "verify",
                "scenarios/08-compaction-checkpoint.toml",
                "--apis",
                "anthropic-messages,openai-responses",
            ],
            0,
        ),
        (
            "diff",
            &[
                "diff",
                "fixtures/golden/05-deactivation-notice/openai--gpt-5.5/000.json",
                "fixtures/golden/05-deactivation-notice/openai--gpt-5.5/001.json",
            ],
            1,
        ),
    ];
    for (name, args, status) in cases {
        insta::assert_snapshot!(format!("text-{name}"), stdout_of(args, *status));
    }
}

/// Issue 19.3: people's output is `text` everywhere; `table` (its old name in `models` and
/// `usage`) still works and prints the same.
#[test]
fn table_is_the_old_name_of_text() {
    for args in [
        &["models", "--api", "pi-messages"][..],
        &["usage", "fixtures/agent/anthropic-opus-tools/session.jsonl"],
    ] {
        let mut text = args.to_vec();
        text.extend(["--format", "text"]);
        let mut table = args.to_vec();
        table.extend(["--format", "table"]);
        let text = stdout_of(&text, 0);
        assert!(!text.starts_with('{') && !text.starts_with('['), "{text}");
        assert_eq!(stdout_of(&table, 0), text, "{args:?}");
    }
}

/// The other half of the rule: on a terminal (a pseudo-terminal from `script`, util-linux) the
/// same commands print text. Skipped, saying so, where `script` is not installed.
#[test]
fn terminal_output_is_text_by_default() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: `script` (util-linux) is not installed");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_forge-replay");
    let session = "fixtures/agent/anthropic-opus-tools/session.jsonl";
    for (args, shows) in [
        (format!("replay {session}"), "first request"),
        (format!("tree {session}"), "default leaf"),
        (format!("usage {session}"), "main · session"),
    ] {
        let out = std::process::Command::new("script")
            .args(["-qec", &format!("{bin} {args}"), "/dev/null"])
            .current_dir(repo_root())
            .env_remove("FORGE_REPLAY_PI")
            .output()
            .expect("script runs");
        let shown = String::from_utf8_lossy(&out.stdout);
        assert!(shown.contains(shows), "{args}: {shown}");
        assert!(!shown.contains("\"requests\""), "{args}: {shown}");
    }
}
