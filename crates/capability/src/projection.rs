//! `projectCapabilityMessages` (spec §5.2–§5.6): delivery markers become native system sections
//! or attributed user updates; a compaction checkpoint restates the text state; events without
//! a marker are replayed at the end (the pending safety net).

use std::collections::HashMap;

use forge_replay_model::js::{self, Field};
use forge_replay_model::message::Message;
use serde_json::{Map, Value};

use crate::event::{CapabilityEvent, CAPABILITY_DELIVERY_TYPE};
use crate::reducer::Reducer;
use crate::valid;

/// Section key prefix.
pub const SECTION_PREFIX: &str = "forge-capability-";
/// First line of a fallback update.
pub const FALLBACK_HEADER: &str = "[pi-forge capability update]\n";

/// How capability updates are presented to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Presentation {
    /// `{role:"system", content:"", sections}` (models with `supportsMidConvoSystemMessages`).
    Native,
    /// `{role:"user", content:"[pi-forge capability update]\n…"}`.
    Fallback,
}

/// `--capabilities native|fallback`.
impl forge_replay_model::choice::Choice for Presentation {
    const ALL: &'static [Presentation] = &[Presentation::Native, Presentation::Fallback];

    fn name(self) -> &'static str {
        match self {
            Self::Native => "native",
            Self::Fallback => "fallback",
        }
    }

    fn help(self) -> Option<&'static str> {
        Some(match self {
            Self::Native => {
                "Native system sections (models flagged `supportsMidConvoSystemMessages`)"
            }
            Self::Fallback => "Attributed `[pi-forge capability update]` user messages",
        })
    }
}

impl Presentation {
    /// `native === true` → Native.
    pub fn from_native(native: bool) -> Self {
        if native {
            Self::Native
        } else {
            Self::Fallback
        }
    }

    /// The status text: `native system sections` / `attributed user updates`.
    pub fn status_text(self) -> &'static str {
        match self {
            Self::Native => "native system sections",
            Self::Fallback => "attributed user updates",
        }
    }
}

/// A projection failure: Forge's message and, for marker errors, the index of the offending
/// message in the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ProjectionError {
    pub message: String,
    pub message_index: Option<usize>,
}

/// Why a projected update was emitted (the `onUpdate` kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UpdateKind {
    Anchor,
    Pending,
    Checkpoint,
}

/// The result of a projection.
#[derive(Debug, Clone)]
pub struct Projected<M = Value> {
    pub messages: Vec<M>,
    /// Last event id of `E` (absent when no events).
    pub through_event_id: Option<String>,
    /// Index in `messages` and kind of every inserted update.
    pub updates: Vec<(usize, UpdateKind)>,
}

/// True for a delivery marker message (`role "custom"` + the delivery customType).
pub fn is_marker(m: &Value) -> bool {
    m.field("role").and_then(Value::as_str) == Some("custom")
        && m.field("customType").and_then(Value::as_str) == Some(CAPABILITY_DELIVERY_TYPE)
}

type TextState = Vec<(String, String)>;

struct TextCursor<'a> {
    events: &'a [&'a CapabilityEvent],
    reducer: Reducer,
    applied: usize,
}

impl<'a> TextCursor<'a> {
    fn state_at(&mut self, k: usize) -> TextState {
        while self.applied <= k {
            // The full list reduced successfully, so every prefix does too.
            self.reducer.apply_valid(self.events[self.applied]);
            self.applied += 1;
        }
        self.reducer
            .active()
            .iter()
            .filter(|a| !a.snapshot.is_tool_only())
            .map(|a| (a.snapshot.activation_id.clone(), a.snapshot.content.clone()))
            .collect()
    }
}

/// `delta(prev, curr)`: changed/new first (current order), then removals (previous order).
fn delta(prev: &TextState, curr: &TextState) -> Map<String, Value> {
    let mut out = Map::new();
    for (id, text) in curr {
        if prev.iter().find(|(p, _)| p == id).map(|(_, t)| t) != Some(text) {
            out.insert(format!("{SECTION_PREFIX}{id}"), Value::from(text.clone()));
        }
    }
    for (id, _) in prev {
        if !curr.iter().any(|(c, _)| c == id) {
            out.insert(format!("{SECTION_PREFIX}{id}"), Value::Null);
        }
    }
    out
}

