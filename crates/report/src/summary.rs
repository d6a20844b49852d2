//! `replay --format text` and `assemble --format text` (the defaults on a terminal).
//!
//! For `replay`: one row per request and what changed from the request before it, built only
//! from `replay`'s public results ([`Request`] values).
//!
//! For each request the row holds the entry id, `provider/model` and API, the number of
//! transcript messages and declared tools, the body size, and the change against the previous
//! request of the same target (with `--model`/`--api`/`--all-apis` every target has its own
//! sequence): messages added, the system prompt or the tool list changed, a model switch, the
//! history rewritten (a compaction or a branch), and how much of the previous body this one
//! keeps as its byte prefix (what a prompt cache can reuse).
//!
//! Memory: the previous body text and message hashes of each target, and one short row per
//! request; every request is looked at once (linear in what the replay builds).
//!
//! For `assemble`: [`assembled_text`] (one request in a few lines) and [`sequence_text`] (one
//! line per request of a multi-request case).
//!
//! [`unsettled_thinking_note`]: what `replay` says about a request whose thinking level the
//! session does not settle.

use std::collections::{BTreeSet, HashMap};

use forge_replay_engine::replay::{Request, Thinking, ThinkingSource};
use forge_replay_model::json;
use forge_replay_usage::explain::order::{CacheOrder, Earlier, Segment};
use forge_replay_wire::api::Api;
use serde_json::Value;

/// What is remembered of the previous request of one target.
#[derive(Debug)]
struct Previous {
    model: String,
    api: Api,
    /// The payload `order` was flattened from, which the next request's flattening takes the
    /// unchanged elements over from ([`CacheOrder::of_after`]); not kept when the replay
    /// rebuilds the next request in it (the next request says what it kept instead).
    payload: Option<Value>,
    /// [`Request::reuse`]'s token of the request.
    token: u64,
    /// The request flattened in the provider's prompt-cache order (cache markers removed).
    order: CacheOrder,
    messages: Vec<u64>,
    tools: BTreeSet<String>,
}

/// One row of the summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub index: usize,
    pub entry_id: String,
    pub model: String,
    pub api: String,
    pub messages: usize,
    pub tools: usize,
    pub bytes: usize,
    /// What changed from the previous request (`first request` for the first).
    pub changes: String,
    /// Bytes of the previous request (in cache order) this one starts with, and its length;
    /// `None` for the first request.
    pub kept: Option<(usize, usize)>,
}

/// Collects the rows of a replay, one [`Request`] at a time.
#[derive(Debug, Default)]
pub struct Summary {
    per_target: bool,
    previous: HashMap<String, Previous>,
    pub rows: Vec<Row>,
}

