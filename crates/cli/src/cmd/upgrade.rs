//! `forge-replay upgrade INPUT... --from R --to R`: every request rebuilt under two Pi releases
//! and compared (`forge_replay_engine::upgrade`). Exit 0 nothing changed, 1 changes (with
//! `--fail-on`, only changes of the named kinds), 2 bad input (an unknown release, an input that
//! cannot be read: the others are still compared and reported).

use forge_replay_engine::upgrade::{self, FailOn};
use forge_replay_model::release::PiRelease;
use forge_replay_session::dirs::paths_or_pi_sessions;

use crate::args::{Format, UpgradeArgs};
use crate::out;
use crate::Exit;

pub fn run(args: UpgradeArgs) -> anyhow::Result<Exit> {
    // Both flags are checked, so both are said when both are wrong.
    let release =
        |flag: &str, v: &str| PiRelease::parse(v).inspect_err(|e| out::error!("{flag}: {e}"));
    let (Ok(from), Ok(to)) = (release("--from", &args.from), release("--to", &args.to)) else {
        return Ok(Exit::BadInput);
    };
    let fail_on = FailOn::parse(&args.fail_on).map_err(|e| anyhow::anyhow!("--fail-on: {e}"))?;
    let paths = upgrade::expand(&paths_or_pi_sessions(&args.inputs)?)?;
    let report = upgrade::upgrade(&paths, from, to);
    for input in &report.inputs {
        crate::cmd::say_findings(&input.path, &input.diagnostics);
    }
    match args.format {
        Format::Json => out::print_json(&upgrade::report_json(&report))?,
        Format::Text => out::print_text(&upgrade::render_text(&report))?,
        _ => out::print_text(&upgrade::render_md(&report))?,
    }
    let errors: Vec<_> = report
        .inputs
        .iter()
        .filter_map(|i| i.error.as_ref())
        .collect();
    errors.iter().for_each(|e| out::error!("{e}"));
    let changed = fail_on.fails(&upgrade::summarize(&report));
    Ok(Exit::of(!errors.is_empty(), changed))
}
