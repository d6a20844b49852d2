//! Capability session events (spec §2.2–§2.4): typed values and `decodeCapabilityEvent` with
//! pi-forge's check order and exact error texts.

use forge_replay_model::js;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::fingerprint::{fingerprint, is_fingerprint};
use crate::resource::{ToolPatch, MAX_CAPABILITY_NAME_LENGTH, MAX_CONTENT_LENGTH};
use crate::valid;

/// customType of capability events.
pub const CAPABILITY_EVENT_ENTRY: &str = "pi-forge-capability-event";
/// customType of the tool baseline snapshot.
pub const CAPABILITY_TOOLS_ENTRY: &str = "pi-forge-capability-tools";
/// customType of delivery anchors.
pub const CAPABILITY_DELIVERY_TYPE: &str = "pi-forge-capability-delivery";

/// Resource scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Global,
    Project,
}

impl Scope {
    /// `"global"` / `"project"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Global => "global",
            Scope::Project => "project",
        }
    }

    /// Parses `"global"` / `"project"`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "global" => Some(Scope::Global),
            "project" => Some(Scope::Project),
            _ => None,
        }
    }
}

/// `{scope, id}`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ResourceKey {
    pub scope: Scope,
    pub id: String,
}

impl ResourceKey {
    /// `{scope, id}` as JSON.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("scope".into(), Value::from(self.scope.as_str()));
        m.insert("id".into(), Value::from(self.id.clone()));
        Value::Object(m)
    }
}

impl std::fmt::Display for ResourceKey {
    /// `formatResourceKey`: `"<scope>:<id>"`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.scope.as_str(), self.id)
    }
}

/// A preset binding identity `{preset, id}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct BindingRef {
    pub preset: ResourceKey,
    pub id: String,
}

/// Where a snapshot came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Source {
    /// `/capability add <text>`.
    Manual,
    /// A library capability, optionally through a preset binding.
    Capability {
        key: ResourceKey,
        #[serde(skip_serializing_if = "Option::is_none")]
        binding: Option<BindingRef>,
    },
}

impl Source {
    /// The normalized source object (§2.3 key order).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        match self {
            Source::Manual => {
                m.insert("kind".into(), Value::from("manual"));
            }
            Source::Capability { key, binding } => {
                m.insert("kind".into(), Value::from("capability"));
                m.insert("key".into(), key.to_value());
                if let Some(b) = binding {
                    let mut bm = Map::new();
                    bm.insert("preset".into(), b.preset.to_value());
                    bm.insert("id".into(), Value::from(b.id.clone()));
                    m.insert("binding".into(), Value::Object(bm));
                }
            }
        }
        Value::Object(m)
    }

    /// The binding of a bound capability.
    pub fn binding(&self) -> Option<&BindingRef> {
        match self {
            Source::Capability { binding, .. } => binding.as_ref(),
            Source::Manual => None,
        }
    }

    /// `manual` or `scope:id` (the status view's source label).
    pub fn label(&self) -> String {
        match self {
            Source::Manual => "manual".to_string(),
            Source::Capability { key, .. } => key.to_string(),
        }
    }
}

/// An immutable capability snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub activation_id: String,
    pub source: Source,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub content: String,
    pub tools: ToolPatch,
    pub fingerprint: String,
}

impl Snapshot {
    /// The snapshot object in pi-forge's key order.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert(
            "activationId".into(),
            Value::from(self.activation_id.clone()),
        );
        m.insert("source".into(), self.source.to_value());
        if let Some(n) = &self.name {
            m.insert("name".into(), Value::from(n.clone()));
        }
        m.insert("content".into(), Value::from(self.content.clone()));
        m.insert("tools".into(), self.tools.to_value());
        m.insert("fingerprint".into(), Value::from(self.fingerprint.clone()));
        Value::Object(m)
    }

    /// True for tool-only snapshots (`content.trim()` empty): they never produce text.
    pub fn is_tool_only(&self) -> bool {
        js::trim(&self.content).is_empty()
    }
}

