//! Scenario → Pi session JSONL.

use std::collections::{HashMap, HashSet};

use forge_replay_model::js;
use forge_replay_model::json;
use indexmap::IndexMap;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::spec::{self, Step};
use super::{Loaded, ScenarioError};

const BUILTIN_TOOLS: &str = include_str!("builtin-tools.json");
const DEFAULT_PREAMBLE: &str = "You are an expert coding assistant operating inside pi, a coding agent harness. You help users by reading files, executing commands, editing code, and writing new files.";
const EVENT: &str = "pi-forge-capability-event";
const TOOLS: &str = "pi-forge-capability-tools";
const DELIVERY: &str = "pi-forge-capability-delivery";
const PRESET_STATE: &str = "pi-forge-prompt-stack-state";

/// A compiled scenario.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub name: String,
    pub description: String,
    /// The session file's bytes.
    pub session_jsonl: String,
    /// Capability library files (`<file name>`, bytes), copied verbatim.
    pub library: Vec<(String, Vec<u8>)>,
    /// Step names → entry ids.
    pub names: IndexMap<String, String>,
    /// Models the scenario asks `verify` to cover besides the API matrix.
    pub verify_models: Vec<String>,
    /// The Pi release the scenario names (`pi`), if any.
    pub pi: Option<forge_replay_model::release::PiRelease>,
    /// Number of entries (header excluded).
    pub entries: usize,
}

impl Compiled {
    /// `scenario.json`: name, description, names, entry count, session sha256.
    pub fn metadata(&self) -> Value {
        let names: Map<String, Value> = self
            .names
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        json!({
            "name": self.name,
            "description": self.description,
            "entries": self.entries,
            "sessionSha256": self.session_sha256(),
            "names": names,
            "verifyModels": self.verify_models,
        })
    }

    /// Lowercase hex SHA-256 of the session bytes.
    pub fn session_sha256(&self) -> String {
        sha256_hex(self.session_jsonl.as_bytes())
    }
}

/// Lowercase hex SHA-256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A capability resource from the library (only the fields a snapshot needs).
#[derive(Debug, Clone)]
struct Resource {
    scope: String,
    id: String,
    name: Option<String>,
    content: String,
    add: Vec<String>,
    remove: Vec<String>,
}

/// An active activation as the reducer keeps it.
#[derive(Debug, Clone)]
struct Active {
    activation_id: String,
    actor: String,
    snapshot: Value,
}

