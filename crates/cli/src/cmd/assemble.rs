//! `forge-replay assemble CASE.json [--catalog F] [--pi R]`: the request pi-ai would send for a
//! case, as the release the case names (`"pi"`), `--pi` or the default follows.
//!
//! Prints `{"api", "payload", "wire": {url, method, body} | null}` (secrets redacted). A
//! multi-request case (`requests`: several requests of one process, e.g. Anthropic message
//! threads in 1.6) prints `{"api", "requests": [...]}`, one [`forge_replay_wire::Step`] per
//! request in order: its payload, the request sent (the threaded body) and its thread form, the
//! attempts rejected before it and the fallback. Bad input (unreadable or malformed case, unknown
//! model or api, a context pi-ai refuses) exits 2 with the reason on stderr; the reading and the
//! assembly are `forge_replay_engine::case`.

use forge_replay_engine::case::{self, AssembledCase};
use forge_replay_engine::catalog;
use forge_replay_report::summary::{assembled_text, sequence_text};

use crate::args::{AssembleArgs, Format, TextOrJson};
use crate::out;
use crate::Exit;

pub fn run(args: AssembleArgs) -> anyhow::Result<Exit> {
    let text_out = Format::or_default(args.format).text_or_json() == TextOrJson::Text;
    let file = case::read(&args.case)?;
    let release = args.pi.for_named(file.pi(), &args.case)?;
    let catalog = catalog::load(release, args.catalog.path())?;
    let assembled = case::assemble(&args.case, file, &catalog)?;
    match &assembled {
        _ if !text_out => out::print_json(&assembled.to_json())?,
        AssembledCase::Single(single) => out::print_text(&assembled_text(&single.0, &single.1))?,
        AssembledCase::Sequence(steps) => out::print_text(&sequence_text(steps))?,
    }
    Ok(Exit::Ok)
}