/// pi-ai's `renderSystemMessageUpdate` for an empty-content system message.
pub fn render_system_message_update(sections: &Map<String, Value>) -> String {
    let parts: Vec<String> = sections
        .iter()
        .map(|(name, value)| match value {
            Value::Null => format!("Removed system prompt section \"{name}\"."),
            v => format!(
                "Updated system prompt section \"{name}\":\n\n{}",
                v.as_str()
                    .map_or_else(|| js::to_string(Some(v)), str::to_string)
            ),
        })
        .collect();
    parts.join("\n\n")
}

/// Builds one update message (§5.3).
pub fn make_update(sections: Map<String, Value>, timestamp: Value, p: Presentation) -> Value {
    let mut m = Map::new();
    match p {
        Presentation::Native => {
            m.insert("role".into(), Value::from("system"));
            m.insert("content".into(), Value::from(""));
            m.insert("sections".into(), Value::Object(sections));
        }
        Presentation::Fallback => {
            m.insert("role".into(), Value::from("user"));
            m.insert(
                "content".into(),
                Value::from(format!(
                    "{FALLBACK_HEADER}{}",
                    render_system_message_update(&sections)
                )),
            );
        }
    }
    m.insert("timestamp".into(), timestamp);
    Value::Object(m)
}

fn ts(f: f64) -> Value {
    forge_replay_model::json::f64_to_value(f)
}

/// Removes every delivery marker (the untrusted-project projection, §5.8).
pub fn strip_markers<M: Message>(messages: Vec<M>) -> Vec<M> {
    messages
        .into_iter()
        .filter(|m| !is_marker(m.borrow()))
        .collect()
}

/// `projectCapabilityMessages(messages, {events, checkpointThrough}, native)`.
///
/// `events` is the branch's full decoded event list (duplicates included). Non-marker messages
/// are moved through unchanged.
pub fn project_capability_messages(
    messages: Vec<Value>,
    events: &[CapabilityEvent],
    checkpoint_through: Option<&str>,
    presentation: Presentation,
) -> Result<Projected, ProjectionError> {
    let err = |message: String, message_index: Option<usize>| ProjectionError {
        message,
        message_index,
    };
    let mut full = Reducer::new();
    for ev in events {
        full.apply(ev).map_err(|e| {
            err(
                format!(
                    "Invalid capability events at index {}: {}",
                    e.index, e.error
                ),
                None,
            )
        })?;
    }
    let mut unique: Vec<&CapabilityEvent> = Vec::new();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for ev in events {
        if seen.insert(ev.event_id.as_str()) {
            unique.push(ev);
        }
    }
    project_unique_events(messages, &unique, checkpoint_through, presentation)
}