/// `computeSnapshotFingerprint(source, name, content, tools)` (§1.6); the activation id is not
/// part of it.
pub fn snapshot_fingerprint(
    source: &Source,
    name: Option<&str>,
    content: &str,
    tools: &ToolPatch,
) -> String {
    let mut m = Map::new();
    m.insert("type".into(), Value::from("pi-forge.capability-snapshot"));
    m.insert("schemaVersion".into(), Value::from(1));
    m.insert("source".into(), source.to_value());
    if let Some(n) = name {
        m.insert("name".into(), Value::from(n));
    }
    m.insert("content".into(), Value::from(content));
    m.insert("tools".into(), tools.to_value());
    fingerprint(&Value::Object(m))
}

/// Who caused an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Actor {
    User,
    Agent,
    Lifecycle,
}

impl Actor {
    /// `"user"` / `"agent"` / `"lifecycle"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Actor::User => "user",
            Actor::Agent => "agent",
            Actor::Lifecycle => "lifecycle",
        }
    }
}

/// The operation of an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    Activate(Box<Snapshot>),
    Deactivate { activation_id: String },
    Reset,
}

/// A decoded capability event.
#[derive(Debug, Clone, PartialEq)]
pub struct CapabilityEvent {
    pub event_id: String,
    pub actor: Actor,
    /// `Date.now()` milliseconds (a finite double ≥ 0).
    pub created_at: f64,
    pub op: Op,
}

impl CapabilityEvent {
    /// The re-built event object in pi-forge's key order (what `appendEntry` persists).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("schemaVersion".into(), Value::from(1));
        m.insert("eventId".into(), Value::from(self.event_id.clone()));
        let op = match self.op {
            Op::Activate(_) => "activate",
            Op::Deactivate { .. } => "deactivate",
            Op::Reset => "reset",
        };
        m.insert("op".into(), Value::from(op));
        m.insert("actor".into(), Value::from(self.actor.as_str()));
        m.insert(
            "createdAt".into(),
            forge_replay_model::json::f64_to_value(self.created_at),
        );
        match &self.op {
            Op::Activate(s) => {
                m.insert("snapshot".into(), s.to_value());
            }
            Op::Deactivate { activation_id } => {
                m.insert("activationId".into(), Value::from(activation_id.clone()));
            }
            Op::Reset => {}
        }
        Value::Object(m)
    }
}

fn unknown_key<'a>(m: &'a Map<String, Value>, allowed: &[&str]) -> Option<&'a str> {
    forge_replay_model::json::js_key_order(m)
        .into_iter()
        .map(|(k, _)| k.as_str())
        .find(|k| !allowed.contains(k))
}

fn only_keys(m: &Map<String, Value>, allowed: &[&str]) -> bool {
    m.keys().all(|k| allowed.contains(&k.as_str()))
}

fn op_error(op: Option<&Value>) -> String {
    match op {
        Some(v @ (Value::String(_) | Value::Number(_) | Value::Bool(_))) => {
            format!("Invalid op: {}", js::to_string(Some(v)))
        }
        _ => "Invalid op".to_string(),
    }
}

/// `decodeCapabilityEvent(value)`: the first failing check's message, in pi-forge's order.
pub fn decode_event(value: &Value) -> Result<CapabilityEvent, String> {
    let Value::Object(m) = value else {
        return Err("Event must be a plain object".into());
    };
    if !valid::is_one(m.get("schemaVersion")) {
        return Err("schemaVersion must be 1".into());
    }
    if !valid::is_short_resource_id(m.get("eventId")) {
        return Err("Invalid eventId".into());
    }
    let Some(created_at) = valid::non_negative_finite(m.get("createdAt")) else {
        return Err("createdAt must be a non-negative finite number".into());
    };
    // -0 canonicalizes to 0.
    let created_at = if created_at == 0.0 { 0.0 } else { created_at };
    let event_id = m["eventId"].as_str().unwrap_or_default().to_string();
    let actor_str = m.get("actor").and_then(Value::as_str);
    let (actor, op) = match m.get("op").and_then(Value::as_str) {
        Some("activate") => {
            if let Some(k) = unknown_key(
                m,
                &[
                    "schemaVersion",
                    "eventId",
                    "op",
                    "actor",
                    "createdAt",
                    "snapshot",
                ],
            ) {
                return Err(format!("Unexpected property on activate event: {k}"));
            }
            let actor = match actor_str {
                Some("user") => Actor::User,
                Some("agent") => Actor::Agent,
                _ => return Err("Activate actor must be user or agent".into()),
            };
            let snapshot = decode_snapshot(m.get("snapshot"), actor)?;
            (actor, Op::Activate(Box::new(snapshot)))
        }
        Some("deactivate") => {
            if let Some(k) = unknown_key(
                m,
                &[
                    "schemaVersion",
                    "eventId",
                    "op",
                    "actor",
                    "createdAt",
                    "activationId",
                ],
            ) {
                return Err(format!("Unexpected property on deactivate event: {k}"));
            }
            let actor = match actor_str {
                Some("user") => Actor::User,
                Some("agent") => Actor::Agent,
                Some("lifecycle") => Actor::Lifecycle,
                _ => return Err("Deactivate actor must be user, agent, or lifecycle".into()),
            };
            if !valid::is_short_resource_id(m.get("activationId")) {
                return Err("Invalid activationId".into());
            }
            let activation_id = m["activationId"].as_str().unwrap_or_default().to_string();
            (actor, Op::Deactivate { activation_id })
        }
        Some("reset") => {
            if let Some(k) =
                unknown_key(m, &["schemaVersion", "eventId", "op", "actor", "createdAt"])
            {
                return Err(format!("Unexpected property on reset event: {k}"));
            }
            if actor_str != Some("user") {
                return Err("Reset actor must be user".into());
            }
            (Actor::User, Op::Reset)
        }
        _ => return Err(op_error(m.get("op"))),
    };
    Ok(CapabilityEvent {
        event_id,
        actor,
        created_at,
        op,
    })
}

