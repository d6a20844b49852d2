//! Delivery anchors (spec §4): anchor messages, `materializeCapabilityAnchors` at ordinal
//! positions of Pi's canonical projection, the unique-alignment rule and the pending-tool-call
//! detector.

use std::collections::HashSet;

use forge_replay_model::message::Message;
use serde_json::{Map, Value};

use crate::event::CAPABILITY_DELIVERY_TYPE;
use crate::history::{validate_anchor_data, EntryLocation};

/// Forge's message when the incoming context does not align with the session.
pub const NO_UNIQUE_ALIGNMENT: &str = "Cannot materialize capability anchors: context has no unique session alignment (possible preceding extension rewrite or deferred custom messages)";

/// One entry of Pi's projection (`projection.entries[i]`): the raw entry and how many of the
/// projection's messages it produced.
#[derive(Debug, Clone, Copy)]
pub struct ContextEntry<'a> {
    /// The raw session entry object.
    pub raw: &'a Value,
    /// 1-based JSONL line, for error reports.
    pub line: Option<usize>,
    /// Number of messages this entry contributes to `projection.messages`.
    pub message_count: usize,
}

/// An anchor failure with the entry that caused it (when known).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct AnchorError {
    pub message: String,
    pub location: Option<EntryLocation>,
}

/// `isCapabilityAnchorEntry`: a plain `custom` entry with the delivery customType.
pub fn is_anchor_entry(raw: &Value) -> bool {
    raw.get("type").and_then(Value::as_str) == Some("custom")
        && raw.get("customType").and_then(Value::as_str) == Some(CAPABILITY_DELIVERY_TYPE)
}

/// `capabilityAnchorMessage(entry)`: the ephemeral marker message for an anchor entry.
pub fn anchor_message(through_event_id: &str, entry_timestamp: Option<&Value>) -> Value {
    let timestamp = match entry_timestamp {
        Some(t @ Value::Number(_)) => t.clone(),
        Some(Value::String(s)) => {
            let ms = forge_replay_model::js::date::parse(s);
            if ms.is_finite() {
                forge_replay_model::json::f64_to_value(ms)
            } else {
                Value::from(0)
            }
        }
        _ => Value::from(0),
    };
    let mut details = Map::new();
    details.insert("schemaVersion".into(), Value::from(1));
    details.insert("throughEventId".into(), Value::from(through_event_id));
    let mut m = Map::new();
    m.insert("role".into(), Value::from("custom"));
    m.insert("customType".into(), Value::from(CAPABILITY_DELIVERY_TYPE));
    m.insert("content".into(), Value::Array(Vec::new()));
    m.insert("display".into(), Value::Bool(false));
    m.insert("details".into(), Value::Object(details));
    m.insert("timestamp".into(), timestamp);
    Value::Object(m)
}

/// Node's `isDeepStrictEqual` on JSON values (numbers compare as doubles, key order ignored).
pub fn deep_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            forge_replay_model::json::number_to_f64(x) == forge_replay_model::json::number_to_f64(y)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| deep_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| deep_equal(v, w)))
        }
        _ => a == b,
    }
}

fn is_custom(m: &Value) -> bool {
    m.get("role").and_then(Value::as_str) == Some("custom")
}

/// Message equality of the alignment: deep equality, ignoring `timestamp` when both are custom.
pub fn messages_equal(a: &Value, b: &Value) -> bool {
    if is_custom(a) && is_custom(b) {
        if let (Value::Object(x), Value::Object(y)) = (a, b) {
            let xs = x.iter().filter(|(k, _)| *k != "timestamp");
            let ylen = y.keys().filter(|k| *k != "timestamp").count();
            return xs.clone().count() == ylen
                && xs
                    .into_iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| deep_equal(v, w)));
        }
    }
    deep_equal(a, b)
}

