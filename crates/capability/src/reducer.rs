//! `reduceCapabilityEvents` (spec §3.1): the active capabilities of a branch.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use crate::event::{decode_event, Actor, CapabilityEvent, Op, Snapshot};
use crate::fingerprint::canonical_json;

/// One active activation.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveCapability {
    pub snapshot: Snapshot,
    pub actor: Actor,
    pub event_id: String,
    pub created_at: f64,
}

/// A failed reduction: the index of the failing event and pi-forge's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{error}")]
pub struct ReduceError {
    pub index: usize,
    pub error: String,
}

/// An incremental reducer: feed events in order; a failure leaves the reducer unusable.
#[derive(Debug, Clone, Default)]
pub struct Reducer {
    active: Vec<ActiveCapability>,
    seen_activation: HashSet<String>,
    seen_events: HashMap<String, CapabilityEvent>,
    last_event_id: Option<String>,
    count: usize,
}

/// What [`Reducer::apply`] did with an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// A new event (it advanced `lastEventId`).
    New,
    /// An identical replay of an earlier event: ignored.
    Replay,
}

impl Reducer {
    /// An empty state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Active activations in activation order.
    pub fn active(&self) -> &[ActiveCapability] {
        &self.active
    }

    /// The last new (first-occurrence) event id.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// Decodes and applies a raw event (`index` is its position for error reports).
    pub fn apply_raw(&mut self, raw: &Value) -> Result<Applied, ReduceError> {
        let index = self.count;
        let ev = decode_event(raw).map_err(|error| ReduceError { index, error })?;
        self.apply(&ev)
    }

    /// Applies a decoded event.
    pub fn apply(&mut self, ev: &CapabilityEvent) -> Result<Applied, ReduceError> {
        let index = self.count;
        self.count += 1;
        let fail = |error: String| Err(ReduceError { index, error });
        if let Some(prev) = self.seen_events.get(&ev.event_id) {
            // Canonical JSON of the decoded events (computed only for a repeated id).
            if canonical_json(&prev.to_value()) == canonical_json(&ev.to_value()) {
                return Ok(Applied::Replay);
            }
            return fail(format!(
                "Duplicate eventId with conflicting payload: {}",
                ev.event_id
            ));
        }
        self.seen_events.insert(ev.event_id.clone(), ev.clone());
        self.last_event_id = Some(ev.event_id.clone());
        match &ev.op {
            Op::Activate(snapshot) => {
                if !self.seen_activation.insert(snapshot.activation_id.clone()) {
                    return fail(format!(
                        "activationId cannot be reused in the same branch: {}",
                        snapshot.activation_id
                    ));
                }
                if let Some(b) = snapshot.source.binding() {
                    if self
                        .active
                        .iter()
                        .any(|a| a.snapshot.source.binding() == Some(b))
                    {
                        return fail(format!(
                            "Duplicate preset binding id currently active: {} -> {}",
                            b.preset, b.id
                        ));
                    }
                }
                self.active.push(ActiveCapability {
                    snapshot: (**snapshot).clone(),
                    actor: ev.actor,
                    event_id: ev.event_id.clone(),
                    created_at: ev.created_at,
                });
            }
            Op::Deactivate { activation_id } => {
                let Some(pos) = self
                    .active
                    .iter()
                    .position(|a| a.snapshot.activation_id == *activation_id)
                else {
                    return Ok(Applied::New);
                };
                let target = &self.active[pos];
                if ev.actor == Actor::Agent && target.actor == Actor::User {
                    return fail(format!(
                        "Agent cannot deactivate user-owned activation: {activation_id}"
                    ));
                }
                if ev.actor == Actor::Lifecycle && target.snapshot.source.binding().is_none() {
                    return fail(format!(
                        "Lifecycle can only deactivate capability with binding: {activation_id}"
                    ));
                }
                self.active.remove(pos);
            }
            Op::Reset => self.active.clear(),
        }
        Ok(Applied::New)
    }
}

