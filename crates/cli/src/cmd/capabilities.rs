//! `forge-replay capabilities <SESSION> [--leaf ID] [--format text|json] [--model provider/id]
//! [--project DIR]`: the state `/capability status` shows at a leaf — active activations,
//! effective tools, delivery state and presentation (native system sections or attributed user
//! updates), computed by `forge_replay_engine::capabilities::StatusReport`.
//!
//! Presentation follows the model's catalog flag `compat.supportsMidConvoSystemMessages`: the
//! `--model` given, else the session's current model at the leaf. A corrupt capability history
//! exits 2 with Forge's error text and the entry's line.

use anyhow::Context as _;
use forge_replay_capability::discovery::{Catalog, Roots};
use forge_replay_engine::capabilities::StatusReport;
use forge_replay_session::Session;

use crate::args::{CapabilitiesArgs, Format, TextOrJson};
use crate::out;
use crate::Exit;

pub fn run(args: CapabilitiesArgs) -> anyhow::Result<Exit> {
    let (session, _diags) = Session::open(&args.session)?;
    let leaf = session
        .resolve_leaf(args.leaf.leaf.as_deref())
        .with_context(|| format!("{}: cannot select the leaf", args.session.display()))?;
    let release = args.pi.for_session(&session)?;
    // clap has checked the `provider/id` shape.
    let model = args.model.as_deref().and_then(|m| m.split_once('/'));
    let mut report = StatusReport::at(&session, leaf, release, model)?;
    if let Some(p) = &args.project {
        report.library = Some(Catalog::discover(&Roots::of_project(p))?);
    }
    match Format::or_default(args.format).text_or_json() {
        TextOrJson::Json => out::print_json(&report.to_json()?)?,
        TextOrJson::Text => out::print_text(&report.to_text())?,
    }
    Ok(Exit::Ok)
}