/// `contextAlignment(expected, incoming)`: for every expected message the index of the incoming
/// message aligned to it (`None` = an omitted custom message), or `None` when there is no unique
/// alignment.
pub fn context_alignment(expected: &[Value], incoming: &[Value]) -> Option<Vec<Option<usize>>> {
    let mut out = vec![None; expected.len()];
    let (mut e, mut i) = (0, 0);
    while e < expected.len() {
        if !is_custom(&expected[e]) {
            if i >= incoming.len() || !messages_equal(&expected[e], &incoming[i]) {
                return None;
            }
            out[e] = Some(i);
            e += 1;
            i += 1;
            continue;
        }
        let e_end = (e..expected.len())
            .find(|&j| !is_custom(&expected[j]))
            .unwrap_or(expected.len());
        let i_end = (i..incoming.len())
            .find(|&j| !is_custom(&incoming[j]))
            .unwrap_or(incoming.len());
        let er = &expected[e..e_end];
        let ir = &incoming[i..i_end];
        // Earliest greedy embedding.
        let mut early = Vec::with_capacity(ir.len());
        let mut p = 0;
        for m in ir {
            while p < er.len() && !messages_equal(&er[p], m) {
                p += 1;
            }
            if p == er.len() {
                return None;
            }
            early.push(p);
            p += 1;
        }
        // Latest greedy embedding.
        let mut late = vec![0; ir.len()];
        let mut q = er.len();
        for (j, m) in ir.iter().enumerate().rev() {
            loop {
                if q == 0 {
                    return None;
                }
                q -= 1;
                if messages_equal(&er[q], m) {
                    break;
                }
            }
            late[j] = q;
        }
        if early != late {
            return None;
        }
        for (j, &p) in early.iter().enumerate() {
            out[e + p] = Some(i + j);
        }
        e = e_end;
        i = i_end;
    }
    if i != incoming.len() {
        return None;
    }
    Some(out)
}

/// `capabilityContextMatches(expected, incoming)`.
pub fn context_matches(expected: &[Value], incoming: &[Value]) -> bool {
    context_alignment(expected, incoming).is_some()
}

/// The result of materialization: messages plus, for each, the projected entry it came from.
#[derive(Debug, Clone)]
pub struct Materialized<M = Value> {
    pub messages: Vec<M>,
    /// For each output message, the index into the `entries` slice (`None` for incoming
    /// messages not tied to an entry, which cannot happen with a successful alignment).
    pub sources: Vec<Option<usize>>,
    /// Whether any visible anchor existed (otherwise `messages` is `incoming` unchanged).
    pub had_anchors: bool,
}