/// How to take back one [`Reducer::apply`] ([`Reducer::apply_undoable`]).
#[derive(Debug, Clone)]
pub(crate) struct ReducerUndo {
    count: usize,
    last_event_id: Option<String>,
    /// The event id `apply` recorded as seen, if it did.
    new_event: Option<String>,
    /// The activation id `apply` recorded as seen, if it did.
    new_activation: Option<String>,
    /// The active list before, when `apply` did more than append to it.
    active: Option<Vec<ActiveCapability>>,
    active_len: usize,
}

impl Reducer {
    /// [`Reducer::apply`], with what [`Reducer::undo`] needs to take it back.
    pub(crate) fn apply_undoable(
        &mut self,
        ev: &CapabilityEvent,
    ) -> (Result<Applied, ReduceError>, ReducerUndo) {
        let new_event = (!self.seen_events.contains_key(&ev.event_id)).then(|| ev.event_id.clone());
        let (new_activation, active) = match (&ev.op, &new_event) {
            (_, None) => (None, None),
            (Op::Activate(s), Some(_)) => (
                (!self.seen_activation.contains(&s.activation_id)).then(|| s.activation_id.clone()),
                None,
            ),
            (_, Some(_)) => (None, Some(self.active.clone())),
        };
        let undo = ReducerUndo {
            count: self.count,
            last_event_id: self.last_event_id.clone(),
            new_event,
            new_activation,
            active,
            active_len: self.active.len(),
        };
        (self.apply(ev), undo)
    }

    /// Takes back the [`Reducer::apply_undoable`] that returned `u` (the last one not undone).
    pub(crate) fn undo(&mut self, u: ReducerUndo) {
        self.count = u.count;
        self.last_event_id = u.last_event_id;
        if let Some(e) = u.new_event {
            self.seen_events.remove(&e);
        }
        if let Some(a) = u.new_activation {
            self.seen_activation.remove(&a);
        }
        match u.active {
            Some(a) => self.active = a,
            None => self.active.truncate(u.active_len),
        }
    }

    /// Whether an activation with this id was applied (first occurrences only).
    pub(crate) fn has_activation(&self, activation_id: &str) -> bool {
        self.seen_activation.contains(activation_id)
    }
}

impl Reducer {
    /// Applies an event known to be a valid first occurrence (the projection's `E`, after the
    /// full list reduced successfully): only the effect on the active list.
    pub(crate) fn apply_valid(&mut self, ev: &CapabilityEvent) {
        match &ev.op {
            Op::Activate(snapshot) => self.active.push(ActiveCapability {
                snapshot: (**snapshot).clone(),
                actor: ev.actor,
                event_id: ev.event_id.clone(),
                created_at: ev.created_at,
            }),
            Op::Deactivate { activation_id } => {
                self.active
                    .retain(|a| a.snapshot.activation_id != *activation_id);
            }
            Op::Reset => self.active.clear(),
        }
        self.last_event_id = Some(ev.event_id.clone());
    }
}

/// A successful reduction.
#[derive(Debug, Clone, PartialEq)]
pub struct Reduced {
    pub active: Vec<ActiveCapability>,
    pub last_event_id: Option<String>,
}

/// `reduceCapabilityEvents(events)` over raw event values.
pub fn reduce(events: &[Value]) -> Result<Reduced, ReduceError> {
    let mut r = Reducer::new();
    for raw in events {
        r.apply_raw(raw)?;
    }
    Ok(Reduced {
        active: r.active,
        last_event_id: r.last_event_id,
    })
}

/// `reduceCapabilityEvents` over a JSON value that may not be an array
/// (`Events must be an array` at index 0).
pub fn reduce_value(events: &Value) -> Result<Reduced, ReduceError> {
    match events {
        Value::Array(items) => reduce(items),
        _ => Err(ReduceError {
            index: 0,
            error: "Events must be an array".into(),
        }),
    }
}
