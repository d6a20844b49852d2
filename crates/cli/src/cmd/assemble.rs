//! `forge-replay assemble CASE.json [--catalog F] [--pi R]`: the request pi-ai would send for a
//! case, as the release the case names (`"pi"`), `--pi` or the default follows.
//!
//! Prints `{"api", "payload", "wire": {url, method, body} | null}` (secrets redacted). A
//! multi-request case (`requests`: several requests of one process, e.g. Anthropic message
//! threads in 1.6) prints `{"api", "requests": [...]}`, one [`forge_replay_wire::Step`] per
//! request in order: its payload, the request sent (the threaded body) and its thread form, the
//! attempts rejected before it and the fallback. Bad input
//! (unreadable or malformed case, unknown model or api, a context pi-ai refuses) exits 2 with the
//! reason on stderr.

use forge_replay_model::error::chain as error_chain;
use forge_replay_model::json;
use forge_replay_wire::{assemble_case, assemble_sequence, AssembleError, Case, CaseFile};

use crate::args::{AssembleArgs, Format, TextOrJson};
use crate::out::{self, Out};
use crate::Exit;

pub fn run(args: AssembleArgs) -> anyhow::Result<Exit> {
    let path = args.case.display().to_string();
    let text = match forge_replay_session::input::read_to_string(&args.case) {
        Ok(t) => t,
        Err(e) => return bad_input(&format!("{path}: cannot read: {e}")),
    };
    let mut case = match CaseFile::parse(&text) {
        Ok(CaseFile::Single(c)) => c,
        Ok(CaseFile::Sequence(mut seq)) => {
            let release = args.pi.for_named(seq.pi, &args.case)?;
            seq.pi = Some(release);
            let catalog = match super::load_catalog(release, args.catalog.path()) {
                Ok(c) => c,
                Err(e) => return bad_input(&format!("{e:#}")),
            };
            let steps = match assemble_sequence(&seq, &catalog) {
                Ok(s) => s,
                Err(e) => return bad_input(&format!("{path}: {}", error_chain(&e))),
            };
            let mut requests = Vec::with_capacity(steps.len());
            for (i, step) in steps.into_iter().enumerate() {
                match step {
                    Ok(s) => requests.push(s),
                    Err(AssembleError::Rejected { message }) => {
                        return bad_input(&format!(
                            "{path}: request {i}: pi-ai {release} refuses this request: {message}"
                        ))
                    }
                    Err(e) => {
                        return bad_input(&format!("{path}: request {i}: {}", error_chain(&e)))
                    }
                }
            }
            let api = requests
                .first()
                .map_or("", |s| s.assembled.api.name())
                .to_string();
            let mut out = Out::stdout();
            match Format::or_default(args.format).text_or_json() {
                TextOrJson::Json => {
                    let doc = serde_json::json!({
                        "api": api,
                        "requests": requests.iter().map(forge_replay_wire::Step::to_json).collect::<Vec<_>>(),
                    });
                    out.json(&(json::stringify_pretty(&doc) + "\n"))?
                }
                TextOrJson::Text => out.text(&sequence_summary(&requests))?,
            }
            out.flush()?;
            return Ok(Exit::Ok);
        }
        Err(e) => return bad_input(&format!("{path}: malformed case: {e}")),
    };
    let release = args.pi.for_named(case.pi, &args.case)?;
    case.pi = Some(release);
    let catalog = match super::load_catalog(release, args.catalog.path()) {
        Ok(c) => c,
        Err(e) => return bad_input(&format!("{e:#}")),
    };
    match assemble_case(&case, &catalog) {
        Ok(assembled) => {
            let mut out = Out::stdout();
            match Format::or_default(args.format).text_or_json() {
                TextOrJson::Json => {
                    out.json(&(json::stringify_pretty(&assembled.to_json()) + "\n"))?
                }
                TextOrJson::Text => out.text(&summary(&case, &assembled))?,
            }
            out.flush()?;
            Ok(Exit::Ok)
        }
        Err(AssembleError::Rejected { message }) => bad_input(&format!(
            "{path}: pi-ai {release} refuses this request: {message}"
        )),
        Err(e) => bad_input(&format!("{path}: {}", error_chain(&e))),
    }
}

fn bad_input(msg: &str) -> anyhow::Result<Exit> {
    out::error!("{msg}");
    Ok(Exit::BadInput)
}

/// `assemble --format text`: what the request is, in a few lines.
fn summary(case: &Case, a: &forge_replay_wire::Assembled) -> String {
    use super::summary::{size, tool_names};
    let messages = case
        .context
        .get("messages")
        .and_then(serde_json::Value::as_array)
        .map_or(0, Vec::len);
    let tools = tool_names(a.api, &a.payload);
    let body = a
        .wire
        .as_ref()
        .map_or_else(|| json::stringify(&a.payload).len(), |w| w.body_text.len());
    let model = a
        .payload
        .get("model")
        .or_else(|| a.payload.get("modelId"))
        .and_then(serde_json::Value::as_str)
        .unwrap_or("?");
    let mut s = format!("api      {}\nmodel    {model}\n", a.api.name());
    if let Some(w) = &a.wire {
        s.push_str(&format!("request  {} {}\n", w.method, w.url));
    }
    s.push_str(&format!(
        "body     {}\nmessages {} in the case's context\ntools    {}\n",
        size(body),
        messages,
        if tools.is_empty() {
            "none".to_owned()
        } else {
            format!("{} ({})", tools.len(), tools.join(", "))
        }
    ));
    s.push_str("the request in full: --format json (the default when stdout is not a terminal)\n");
    s
}

/// `assemble --format text` of a multi-request case: one line per request.
fn sequence_summary(steps: &[forge_replay_wire::Step]) -> String {
    use super::summary::size;
    let mut s = String::from("#    model                        msgs  thread    body  notes\n");
    for (i, step) in steps.iter().enumerate() {
        let msgs = step
            .assembled
            .payload
            .get("messages")
            .and_then(serde_json::Value::as_array)
            .map_or(0, Vec::len);
        let sent = step.exchange.sent.as_ref();
        let thread = sent
            .and_then(|a| a.thread.as_ref())
            .map_or("—", |t| t.name());
        let body = sent
            .map(|a| a.wire.body_text.len())
            .or_else(|| step.assembled.wire.as_ref().map(|w| w.body_text.len()))
            .unwrap_or(0);
        let mut notes = Vec::new();
        if let Some(f) = &step.exchange.fallback {
            notes.push(format!("fallback after rejection ({})", f.reason));
        }
        if let Some(e) = &step.exchange.error {
            notes.push(format!("failed: {e}"));
        }
        if let Some(f) = &step.strict_fallback {
            notes.push(format!("resent non-strict ({})", f.diagnostic));
        } else if step.assembled.strict_tools_disabled {
            notes.push("non-strict (session over the strict-tool limits)".to_owned());
        }
        s.push_str(&format!(
            "{i:03}  {:<27}  {msgs:>4}  {thread:<8}  {:>6}  {}\n",
            step.model.id(),
            size(body),
            notes.join("; ")
        ));
    }
    s.push_str("the requests in full: --format json (the default when stdout is not a terminal)\n");
    s
}
