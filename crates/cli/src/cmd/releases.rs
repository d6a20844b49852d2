//! `forge-replay releases [--pi R] [--format text|md|json]`: the supported Pi releases and, per
//! release, every behaviour it changes (`forge_replay_report::releases`). `--format md` is
//! `docs/releases.md` (a test keeps the committed page equal to it).

use std::io::Write as _;

use forge_replay_model::json;
use forge_replay_model::release::PiRelease;
use forge_replay_report::releases;

use crate::args::{Format, ReleasesArgs};
use crate::Exit;

pub fn run(args: ReleasesArgs) -> anyhow::Result<Exit> {
    let only = args.pi.as_deref().map(PiRelease::parse).transpose()?;
    let list: Vec<PiRelease> = PiRelease::ALL
        .into_iter()
        .filter(|r| only.is_none_or(|o| o == *r))
        .collect();
    let text = match Format::or_default(args.format) {
        Format::Text => releases::text(&list),
        Format::Md => releases::markdown(),
        _ => json::stringify_pretty(&releases::to_json(&list)) + "\n",
    };
    let mut out = crate::out::Stdout::locked();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(Exit::Ok)
}