impl Active {
    fn binding(&self) -> Option<(String, String, String)> {
        let b = self.snapshot.get("source")?.get("binding")?;
        Some((
            b["preset"]["scope"].as_str()?.to_string(),
            b["preset"]["id"].as_str()?.to_string(),
            b["id"].as_str()?.to_string(),
        ))
    }
    fn key(&self) -> Option<(String, String)> {
        let k = self.snapshot.get("source")?.get("key")?;
        Some((
            k["scope"].as_str()?.to_string(),
            k["id"].as_str()?.to_string(),
        ))
    }
    fn tools(&self, which: &str) -> Vec<String> {
        self.snapshot["tools"][which]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// A bound snapshot: source, name, content, tools added, tools removed, model-callable.
type BoundSnapshot = (
    Value,
    Option<String>,
    String,
    Vec<String>,
    Vec<String>,
    bool,
);

/// What the compiler needs to know about the path from the root to the current leaf, kept up to
/// date entry by entry as entries are appended to the leaf (and rebuilt by one walk after a
/// `branch` step moves the leaf), so that each step costs the size of what it adds, not the
/// length of the path.
#[derive(Debug, Clone, Default)]
struct PathState {
    /// The leaf this state describes.
    leaf: Option<String>,
    /// A `message` entry with role `system` is on the path.
    has_system_message: bool,
    /// A compaction with a `systemMessage` is on the path.
    has_compaction_system: bool,
    /// Forge events (first occurrences by event id), in order.
    events: Vec<Value>,
    /// Every event id on the path, duplicates included, and the first position of each.
    event_ids: Vec<String>,
    first_pos: HashMap<String, usize>,
    /// Active activations after the events.
    active: Vec<Active>,
    /// Highest event position a delivery anchor on the path covers (−1: none).
    last_anchored: i64,
    /// The last new event id at the latest compaction, and the last new event id.
    checkpoint: Option<String>,
    last_new: Option<String>,
    /// `data.lastApplied` of the last tools entry.
    last_tools: Option<Value>,
    /// System messages of the current context (compaction-aware, as Pi projects them).
    context_system: Vec<Value>,
    /// The tools those system messages declare, folded in order.
    declared: IndexMap<String, Value>,
}

/// Applies a system message's tool changes (removals first) to a declared-tools map.
fn fold_tools(tools: &mut IndexMap<String, Value>, m: &Value) {
    for r in m["toolsRemoved"].as_array().into_iter().flatten() {
        if let Some(n) = r["name"].as_str() {
            tools.shift_remove(n);
        }
    }
    for a in m["toolsAdded"].as_array().into_iter().flatten() {
        if let Some(n) = a["name"].as_str() {
            tools.insert(n.to_string(), a.clone());
        }
    }
}

impl PathState {
    /// Extends the state with `e`, the entry appended at the end of the path.
    fn push(&mut self, e: &Value) {
        self.leaf = e["id"].as_str().map(str::to_string);
        let ty = e["type"].as_str().unwrap_or_default();
        if ty == "message" && e["message"]["role"] == "system" {
            self.has_system_message = true;
            self.context_system.push(e["message"].clone());
            fold_tools(&mut self.declared, &e["message"]);
        }
        if ty == "compaction" {
            self.checkpoint = self.last_new.clone();
            self.context_system.clear();
            self.declared.clear();
            if let Some(sm) = e.get("systemMessage") {
                self.has_compaction_system = true;
                self.context_system.push(sm.clone());
                fold_tools(&mut self.declared, sm);
            }
        }
        if ty != "custom" {
            return;
        }
        if e["customType"] == EVENT {
            let id = e["data"]["eventId"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if !self.first_pos.contains_key(&id) {
                self.first_pos.insert(id.clone(), self.event_ids.len());
                self.last_new = Some(id.clone());
                let ev = &e["data"];
                match ev["op"].as_str() {
                    Some("activate") => self.active.push(Active {
                        activation_id: ev["snapshot"]["activationId"]
                            .as_str()
                            .unwrap_or_default()
                            .into(),
                        actor: ev["actor"].as_str().unwrap_or_default().into(),
                        snapshot: ev["snapshot"].clone(),
                    }),
                    Some("deactivate") => {
                        let id = ev["activationId"].as_str().unwrap_or_default();
                        self.active.retain(|a| a.activation_id != id);
                    }
                    Some("reset") => self.active.clear(),
                    _ => {}
                }
                self.events.push(ev.clone());
            }
            self.event_ids.push(id);
        } else if e["customType"] == DELIVERY {
            let t = e["data"]["throughEventId"].as_str().unwrap_or_default();
            if let Some(&i) = self.first_pos.get(t) {
                self.last_anchored = self.last_anchored.max(i as i64);
            }
        } else if e["customType"] == TOOLS {
            self.last_tools = Some(e["data"]["lastApplied"].clone());
        }
    }
}

struct Builder<'a> {
    src: &'a Loaded,
    entries: Vec<Value>,
    index: HashMap<String, usize>,
    leaf: Option<String>,
    /// The state of the path to `leaf` (rebuilt when `leaf` moved elsewhere).
    path_state: std::cell::RefCell<PathState>,
    clock_ms: i64,
    next_id: u32,
    next_uuid: u32,
    names: IndexMap<String, String>,
    provider: String,
    model_id: String,
    api: String,
    thinking: String,
    decls: IndexMap<String, Value>,
    baseline: Vec<String>,
    library: Vec<Resource>,
    library_files: Vec<(String, Vec<u8>)>,
    active_preset: Option<String>,
    pending_system: Vec<Value>,
    never_anchor: HashSet<String>,
    tool_call_seq: u32,
    line: usize,
}

/// Compiles a loaded scenario.
pub fn compile(src: &Loaded) -> Result<Compiled, ScenarioError> {
    let f = &src.file;
    // The name is a directory under the golden tree: it must stay inside it.
    let name = src.name();
    if let Err(e) = forge_replay_io::path::check_relative("scenario name", &name) {
        let from = if f.name.is_some() {
            ""
        } else {
            " (taken from the file name)"
        };
        return Err(ScenarioError::Invalid {
            path: src.path.clone(),
            line: src.line_of_key("name"),
            field: "name".into(),
            message: format!(
                "{:?}{from} {}; the name is the scenario's directory under the golden tree",
                e.value, e.reason
            ),
        });
    }
    let start = f
        .start
        .clone()
        .unwrap_or_else(|| "2026-01-01T00:00:00.000Z".into());
    let clock_ms = parse_start(&start).ok_or_else(|| ScenarioError::Invalid {
        path: src.path.clone(),
        line: src.line_of_key("start"),
        field: "start".into(),
        message: format!("{start:?} is not an ISO timestamp like 2026-01-01T00:00:00.000Z"),
    })?;
    let (provider, model_id) = split_model(&f.model).ok_or_else(|| ScenarioError::Invalid {
        path: src.path.clone(),
        line: src.line_of_key("model"),
        field: "model".into(),
        message: format!("{:?} must be provider/id", f.model),
    })?;
    let api = f
        .api
        .clone()
        .unwrap_or_else(|| default_api(&provider).to_string());
    let mut b = Builder {
        src,
        entries: Vec::new(),
        index: HashMap::new(),
        leaf: None,
        path_state: std::cell::RefCell::new(PathState {
            last_anchored: -1,
            ..PathState::default()
        }),
        clock_ms,
        next_id: 1,
        next_uuid: 1,
        names: IndexMap::new(),
        provider,
        model_id,
        api,
        thinking: "off".into(),
        decls: builtin_decls(),
        baseline: f.tools.clone(),
        library: Vec::new(),
        library_files: Vec::new(),
        active_preset: None,
        pending_system: Vec::new(),
        never_anchor: HashSet::new(),
        tool_call_seq: 0,
        line: 1,
    };
    b.load_tools()?;
    b.load_library()?;
    for t in &f.tools {
        if !b.decls.contains_key(t) {
            return Err(b.invalid_at(
                src.line_of_key("tools"),
                "tools",
                format!("unknown tool {t:?}"),
            ));
        }
    }
    for (pid, p) in &f.preset {
        for (i, binding) in p.capabilities.iter().enumerate() {
            b.resolve_ref(&binding.reference, &p.scope).map_err(|m| {
                b.invalid_at(
                    src.line_of_key("ref"),
                    &format!("preset.{pid}.capabilities[{i}].ref"),
                    m,
                )
            })?;
        }
    }
    let session_id = f.session_id.clone().unwrap_or_else(|| {
        let h = hex(&Sha256::digest(src.name().as_bytes()));
        format!("019b0000-0000-7000-8000-{}", &h[..12])
    });
    let cwd = f.cwd.clone().unwrap_or_else(|| "/home/dev/project".into());
    let header = json!({
        "type": "session",
        "version": 3,
        "id": session_id,
        "timestamp": iso(clock_ms),
        "cwd": cwd,
    });
    b.tick();
    // Pi's SDK records the starting model and thinking level before the first prompt.
    let (p, m) = (b.provider.clone(), b.model_id.clone());
    b.append(
        json!({"type": "model_change", "provider": p, "modelId": m}),
        None,
    );
    if let Some(level) = &f.thinking {
        b.thinking = level.clone();
        b.append(
            json!({"type": "thinking_level_change", "thinkingLevel": level}),
            None,
        );
    }
    // Steps come in file order: their line numbers are counted from the previous step's, not
    // from the start of the file each time.
    let (mut at, mut line) = (0usize, 1usize);
    for step in &f.step {
        let start = step.span().start.min(src.text.len());
        if start < at {
            (at, line) = (0, 1);
        }
        line += src.text.as_bytes()[at..start]
            .iter()
            .filter(|&&c| c == b'\n')
            .count();
        at = start;
        b.line = line;
        b.step(step.get_ref())?;
    }
    let mut text = json::stringify(&header);
    text.push('\n');
    for e in &b.entries {
        text.push_str(&json::stringify(e));
        text.push('\n');
    }
    Ok(Compiled {
        name: src.name(),
        description: f.description.clone().unwrap_or_default(),
        session_jsonl: text,
        library: b.library_files.clone(),
        names: b.names.clone(),
        verify_models: f.verify_models.clone(),
        pi: f
            .pi
            .as_deref()
            .and_then(|p| forge_replay_model::release::PiRelease::parse(p).ok()),
        entries: b.entries.len(),
    })
}

fn split_model(s: &str) -> Option<(String, String)> {
    let (p, id) = s.split_once('/')?;
    (!p.is_empty() && !id.is_empty()).then(|| (p.to_string(), id.to_string()))
}

/// The API a provider's models use in pi-ai's catalog (for the common providers).
fn default_api(provider: &str) -> &'static str {
    match provider {
        "anthropic" => "anthropic-messages",
        "openai" => "openai-responses",
        "azure-openai-responses" => "azure-openai-responses",
        "openai-codex" => "openai-codex-responses",
        "google" => "google-generative-ai",
        "google-vertex" => "google-vertex",
        "amazon-bedrock" => "bedrock-converse-stream",
        "mistral" => "mistral-conversations",
        "pi" | "radius" => "pi-messages",
        _ => "openai-completions",
    }
}

fn builtin_decls() -> IndexMap<String, Value> {
    let mut m: IndexMap<String, Value> = match json::parse(BUILTIN_TOOLS) {
        Ok(Value::Object(o)) => o.into_iter().collect(),
        _ => IndexMap::new(),
    };
    m.insert(
        "forge_capability".into(),
        json!({
            "name": "forge_capability",
            "description": "List, inspect, enable or disable the pi-forge capabilities that the active preset lets the model control.",
            "parameters": {
                "type": "object",
                "required": ["action"],
                "properties": {
                    "action": {"type": "string", "enum": ["list", "status", "enable", "disable"]},
                    "id": {"type": "string", "maxLength": 128}
                },
                "additionalProperties": false
            }
        }),
    );
    m
}

/// The clock's start as `Date.parse` reads it, within the years 0000..9999 (so that every
/// timestamp has `toISOString`'s four-digit year, as Pi's do).
fn parse_start(s: &str) -> Option<i64> {
    const YEAR_0: f64 = -62_167_219_200_000.0;
    const YEAR_10000: f64 = 253_402_300_800_000.0;
    let t = js::date::parse(s);
    (YEAR_0..YEAR_10000).contains(&t).then_some(t as i64)
}

/// `new Date(ms).toISOString()` of the scenario clock (which a valid start keeps far inside the
/// range a `Date` holds).
fn iso(ms: i64) -> String {
    js::date::to_iso_string(ms as f64).unwrap_or_default()
}

/// Canonical JSON (pi-forge `canonicalJson`): keys sorted by UTF-16 code units, no whitespace.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort_by(|a, b| js::cmp_utf16(a, b));
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json::write_string(out, k);
                out.push(':');
                canonical(&o[k.as_str()], out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        other => json::write_compact(out, other),
    }
}

