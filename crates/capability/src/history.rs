//! `readCapabilitySession` (spec §2.6, §2.7): capability history of one branch, read from the
//! raw session entries root→leaf (not the compaction-trimmed projection).
//!
//! [`HistoryBuilder`] is incremental: push entries in path order and call
//! [`HistoryBuilder::finish`] (cheap, non-consuming) whenever a request needs the history. The
//! builder is `Clone`, so a caller walking a tree can fork it at a branch point.

use forge_replay_model::js;
use serde::Serialize;
use serde_json::Value;

use crate::event::{
    decode_event, CapabilityEvent, CAPABILITY_DELIVERY_TYPE, CAPABILITY_EVENT_ENTRY,
    CAPABILITY_TOOLS_ENTRY,
};
use crate::valid;
use std::sync::Arc;

use crate::reducer::{ActiveCapability, Reducer};

/// Legacy (instruction-era) plain custom entry types.
pub const LEGACY_CUSTOM_TYPES: [&str; 3] = [
    "pi-forge-instruction-event",
    "pi-forge-instruction-tools",
    "pi-forge-instruction-delivery",
];
/// Forge's message for legacy plain custom entries.
pub const LEGACY_STATE_MESSAGE: &str = "This session contains legacy pre-capability state. Start a new session; old capability state is not restored.";
/// Forge's message for a legacy `custom_message` delivery carrier.
pub const LEGACY_DELIVERY_MESSAGE: &str = "This session contains legacy pre-capability delivery state. Start a new session; old capability state is not restored.";

/// Where a session entry came from (for error reports).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryLocation {
    /// The entry's `id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<String>,
    /// 1-based line in the JSONL file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

impl EntryLocation {
    /// Location of a raw entry object at a line.
    pub fn of(raw: &Value, line: Option<usize>) -> Self {
        Self {
            entry_id: raw.get("id").and_then(Value::as_str).map(str::to_string),
            line,
        }
    }
}

impl std::fmt::Display for EntryLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.line, &self.entry_id) {
            (Some(l), Some(id)) => write!(f, "line {l} (entry {id})"),
            (Some(l), None) => write!(f, "line {l}"),
            (None, Some(id)) => write!(f, "entry {id}"),
            (None, None) => f.write_str("unknown entry"),
        }
    }
}

/// A fail-closed capability history error: Forge's exact message and the entry that caused it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (at {location})")]
pub struct HistoryError {
    /// Forge's error text, byte for byte.
    pub message: String,
    pub location: EntryLocation,
}

/// The tool baseline entry `{schemaVersion: 1, baseline, lastApplied}` (§2.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolBaseline {
    pub baseline: Vec<String>,
    pub last_applied: Vec<String>,
}

/// Validates tool baseline data with Forge's messages.
pub fn decode_tool_baseline(data: &Value) -> Result<ToolBaseline, String> {
    let Value::Object(m) = data else {
        return Err("Invalid Forge tool baseline.".into());
    };
    if !valid::is_one(m.get("schemaVersion"))
        || m.keys()
            .any(|k| !matches!(k.as_str(), "schemaVersion" | "baseline" | "lastApplied"))
    {
        return Err("Unsupported Forge tool baseline schema.".into());
    }
    let list = |key: &str| -> Result<Vec<String>, String> {
        let bad = || format!("Invalid Forge tool baseline {key}.");
        let Some(Value::Array(items)) = m.get(key) else {
            return Err(bad());
        };
        if items.len() > 4096 {
            return Err(bad());
        }
        items
            .iter()
            .map(|i| match i {
                Value::String(s)
                    if !s.is_empty()
                        && js::len(s) <= 1024
                        && !s.chars().any(valid::is_ascii_control) =>
                {
                    Ok(s.clone())
                }
                _ => Err(bad()),
            })
            .collect()
    };
    Ok(ToolBaseline {
        baseline: list("baseline")?,
        last_applied: list("lastApplied")?,
    })
}

