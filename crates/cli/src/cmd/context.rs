//! `forge-replay context`: the messages Pi puts in front of the model at a leaf.
//!
//! Prints `{"leafId": …, "messages": […]}` with `JSON.stringify(doc, null, 2)` formatting.
//! `messages` equals Pi's `buildSessionContext(entries, leafId).messages` (the same function in
//! every supported release); with `--llm`, `convertToLlm` of it; with `--capabilities`, pi-forge's
//! capability projection (`forge_replay_engine::capabilities::context_document`). Warnings about
//! the file (skipped lines, tree defects) go to stderr as `file:line: warning: cause`.

use anyhow::Context as _;
use forge_replay_engine::capabilities::context_document;
use forge_replay_report::context::{self, ContextWriteError};

use crate::args::{ContextArgs, Format, TextOrJson};
use crate::cmd::open_session;
use crate::out;
use crate::Exit;

pub fn run(args: ContextArgs) -> anyhow::Result<Exit> {
    let session = open_session(&args.session)?;
    // The projection is the same in every supported release; the release is said (and checked
    // against `--pi`) so the reader knows which one the session follows.
    args.pi.for_session(&session)?;
    let leaf = session
        .resolve_leaf(args.leaf.leaf.as_deref())
        .with_context(|| format!("{}: cannot select the leaf", args.session.display()))?;
    let text = Format::or_default(args.format).text_or_json() == TextOrJson::Text;
    let Some(presentation) = args.capabilities else {
        let (plan, mut out) = (session.plan(leaf), out::stdout());
        let written = if text {
            context::write_text(&mut out, &plan, args.llm)
        } else {
            context::write_streamed(&mut out, &plan, args.llm)
        };
        // The error as its own cause chain (an I/O error stays one: a closed pipe is recognised).
        written.map_err(|e| match e {
            ContextWriteError::Io(e) => anyhow::Error::from(e),
            ContextWriteError::Project(e) => anyhow::Error::from(e),
        })?;
        out.flush()?;
        return Ok(Exit::Ok);
    };
    let projection = session.context(leaf)?;
    // A corrupt capability history is `FILE:LINE: entry ID: <Forge's message>` (exit 2).
    let doc = context_document(&session, &projection, presentation, args.llm)?;
    match text {
        true => out::print_text(&context::document_text(&doc))?,
        false => out::print_json(&doc)?,
    }
    Ok(Exit::Ok)
}