/// `computeSnapshotFingerprint`.
fn snapshot_fingerprint(
    source: &Value,
    name: Option<&str>,
    content: &str,
    tools: &Value,
) -> String {
    let mut m = Map::new();
    m.insert("type".into(), "pi-forge.capability-snapshot".into());
    m.insert("schemaVersion".into(), 1.into());
    m.insert("source".into(), source.clone());
    if let Some(n) = name {
        m.insert("name".into(), n.into());
    }
    m.insert("content".into(), content.into());
    m.insert("tools".into(), tools.clone());
    let mut s = String::new();
    canonical(&Value::Object(m), &mut s);
    format!("sha256:v1:{}", hex(&Sha256::digest(s.as_bytes())))
}

fn usage_json(u: spec::UsageSpec) -> Value {
    json!({
        "input": u.input,
        "output": u.output,
        "cacheRead": u.cache_read,
        "cacheWrite": u.cache_write,
        "totalTokens": u.input + u.output + u.cache_read + u.cache_write,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    })
}

impl Builder<'_> {
    fn invalid_at(&self, line: usize, field: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError::Invalid {
            path: self.src.path.clone(),
            line,
            field: field.into(),
            message: message.into(),
        }
    }

    fn invalid(&self, field: &str, message: impl Into<String>) -> ScenarioError {
        self.invalid_at(self.line, field, message)
    }

    fn tick(&mut self) -> i64 {
        self.clock_ms += 1000;
        self.clock_ms
    }

    fn uuid(&mut self, kind: char) -> String {
        let n = self.next_uuid;
        self.next_uuid += 1;
        let tag = match kind {
            'e' => "e0000000",
            _ => "a0000000",
        };
        format!("{tag}-0000-4000-8000-{n:012x}")
    }

    /// Appends an entry as `SessionManager` writes it: base fields first, except `custom` and
    /// `custom_message`, whose payload comes before `id`/`parentId`/`timestamp`.
    fn append(&mut self, body: Value, name: Option<&str>) -> String {
        let ts = self.tick();
        let id = format!("{:08x}", self.next_id);
        self.next_id += 1;
        let Value::Object(body) = body else {
            unreachable!("entries are objects")
        };
        let ty = body
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let mut e = Map::new();
        let base = |e: &mut Map<String, Value>| {
            e.insert("id".into(), id.clone().into());
            e.insert(
                "parentId".into(),
                self.leaf.clone().map_or(Value::Null, Value::String),
            );
            e.insert("timestamp".into(), iso(ts).into());
        };
        if ty == "custom" || ty == "custom_message" {
            for (k, v) in body {
                e.insert(k, v);
            }
            base(&mut e);
        } else {
            e.insert("type".into(), ty.clone().into());
            base(&mut e);
            for (k, v) in body {
                if k != "type" {
                    e.insert(k, v);
                }
            }
        }
        self.index.insert(id.clone(), self.entries.len());
        let e = Value::Object(e);
        {
            // Appended to the leaf the state describes: extend it; otherwise it is rebuilt
            // when next needed.
            let mut st = self.path_state.borrow_mut();
            if st.leaf == self.leaf {
                st.push(&e);
            }
        }
        self.entries.push(e);
        self.leaf = Some(id.clone());
        if let Some(n) = name {
            self.names.insert(n.to_string(), id.clone());
        }
        id
    }

    fn append_message(&mut self, message: Value, name: Option<&str>) -> String {
        self.append(json!({"type": "message", "message": message}), name)
    }

    fn now(&self) -> i64 {
        self.clock_ms + 1000
    }

    fn load_tools(&mut self) -> Result<(), ScenarioError> {
        for (i, t) in self.src.file.tool.iter().enumerate() {
            let field = format!("tool[{i}]");
            let params = match (&t.parameters, &t.parameters_file) {
                (Some(p), None) => toml_to_json(p),
                (None, Some(file)) => {
                    let line = self.src.line_of_key("parameters_file");
                    let path = self
                        .src
                        .resolve(file, line, &format!("{field}.parameters_file"))?;
                    let text = forge_replay_session::input::read_to_string(&path).map_err(|e| {
                        self.invalid_at(
                            line,
                            &format!("{field}.parameters_file"),
                            format!("cannot read {}: {e}", path.display()),
                        )
                    })?;
                    json::parse(&text).map_err(|e| {
                        self.invalid_at(
                            line,
                            &format!("{field}.parameters_file"),
                            format!("{}: {e}", path.display()),
                        )
                    })?
                }
                _ => {
                    return Err(self.invalid_at(
                        self.src.line_of_key("name"),
                        &field,
                        "give exactly one of `parameters` and `parameters_file`",
                    ))
                }
            };
            self.decls.insert(
                t.name.clone(),
                json!({"name": t.name, "description": t.description, "parameters": params}),
            );
        }
        Ok(())
    }

    fn load_library(&mut self) -> Result<(), ScenarioError> {
        let (reference, explicit) = match &self.src.file.library {
            Some(l) => (l.clone(), true),
            None => ("capabilities".to_string(), false),
        };
        let line = self.src.line_of_key("library");
        let dir = self.src.resolve(&reference, line, "library")?;
        if !dir.is_dir() {
            if explicit {
                return Err(self.invalid_at(
                    line,
                    "library",
                    format!("{} is not a directory", dir.display()),
                ));
            }
            return Ok(());
        }
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map_err(|e| {
                self.invalid_at(
                    line,
                    "library",
                    format!("cannot list {}: {e}", dir.display()),
                )
            })?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|x| x == "json")
                    && !p
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with('.'))
            })
            .collect();
        files.sort();
        for p in files {
            let rel = format!(
                "{reference}/{}",
                p.file_name().and_then(|n| n.to_str()).unwrap_or_default()
            );
            self.src.resolve(&rel, line, "library")?;
            let bytes = forge_replay_session::input::read(&p).map_err(|e| {
                self.invalid_at(line, "library", format!("cannot read {}: {e}", p.display()))
            })?;
            let text = String::from_utf8_lossy(&bytes);
            let v = json::parse(&text)
                .map_err(|e| self.invalid_at(line, "library", format!("{}: {e}", p.display())))?;
            let strs = |k: &str| -> Vec<String> {
                v["tools"][k]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let id = v["id"].as_str().ok_or_else(|| {
                self.invalid_at(
                    line,
                    "library",
                    format!("{}: capability has no string `id`", p.display()),
                )
            })?;
            self.library.push(Resource {
                scope: "project".into(),
                id: id.to_string(),
                name: v["name"].as_str().map(str::to_string),
                content: v["content"].as_str().unwrap_or_default().to_string(),
                add: strs("add"),
                remove: strs("remove"),
            });
            let fname = p
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            self.library_files.push((fname, bytes));
        }
        Ok(())
    }

    fn resolve_ref(&self, selector: &str, default_scope: &str) -> Result<Resource, String> {
        let (scope, id) = match selector.split_once(':') {
            Some((s, id)) => (s.to_string(), id.to_string()),
            None => (default_scope.to_string(), selector.to_string()),
        };
        self.library
            .iter()
            .find(|r| r.scope == scope && r.id == id)
            .cloned()
            .ok_or_else(|| format!("capability {scope}:{id} is not in the scenario library"))
    }

    /// The state of the path to the current leaf.
    fn state(&self) -> std::cell::Ref<'_, PathState> {
        if self.path_state.borrow().leaf != self.leaf {
            let mut st = PathState {
                last_anchored: -1,
                ..PathState::default()
            };
            for e in self.path() {
                st.push(e);
            }
            st.leaf = self.leaf.clone();
            *self.path_state.borrow_mut() = st;
        }
        self.path_state.borrow()
    }

    fn path(&self) -> Vec<&Value> {
        let mut out = Vec::new();
        let mut cur = self.leaf.clone();
        while let Some(id) = cur {
            let Some(&i) = self.index.get(&id) else { break };
            let e = &self.entries[i];
            out.push(e);
            cur = e["parentId"].as_str().map(str::to_string);
        }
        out.reverse();
        out
    }

    /// Active activations after the Forge events on the current path.
    fn active(&self) -> Vec<Active> {
        self.state().active.clone()
    }

    fn effective_tools(&self, active: &[Active]) -> Vec<String> {
        let mut eff = self.baseline.clone();
        for a in active {
            for n in a.tools("add") {
                if self.decls.contains_key(&n) && !eff.contains(&n) {
                    eff.push(n);
                }
            }
        }
        let removed: HashSet<String> = active.iter().flat_map(|a| a.tools("remove")).collect();
        eff.retain(|n| !removed.contains(n));
        eff
    }

    /// System messages of the current context (compaction-aware, as Pi projects them).
    fn context_system_messages(&self) -> Vec<Value> {
        self.state().context_system.clone()
    }

    fn declared_tools(&self) -> IndexMap<String, Value> {
        let mut tools = self.state().declared.clone();
        for m in &self.pending_system {
            fold_tools(&mut tools, m);
        }
        tools
    }

    /// `declareToolChanges` + persisting the pending system messages: called before a request.
    /// `before_user`: the pending messages are a new prompt (system messages go before it).
    fn flush_system(&mut self) {
        let first = {
            let st = self.state();
            !st.has_system_message && !st.has_compaction_system
        };
        if first && self.pending_system.is_empty() {
            let sections: Map<String, Value> = match &self.src.file.prompt {
                Some(p) => p
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                    .collect(),
                None => {
                    let mut m = Map::new();
                    m.insert("preamble".into(), DEFAULT_PREAMBLE.into());
                    let cwd = self
                        .src
                        .file
                        .cwd
                        .clone()
                        .unwrap_or_else(|| "/home/dev/project".into());
                    m.insert("cwd".into(), format!("<cwd>\n{cwd}\n</cwd>").into());
                    m
                }
            };
            self.pending_system.push(json!({
                "role": "system", "content": "", "sections": sections, "timestamp": self.now()
            }));
        }
        let active = self.active();
        let current: Vec<Value> = self
            .effective_tools(&active)
            .iter()
            .filter_map(|n| self.decls.get(n).cloned())
            .collect();
        // Tool state before the pending system message's own changes.
        let mut pending = std::mem::take(&mut self.pending_system);
        if let Some(last) = pending.last_mut() {
            if let Some(o) = last.as_object_mut() {
                o.shift_remove("toolsAdded");
                o.shift_remove("toolsRemoved");
            }
        }
        self.pending_system = pending;
        let previous = self.declared_tools();
        let cur_names: HashMap<&str, &Value> = current
            .iter()
            .map(|t| (t["name"].as_str().unwrap_or_default(), t))
            .collect();
        let added: Vec<Value> = current
            .iter()
            .filter(|t| {
                previous
                    .get(t["name"].as_str().unwrap_or_default())
                    .is_none_or(|p| json::stringify(p) != json::stringify(t))
            })
            .cloned()
            .collect();
        let removed: Vec<Value> = previous
            .iter()
            .filter(|(n, p)| {
                cur_names
                    .get(n.as_str())
                    .is_none_or(|c| json::stringify(c) != json::stringify(p))
            })
            .map(|(n, _)| json!({"name": n}))
            .collect();
        let mut pending = std::mem::take(&mut self.pending_system);
        if !added.is_empty() || !removed.is_empty() {
            if pending.is_empty() {
                pending.push(json!({"role": "system", "content": "", "timestamp": self.now()}));
            }
            let last = pending
                .last_mut()
                .and_then(Value::as_object_mut)
                .expect("pending system message");
            if !added.is_empty() {
                last.insert("toolsAdded".into(), Value::Array(added));
            }
            if !removed.is_empty() {
                last.insert("toolsRemoved".into(), Value::Array(removed));
            }
        }
        for mut m in pending {
            m["timestamp"] = json!(self.now());
            self.append_message(m, None);
        }
    }

    /// Anchors for pending events (pi-forge `pendingEvents` + `persistPendingAnchors`).
    fn write_pending_anchors(&mut self) {
        let pending: Vec<String> = {
            let st = self.state();
            let cp = st
                .checkpoint
                .as_ref()
                .and_then(|c| st.first_pos.get(c))
                .map_or(-1, |&i| i as i64);
            let through = st.last_anchored.max(cp);
            let mut done = HashSet::new();
            st.event_ids
                .iter()
                .skip((through + 1) as usize)
                .filter(|id| done.insert((*id).clone()) && !self.never_anchor.contains(*id))
                .cloned()
                .collect()
        };
        for id in pending {
            self.append(
                json!({"type": "custom", "customType": DELIVERY, "data": {"schemaVersion": 1, "throughEventId": id}}),
                None,
            );
        }
    }

    /// Appends a Forge event, preceded by a tools entry when the tool selection changes.
    fn commit_event(&mut self, data: Value) -> String {
        let before = self.effective_tools(&self.active());
        let event_id = data["eventId"].as_str().unwrap_or_default().to_string();
        // Reduce with the new event to compute the tool selection after it.
        let mut after_active = self.active();
        match data["op"].as_str() {
            Some("activate") => after_active.push(Active {
                activation_id: data["snapshot"]["activationId"]
                    .as_str()
                    .unwrap_or_default()
                    .into(),
                actor: data["actor"].as_str().unwrap_or_default().into(),
                snapshot: data["snapshot"].clone(),
            }),
            Some("deactivate") => {
                let id = data["activationId"].as_str().unwrap_or_default();
                after_active.retain(|a| a.activation_id != id);
            }
            _ => after_active.clear(),
        }
        let after = self.effective_tools(&after_active);
        let recorded = self.state().last_tools.clone();
        let after_json = json!(after);
        let changed = after != before || recorded.as_ref().is_some_and(|r| *r != after_json);
        if changed && recorded.as_ref() != Some(&after_json) {
            self.append(
                json!({"type": "custom", "customType": TOOLS, "data": {"schemaVersion": 1, "baseline": self.baseline, "lastApplied": after}}),
                None,
            );
        }
        self.append(
            json!({"type": "custom", "customType": EVENT, "data": data}),
            None,
        );
        event_id
    }

    fn snapshot(
        &mut self,
        source: Value,
        name: Option<String>,
        content: String,
        add: Vec<String>,
        remove: Vec<String>,
    ) -> Value {
        let activation_id = self.uuid('a');
        let tools = json!({"add": add, "remove": remove});
        let fp = snapshot_fingerprint(&source, name.as_deref(), &content, &tools);
        let mut s = Map::new();
        s.insert("activationId".into(), activation_id.into());
        s.insert("source".into(), source);
        if let Some(n) = name {
            s.insert("name".into(), n.into());
        }
        s.insert("content".into(), content.into());
        s.insert("tools".into(), tools);
        s.insert("fingerprint".into(), fp.into());
        Value::Object(s)
    }

    fn activate_event(&mut self, actor: &str, snapshot: Value) -> Value {
        let event_id = self.uuid('e');
        json!({"schemaVersion": 1, "eventId": event_id, "op": "activate", "actor": actor, "createdAt": self.now(), "snapshot": snapshot})
    }

    fn deactivate_event(&mut self, actor: &str, activation_id: &str) -> Value {
        let event_id = self.uuid('e');
        json!({"schemaVersion": 1, "eventId": event_id, "op": "deactivate", "actor": actor, "createdAt": self.now(), "activationId": activation_id})
    }

    /// Resolves a preset binding into a bound snapshot source + content.
    fn bound_snapshot(&mut self, binding_id: &str) -> Result<BoundSnapshot, String> {
        let preset_id = self.active_preset.clone().ok_or("no preset is active")?;
        let preset = self
            .src
            .file
            .preset
            .get(&preset_id)
            .ok_or_else(|| format!("unknown preset {preset_id:?}"))?;
        let b = preset
            .capabilities
            .iter()
            .find(|b| {
                b.id.as_deref()
                    .unwrap_or_else(|| b.reference.rsplit(':').next().unwrap_or_default())
                    == binding_id
            })
            .ok_or_else(|| format!("preset {preset_id:?} has no binding {binding_id:?}"))?;
        let r = self.resolve_ref(&b.reference, &preset.scope)?;
        let mut content = r.content.clone();
        if let Some(c) = &b.content {
            content = c.clone();
        } else if let Some(a) = &b.append_content {
            content = if content.is_empty() {
                a.clone()
            } else if a.is_empty() {
                content
            } else {
                format!("{content}\n\n{a}")
            };
        }
        let add = b.tools_add.clone().unwrap_or(r.add.clone());
        let remove = b.tools_remove.clone().unwrap_or(r.remove.clone());
        let source = json!({
            "kind": "capability",
            "key": {"scope": r.scope, "id": r.id},
            "binding": {"preset": {"scope": preset.scope, "id": preset_id}, "id": binding_id}
        });
        Ok((
            source,
            r.name.clone(),
            content,
            add,
            remove,
            b.model_callable,
        ))
    }

    fn find_target(&self, target: &str) -> Result<Active, String> {
        let matches: Vec<Active> = self
            .active()
            .into_iter()
            .filter(|a| {
                a.activation_id == target
                    || a.key()
                        .is_some_and(|(s, id)| format!("{s}:{id}") == target || id == target)
                    || a.binding().is_some_and(|(_, _, b)| b == target)
                    || (target == "manual" && a.snapshot["source"]["kind"] == "manual")
            })
            .collect();
        match matches.len() {
            0 => Err(format!("no matching active capability: {target}")),
            1 => Ok(matches[0].clone()),
            _ => Err(format!(
                "ambiguous active capability {target:?}; use its activation id"
            )),
        }
    }

    fn step(&mut self, s: &Step) -> Result<(), ScenarioError> {
        let actions = [
            s.user.is_some(),
            s.assistant.is_some(),
            s.capability.is_some(),
            s.preset.is_some(),
            s.model.is_some(),
            s.thinking.is_some(),
            s.compact.is_some(),
            s.branch.is_some(),
            s.label.is_some(),
            s.system.is_some(),
            s.custom_message.is_some(),
            s.usage.is_some(),
        ]
        .iter()
        .filter(|x| **x)
        .count();
        if actions != 1 {
            return Err(self.invalid(
                "step",
                "a step needs exactly one of user, assistant, capability, preset, model, thinking, compact, branch, label, system, custom_message, usage",
            ));
        }
        if let Some(n) = &s.name {
            if self.names.contains_key(n) {
                return Err(self.invalid("step.name", format!("name {n:?} is used twice")));
            }
        }
        if s.api.is_some() && s.model.is_none() {
            return Err(self.invalid("step.api", "`api` goes with `model`"));
        }
        let name = s.name.as_deref();
        if let Some(text) = &s.user {
            self.flush_system();
            let now = self.now();
            self.append_message(json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": now}), name);
        } else if let Some(a) = &s.assistant {
            self.assistant(a, name)?;
        } else if let Some(c) = &s.capability {
            self.capability(c, name)?;
        } else if let Some(p) = &s.preset {
            self.preset(p, name)?;
        } else if let Some(m) = &s.model {
            let (p, id) = split_model(m)
                .ok_or_else(|| self.invalid("step.model", format!("{m:?} must be provider/id")))?;
            self.api = s.api.clone().unwrap_or_else(|| default_api(&p).to_string());
            self.provider = p.clone();
            self.model_id = id.clone();
            self.append(
                json!({"type": "model_change", "provider": p, "modelId": id}),
                name,
            );
        } else if let Some(t) = &s.thinking {
            const LEVELS: [&str; 7] = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];
            if !LEVELS.contains(&t.as_str()) {
                return Err(
                    self.invalid("step.thinking", format!("{t:?} is not one of {LEVELS:?}"))
                );
            }
            self.thinking = t.clone();
            self.append(
                json!({"type": "thinking_level_change", "thinkingLevel": t}),
                name,
            );
        } else if let Some(c) = &s.compact {
            self.compact(c, name)?;
        } else if let Some(br) = &s.branch {
            let to = self.names.get(&br.to).cloned().ok_or_else(|| {
                self.invalid("step.branch.to", format!("unknown step name {:?}", br.to))
            })?;
            match &br.summary {
                None => self.leaf = Some(to),
                Some(summary) => {
                    let from = self.leaf.clone().unwrap_or_else(|| "root".into());
                    self.leaf = Some(to);
                    self.append(
                        json!({"type": "branch_summary", "fromId": from, "summary": summary, "details": {"readFiles": [], "modifiedFiles": []}, "fromHook": false}),
                        name,
                    );
                }
            }
        } else if let Some(l) = &s.label {
            let target = self.names.get(&l.target).cloned().ok_or_else(|| {
                self.invalid(
                    "step.label.target",
                    format!("unknown step name {:?}", l.target),
                )
            })?;
            self.append(
                json!({"type": "label", "targetId": target, "label": l.label}),
                name,
            );
        } else if let Some(sys) = &s.system {
            let mut m = Map::new();
            m.insert("role".into(), "system".into());
            m.insert("content".into(), sys.content.clone().into());
            if let Some(secs) = &sys.sections {
                let o: Map<String, Value> = secs
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            if v.is_empty() {
                                Value::Null
                            } else {
                                Value::String(v.clone())
                            },
                        )
                    })
                    .collect();
                m.insert("sections".into(), Value::Object(o));
            }
            m.insert("timestamp".into(), 0.into());
            self.pending_system.push(Value::Object(m));
        } else if let Some(cm) = &s.custom_message {
            self.append(
                json!({"type": "custom_message", "customType": cm.custom_type, "content": cm.content, "display": cm.display}),
                name,
            );
        } else if let Some(u) = &s.usage {
            let usage = usage_json(spec::UsageSpec {
                input: u.input,
                output: u.output,
                cache_read: u.cache_read,
                cache_write: u.cache_write,
            });
            let (p, m) = (self.provider.clone(), self.model_id.clone());
            self.append(
                json!({"type": "usage", "kind": u.kind, "provider": p, "model": m, "usage": usage}),
                name,
            );
        }
        Ok(())
    }

    fn assistant(
        &mut self,
        a: &spec::AssistantSpec,
        name: Option<&str>,
    ) -> Result<(), ScenarioError> {
        if self.leaf.is_none() {
            return Err(self.invalid(
                "step.assistant",
                "an assistant turn needs a prompt before it",
            ));
        }
        // Before the request: tool-change declarations, then Forge's anchors (context hook).
        self.flush_system();
        self.write_pending_anchors();
        let mut content = Vec::new();
        if let Some(t) = &a.thinking {
            let mut block = json!({"type": "thinking", "thinking": t});
            if let Some(sig) = &a.signature {
                block["thinkingSignature"] = json!(sig);
            }
            content.push(block);
        }
        if let Some(t) = &a.text {
            content.push(json!({"type": "text", "text": t}));
        }
        let mut calls = Vec::new();
        for (i, tc) in a.tool_calls.iter().enumerate() {
            if !self.decls.contains_key(&tc.name) {
                return Err(self.invalid(
                    &format!("step.assistant.tool_calls[{i}].name"),
                    format!("unknown tool {:?}", tc.name),
                ));
            }
            self.tool_call_seq += 1;
            let id = tc
                .id
                .clone()
                .unwrap_or_else(|| format!("call_{:04}", self.tool_call_seq));
            content.push(json!({"type": "toolCall", "id": id, "name": tc.name, "arguments": toml_to_json(&tc.arguments)}));
            calls.push((id, tc));
        }
        let stop = a.stop.clone().unwrap_or_else(|| {
            if calls.is_empty() {
                "stop".into()
            } else {
                "toolUse".into()
            }
        });
        const STOPS: [&str; 4] = ["stop", "length", "error", "aborted"];
        if a.stop.is_some() && !STOPS.contains(&stop.as_str()) && stop != "toolUse" {
            return Err(self.invalid(
                "step.assistant.stop",
                format!("{stop:?} is not one of stop, toolUse, length, error, aborted"),
            ));
        }
        let usage = usage_json(a.usage.unwrap_or(spec::UsageSpec {
            input: 100,
            output: 20,
            cache_read: 0,
            cache_write: 0,
        }));
        let mut m = Map::new();
        m.insert("role".into(), "assistant".into());
        m.insert("content".into(), Value::Array(content));
        m.insert("api".into(), self.api.clone().into());
        m.insert("provider".into(), self.provider.clone().into());
        m.insert("model".into(), self.model_id.clone().into());
        m.insert("usage".into(), usage);
        m.insert("stopReason".into(), stop.clone().into());
        if let Some(err) = &a.error {
            m.insert("errorMessage".into(), err.clone().into());
        }
        m.insert("timestamp".into(), self.now().into());
        self.append_message(Value::Object(m), name);
        if stop == "error" || stop == "aborted" {
            return Ok(());
        }
        for (id, tc) in calls {
            if tc.no_result {
                continue;
            }
            let (mut text, mut is_error, mut details) = (
                tc.result
                    .clone()
                    .unwrap_or_else(|| format!("{} done.", tc.name)),
                tc.is_error,
                tc.details.as_ref().map(toml_to_json),
            );
            if tc.name == "forge_capability" {
                let (t, e, d) = self.agent_capability(&toml_to_json(&tc.arguments));
                if tc.result.is_none() {
                    text = t;
                }
                is_error = is_error || e;
                if details.is_none() {
                    details = d;
                }
            }
            if let Some(n) = &tc.nested_usage {
                let mut nu = Map::new();
                nu.insert("schemaVersion".into(), 1.into());
                nu.insert("requests".into(), n.requests.into());
                nu.insert("input".into(), n.input.into());
                nu.insert("output".into(), n.output.into());
                if let (Some(r), Some(w)) = (n.cache_read, n.cache_write) {
                    nu.insert("cacheRead".into(), r.into());
                    nu.insert("cacheWrite".into(), w.into());
                }
                let d = details.get_or_insert_with(|| json!({}));
                if let Some(o) = d.as_object_mut() {
                    o.insert("forgeNestedUsage".into(), Value::Object(nu));
                }
            }
            let mut r = Map::new();
            r.insert("role".into(), "toolResult".into());
            r.insert("toolCallId".into(), id.into());
            r.insert("toolName".into(), tc.name.clone().into());
            r.insert("content".into(), json!([{"type": "text", "text": text}]));
            if let Some(d) = details {
                r.insert("details".into(), d);
            }
            r.insert("isError".into(), is_error.into());
            r.insert("timestamp".into(), self.now().into());
            self.append_message(Value::Object(r), None);
        }
        Ok(())
    }

    /// The agent's `forge_capability` call: returns (result text, isError, details).
    fn agent_capability(&mut self, args: &Value) -> (String, bool, Option<Value>) {
        let action = args["action"].as_str().unwrap_or_default().to_string();
        let id = args["id"].as_str().unwrap_or_default().to_string();
        match action.as_str() {
            "enable" => {
                let (source, name, content, add, remove, callable) = match self.bound_snapshot(&id)
                {
                    Ok(x) => x,
                    Err(e) => return (e, true, None),
                };
                if !callable {
                    return (
                        format!("Capability \"{id}\" is not model-callable."),
                        true,
                        None,
                    );
                }
                if let Some(a) = self
                    .active()
                    .into_iter()
                    .find(|a| a.binding().is_some_and(|(_, _, b)| b == id))
                {
                    return (
                        format!("Capability \"{id}\" is already active as {}. Repeated use is idempotent and does not change ownership.", a.activation_id),
                        false,
                        Some(json!({"action": "enable", "activationId": a.activation_id, "idempotent": true})),
                    );
                }
                let snap = self.snapshot(source, name, content, add, remove);
                let activation_id = snap["activationId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                let ev = self.activate_event("agent", snap);
                self.commit_event(ev);
                (
                    format!("Enabled capability \"{id}\" as {activation_id}; it applies from the next model request."),
                    false,
                    Some(json!({"action": "enable", "activationId": activation_id, "idempotent": false})),
                )
            }
            "disable" => {
                let target = match self.find_target(&id) {
                    Ok(t) => t,
                    Err(_) => return (format!("No matching active capability: {id}"), true, None),
                };
                if target.actor == "user" {
                    return (
                        format!(
                            "Agent cannot deactivate user-owned activation: {}",
                            target.activation_id
                        ),
                        true,
                        None,
                    );
                }
                if target.binding().is_none() {
                    return (
                        format!(
                            "Agent cannot deactivate unbound or manual capability: {}",
                            target.activation_id
                        ),
                        true,
                        None,
                    );
                }
                let ev = self.deactivate_event("agent", &target.activation_id);
                self.commit_event(ev);
                (
                    format!("Disabled capability \"{id}\" ({}).", target.activation_id),
                    false,
                    Some(json!({"action": "disable", "activationId": target.activation_id})),
                )
            }
            "list" | "status" => (format!("{action} complete."), false, None),
            other => (format!("Unknown action: {other}"), true, None),
        }
    }

    fn capability(
        &mut self,
        c: &spec::CapabilitySpec,
        name: Option<&str>,
    ) -> Result<(), ScenarioError> {
        let by = c.by.clone().unwrap_or_else(|| "user".into());
        if by != "user" {
            return Err(self.invalid("step.capability.by", "only `user` here; agent actions are forge_capability tool calls in an assistant step"));
        }
        let need = |v: &Option<String>, f: &str| -> Result<String, ScenarioError> {
            v.clone().ok_or_else(|| {
                self.invalid(
                    &format!("step.capability.{f}"),
                    format!("`{}` needs `{f}`", c.op),
                )
            })
        };
        let data = match c.op.as_str() {
            "enable" => {
                let r = self
                    .resolve_ref(&need(&c.reference, "ref")?, "project")
                    .map_err(|m| self.invalid("step.capability.ref", m))?;
                let source = json!({"kind": "capability", "key": {"scope": r.scope, "id": r.id}});
                let snap = self.snapshot(
                    source,
                    r.name.clone(),
                    r.content.clone(),
                    r.add.clone(),
                    r.remove.clone(),
                );
                self.activate_event("user", snap)
            }
            "enable-bound" => {
                let binding = need(&c.binding, "binding")?;
                let (source, n, content, add, remove, _) = self
                    .bound_snapshot(&binding)
                    .map_err(|m| self.invalid("step.capability.binding", m))?;
                let snap = self.snapshot(source, n, content, add, remove);
                self.activate_event("user", snap)
            }
            "add" => {
                let text = need(&c.text, "text")?;
                let snap = self.snapshot(json!({"kind": "manual"}), None, text, vec![], vec![]);
                self.activate_event("user", snap)
            }
            "disable" => {
                let target = need(&c.target, "target")?;
                let t = self
                    .find_target(&target)
                    .map_err(|m| self.invalid("step.capability.target", m))?;
                self.deactivate_event("user", &t.activation_id)
            }
            "reset" => {
                let event_id = self.uuid('e');
                json!({"schemaVersion": 1, "eventId": event_id, "op": "reset", "actor": "user", "createdAt": self.now()})
            }
            other => {
                return Err(self.invalid(
                    "step.capability.op",
                    format!("{other:?} is not one of enable, enable-bound, disable, add, reset"),
                ))
            }
        };
        let event_id = self.commit_event(data);
        if let Some(n) = name {
            self.names
                .insert(n.to_string(), self.leaf.clone().unwrap_or_default());
        }
        match c.anchor.as_deref().unwrap_or("immediate") {
            "immediate" => self.write_pending_anchors(),
            "next-request" => {}
            "none" => {
                self.never_anchor.insert(event_id);
            }
            other => {
                return Err(self.invalid(
                    "step.capability.anchor",
                    format!("{other:?} is not one of immediate, next-request, none"),
                ))
            }
        }
        Ok(())
    }

    fn preset(&mut self, p: &str, name: Option<&str>) -> Result<(), ScenarioError> {
        let key =
            if p.is_empty() || p == "none" {
                None
            } else {
                let preset =
                    self.src.file.preset.get(p).ok_or_else(|| {
                        self.invalid("step.preset", format!("unknown preset {p:?}"))
                    })?;
                Some((preset.scope.clone(), p.to_string()))
            };
        self.active_preset = key.as_ref().map(|(_, id)| id.clone());
        let state = key
            .as_ref()
            .map_or(Value::Null, |(s, id)| json!(format!("{s}:{id}")));
        self.append(
            json!({"type": "custom", "customType": PRESET_STATE, "data": {"activeStackId": state}}),
            name,
        );
        // Lifecycle retirement of bound activations from other presets (`sync`).
        let retire: Vec<String> = self
            .active()
            .into_iter()
            .filter(|a| {
                a.binding()
                    .is_some_and(|(s, id, _)| key.as_ref() != Some(&(s, id)))
            })
            .map(|a| a.activation_id)
            .collect();
        for id in retire {
            let ev = self.deactivate_event("lifecycle", &id);
            self.commit_event(ev);
        }
        self.write_pending_anchors();
        Ok(())
    }

    fn compact(&mut self, c: &spec::CompactSpec, name: Option<&str>) -> Result<(), ScenarioError> {
        let first_kept = match &c.keep_from {
            Some(n) => Some(self.names.get(n).cloned().ok_or_else(|| {
                self.invalid("step.compact.keep_from", format!("unknown step name {n:?}"))
            })?),
            None => None,
        };
        // getCurrentSystemMessage over the current projection.
        let sys = self.context_system_messages();
        let mut content = Vec::new();
        let mut sections: IndexMap<String, Value> = IndexMap::new();
        let mut ts: Option<Value> = None;
        for m in &sys {
            if ts.is_none() {
                ts = Some(m["timestamp"].clone());
            }
            let text = match &m["content"] {
                Value::String(s) => s.clone(),
                Value::Array(a) => a
                    .iter()
                    .filter(|b| b["type"] == "text")
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            };
            if !text.is_empty() {
                content.push(text);
            }
            for (k, v) in m["sections"].as_object().into_iter().flatten() {
                if v.is_null() {
                    sections.shift_remove(k);
                } else {
                    sections.insert(k.clone(), v.clone());
                }
            }
        }
        let tools: Vec<Value> = self.declared_tools().into_values().collect();
        let now = self.now();
        let system_message = (ts.is_some() || !tools.is_empty()).then(|| {
            let mut m = Map::new();
            m.insert("role".into(), "system".into());
            m.insert("content".into(), content.join("\n\n").into());
            if !sections.is_empty() {
                m.insert(
                    "sections".into(),
                    Value::Object(sections.into_iter().collect()),
                );
            }
            if !tools.is_empty() {
                m.insert("toolsAdded".into(), Value::Array(tools));
            }
            m.insert("timestamp".into(), now.into());
            Value::Object(m)
        });
        let id_next = format!("{:08x}", self.next_id);
        let mut body = Map::new();
        body.insert("type".into(), "compaction".into());
        body.insert("summary".into(), c.summary.clone().into());
        body.insert(
            "firstKeptEntryId".into(),
            first_kept.unwrap_or(id_next).into(),
        );
        body.insert("tokensBefore".into(), c.tokens_before.into());
        body.insert(
            "details".into(),
            json!({"readFiles": [], "modifiedFiles": []}),
        );
        body.insert("fromHook".into(), false.into());
        if let Some(sm) = system_message {
            body.insert("systemMessage".into(), sm);
        }
        self.append(Value::Object(body), name);
        Ok(())
    }
}

