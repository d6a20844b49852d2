//! `forge-replay assemble CASE.json [--catalog F] [--pi R]`: the request pi-ai would send for a
//! case, as the release the case names (`"pi"`), `--pi` or the default follows.
//!
//! Prints `{"api", "payload", "wire": {url, method, body} | null}` (secrets redacted). A
//! multi-request case (`requests`: several requests of one process, e.g. Anthropic message
//! threads in 1.6) prints `{"api", "requests": [...]}`, one [`forge_replay_wire::Step`] per
//! request in order: its payload, the request sent (the threaded body) and its thread form, the
//! attempts rejected before it and the fallback. Bad input (unreadable or malformed case, unknown
//! model or api, a context pi-ai refuses) exits 2 with the reason on stderr.

use anyhow::anyhow;
use forge_replay_engine::catalog;
use forge_replay_model::error::chain as error_chain;
use forge_replay_model::release::PiRelease;
use forge_replay_report::summary::{assembled_text, sequence_text};
use forge_replay_wire::{assemble_case, assemble_sequence, AssembleError, CaseFile, Step};

use crate::args::{AssembleArgs, Format, TextOrJson};
use crate::out;
use crate::Exit;

pub fn run(args: AssembleArgs) -> anyhow::Result<Exit> {
    let path = args.case.display().to_string();
    let text = forge_replay_session::input::read_to_string(&args.case)
        .map_err(|e| anyhow!("{path}: cannot read: {e}"))?;
    // `at`: which request of a sequence, said before the cause.
    let failed = |release: PiRelease, at: &str, e: AssembleError| match e {
        AssembleError::Rejected { message } => {
            anyhow!("{path}: {at}pi-ai {release} refuses this request: {message}")
        }
        e => anyhow!("{path}: {at}{}", error_chain(&e)),
    };
    let text_out = Format::or_default(args.format).text_or_json() == TextOrJson::Text;
    match CaseFile::parse(&text).map_err(|e| anyhow!("{path}: malformed case: {e}"))? {
        CaseFile::Sequence(mut seq) => {
            let release = args.pi.for_named(seq.pi, &args.case)?;
            seq.pi = Some(release);
            let catalog = catalog::load(release, args.catalog.path())?;
            let steps = assemble_sequence(&seq, &catalog)
                .map_err(|e| anyhow!("{path}: {}", error_chain(&e)))?;
            let mut requests = Vec::with_capacity(steps.len());
            for (i, step) in steps.into_iter().enumerate() {
                requests.push(step.map_err(|e| failed(release, &format!("request {i}: "), e))?);
            }
            if text_out {
                out::print_text(&sequence_text(&requests))?;
            } else {
                let api = requests.first().map_or("", |s| s.assembled.api.name());
                let requests: Vec<_> = requests.iter().map(Step::to_json).collect();
                let doc = serde_json::json!({ "api": api, "requests": requests });
                out::print_json(&doc)?;
            }
        }
        CaseFile::Single(mut case) => {
            let release = args.pi.for_named(case.pi, &args.case)?;
            case.pi = Some(release);
            let catalog = catalog::load(release, args.catalog.path())?;
            let assembled = assemble_case(&case, &catalog).map_err(|e| failed(release, "", e))?;
            if text_out {
                out::print_text(&assembled_text(&case, &assembled))?;
            } else {
                out::print_json(&assembled.to_json())?;
            }
        }
    }
    Ok(Exit::Ok)
}
