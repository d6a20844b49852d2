//! The argument definitions themselves (clap): every flag documented, value parsers that keep
//! what they parse.

use clap::{CommandFactory, Parser};
use forge_replay::args::{Cli, Command};
use forge_replay_usage::corpus::GroupBy;

/// Every subcommand, depth first, with its full name (`cache explain`).
fn commands() -> Vec<(String, clap::Command)> {
    fn walk(prefix: &str, c: &clap::Command, out: &mut Vec<(String, clap::Command)>) {
        for sub in c.get_subcommands() {
            let name = format!("{prefix}{}", sub.get_name()).trim().to_string();
            if sub.has_subcommands() {
                walk(&format!("{name} "), sub, out);
            } else {
                out.push((name, sub.clone()));
            }
        }
    }
    let mut out = Vec::new();
    walk("", &Cli::command(), &mut out);
    out
}

/// Issue 19.4: no flag or argument without a description.
#[test]
fn every_argument_has_help() {
    let mut missing = Vec::new();
    for (name, cmd) in commands() {
        if cmd.get_about().is_none() {
            missing.push(format!("{name}: no about"));
        }
        for a in cmd.get_arguments() {
            let id = a.get_id().as_str();
            if id == "help" || id == "version" {
                continue;
            }
            if a.get_help().is_none() {
                missing.push(format!("{name} {id}"));
            }
        }
    }
    assert!(missing.is_empty(), "without help: {missing:?}");
}

fn usage(args: &[&str]) -> Result<forge_replay::args::UsageArgs, clap::Error> {
    let argv = ["forge-replay", "usage", "--corpus", "d"]
        .iter()
        .chain(args);
    match Cli::try_parse_from(argv)?.command {
        Command::Usage(a) => Ok(a),
        other => panic!("parsed as {other:?}"),
    }
}

#[test]
fn every_group_by_value_is_a_grouping_and_days_keep_their_text() {
    for (name, want) in [
        ("session", GroupBy::Session),
        ("project", GroupBy::Project),
        ("model", GroupBy::Model),
        ("provider", GroupBy::Provider),
        ("api", GroupBy::Api),
        ("day", GroupBy::Day),
    ] {
        assert_eq!(usage(&["--by", name]).unwrap().by, Some(want), "{name}");
    }
    assert!(usage(&["--by", "week"]).is_err());
    let a = usage(&["--since", "2026-02-01", "--until", "20260201"]).unwrap();
    let since = a.since.unwrap();
    assert_eq!((since.text.as_str(), since.day), ("2026-02-01", 20485));
    assert_eq!(a.until.unwrap().day, 20485);
    assert!(usage(&["--since", "2026-2-1"]).is_err());
}