/// TOML → JSON (tables keep their order).
pub(crate) fn toml_to_json(v: &toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => json!(i),
        toml::Value::Float(f) => json::f64_to_value(*f),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.clone(), toml_to_json(v)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_round_trip() {
        let ms = parse_start("2026-01-01T00:00:01.000Z").unwrap();
        assert_eq!(ms, 1767225601000);
        assert_eq!(iso(ms), "2026-01-01T00:00:01.000Z");
        assert_eq!(parse_start("2026-13-01T00:00:00.000Z"), None);
        assert_eq!(parse_start("+010000-01-01T00:00:00.000Z"), None);
        assert_eq!(
            iso(parse_start("0000-01-01").unwrap()),
            "0000-01-01T00:00:00.000Z"
        );
    }

    #[test]
    fn fingerprint_vectors_from_spec() {
        let fp = snapshot_fingerprint(
            &json!({"kind": "manual"}),
            None,
            "Rule 1",
            &json!({"add": [], "remove": []}),
        );
        assert_eq!(
            fp,
            "sha256:v1:67be0ff032917a3601a19eded9b0b3d5c780f3aabd74f50f9da9c78c79ec9b3f"
        );
        let fp = snapshot_fingerprint(
            &json!({"kind": "capability", "key": {"scope": "global", "id": "strict"}, "binding": {"preset": {"scope": "project", "id": "default"}, "id": "bind-1"}}),
            Some("Test Mode"),
            "Roundtrip content",
            &json!({"add": ["t1"], "remove": ["t2"]}),
        );
        assert_eq!(
            fp,
            "sha256:v1:28ea137b371f4057c6ff9e9e146fe44fbe931e438a4dd83fa10cee6726f59641"
        );
    }
}