/// `materializeCapabilityAnchors(branchEntries, incoming)` given Pi's projection of the branch:
/// `entries` (`projection.entries`) and `expected` (`projection.messages`).
pub fn materialize_anchors(
    entries: &[ContextEntry<'_>],
    expected: &[Value],
    incoming: Vec<Value>,
) -> Result<Materialized, AnchorError> {
    let mut sources_of_expected = Vec::with_capacity(expected.len());
    for (i, e) in entries.iter().enumerate() {
        sources_of_expected.extend(std::iter::repeat_n(Some(i), e.message_count));
    }
    let no_anchors = |incoming: Vec<Value>| {
        let sources = if incoming.len() == sources_of_expected.len() {
            sources_of_expected.clone()
        } else {
            vec![None; incoming.len()]
        };
        Materialized {
            messages: incoming,
            sources,
            had_anchors: false,
        }
    };
    if entries.is_empty() {
        return Ok(no_anchors(incoming));
    }
    let mut any = false;
    for e in entries {
        if is_anchor_entry(e.raw) {
            any = true;
            validate_anchor_data(e.raw.get("data").unwrap_or(&Value::Null)).map_err(|message| {
                AnchorError {
                    message,
                    location: Some(EntryLocation::of(e.raw, e.line)),
                }
            })?;
        }
    }
    if !any {
        return Ok(no_anchors(incoming));
    }
    let align = context_alignment(expected, &incoming).ok_or_else(|| AnchorError {
        message: NO_UNIQUE_ALIGNMENT.into(),
        location: None,
    })?;
    materialize_with(entries, expected.len(), incoming, |j| align[j])
}

/// Materialization when `messages` *is* Pi's projection (the offline case): the alignment is
/// the identity, so no comparison is needed.
pub fn materialize_canonical<M: Message>(
    entries: &[ContextEntry<'_>],
    messages: Vec<M>,
) -> Result<Materialized<M>, AnchorError> {
    let mut any = false;
    for e in entries {
        if is_anchor_entry(e.raw) {
            any = true;
            validate_anchor_data(e.raw.get("data").unwrap_or(&Value::Null)).map_err(|message| {
                AnchorError {
                    message,
                    location: Some(EntryLocation::of(e.raw, e.line)),
                }
            })?;
        }
    }
    if !any {
        let mut sources = Vec::with_capacity(messages.len());
        for (i, e) in entries.iter().enumerate() {
            sources.extend(std::iter::repeat_n(Some(i), e.message_count));
        }
        sources.resize(messages.len(), None);
        return Ok(Materialized {
            messages,
            sources,
            had_anchors: false,
        });
    }
    let n = messages.len();
    materialize_with(entries, n, messages, Some)
}

fn materialize_with<M: Message>(
    entries: &[ContextEntry<'_>],
    expected_len: usize,
    incoming: Vec<M>,
    align: impl Fn(usize) -> Option<usize>,
) -> Result<Materialized<M>, AnchorError> {
    let head_is_system = incoming
        .first()
        .and_then(|m| m.borrow().get("role"))
        .and_then(Value::as_str)
        == Some("system");
    let mut slots: Vec<Option<M>> = incoming.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len() + 4);
    let mut sources = Vec::with_capacity(slots.len() + 4);
    let mut head_at = None;
    let mut j = 0;
    for (ei, e) in entries.iter().enumerate() {
        if is_anchor_entry(e.raw) {
            let through = e
                .raw
                .get("data")
                .and_then(|d| d.get("throughEventId"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            out.push(M::from_value(anchor_message(
                through,
                e.raw.get("timestamp"),
            )));
            sources.push(Some(ei));
        }
        for _ in 0..e.message_count {
            if j < expected_len {
                if let Some(ii) = align(j) {
                    if let Some(m) = slots.get_mut(ii).and_then(Option::take) {
                        if ii == 0 {
                            head_at = Some(out.len());
                        }
                        out.push(m);
                        sources.push(Some(ei));
                    }
                }
            }
            j += 1;
        }
    }
    if j != expected_len {
        return Err(AnchorError {
            message: format!(
                "Cannot materialize capability anchors: context message count mismatch (processed {} of {expected_len} projected session messages)",
                j.min(expected_len)
            ),
            location: None,
        });
    }
    if head_is_system {
        if let Some(h) = head_at.filter(|&h| h > 0) {
            let m = out.remove(h);
            let s = sources.remove(h);
            out.insert(0, m);
            sources.insert(0, s);
        }
    }
    Ok(Materialized {
        messages: out,
        sources,
        had_anchors: true,
    })
}

/// `hasPendingCapabilityToolCalls(messages)`.
pub fn has_pending_tool_calls(messages: &[Value]) -> bool {
    let mut pending: HashSet<&str> = HashSet::new();
    for m in messages {
        match m.get("role").and_then(Value::as_str) {
            Some("user") => pending.clear(),
            Some("assistant") => {
                if let Some(Value::Array(blocks)) = m.get("content") {
                    for b in blocks {
                        if b.get("type").and_then(Value::as_str) == Some("toolCall") {
                            if let Some(id) = b.get("id").and_then(Value::as_str) {
                                if !id.is_empty() {
                                    pending.insert(id);
                                }
                            }
                        }
                    }
                }
            }
            Some("toolResult") => {
                if let Some(id) = m.get("toolCallId").and_then(Value::as_str) {
                    if !id.is_empty() {
                        pending.remove(id);
                    }
                }
            }
            _ => {}
        }
    }
    !pending.is_empty()
}