/// Errors of `validateCapabilityAnchorData` (§4.1), prefixed `Invalid capability anchor metadata: `.
pub fn validate_anchor_data(data: &Value) -> Result<String, String> {
    let p = "Invalid capability anchor metadata: ";
    let Value::Object(m) = data else {
        return Err(format!("{p}data must be a non-null object"));
    };
    for (k, _) in forge_replay_model::json::js_key_order(m) {
        if k != "schemaVersion" && k != "throughEventId" {
            return Err(format!("{p}unexpected extra field \"{k}\""));
        }
    }
    let Some(sv) = m.get("schemaVersion") else {
        return Err(format!("{p}missing required field schemaVersion"));
    };
    let Some(through) = m.get("throughEventId") else {
        return Err(format!("{p}missing required field throughEventId"));
    };
    if !valid::is_one(Some(sv)) {
        return Err(format!(
            "{p}unsupported schemaVersion {}, expected 1",
            js::to_string(Some(sv))
        ));
    }
    let Value::String(id) = through else {
        return Err(format!("{p}throughEventId must be a non-empty string"));
    };
    if id.is_empty() {
        return Err(format!("{p}throughEventId must be a non-empty string"));
    }
    let n = js::len(id);
    if n > 128 {
        return Err(format!(
            "{p}throughEventId length exceeds 128 characters ({n})"
        ));
    }
    if id
        .chars()
        .any(|c| (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)))
    {
        return Err(format!("{p}throughEventId contains control characters"));
    }
    Ok(id.clone())
}

/// One decoded event of the branch, with its raw position.
#[derive(Debug, Clone)]
pub struct BranchEvent {
    pub event: CapabilityEvent,
    /// False for an identical replay of an earlier event id.
    pub first: bool,
    pub location: EntryLocation,
}

/// `{events, checkpointThrough, lastAnchoredIndex, tools?}` plus the reduction.
#[derive(Debug, Clone, Default)]
pub struct CapabilityHistory {
    /// Every decoded event, duplicates included.
    pub events: Vec<Arc<BranchEvent>>,
    /// Last first-occurrence event at/before the latest compaction on the path.
    pub checkpoint_through: Option<String>,
    /// Raw index of the latest anchored event (−1 when none).
    pub last_anchored_index: isize,
    /// The last tools entry on the branch.
    pub tools: Option<ToolBaseline>,
    /// Active capabilities after the branch's events, in activation order.
    pub active: Vec<ActiveCapability>,
    /// The last new (first-occurrence) event id.
    pub last_event_id: Option<String>,
    /// Raw index of each anchor seen, in order (for status views).
    pub anchors: Vec<usize>,
    /// Entry index (position in the pushed path) of the last new event, if any.
    pub last_new_event_position: Option<usize>,
}

impl CapabilityHistory {
    /// Index of the first occurrence of `event_id` in [`Self::events`].
    pub fn index_of(&self, event_id: &str) -> Option<usize> {
        self.events
            .iter()
            .position(|e| e.first && e.event.event_id == event_id)
    }

    /// The first occurrences, in order (the projection's `E`).
    pub fn unique_events(&self) -> impl Iterator<Item = &CapabilityEvent> {
        self.events.iter().filter(|e| e.first).map(|e| &e.event)
    }

    /// `pendingEvents`: first occurrences after `max(lastAnchoredIndex, index(checkpointThrough))`.
    pub fn pending_events(&self) -> Vec<&CapabilityEvent> {
        let cp = self
            .checkpoint_through
            .as_deref()
            .and_then(|id| self.index_of(id))
            .map_or(-1, |i| i as isize);
        let through = self.last_anchored_index.max(cp);
        self.events
            .iter()
            .enumerate()
            .filter(|(i, e)| e.first && *i as isize > through)
            .map(|(_, e)| &e.event)
            .collect()
    }
}

/// How to take back one [`HistoryBuilder::push_undoable`].
#[derive(Debug, Clone)]
pub enum HistoryUndo {
    /// The push failed at once (an earlier error): nothing changed.
    Nothing,
    /// An entry the history does not read: only the position moved.
    Position,
    /// A capability entry: the state before it.
    Saved(Box<Saved>),
}

/// The fields of a [`HistoryBuilder`] a capability entry may change, as they were before it.
#[derive(Debug, Clone)]
pub struct Saved {
    position: usize,
    reduce_error: Option<HistoryError>,
    checkpoint_through: Option<String>,
    events_len: usize,
    anchors_len: usize,
    last_anchored_index: isize,
    last_new: Option<String>,
    last_new_event_position: Option<usize>,
    new_event_id: Option<String>,
    reducer: Option<crate::reducer::ReducerUndo>,
    tools_raw: Option<(Value, EntryLocation)>,
}

/// Builds a [`CapabilityHistory`] entry by entry (see the module docs).
#[derive(Debug, Clone)]
pub struct HistoryBuilder {
    history: CapabilityHistory,
    reducer: Reducer,
    event_index: std::collections::HashMap<String, usize>,
    last_new: Option<String>,
    tools_raw: Option<(Value, EntryLocation)>,
    position: usize,
    error: Option<HistoryError>,
    reduce_error: Option<HistoryError>,
}

