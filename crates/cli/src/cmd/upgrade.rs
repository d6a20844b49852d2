//! `forge-replay upgrade INPUT... --from R --to R`: every request rebuilt under two Pi releases
//! and compared (`forge_replay_engine::upgrade`). Exit 0 nothing changed, 1 changes (with
//! `--fail-on`, only changes of the named kinds), 2 bad input (an unknown release, an input that
//! cannot be read: the others are still compared and reported).

use forge_replay_engine::upgrade::{self, Kind};
use forge_replay_model::json;
use forge_replay_model::release::PiRelease;

use crate::args::{Format, UpgradeArgs};
use crate::cmd::error_chain;
use crate::out::{self, Out};
use crate::Exit;

/// The `--fail-on` name of a model missing from the target release.
const MISSING_MODEL: &str = "missing-model";

pub fn run(args: UpgradeArgs) -> anyhow::Result<Exit> {
    let release = |flag: &str, v: &str| {
        PiRelease::parse(v).map_err(|e| {
            out::error!("{flag}: {e}");
            Exit::BadInput
        })
    };
    let (from, to) = match (release("--from", &args.from), release("--to", &args.to)) {
        (Ok(a), Ok(b)) => (a, b),
        _ => return Ok(Exit::BadInput),
    };
    let mut fail_kinds = Vec::new();
    let mut fail_missing = args.fail_on.is_empty();
    for name in args.fail_on.iter().filter(|n| !n.trim().is_empty()) {
        if name.trim() == MISSING_MODEL {
            fail_missing = true;
        } else if let Some(k) = Kind::parse(name) {
            fail_kinds.push(k);
        } else {
            out::error!(
                "--fail-on: unknown kind {name:?}; expected {}, {MISSING_MODEL}",
                Kind::names()
            );
            return Ok(Exit::BadInput);
        }
    }
    let inputs = match super::paths_or_pi_sessions(&args.inputs) {
        Ok(p) => p,
        Err(exit) => return Ok(exit),
    };
    let paths = match upgrade::expand(&inputs) {
        Ok(p) => p,
        Err(e) => {
            out::error!("{}", error_chain(&e));
            return Ok(Exit::BadInput);
        }
    };
    let report = upgrade::upgrade(&paths, from, to);
    let mut w = Out::stdout();
    match args.format {
        Format::Json => {
            let mut text = json::stringify_pretty(&upgrade::report_json(&report));
            text.push('\n');
            w.json(&text)?;
        }
        Format::Text => w.text(&upgrade::render_text(&report))?,
        _ => w.text(&upgrade::render_md(&report))?,
    }
    w.flush()?;
    let mut failed = false;
    for input in &report.inputs {
        if let Some(e) = &input.error {
            out::error!("{e}");
            failed = true;
        }
    }
    if failed {
        return Ok(Exit::BadInput);
    }
    let summary = upgrade::summarize(&report);
    let found = if args.fail_on.is_empty() {
        summary.any_change()
    } else {
        (fail_missing && summary.missing_in_target > 0)
            || fail_kinds
                .iter()
                .any(|k| summary.by_kind.get(k).is_some_and(|n| *n > 0))
    };
    Ok(if found { Exit::Findings } else { Exit::Ok })
}