/// [`project_capability_messages`] for a history that already reduced successfully, given its
/// first occurrences in order (`E`): what the per-request replay path calls.
pub fn project_unique_events<M: Message>(
    messages: Vec<M>,
    unique: &[&CapabilityEvent],
    checkpoint_through: Option<&str>,
    presentation: Presentation,
) -> Result<Projected<M>, ProjectionError> {
    let err = |message: String, message_index: Option<usize>| ProjectionError {
        message,
        message_index,
    };
    let pos: HashMap<&str, usize> = unique
        .iter()
        .enumerate()
        .map(|(i, e)| (e.event_id.as_str(), i))
        .collect();
    let mut checkpoint_index: Option<usize> = None;
    if let Some(cp) = checkpoint_through {
        if cp.is_empty() {
            return Err(err(
                "Invalid checkpointThrough: must be a non-empty string".into(),
                None,
            ));
        }
        checkpoint_index = Some(*pos.get(cp).ok_or_else(|| {
            err(
                format!("checkpointThrough \"{cp}\" not found in branch events"),
                None,
            )
        })?);
    }
    // Validate every marker first (and note where they are: one look at each message).
    let p = "Invalid capability delivery marker: ";
    let mut marker_at = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let m: &Value = m.borrow();
        if !is_marker(m) {
            continue;
        }
        marker_at.push(i);
        let Some(Value::Object(d)) = m.get("details") else {
            return Err(err(format!("{p}details object is required"), Some(i)));
        };
        if !valid::is_one(d.get("schemaVersion")) {
            return Err(err(
                format!(
                    "{p}schemaVersion must be 1, got {}",
                    js::to_string(d.get("schemaVersion"))
                ),
                Some(i),
            ));
        }
        let through = match d.get("throughEventId") {
            Some(Value::String(s)) if !s.is_empty() => s,
            _ => {
                return Err(err(
                    format!("{p}throughEventId must be a non-empty string"),
                    Some(i),
                ))
            }
        };
        if !pos.contains_key(through.as_str()) {
            return Err(err(
                format!("Delivery marker cursor \"{through}\" not found in branch events"),
                Some(i),
            ));
        }
    }

    let mut cursor_state = TextCursor {
        events: unique,
        reducer: Reducer::new(),
        applied: 0,
    };
    let mut cursor: isize = -1;
    let mut state: TextState = Vec::new();
    let mut checkpoint_msg = None;
    if let Some(ci) = checkpoint_index {
        cursor = ci as isize;
        state = cursor_state.state_at(ci);
        if !state.is_empty() {
            let sections = delta(&Vec::new(), &state);
            checkpoint_msg = Some(make_update(
                sections,
                ts(unique[ci].created_at),
                presentation,
            ));
        }
    }
    let mut out: Vec<M> = Vec::with_capacity(messages.len() + 2);
    let mut updates = Vec::new();
    let mut next_marker = marker_at.iter().copied().peekable();
    for (i, m) in messages.into_iter().enumerate() {
        if next_marker.next_if_eq(&i).is_none() {
            out.push(m);
            continue;
        }
        let m: &Value = m.borrow();
        let through = m["details"]["throughEventId"].as_str().unwrap_or_default();
        let k = pos[through];
        if checkpoint_index.is_some_and(|ci| k <= ci) {
            continue;
        }
        if (k as isize) < cursor {
            return Err(err(
                format!(
                    "Corrupt marker cursor: marker at \"{through}\" (index {k}) is earlier than current cursor position {cursor}"
                ),
                Some(i),
            ));
        }
        if k as isize == cursor {
            continue;
        }
        let next = cursor_state.state_at(k);
        let d = delta(&state, &next);
        state = next;
        cursor = k as isize;
        if !d.is_empty() {
            let stamp = match m.get("timestamp") {
                Some(t @ Value::Number(_)) => t.clone(),
                _ => Value::from(0),
            };
            updates.push((out.len(), UpdateKind::Anchor));
            out.push(M::from_value(make_update(d, stamp, presentation)));
        }
    }
    if let Some(cm) = checkpoint_msg {
        let at = out
            .iter()
            .position(|m| m.borrow().get("role").and_then(Value::as_str) == Some("system"))
            .map_or(0, |i| i + 1);
        for u in &mut updates {
            if u.0 >= at {
                u.0 += 1;
            }
        }
        updates.insert(0, (at, UpdateKind::Checkpoint));
        out.insert(at, M::from_value(cm));
    }
    let start = (cursor + 1) as usize;
    for (k, ev) in unique.iter().enumerate().skip(start) {
        let next = cursor_state.state_at(k);
        let d = delta(&state, &next);
        state = next;
        if !d.is_empty() {
            updates.push((out.len(), UpdateKind::Pending));
            out.push(M::from_value(make_update(
                d,
                ts(ev.created_at),
                presentation,
            )));
        }
    }
    updates.sort_by_key(|u| u.0);
    Ok(Projected {
        messages: out,
        through_event_id: unique.last().map(|e| e.event_id.clone()),
        updates,
    })
}
