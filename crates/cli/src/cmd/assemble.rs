//! `forge-replay assemble CASE.json [--catalog F] [--pi R]`: the request pi-ai would send for a
//! case, as the release the case names (`"pi"`), `--pi` or the default follows.
//!
//! Prints `{"api", "payload", "wire": {url, method, body} | null}` (secrets redacted). Bad input
//! (unreadable or malformed case, unknown model or api, a context pi-ai refuses) exits 2 with the
//! reason on stderr.

use forge_replay_model::error::chain as error_chain;
use forge_replay_model::json;
use forge_replay_wire::{assemble_case, AssembleError, Case};

use crate::args::{AssembleArgs, Format, TextOrJson};
use crate::out::{self, Out};
use crate::Exit;

pub fn run(args: AssembleArgs) -> anyhow::Result<Exit> {
    let path = args.case.display().to_string();
    let text = match forge_replay_session::input::read_to_string(&args.case) {
        Ok(t) => t,
        Err(e) => return bad_input(&format!("{path}: cannot read: {e}")),
    };
    let mut case = match Case::parse(&text) {
        Ok(c) => c,
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