impl Default for HistoryBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl HistoryBuilder {
    /// An empty branch.
    pub fn new() -> Self {
        Self {
            history: CapabilityHistory {
                last_anchored_index: -1,
                ..CapabilityHistory::default()
            },
            reducer: Reducer::new(),
            event_index: Default::default(),
            last_new: None,
            tools_raw: None,
            position: 0,
            error: None,
            reduce_error: None,
        }
    }

    /// Reads a whole branch (raw entry objects root→leaf, with their 1-based lines).
    pub fn read<'a>(
        entries: impl IntoIterator<Item = (&'a Value, Option<usize>)>,
    ) -> Result<CapabilityHistory, HistoryError> {
        let mut b = Self::new();
        for (raw, line) in entries {
            b.push(raw, line)?;
        }
        b.finish()
    }

    /// Pushes the next raw entry of the path. After an error every later call fails with it.
    pub fn push(&mut self, raw: &Value, line: Option<usize>) -> Result<(), HistoryError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let r = self.push_inner(raw, line, &mut None);
        self.position += 1;
        if let Err(e) = &r {
            self.error = Some(e.clone());
        }
        r
    }

    /// [`HistoryBuilder::push`], with what [`HistoryBuilder::undo`] needs to take it back (for
    /// a depth-first walk that extends and shortens one path).
    pub fn push_undoable(
        &mut self,
        raw: &Value,
        line: Option<usize>,
    ) -> (Result<(), HistoryError>, HistoryUndo) {
        if let Some(e) = &self.error {
            return (Err(e.clone()), HistoryUndo::Nothing);
        }
        let kind = raw.get("type").and_then(Value::as_str).unwrap_or("");
        if !matches!(kind, "compaction" | "custom" | "custom_message") {
            self.position += 1;
            return (Ok(()), HistoryUndo::Position);
        }
        let mut saved = Box::new(Saved {
            position: self.position,
            reduce_error: self.reduce_error.clone(),
            checkpoint_through: self.history.checkpoint_through.clone(),
            events_len: self.history.events.len(),
            anchors_len: self.history.anchors.len(),
            last_anchored_index: self.history.last_anchored_index,
            last_new: self.last_new.clone(),
            last_new_event_position: self.history.last_new_event_position,
            new_event_id: None,
            reducer: None,
            tools_raw: self.tools_raw.clone(),
        });
        let mut reducer_undo = None;
        let r = self.push_inner(raw, line, &mut Some(&mut reducer_undo));
        saved.reducer = reducer_undo;
        if let Some(last) = self.history.events.get(saved.events_len) {
            if last.first {
                saved.new_event_id = Some(last.event.event_id.clone());
            }
        }
        self.position += 1;
        if let Err(e) = &r {
            self.error = Some(e.clone());
        }
        (r, HistoryUndo::Saved(saved))
    }

    /// Takes back the [`HistoryBuilder::push_undoable`] that returned `u` (the last one not
    /// taken back).
    pub fn undo(&mut self, u: HistoryUndo) {
        match u {
            HistoryUndo::Nothing => {}
            HistoryUndo::Position => self.position -= 1,
            HistoryUndo::Saved(s) => {
                let s = *s;
                self.error = None;
                self.position = s.position;
                self.reduce_error = s.reduce_error;
                self.history.checkpoint_through = s.checkpoint_through;
                self.history.events.truncate(s.events_len);
                self.history.anchors.truncate(s.anchors_len);
                self.history.last_anchored_index = s.last_anchored_index;
                self.last_new = s.last_new;
                self.history.last_new_event_position = s.last_new_event_position;
                if let Some(id) = s.new_event_id {
                    self.event_index.remove(&id);
                }
                if let Some(r) = s.reducer {
                    self.reducer.undo(r);
                }
                self.tools_raw = s.tools_raw;
            }
        }
    }

    /// What [`HistoryBuilder::finish`] would return, without building the history: `Ok` or its
    /// error (cheap: nothing is copied).
    pub fn status(&self) -> Result<(), HistoryError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if let Some(e) = &self.reduce_error {
            return Err(e.clone());
        }
        if let Some((data, location)) = &self.tools_raw {
            decode_tool_baseline(data).map_err(|message| HistoryError {
                message,
                location: location.clone(),
            })?;
        }
        Ok(())
    }

    /// `checkpointThrough` so far.
    pub fn checkpoint_through(&self) -> Option<&str> {
        self.history.checkpoint_through.as_deref()
    }

    /// Whether an activation with this id is among the branch's events so far (meaningful
    /// while [`HistoryBuilder::status`] is `Ok`).
    pub fn has_activation(&self, activation_id: &str) -> bool {
        self.reducer.has_activation(activation_id)
    }

    fn push_inner(
        &mut self,
        raw: &Value,
        line: Option<usize>,
        reducer_undo: &mut Option<&mut Option<crate::reducer::ReducerUndo>>,
    ) -> Result<(), HistoryError> {
        let kind = raw.get("type").and_then(Value::as_str).unwrap_or("");
        let custom_type = raw.get("customType").and_then(Value::as_str);
        let fail = |message: String| {
            Err(HistoryError {
                message,
                location: EntryLocation::of(raw, line),
            })
        };
        match kind {
            "compaction" => self.history.checkpoint_through = self.last_new.clone(),
            "custom" => {
                let Some(ct) = custom_type else { return Ok(()) };
                if LEGACY_CUSTOM_TYPES.contains(&ct) {
                    return fail(LEGACY_STATE_MESSAGE.into());
                }
                let data = raw.get("data").unwrap_or(&Value::Null);
                match ct {
                    CAPABILITY_EVENT_ENTRY => {
                        let ev = match decode_event(data) {
                            Ok(ev) => ev,
                            Err(e) => {
                                return fail(format!("Invalid Forge capability history: {e}"))
                            }
                        };
                        let index = self.history.events.len();
                        // Forge reduces after the whole walk, so a reduction failure is
                        // reported only if the walk itself succeeds (see `finish`).
                        if self.reduce_error.is_none() {
                            let applied = match reducer_undo {
                                Some(slot) => {
                                    let (r, u) = self.reducer.apply_undoable(&ev);
                                    **slot = Some(u);
                                    r
                                }
                                None => self.reducer.apply(&ev),
                            };
                            if let Err(e) = applied {
                                self.reduce_error = Some(HistoryError {
                                    message: format!(
                                        "Invalid Forge capability event {}: {}",
                                        e.index, e.error
                                    ),
                                    location: EntryLocation::of(raw, line),
                                });
                            }
                        }
                        let first = !self.event_index.contains_key(&ev.event_id);
                        if first {
                            self.event_index.insert(ev.event_id.clone(), index);
                            self.last_new = Some(ev.event_id.clone());
                            self.history.last_new_event_position = Some(self.position);
                        }
                        self.history.events.push(Arc::new(BranchEvent {
                            event: ev,
                            first,
                            location: EntryLocation::of(raw, line),
                        }));
                    }
                    CAPABILITY_TOOLS_ENTRY => {
                        self.tools_raw = Some((data.clone(), EntryLocation::of(raw, line)));
                    }
                    CAPABILITY_DELIVERY_TYPE => {
                        let id = match validate_anchor_data(data) {
                            Ok(id) => id,
                            Err(e) => return fail(e),
                        };
                        let Some(&i) = self.event_index.get(&id) else {
                            return fail(format!(
                                "Invalid Forge capability delivery anchor: unknown or future cursor \"{id}\""
                            ));
                        };
                        if (i as isize) < self.history.last_anchored_index {
                            return fail(format!(
                                "Invalid Forge capability delivery anchor: out-of-order cursor \"{id}\" (index {i} < {})",
                                self.history.last_anchored_index
                            ));
                        }
                        self.history.last_anchored_index = i as isize;
                        self.history.anchors.push(i);
                    }
                    _ => {}
                }
            }
            "custom_message" => match custom_type {
                Some("pi-forge-instruction-delivery") => {
                    return fail(LEGACY_DELIVERY_MESSAGE.into())
                }
                Some(CAPABILITY_DELIVERY_TYPE) => {
                    // Lenient legacy carrier: never throws.
                    let through = raw
                        .get("details")
                        .and_then(|d| d.get("throughEventId"))
                        .and_then(Value::as_str);
                    if let Some(&i) = through.and_then(|id| self.event_index.get(id)) {
                        if i as isize >= self.history.last_anchored_index {
                            self.history.last_anchored_index = i as isize;
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
        Ok(())
    }

    /// The history so far (decodes the last tools entry, as Forge does at the end of the walk).
    pub fn finish(&self) -> Result<CapabilityHistory, HistoryError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        // UNKNOWN order (spec §2.7): we report a reduction failure before a bad tools entry.
        if let Some(e) = &self.reduce_error {
            return Err(e.clone());
        }
        let mut h = self.history.clone();
        h.active = self.reducer.active().to_vec();
        h.last_event_id = self.reducer.last_event_id().map(str::to_string);
        if let Some((data, location)) = &self.tools_raw {
            h.tools = Some(decode_tool_baseline(data).map_err(|message| HistoryError {
                message,
                location: location.clone(),
            })?);
        }
        Ok(h)
    }

    /// Number of entries pushed so far.
    pub fn len(&self) -> usize {
        self.position
    }

    /// True before the first push.
    pub fn is_empty(&self) -> bool {
        self.position == 0
    }
}