fn decode_key(
    v: Option<&Value>,
    not_object: &str,
    extra: &str,
    bad_scope: &str,
    bad_id: &str,
) -> Result<ResourceKey, String> {
    let Some(Value::Object(k)) = v else {
        return Err(not_object.into());
    };
    // UNKNOWN: "must only contain scope and id" is read as "no other keys"; a missing scope or
    // id then fails its own check.
    if !only_keys(k, &["scope", "id"]) {
        return Err(extra.into());
    }
    let Some(scope) = k
        .get("scope")
        .and_then(Value::as_str)
        .and_then(Scope::parse)
    else {
        return Err(bad_scope.into());
    };
    match k.get("id") {
        Some(Value::String(id)) if valid::is_resource_id(id) => Ok(ResourceKey {
            scope,
            id: id.clone(),
        }),
        _ => Err(bad_id.into()),
    }
}

/// Validates a snapshot's source object (§2.4 "Source errors").
pub fn decode_source(v: Option<&Value>) -> Result<Source, String> {
    let Some(Value::Object(s)) = v else {
        return Err("source must be a plain object".into());
    };
    match s.get("kind") {
        Some(Value::String(k)) if k == "manual" => {
            if s.len() != 1 {
                return Err("manual source must only have kind property".into());
            }
            Ok(Source::Manual)
        }
        Some(Value::String(k)) if k == "capability" => {
            if let Some(k) = unknown_key(s, &["kind", "key", "binding"]) {
                return Err(format!("source has unknown property: {k}"));
            }
            let key = decode_key(
                s.get("key"),
                "capability source requires key object",
                "capability key must only contain scope and id",
                "Invalid capability key scope",
                "Invalid capability key id",
            )?;
            let binding = match s.get("binding") {
                None => None,
                Some(Value::Object(b)) => {
                    if !only_keys(b, &["preset", "id"]) {
                        return Err("binding must only contain preset and id".into());
                    }
                    let preset = decode_key(
                        b.get("preset"),
                        "binding preset must be a plain object",
                        "binding preset must only contain scope and id",
                        "Invalid binding preset scope",
                        "Invalid binding preset id",
                    )?;
                    let id = match b.get("id") {
                        Some(Value::String(id)) if valid::is_resource_id(id) => id.clone(),
                        _ => return Err("Invalid binding id".into()),
                    };
                    if preset.scope == Scope::Global && key.scope == Scope::Project {
                        return Err("Global preset cannot bind project capability".into());
                    }
                    Some(BindingRef { preset, id })
                }
                Some(_) => return Err("binding must be a plain object".into()),
            };
            Ok(Source::Capability { key, binding })
        }
        Some(k @ (Value::String(_) | Value::Number(_) | Value::Bool(_))) => {
            Err(format!("Invalid source kind: {}", js::to_string(Some(k))))
        }
        _ => Err("Invalid source kind".into()),
    }
}

