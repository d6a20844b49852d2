//! `forge-replay context`: the messages Pi puts in front of the model at a leaf.
//!
//! Prints `{"leafId": …, "messages": […]}` with `JSON.stringify(doc, null, 2)` formatting.
//! `messages` equals Pi's `buildSessionContext(entries, leafId).messages` (the same function in
//! every supported release); with `--llm`,
//! `convertToLlm` of it. Warnings about the file (skipped lines, tree defects) go to stderr as
//! `file:line: warning: cause`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use anyhow::Context as _;
use forge_replay_model::json;
use forge_replay_session::{Diagnostic, Projection, Session};
use serde_json::Value;

use forge_replay_report::context::{self, ContextSink, ContextWriteError, Lines};

use crate::args::{ContextArgs, Format, Presentation, TextOrJson};
use crate::out::{self, Out};
use crate::Exit;

/// At most this many diagnostics of one code are printed to stderr by [`open_session`].
const MAX_PER_CODE: usize = 20;

/// Opens a session and prints its warnings and errors (not notes) to stderr, at most
/// [`MAX_PER_CODE`] per code. Shared by every command that reads one session.
pub fn open_session(path: &Path) -> anyhow::Result<Session> {
    let (session, diags) = Session::open(path)?;
    print_diagnostics(path, &diags);
    Ok(session)
}

/// Prints warnings and errors to stderr as `file:line: warning: cause`.
pub fn print_diagnostics(path: &Path, diags: &[Diagnostic]) {
    let mut per_code: BTreeMap<&str, usize> = BTreeMap::new();
    for d in diags.iter().filter(|d| d.is_finding()) {
        let n = per_code.entry(d.code).or_default();
        *n += 1;
        if *n <= MAX_PER_CODE {
            out::note!("{}", d.display(path));
        }
    }
    for (code, n) in per_code {
        if n > MAX_PER_CODE {
            out::note!(
                "{}: note: {} more [{code}] diagnostics not shown (run `forge-replay check`)",
                path.display(),
                n - MAX_PER_CODE
            );
        }
    }
}

pub fn run(args: ContextArgs) -> anyhow::Result<Exit> {
    let session = open_session(&args.session)?;
    // The projection is the same in every supported release; the release is said (and checked
    // against `--pi`) so the reader knows which one the session follows.
    args.pi.for_session(&session)?;
    let leaf = session
        .resolve_leaf(args.leaf.leaf.as_deref())
        .with_context(|| format!("{}: cannot select the leaf", args.session.display()))?;
    let mut out = Out::stdout();
    let text = Format::or_default(args.format).text_or_json() == TextOrJson::Text;
    match args.capabilities {
        None if text => written(context::write_text(&mut out, &session.plan(leaf), args.llm))?,
        None => written(context::write_streamed(
            &mut out,
            &session.plan(leaf),
            args.llm,
        ))?,
        Some(presentation) if text => {
            let projection = session.context(leaf)?;
            let doc = capability_context(&session, &projection, presentation, args.llm)?;
            let mut lines = Lines::new(doc.get("leafId"));
            for m in doc["messages"].as_array().into_iter().flatten() {
                lines.push(m);
            }
            out.text(&lines.finish())?;
        }
        Some(presentation) => {
            let projection = session.context(leaf)?;
            let doc = capability_context(&session, &projection, presentation, args.llm)?;
            out.json(&(json::stringify_pretty(&doc) + "\n"))?;
        }
    }
    out.flush()?;
    Ok(Exit::Ok)
}

impl<W: Write> ContextSink for Out<W> {
    fn frame(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        Out::frame(self, bytes)
    }
    fn json(&mut self, text: &str) -> std::io::Result<()> {
        Out::json(self, text)
    }
    fn text(&mut self, text: &str) -> std::io::Result<()> {
        Out::text(self, text)
    }
}

/// The error as its own cause chain (an I/O error stays one, so a closed pipe is recognised).
fn written(r: Result<(), ContextWriteError>) -> anyhow::Result<()> {
    r.map_err(|e| match e {
        ContextWriteError::Io(e) => anyhow::Error::from(e),
        ContextWriteError::Project(e) => anyhow::Error::from(e),
    })
}

/// Hook for `--capabilities` (issue 4): apply pi-forge's capability projection to `projection`
/// (anchors go against `projection.entries`, the `buildContextEntries` list with entry ids) and
/// return the `{"leafId", "messages"}` document, converted with `convertToLlm` when `llm`.
///
/// Implemented by [`super::capabilities::context_document`] (issue 4). A corrupt capability
/// history is an error `FILE:LINE: entry ID: <Forge's message>` (exit 2). The capability library
/// is not needed: the session holds immutable snapshots.
fn capability_context(
    session: &Session,
    projection: &Projection,
    presentation: Presentation,
    llm: bool,
) -> anyhow::Result<Value> {
    super::capabilities::context_document(session, projection, presentation, llm)
}