/// The names of the tools a payload declares, in order.
pub fn tool_names(api: Api, payload: &Value) -> Vec<String> {
    CacheOrder::of(api, "", "", payload)
        .tools
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl Summary {
    /// `per_target`: compare each request with the previous one of the same `provider/model`
    /// (a re-targeted replay), not with the previous request overall.
    pub fn new(per_target: bool) -> Summary {
        Summary {
            per_target,
            ..Summary::default()
        }
    }

    /// Adds one request (built with `hash_transcript`, so its messages can be compared), and
    /// hands back its payload when the replay may build the next request in it.
    pub fn push(&mut self, r: Request) -> Option<Value> {
        let model = format!("{}/{}", r.provider, r.model);
        let bytes = r
            .wire
            .as_ref()
            .map_or_else(|| json::stringify(&r.payload).len(), |w| w.body_text.len());
        let key = if self.per_target {
            model.clone()
        } else {
            String::new()
        };
        // The elements the previous request (of the same API) already stringified are taken
        // over, not stringified again: the same flattening, at the cost of what changed.
        let earlier = self
            .previous
            .get(&key)
            .filter(|p| p.api == r.api)
            .map(|p| Earlier {
                order: &p.order,
                payload: p.payload.as_ref(),
                kept_messages: r.reuse.kept_after(p.token),
            });
        let order = CacheOrder::of_after(r.api, &r.provider, &r.model, &r.payload, earlier);
        // A payload the next request is built in goes back; the next request says what it kept.
        let (kept, back) = if r.reuse.token == 0 {
            (Some(r.payload), None)
        } else {
            (None, Some(r.payload))
        };
        let now = Previous {
            model: model.clone(),
            api: r.api,
            tools: order.tools.iter().map(|(n, _)| n.clone()).collect(),
            messages: r.transcript_hashes,
            order,
            payload: kept,
            token: r.reuse.token,
        };
        let (changes, kept) = match self.previous.get(&key) {
            None => ("first request".to_owned(), None),
            Some(prev) => {
                let kept = prev.order.common_prefix(&now.order);
                (describe(prev, &now), Some((kept, prev.order.len())))
            }
        };
        self.rows.push(Row {
            index: r.index,
            entry_id: r.entry_id.clone(),
            model,
            api: r.api.name().to_owned(),
            messages: now.messages.len(),
            tools: now.order.tools.len(),
            bytes,
            changes,
            kept,
        });
        self.previous.insert(key, now);
        back
    }

    /// What `replay` prints: [`Summary::render`] and where the full requests are.
    pub fn page(&self) -> String {
        self.render()
            + "full requests: --format json prints them (the default when stdout is not a terminal), --out DIR writes one file per request\n"
    }

    /// The summary as text: an aligned table and the totals line.
    pub fn render(&self) -> String {
        let headers = [
            "#", "entry", "model", "api", "msgs", "tools", "body", "kept", "changes",
        ];
        let rows: Vec<[String; 9]> = self
            .rows
            .iter()
            .map(|r| {
                [
                    format!("{:03}", r.index),
                    r.entry_id.clone(),
                    r.model.clone(),
                    r.api.clone(),
                    r.messages.to_string(),
                    r.tools.to_string(),
                    size(r.bytes),
                    match r.kept {
                        None => "—".to_owned(),
                        Some((_, 0)) => "—".to_owned(),
                        Some((k, of)) => format!("{:.0}%", k as f64 * 100.0 / of as f64),
                    },
                    r.changes.clone(),
                ]
            })
            .collect();
        let mut width = headers.map(|h| h.chars().count());
        for r in &rows {
            for (w, c) in width.iter_mut().zip(r) {
                *w = (*w).max(c.chars().count());
            }
        }
        let numeric = [false, false, false, false, true, true, true, true, false];
        let line = |cells: &[String]| {
            let mut s = String::new();
            for (i, c) in cells.iter().enumerate() {
                let pad = width[i].saturating_sub(c.chars().count());
                if i == cells.len() - 1 {
                    s.push_str(c);
                } else if numeric[i] {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                    s.push_str("  ");
                } else {
                    s.push_str(c);
                    s.push_str(&" ".repeat(pad + 2));
                }
            }
            s.trim_end().to_owned() + "\n"
        };
        let mut out = line(&headers.map(str::to_owned));
        for r in &rows {
            out.push_str(&line(r));
        }
        let total: usize = self.rows.iter().map(|r| r.bytes).sum();
        let mut targets: Vec<&str> = self.rows.iter().map(|r| r.model.as_str()).collect();
        targets.sort_unstable();
        targets.dedup();
        out.push_str(
            "kept: the share of the previous request (in the provider's prompt-cache order) this one starts with\n",
        );
        out.push_str(&format!(
            "{} · {} · {} of request bodies\n",
            plural(self.rows.len(), "request", "requests"),
            plural(targets.len(), "model", "models"),
            size(total)
        ));
        out
    }
}

/// The text summary as a sink of a replay: a row per request, rendered at the end
/// ([`Summary::render`]).
impl forge_replay_engine::sink::RequestSink for Summary {
    fn request(&mut self, r: Request) -> std::io::Result<Option<Value>> {
        Ok(self.push(r))
    }
}

fn describe(prev: &Previous, now: &Previous) -> String {
    let mut parts = Vec::new();
    if prev.model != now.model {
        parts.push(format!("model switch from {}", prev.model));
    }
    let same = prev
        .messages
        .iter()
        .zip(&now.messages)
        .take_while(|(a, b)| a == b)
        .count();
    if same < prev.messages.len() {
        parts.push(format!(
            "history rewritten ({} of {} kept)",
            same,
            plural(prev.messages.len(), "message", "messages")
        ));
    }
    let added = now.messages.len() - same;
    if added > 0 {
        parts.push(format!("+{}", plural(added, "message", "messages")));
    }
    let system = |o: &CacheOrder| {
        (
            o.segment_text(Segment::System).to_owned(),
            o.segment_text(Segment::Instructions).to_owned(),
        )
    };
    if system(&prev.order) != system(&now.order) {
        parts.push("system updated".to_owned());
    }
    if prev.order.segment_text(Segment::Tools) != now.order.segment_text(Segment::Tools) {
        let plus: Vec<&str> = now
            .tools
            .difference(&prev.tools)
            .map(String::as_str)
            .collect();
        let minus: Vec<&str> = prev
            .tools
            .difference(&now.tools)
            .map(String::as_str)
            .collect();
        let mut t = String::from("tools changed");
        if !plus.is_empty() || !minus.is_empty() {
            let mut d: Vec<String> = plus.iter().map(|n| format!("+{n}")).collect();
            d.extend(minus.iter().map(|n| format!("-{n}")));
            t = format!("tools {}", d.join(" "));
        }
        parts.push(t);
    }
    if parts.is_empty() {
        "same context".to_owned()
    } else {
        parts.join(", ")
    }
}

/// The note said for request `index` (on `line` of `session`) when the session does not settle
/// its thinking level: a `/tree` navigation left the last change on another branch and the
/// response records none. It names the other reading (`--after-tree path`).
pub fn unsettled_thinking_note(
    session: &std::path::Path,
    line: u64,
    index: usize,
    thinking: &Thinking,
) -> Option<String> {
    let (ThinkingSource::Live { line: Some(at) }, Some(path)) =
        (&thinking.source, &thinking.path_level)
    else {
        return None;
    };
    Some(format!(
        "forge-replay: note: {}:{line}: request {index} uses thinking level {}, the live agent's (set on line {at}, on another branch: /tree navigation keeps it); its path says {path} (--after-tree path)",
        session.display(),
        thinking.level,
    ))
}

/// The [`unsettled_thinking_note`]s of one replay of the session at `session`: each request's at
/// most once (a request replayed for several target models is noted once).
#[derive(Debug)]
pub struct ThinkingNotes<'a> {
    session: &'a std::path::Path,
    noted: std::collections::HashSet<usize>,
}