/// Validates a snapshot's tools object (§2.4 "Tools errors").
pub fn decode_tools(v: Option<&Value>) -> Result<ToolPatch, String> {
    let Some(Value::Object(t)) = v else {
        return Err("tools must be a plain object".into());
    };
    // UNKNOWN order (spec §2.4 lists the messages, not the code): both arrays, then both
    // lengths, then the names, in the order the spec lists them.
    if t.len() != 2 || !t.contains_key("add") || !t.contains_key("remove") {
        return Err("tools must contain exactly add and remove arrays".into());
    }
    let Value::Array(add) = &t["add"] else {
        return Err("tools.add must be an array".into());
    };
    let Value::Array(remove) = &t["remove"] else {
        return Err("tools.remove must be an array".into());
    };
    if add.len() > 256 {
        return Err("tools.add exceeds max length 256".into());
    }
    if remove.len() > 256 {
        return Err("tools.remove exceeds max length 256".into());
    }
    let mut patch = ToolPatch::default();
    for (list, name, out) in [
        (add, "add", &mut patch.add),
        (remove, "remove", &mut patch.remove),
    ] {
        for (i, item) in list.iter().enumerate() {
            match item {
                Value::String(s) if valid::is_valid_tool_name(s) => out.push(s.clone()),
                _ => return Err(format!("Invalid tool name in tools.{name} at index {i}")),
            }
        }
    }
    Ok(patch)
}

fn decode_snapshot(v: Option<&Value>, actor: Actor) -> Result<Snapshot, String> {
    let Some(Value::Object(s)) = v else {
        return Err("snapshot must be a plain object".into());
    };
    if let Some(k) = unknown_key(
        s,
        &[
            "activationId",
            "source",
            "name",
            "content",
            "tools",
            "fingerprint",
        ],
    ) {
        return Err(format!("Unexpected property on snapshot: {k}"));
    }
    if !valid::is_short_resource_id(s.get("activationId")) {
        return Err("Invalid snapshot activationId".into());
    }
    let source = decode_source(s.get("source"))?;
    if actor == Actor::Agent && source.binding().is_none() {
        return Err("agent activation must have source capability with binding".into());
    }
    if matches!(source, Source::Manual) && actor != Actor::User {
        return Err("manual source can only be activated by user".into());
    }
    let name = match s.get("name") {
        None => None,
        Some(Value::String(n)) if js::len(n) <= MAX_CAPABILITY_NAME_LENGTH => Some(n.clone()),
        Some(_) => return Err("name must be a string <= 1000".into()),
    };
    let content = match s.get("content") {
        Some(Value::String(c)) if js::len(c) <= MAX_CONTENT_LENGTH => c.clone(),
        _ => return Err("content must be a string <= 100000".into()),
    };
    let tools = decode_tools(s.get("tools"))?;
    if js::trim(&content).is_empty() && tools.is_empty() {
        return Err("Snapshot must have non-empty content or at least one tool effect".into());
    }
    let fp = match s.get("fingerprint") {
        Some(Value::String(f)) if is_fingerprint(f) => f.clone(),
        _ => return Err("Invalid snapshot fingerprint format".into()),
    };
    if snapshot_fingerprint(&source, name.as_deref(), &content, &tools) != fp {
        return Err("Snapshot fingerprint mismatch".into());
    }
    Ok(Snapshot {
        activation_id: s["activationId"].as_str().unwrap_or_default().to_string(),
        source,
        name,
        content,
        tools,
        fingerprint: fp,
    })
}

/// Builds a valid snapshot, computing its fingerprint (test and scenario helper).
pub fn make_snapshot(
    activation_id: &str,
    source: Source,
    name: Option<&str>,
    content: &str,
    tools: ToolPatch,
) -> Snapshot {
    let fingerprint = snapshot_fingerprint(&source, name, content, &tools);
    Snapshot {
        activation_id: activation_id.to_string(),
        source,
        name: name.map(str::to_string),
        content: content.to_string(),
        tools,
        fingerprint,
    }
}

/// Convenience for `{add, remove}` from string slices.
pub fn patch(add: &[&str], remove: &[&str]) -> ToolPatch {
    ToolPatch {
        add: add.iter().map(|s| s.to_string()).collect(),
        remove: remove.iter().map(|s| s.to_string()).collect(),
    }
}