impl<'a> ThinkingNotes<'a> {
    pub fn new(session: &'a std::path::Path) -> ThinkingNotes<'a> {
        ThinkingNotes {
            session,
            noted: Default::default(),
        }
    }

    /// The note of `r`'s request, the first time the request is seen.
    pub fn of(&mut self, r: &Request) -> Option<String> {
        self.note(r.index, r.line, &r.thinking)
    }

    fn note(&mut self, index: usize, line: u64, thinking: &Thinking) -> Option<String> {
        if !self.noted.insert(index) {
            return None;
        }
        unsettled_thinking_note(self.session, line, index, thinking)
    }
}

/// `812 B`, `2.1 KB`, `3.4 MB`.
pub fn size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

/// `assemble --format text`: what the request is, in a few lines.
pub fn assembled_text(case: &forge_replay_wire::Case, a: &forge_replay_wire::Assembled) -> String {
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
pub fn sequence_text(steps: &[forge_replay_wire::Step]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_live_level_from_another_branch_is_noted() {
        let p = std::path::Path::new("s.jsonl");
        let live = Thinking {
            level: "high".into(),
            source: ThinkingSource::Live { line: Some(4) },
            path_level: Some("low".into()),
        };
        let note = unsettled_thinking_note(p, 9, 2, &live).expect("noted");
        assert!(note.starts_with("forge-replay: note: s.jsonl:9: request 2 uses thinking level high, the live agent's (set on line 4,"), "{note}");
        assert!(
            note.ends_with("its path says low (--after-tree path)"),
            "{note}"
        );
        let settled = Thinking {
            source: ThinkingSource::Recorded,
            ..live
        };
        assert_eq!(unsettled_thinking_note(p, 9, 2, &settled), None);
        let mut notes = ThinkingNotes::new(p);
        assert!(notes.note(2, 9, &settled).is_none());
        assert!(notes.note(3, 9, &settled.clone()).is_none());
        let live = Thinking {
            source: ThinkingSource::Live { line: Some(4) },
            ..settled
        };
        assert!(notes.note(2, 9, &live).is_none(), "request 2 was seen");
        assert!(notes.note(4, 9, &live).is_some());
    }

    #[test]
    fn tools_of_every_api_shape() {
        let p: Value = serde_json::json!({
            "config": {"tools": [{"functionDeclarations": [{"name": "edit"}, {"name": "grep"}]}]}
        });
        assert_eq!(tool_names(Api::GoogleGenerativeAi, &p), ["edit", "grep"]);
        let p: Value = serde_json::json!({"toolConfig": {"tools": [{"toolSpec": {"name": "ls"}}]}});
        assert_eq!(tool_names(Api::BedrockConverseStream, &p), ["ls"]);
    }

    #[test]
    fn sizes() {
        assert_eq!(size(812), "812 B");
        assert_eq!(size(2150), "2.1 KB");
        assert_eq!(size(3 * 1024 * 1024 + 400_000), "3.4 MB");
    }
}
