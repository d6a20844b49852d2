//! Replaying a session: one request per assistant message on the root→leaf path, rebuilt as the
//! agent sent it.
//!
//! For an assistant entry A the request was built from the context at A's parent: Pi's canonical
//! projection (session crate), pi-forge's capability projection with the request model's
//! presentation (capability crate), `convertToLlm`, `normalizeContext`, then pi-ai's assembly
//! for the model (wire crate, as the catalog's Pi release) with the options the coding agent
//! passes: `reasoning` = the thinking level unless `off`, `sessionId` = the header id.
//! [`replay`] walks the path once with a [`Replayer`], so N requests cost the size of their
//! contexts, not N re-projections.
//!
//! The thinking level of a request ([`ThinkingSource`]): the one the response recorded (1.3
//! writes `thinkingLevel` on every response, which also covers virtual-model routing), else the
//! live agent's ([`AfterTree::Live`]): `/tree` navigation restores messages and tools from the
//! path but keeps the agent's thinking level (`navigateTree`), so a request after navigating uses
//! the last level set in the file before it, on whatever branch. [`AfterTree::Path`] takes the
//! path's level instead, as a Pi resumed on that branch restores it.
//!
//! [`Target`] re-targets the history ("what if this session had run on another model").

use std::path::PathBuf;

use forge_replay_capability::context::{ContextError, Options as CapOptions, Replayer};
use forge_replay_capability::projection::Presentation;
use forge_replay_model::json;
use forge_replay_model::message::Message;
use forge_replay_model::release::Change;
use forge_replay_session::{llm, ProjectError, Session};
use forge_replay_wire::api::Api;
use forge_replay_wire::strict::{fallback_diagnostic, Rejected};
use forge_replay_wire::thread::{Answer, Fallback, Rejection, ThreadForm, Threads};
use forge_replay_wire::{
    AssembleError, Build, Catalog, CatalogError, Entry, Env, Model, StrictFallback, WireRequest,
};
use serde_json::{json, Map, Value};

/// The representative catalog model of each API (`--api`, `--all-apis`, the verify matrix).
pub const REPRESENTATIVE_MODELS: [(&str, &str); 10] = [
    ("openai-completions", "moonshotai/kimi-k3"),
    ("mistral-conversations", "mistral/mistral-large-latest"),
    ("openai-responses", "openai/gpt-5.5"),
    ("azure-openai-responses", "azure-openai-responses/gpt-5.5"),
    ("openai-codex-responses", "openai-codex/gpt-5.5"),
    ("anthropic-messages", "anthropic/claude-opus-4-8"),
    (
        "bedrock-converse-stream",
        "amazon-bedrock/anthropic.claude-opus-4-8",
    ),
    ("google-generative-ai", "google/gemini-2.5-pro"),
    ("google-vertex", "google-vertex/gemini-2.5-flash"),
    ("pi-messages", "radius/balanced"),
];

/// Stand-ins for a representative model that a later release's catalog dropped (1.6.0 has no
/// `openai-codex/gpt-5.5`), tried in order. A release keeps the first representative its catalog
/// holds, so the goldens of the releases that have it keep their names.
const LATER_REPRESENTATIVES: [(&str, &str); 1] =
    [("openai-codex-responses", "openai-codex/gpt-5.6-sol")];

/// The representative model (`provider/id`) of an API name in a catalog: the one in
/// [`REPRESENTATIVE_MODELS`] when the catalog holds it, else the first stand-in it holds.
pub fn representative_model(api: &str, catalog: &Catalog) -> Option<&'static str> {
    let held = |m: &&str| {
        m.split_once('/')
            .is_some_and(|(provider, id)| catalog.lookup(provider, id).is_ok())
    };
    let mut candidates = REPRESENTATIVE_MODELS
        .iter()
        .chain(LATER_REPRESENTATIVES.iter())
        .filter(|(a, _)| *a == api)
        .map(|(_, m)| *m);
    let first = candidates.clone().next()?;
    Some(candidates.find(held).unwrap_or(first))
}

/// The representative model of every API in a catalog, in [`REPRESENTATIVE_MODELS`] order.
pub fn representative_models(catalog: &Catalog) -> Vec<(&'static str, &'static str)> {
    REPRESENTATIVE_MODELS
        .iter()
        .filter_map(|(api, _)| Some((*api, representative_model(api, catalog)?)))
        .collect()
}

/// Which model each request is assembled for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The model recorded on each assistant message.
    Recorded,
    /// One model (`provider/id`) for every request.
    Models(Vec<String>),
}

/// `replay --api` named no API of the catalog.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--api {0}: unknown API")]
pub struct UnknownApi(pub String);

impl Target {
    /// The target asked for: one `model`, else the representative model of `api`, else with
    /// `all_apis` every API's representative model, else the recorded models.
    pub fn chosen(
        model: Option<&str>,
        api: Option<&str>,
        all_apis: bool,
        catalog: &Catalog,
    ) -> Result<Target, UnknownApi> {
        Ok(match (model, api) {
            (Some(m), _) => Target::Models(vec![m.to_string()]),
            (None, Some(api)) => match representative_model(api, catalog) {
                Some(m) => Target::Models(vec![m.to_string()]),
                None => return Err(UnknownApi(api.to_string())),
            },
            (None, None) if all_apis => Target::all_apis(catalog),
            (None, None) => Target::Recorded,
        })
    }

    /// The representative model of every API in a catalog.
    pub fn all_apis(catalog: &Catalog) -> Target {
        Target::Models(
            representative_models(catalog)
                .into_iter()
                .map(|(_, m)| m.to_string())
                .collect(),
        )
    }
}

/// Which thinking level a request takes when its response does not record one (0.87.1 sessions)
/// and a `/tree` navigation left the last level change on another branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AfterTree {
    /// The live agent's: `navigateTree` keeps the current model and thinking level, so the last
    /// level set in the file before the request holds (the session was not reopened between the
    /// navigation and the request).
    #[default]
    Live,
    /// The path's (`buildSessionContext`): what a Pi resumed on that branch restores.
    Path,
}

/// `--after-tree live|path`.
impl forge_replay_model::choice::Choice for AfterTree {
    const ALL: &'static [AfterTree] = &[AfterTree::Live, AfterTree::Path];

    fn name(self) -> &'static str {
        match self {
            AfterTree::Live => "live",
            AfterTree::Path => "path",
        }
    }
}

/// Where a request's thinking level came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThinkingSource {
    /// The response's own `thinkingLevel` (1.3 and later).
    Recorded,
    /// The path's last `thinking_level_change`.
    Path,
    /// The live agent's: the last `thinking_level_change` before the request in the file, on
    /// another branch than the request's (`line`), or the path's when they agree.
    Live { line: Option<u64> },
}

/// A request's thinking level and, when the session cannot tell, the alternative.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thinking {
    /// The level used (`"off"` when none).
    pub level: String,
    pub source: ThinkingSource,
    /// The path's level, when it differs from `level` (a navigation the file does not resolve).
    pub path_level: Option<String>,
}

/// Replay settings.
#[derive(Debug, Clone)]
pub struct ReplayOptions<'c> {
    /// Entry id to replay to (default: the last entry, as Pi does on load).
    pub leaf: Option<String>,
    pub target: Target,
    pub catalog: &'c Catalog,
    /// Environment pi-ai sees (e.g. `PI_CACHE_RETENTION`, Azure endpoints).
    pub env: Env,
    /// Whether the project is trusted (untrusted: no capability text).
    pub trusted: bool,
    /// Keep each request's transcript ([`Request::transcript`]; empty otherwise).
    pub keep_transcript: bool,
    /// Hash each request's transcript message by message ([`Request::transcript_hashes`];
    /// empty otherwise): what a summary compares two requests' histories with, without a copy
    /// of every message of every request.
    pub hash_transcript: bool,
    /// The thinking level after a `/tree` navigation the session does not record one for.
    pub after_tree: AfterTree,
    /// Tool declarations a `prepareLoadout` hook hid from every request (1.3,
    /// [`Change::AgentHiddenDeclarations`]; a session does not record them).
    pub hidden_declarations: Vec<String>,
    /// A reply that recorded no `responseId` is taken to have had one (`assumed:<entry id>`), so
    /// an Anthropic message thread (1.6) continues after it. Every Anthropic reply carries an
    /// id and Pi records it, but test harnesses and some proxies leave it out; `upgrade` assumes
    /// it to show what the target release would send after a real reply. Off by default:
    /// replay shows what the session recorded.
    pub assume_reply_ids: bool,
    /// Write each request's HTTP body ([`WireRequest::body_text`]; on by default). Off, every
    /// request's wire (`wire`, `created`) has its URL, method and headers and an empty body:
    /// for consumers that read only the payload, such as `cache explain`.
    pub wire_bodies: bool,
    /// Carry the checks of the whole transcript from one request to the next of the same
    /// target ([`forge_replay_wire::Resume`]; on by default). The requests are the same either
    /// way; off, each is assembled from scratch (what the tests compare the walk with).
    pub incremental: bool,
}

impl<'c> ReplayOptions<'c> {
    /// Why [`ReplayOptions::hidden_declarations`] change nothing, when the catalog's release
    /// predates them.
    pub fn hidden_declarations_ignored(&self) -> Option<String> {
        let release = self.catalog.release();
        (!self.hidden_declarations.is_empty() && !release.has(Change::AgentHiddenDeclarations))
            .then(|| {
                format!(
                    "--hide-declarations has no effect on Pi {release}: hidden declarations came with 1.3.0"
                )
            })
    }

    pub fn new(catalog: &'c Catalog) -> Self {
        ReplayOptions {
            leaf: None,
            target: Target::Recorded,
            catalog,
            env: default_env(),
            trusted: true,
            keep_transcript: false,
            hash_transcript: false,
            after_tree: AfterTree::default(),
            hidden_declarations: Vec::new(),
            assume_reply_ids: false,
            wire_bodies: true,
            incremental: true,
        }
    }
}

/// The environment replay assumes: an Azure endpoint so the Azure API can build its URL
/// (pi-ai reads `AZURE_OPENAI_BASE_URL`; the value is a placeholder).
pub fn default_env() -> Env {
    let mut vars = std::collections::BTreeMap::new();
    vars.insert(
        "AZURE_OPENAI_BASE_URL".to_string(),
        "https://replay.openai.azure.com/openai/v1".to_string(),
    );
    Env::new(vars)
}

/// One replayed request.
#[derive(Debug, Clone)]
pub struct Request {
    /// Position among the requests of the path (0-based).
    pub index: usize,
    /// The assistant entry the request produced.
    pub entry_id: String,
    /// Its line in the session file.
    pub line: u64,
    pub api: Api,
    pub provider: String,
    pub model: String,
    /// The options passed to `streamSimple`.
    pub options: Map<String, Value>,
    /// The thinking level the request was built with, and where it came from.
    pub thinking: Thinking,
    /// The transcript handed to the provider layer (`normalizeContext(...).messages`), with
    /// [`ReplayOptions::keep_transcript`].
    pub transcript: Vec<Value>,
    /// A hash of each message of the transcript handed to the provider layer
    /// (`normalizeContext(...).messages`), in order ([`json::stringify_hash`]), with
    /// [`ReplayOptions::hash_transcript`].
    pub transcript_hashes: Vec<u64>,
    /// The `onPayload` object.
    pub payload: Value,
    /// The HTTP request (fetch transports): the one the endpoint answered (with Anthropic message
    /// threads, 1.6: the `create` or `continue` form, or the resend after a fallback).
    pub wire: Option<WireRequest>,
    /// The message-thread form the answered request carried (1.6 Anthropic), if any.
    pub thread: Option<ThreadForm>,
    /// The thread fallback the session recorded for the request (`anthropic_thread_fallback`:
    /// the first attempt was rejected and resent), if any.
    pub thread_fallback: Option<Fallback>,
    /// When the answered request continued a thread: the `create` form of the same request
    /// (what a fresh process sends), whose body without `thread` is the whole prompt the
    /// endpoint holds for it. What a prompt cache sees.
    pub created: Option<WireRequest>,
    /// The strict-tools fallback the session recorded for the request
    /// (`anthropic_strict_tools_fallback`, `bedrock_strict_tools_fallback`): the first attempt,
    /// with `prefer` tools strict, was rejected for Claude's limits, and `payload` and `wire`
    /// are the resend's, with them non-strict. `None` for a target model other than the recorded.
    pub strict_fallback: Option<StrictFallback>,
    /// Whether the request went out with its `prefer` strict tools non-strict: the resend of a
    /// [`Request::strict_fallback`], or (1.6, [`Change::StrictToolLimitsPerSession`]) a later
    /// request of a session an earlier fallback marked.
    pub strict_tools_disabled: bool,
    /// What the payload's message list shares with the previous request built for the same
    /// target ([`forge_replay_wire::Reuse`]): set when a consumer of [`replay_each_recycling`]
    /// hands payloads back.
    pub reuse: forge_replay_wire::Reuse,
}

impl Request {
    /// `{url, method, body}` or null.
    pub fn wire_json(&self) -> Value {
        match &self.wire {
            Some(w) => json!({"url": w.url, "method": w.method, "body": w.body()}),
            None => Value::Null,
        }
    }

    /// [`Request::to_json`] without copying the payload and body.
    pub fn into_json(self) -> Value {
        let wire = match self.wire {
            Some(w) => {
                let mut m = Map::new();
                let body = w.body();
                m.insert("url".into(), w.url.into());
                m.insert("method".into(), w.method.into());
                m.insert("body".into(), body);
                Value::Object(m)
            }
            None => Value::Null,
        };
        let mut m = Map::new();
        m.insert("entryId".into(), self.entry_id.into());
        m.insert("api".into(), self.api.name().into());
        m.insert("provider".into(), self.provider.into());
        m.insert("model".into(), self.model.into());
        m.insert("payload".into(), self.payload);
        m.insert("wire".into(), wire);
        Value::Object(m)
    }

    /// Appends `JSON.stringify(self.to_json(), null, 2)` as it would appear nested `depth`
    /// levels deep, without building the document: the payload is written from its tree and the
    /// body re-indented from its text ([`forge_replay_model::transcode`], the tree path when the
    /// text is not canonical).
    pub fn write_pretty(&self, depth: usize, out: &mut String) {
        let newline = |out: &mut String, d: usize| {
            out.push('\n');
            for _ in 0..d {
                out.push_str("  ");
            }
        };
        let member = |out: &mut String, key: &str, first: bool| {
            if !first {
                out.push(',');
            }
            newline(out, depth + 1);
            json::write_string(out, key);
            out.push_str(": ");
        };
        out.push('{');
        for (i, (key, value)) in [
            ("entryId", self.entry_id.as_str()),
            ("api", self.api.name()),
            ("provider", self.provider.as_str()),
            ("model", self.model.as_str()),
        ]
        .into_iter()
        .enumerate()
        {
            member(out, key, i == 0);
            json::write_string(out, value);
        }
        member(out, "payload", false);
        json::write_pretty_at(out, &self.payload, depth + 1);
        member(out, "wire", false);
        match &self.wire {
            None => out.push_str("null"),
            Some(w) => {
                out.push('{');
                newline(out, depth + 2);
                out.push_str("\"url\": ");
                json::write_string(out, &w.url);
                out.push(',');
                newline(out, depth + 2);
                out.push_str("\"method\": ");
                json::write_string(out, &w.method);
                out.push(',');
                newline(out, depth + 2);
                out.push_str("\"body\": ");
                if !forge_replay_model::transcode::transcode_pretty(&w.body_text, depth + 2, out) {
                    json::write_pretty_at(out, &w.body(), depth + 2);
                }
                newline(out, depth + 1);
                out.push('}');
            }
        }
        newline(out, depth);
        out.push('}');
    }

    /// `{"entryId","api","provider","model","payload","wire"}`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("entryId".into(), self.entry_id.clone().into());
        m.insert("api".into(), self.api.name().into());
        m.insert("provider".into(), self.provider.clone().into());
        m.insert("model".into(), self.model.clone().into());
        m.insert("payload".into(), self.payload.clone());
        m.insert("wire".into(), self.wire_json());
        Value::Object(m)
    }
}

/// Errors of [`replay`].
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{path}: cannot select the leaf")]
    Leaf {
        path: PathBuf,
        #[source]
        source: Box<ProjectError>,
    },
    #[error("{path}:{line}: entry {entry_id}: cannot build the request context")]
    Context {
        path: PathBuf,
        line: u64,
        entry_id: String,
        #[source]
        source: Box<ContextError>,
    },
    #[error("{path}:{line}: entry {entry_id}: model {model}")]
    Model {
        path: PathBuf,
        line: u64,
        entry_id: String,
        model: String,
        #[source]
        source: Box<CatalogError>,
    },
    #[error("{path}:{line}: entry {entry_id}: assistant message has no provider/model")]
    NoModel {
        path: PathBuf,
        line: u64,
        entry_id: String,
    },
    #[error("{path}:{line}: entry {entry_id}: cannot assemble the {model} request")]
    Assemble {
        path: PathBuf,
        line: u64,
        entry_id: String,
        model: String,
        #[source]
        source: Box<AssembleError>,
    },
    #[error("unknown model {model:?} (expected provider/id)")]
    BadModel { model: String },
    /// A target model of [`Target::Models`] is not in the catalog (found before any entry is
    /// read, so no line or entry names it).
    #[error("target model {model}")]
    Target {
        model: String,
        #[source]
        source: Box<CatalogError>,
    },
    #[error("cannot write the replayed request")]
    Sink(#[source] std::io::Error),
}

impl ReplayError {
    /// What is wrong with a target model the caller named (`replay --model`), `MODEL: why`, when
    /// that is the error: the fault is then the name given, not a line of the session.
    pub fn target_fault(&self) -> Option<String> {
        match self {
            ReplayError::Target { model, source } => Some(format!(
                "{model}: {}",
                forge_replay_model::error::chain(&**source)
            )),
            ReplayError::BadModel { model } => Some(format!("{model}: expected provider/id")),
            _ => None,
        }
    }
}

/// Parses `provider/id` (the id may itself contain `/`).
pub fn split_model(s: &str) -> Option<(&str, &str)> {
    let (p, id) = s.split_once('/')?;
    (!p.is_empty() && !id.is_empty()).then_some((p, id))
}

/// A model name that is not `provider/id`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected provider/id, for example anthropic/claude-opus-4-8")]
pub struct NotProviderModel;

/// A `provider/id` model name as given (`--model`), checked by [`split_model`].
pub fn parse_model(s: &str) -> Result<String, NotProviderModel> {
    split_model(s)
        .map(|_| s.to_string())
        .ok_or(NotProviderModel)
}

/// The messages of one projection (borrowed from the replayer where passed through) and the
/// path's thinking level.
type Projected<'r> = (Vec<std::borrow::Cow<'r, Value>>, Option<Value>);

/// The live agent's thinking level before each assistant entry (entry index → the last
/// `thinking_level_change` before it in the file, and that entry's line): `/tree` navigation
/// keeps the agent's level, so file order decides, not the path.
fn live_levels(session: &Session) -> std::collections::HashMap<usize, (Option<Value>, u64)> {
    let mut out = std::collections::HashMap::new();
    let mut current: Option<(Option<Value>, u64)> = None;
    for (i, e) in session.entries().enumerate() {
        if *e.entry_type() == forge_replay_session::EntryType::ThinkingLevelChange {
            current = Some((e.thinking_level_value().cloned(), e.line()));
        } else if e.is_assistant_message() {
            if let Some(c) = &current {
                out.insert(i, c.clone());
            }
        }
    }
    out
}

/// What the file says about Anthropic message threads (1.6, [`Change::AnthropicMessageThreads`])
/// beyond the path being replayed: thread state is per process, so requests on other branches
/// and the compaction and branch-summary requests between two requests of the path count too.
struct ThreadHistory {
    /// Assistant entry index → the entry before it in the file that made a request (an
    /// assistant message, a compaction, a branch summary). When it is not the path's previous
    /// request, the continuation point that request left was consumed or replaced.
    previous: std::collections::HashMap<usize, usize>,
    /// Assistant entries before which a fallback in the file turned threads off.
    off: std::collections::HashSet<usize>,
}

/// The `anthropic_thread_fallback` diagnostic an assistant message recorded: its
/// `details.reason` and `error.message`.
fn thread_fallback(message: &Value) -> Option<(String, Option<String>)> {
    message
        .get("diagnostics")?
        .as_array()?
        .iter()
        .find(|d| {
            d.get("type").and_then(Value::as_str)
                == Some(forge_replay_wire::thread::FALLBACK_DIAGNOSTIC)
        })
        .map(|d| {
            (
                d.pointer("/details/reason")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                d.pointer("/error/message")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            )
        })
}

/// The strict-tools fallback diagnostic an assistant message recorded: its type and
/// `error.message`.
fn strict_fallback(message: &Value) -> Option<(String, String)> {
    message
        .get("diagnostics")?
        .as_array()?
        .iter()
        .find(|d| {
            matches!(
                d.get("type").and_then(Value::as_str),
                Some(
                    forge_replay_wire::strict::ANTHROPIC_DIAGNOSTIC
                        | forge_replay_wire::strict::BEDROCK_DIAGNOSTIC
                )
            )
        })
        .map(|d| {
            (
                d["type"].as_str().unwrap_or_default().to_string(),
                d.pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
            )
        })
}

/// The assistant entries a strict-tools fallback earlier in the file precedes (1.6,
/// [`Change::StrictToolLimitsPerSession`]): pi-ai marks the session id, which every branch of
/// the file shares, so file order decides, not the path. Like thread state, the mark lives in
/// one process: a session reopened in a new Pi tries strict again, which the file does not show.
fn strict_marked(session: &Session) -> std::collections::HashSet<usize> {
    let mut out = std::collections::HashSet::new();
    let mut marked = false;
    for (i, e) in session.entries().enumerate() {
        if !e.is_assistant_message() {
            continue;
        }
        if marked {
            out.insert(i);
        } else if e.raw().is_ok_and(|r| r.contains("_strict_tools_fallback"))
            && e.value()
                .ok()
                .and_then(|v| strict_fallback(&v["message"]))
                .is_some()
        {
            marked = true;
        }
    }
    out
}

/// One pass over the file ([`ThreadHistory`]); assistant messages are parsed only when their
/// line names the diagnostic.
fn thread_history(session: &Session) -> ThreadHistory {
    let mut previous = std::collections::HashMap::new();
    let mut off = std::collections::HashSet::new();
    let mut last: Option<usize> = None;
    let mut is_off = false;
    for (i, e) in session.entries().enumerate() {
        use forge_replay_session::EntryType;
        if e.is_assistant_message() {
            if let Some(p) = last {
                previous.insert(i, p);
            }
            if is_off {
                off.insert(i);
            }
            let names_fallback = e
                .raw()
                .is_ok_and(|r| r.contains(forge_replay_wire::thread::FALLBACK_DIAGNOSTIC));
            if names_fallback {
                if let Some((reason, message)) =
                    e.value().ok().and_then(|v| thread_fallback(&v["message"]))
                {
                    let r = Rejection::from_reason(&reason, message.as_deref());
                    if !forge_replay_wire::thread::NEW_THREAD_ERRORS.contains(&reason.as_str())
                        && r.error_code
                            .as_deref()
                            .is_none_or(|c| c == "thread_unsupported_request")
                    {
                        is_off = true;
                    }
                }
            }
            last = Some(i);
        } else if matches!(
            e.entry_type(),
            EntryType::Compaction | EntryType::BranchSummary
        ) {
            last = Some(i);
        }
    }
    ThreadHistory { previous, off }
}

/// The `thinkingLevel` a response recorded (1.3), if any.
fn recorded_level(session: &Session, i: usize) -> Option<String> {
    let e = session.entry(i);
    if !e.raw().ok()?.contains("\"thinkingLevel\"") {
        return None;
    }
    let v = e.value().ok()?;
    v.get("message")?
        .get("thinkingLevel")?
        .as_str()
        .map(str::to_string)
}

/// Filters the declarations a `prepareLoadout` hook hid out of every system message, as 1.3's
/// `_installHiddenDeclarationsProjection` does (`{...rest, toolsAdded?, toolsRemoved?}`: the
/// lists move to the end, and an emptied list is left out).
fn hide_declarations<M: Message>(messages: &mut [M], hidden: &[String]) {
    for m in messages.iter_mut() {
        let Some(o) = m.borrow().as_object() else {
            continue;
        };
        if o.get("role").and_then(Value::as_str) != Some("system")
            || (o.get("toolsAdded").is_none_or(|v| v.is_null())
                && o.get("toolsRemoved").is_none_or(|v| v.is_null()))
        {
            continue;
        }
        // Only the system messages that declare tools are copied.
        let Some(o) = m.make_mut().as_object_mut() else {
            continue;
        };
        let keep = |list: Option<Value>| -> Vec<Value> {
            match list {
                Some(Value::Array(a)) => a
                    .into_iter()
                    .filter(|t| {
                        !t.get("name")
                            .and_then(Value::as_str)
                            .is_some_and(|n| hidden.iter().any(|h| h == n))
                    })
                    .collect(),
                _ => Vec::new(),
            }
        };
        let added = keep(o.shift_remove("toolsAdded"));
        let removed = keep(o.shift_remove("toolsRemoved"));
        if !added.is_empty() {
            o.insert("toolsAdded".into(), Value::Array(added));
        }
        if !removed.is_empty() {
            o.insert("toolsRemoved".into(), Value::Array(removed));
        }
    }
}

/// Replays every request on the path to the leaf, for every target model.
///
/// With [`Target::Models`] the output holds, for each request, one [`Request`] per model, in the
/// given model order.
pub fn replay(session: &Session, opts: &ReplayOptions<'_>) -> Result<Vec<Request>, ReplayError> {
    let mut out = Vec::new();
    replay_each(session, opts, |r| {
        out.push(r);
        Ok(())
    })?;
    Ok(out)
}

/// [`replay`], handing each request to `sink` as soon as it is built (memory stays at one
/// request's size, whatever the session length).
pub fn replay_each(
    session: &Session,
    opts: &ReplayOptions<'_>,
    mut sink: impl FnMut(Request) -> std::io::Result<()>,
) -> Result<(), ReplayError> {
    walk(session, opts, false, &mut |o| match o {
        Outcome::Built(r) => sink(*r).map(|()| None),
        // Not produced when missing models are not tolerated.
        Outcome::Missing { .. } => Ok(None),
    })
}

/// [`replay_each`] for a sink that is done with a request's payload when it returns: a payload
/// it hands back (`Some`) is where the next request of the same target builds its message list
/// (with [`ReplayOptions::incremental`]), so a request costs what it adds to the previous one,
/// and [`Request::reuse`] says which of its leading messages are the previous payload's,
/// unchanged. A sink that keeps the payload returns `None`. The requests are the same as
/// [`replay_each`]'s (an Architecture Invariant, checked on every committed session).
pub fn replay_each_recycling(
    session: &Session,
    opts: &ReplayOptions<'_>,
    mut sink: impl FnMut(Request) -> std::io::Result<Option<Value>>,
) -> Result<(), ReplayError> {
    walk(session, opts, false, &mut |o| match o {
        Outcome::Built(r) => sink(*r),
        Outcome::Missing { .. } => Ok(None),
    })
}

/// One request of [`replay_outcomes`].
#[derive(Debug)]
pub enum Outcome {
    /// The request, rebuilt.
    Built(Box<Request>),
    /// The model recorded on the request's response is not in the catalog
    /// ([`ReplayError::Model`]): the request cannot be rebuilt, the ones after it still are.
    Missing { index: usize, error: ReplayError },
}

/// [`replay_each`] that records a request whose recorded model the catalog lacks as
/// [`Outcome::Missing`] and goes on with the next one (`forge-replay upgrade`: a model the
/// target release dropped is a finding, not a failure). Other errors end the replay.
pub fn replay_outcomes(
    session: &Session,
    opts: &ReplayOptions<'_>,
    mut sink: impl FnMut(Outcome) -> std::io::Result<()>,
) -> Result<(), ReplayError> {
    walk(session, opts, true, &mut |o| sink(o).map(|()| None))
}

/// The walk of every replay: `sink` gets each outcome and may hand the request's payload back
/// ([`replay_each_recycling`]).
fn walk(
    session: &Session,
    opts: &ReplayOptions<'_>,
    tolerate_missing: bool,
    sink: &mut dyn FnMut(Outcome) -> std::io::Result<Option<Value>>,
) -> Result<(), ReplayError> {
    let path_err = |source| ReplayError::Leaf {
        path: session.path().to_path_buf(),
        source: Box::new(source),
    };
    let leaf = session
        .resolve_leaf(opts.leaf.as_deref())
        .map_err(path_err)?;
    let path = leaf.map(|l| session.path_to(l)).unwrap_or_default();
    let fixed: Vec<(String, Model)> = match &opts.target {
        Target::Recorded => Vec::new(),
        Target::Models(ms) => ms
            .iter()
            .map(|m| {
                let (p, id) =
                    split_model(m).ok_or_else(|| ReplayError::BadModel { model: m.clone() })?;
                let model = opts
                    .catalog
                    .lookup(p, id)
                    .map_err(|source| ReplayError::Target {
                        model: m.clone(),
                        source: Box::new(source),
                    })?
                    .clone();
                Ok((m.clone(), model))
            })
            .collect::<Result<_, ReplayError>>()?,
    };
    let session_id = session.header().id().to_string();
    let live = (opts.after_tree == AfterTree::Live).then(|| live_levels(session));
    let hidden: &[String] = if opts.catalog.release().has(Change::AgentHiddenDeclarations) {
        &opts.hidden_declarations
    } else {
        &[]
    };
    let history = opts
        .catalog
        .release()
        .has(Change::AnthropicMessageThreads)
        .then(|| thread_history(session));
    let marked = opts
        .catalog
        .release()
        .has(Change::StrictToolLimitsPerSession)
        .then(|| strict_marked(session));
    // One process per target model (with the recorded models: one, keyed by session id).
    let mut threads: Vec<Threads> = Vec::new();
    let mut previous_on_path: Option<usize> = None;
    let mut replayer = Replayer::new(session);
    let mut hashed = HashedMessages::default();
    // Per target, what one request's assembly carries to the next.
    let mut carried: Vec<Carried> = Vec::new();
    let mut index = 0;
    for &i in &path {
        let e = session.entry(i);
        if e.is_assistant_message() {
            let entry_id = e.id().unwrap_or_default().to_string();
            let line = e.line();
            let models: Vec<(String, Model)> = if fixed.is_empty() {
                match recorded_model(session, opts.catalog, i) {
                    Ok(m) => vec![m],
                    Err(error @ ReplayError::Model { .. }) if tolerate_missing => {
                        sink(Outcome::Missing { index, error }).map_err(ReplayError::Sink)?;
                        Vec::new()
                    }
                    Err(e) => return Err(e),
                }
            } else {
                fixed.clone()
            };
            let mut cached: [Option<Projected>; 2] = [None, None];
            let mut hashes: [Option<Vec<u64>>; 2] = [None, None];
            let recorded = recorded_level(session, i);
            let mut request_options: Option<(Map<String, Value>, Thinking)> = None;
            for (target, (name, model)) in models.into_iter().enumerate() {
                let presentation = Presentation::from_native(model.is_flagged());
                let slot = usize::from(presentation == Presentation::Native);
                if cached[slot].is_none() {
                    let ctx = replayer
                        .project_borrowed(CapOptions {
                            presentation,
                            trusted: opts.trusted,
                        })
                        .map_err(|source| ReplayError::Context {
                            path: session.path().to_path_buf(),
                            line,
                            entry_id: entry_id.clone(),
                            source: Box::new(source),
                        })?;
                    let mut messages = llm::convert_to_llm_owned(ctx.messages);
                    if !hidden.is_empty() {
                        hide_declarations(&mut messages, hidden);
                    }
                    cached[slot] = Some((messages, ctx.projection.thinking_level));
                }
                let (messages, path_level) = cached[slot].as_ref().expect("projected above");
                // The request's context `{messages}` as pointers: nothing is copied.
                let context: Vec<&Value> = messages.iter().map(|m| &**m).collect();
                if request_options.is_none() {
                    let as_level =
                        |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("off").to_string();
                    let path_level = as_level(path_level.as_ref());
                    let thinking = match (&recorded, live.as_ref().and_then(|l| l.get(&i))) {
                        (Some(r), _) => Thinking {
                            level: r.clone(),
                            source: ThinkingSource::Recorded,
                            path_level: (*r != path_level).then(|| path_level.clone()),
                        },
                        (None, Some((level, at))) => {
                            let level = as_level(level.as_ref());
                            Thinking {
                                source: ThinkingSource::Live {
                                    line: (level != path_level).then_some(*at),
                                },
                                path_level: (level != path_level).then(|| path_level.clone()),
                                level,
                            }
                        }
                        (None, None) => Thinking {
                            level: path_level,
                            source: if live.is_some() {
                                ThinkingSource::Live { line: None }
                            } else {
                                ThinkingSource::Path
                            },
                            path_level: None,
                        },
                    };
                    let mut options = Map::new();
                    if thinking.level != "off" {
                        options.insert("reasoning".into(), thinking.level.clone().into());
                    }
                    options.insert("sessionId".into(), session_id.clone().into());
                    request_options = Some((options, thinking));
                }
                let (options, thinking) = request_options.as_ref().expect("set above");
                let asm_err = |source| ReplayError::Assemble {
                    path: session.path().to_path_buf(),
                    line,
                    entry_id: entry_id.clone(),
                    model: name.clone(),
                    source: Box::new(source),
                };
                // The transcript's hashes: only when asked for, once per presentation.
                if opts.hash_transcript && hashes[slot].is_none() {
                    hashes[slot] = Some(hashed.hashes(messages));
                }
                let transcript_hashes = hashes[slot].clone().unwrap_or_default();
                // A copy of the whole transcript: only when asked for.
                let transcript = if opts.keep_transcript {
                    // `normalizeContext` of a context with no systemPrompt and no tools: its messages.
                    context.iter().map(|m| (*m).clone()).collect()
                } else {
                    Vec::new()
                };
                let release = opts.catalog.release();
                if carried.len() <= target {
                    carried.resize_with(target + 1, Carried::default);
                }
                let carry = &mut carried[target];
                let shared = if opts.incremental {
                    carry.shared_with(messages)
                } else {
                    0
                };
                let mut build = |disable: bool| {
                    forge_replay_wire::assemble_resumed(
                        release,
                        &model,
                        &context,
                        options,
                        Entry::StreamSimple,
                        &opts.env,
                        Build {
                            disable_preferred_strict_tools: disable,
                            without_body: !opts.wire_bodies,
                        },
                        &mut carry.wire,
                        shared,
                    )
                };
                // What the endpoint answered (strict-limit and thread rejections) is recorded for
                // the recorded model only.
                let mut message = session
                    .entry(i)
                    .value()
                    .ok()
                    .and_then(|mut v| v.get_mut("message").map(Value::take))
                    .unwrap_or(Value::Null);
                if opts.assume_reply_ids {
                    if let Some(m) = message.as_object_mut() {
                        m.entry("responseId")
                            .or_insert_with(|| Value::String(format!("assumed:{entry_id}")));
                    }
                }
                let recorded_model = fixed.is_empty();
                let recorded_strict = strict_fallback(&message).filter(|_| recorded_model);
                // 1.6: a strict-limit fallback earlier in the file marked the session, so this
                // request starts with `prefer` tools non-strict; unless it records a fallback of
                // its own (its first attempt was strict: a new process had forgotten the mark).
                let from_start = recorded_model
                    && recorded_strict.is_none()
                    && marked.as_ref().is_some_and(|m| m.contains(&i))
                    && model.api().is_some_and(|api| {
                        forge_replay_wire::strict::diagnostic(release, api).is_some()
                    });
                let first = build(from_start).map_err(asm_err)?;
                // A recorded strict-tools fallback: the first attempt was rejected, the resend
                // (non-strict) produced the reply.
                let strict_rejection = recorded_strict.and_then(|(kind, msg)| {
                    let diagnostic = fallback_diagnostic(
                        release,
                        first.api,
                        first.strict_tools_disabled,
                        first.has_preferred_strict_tools,
                        &Rejected {
                            status: Some(400),
                            message: &msg,
                        },
                    )?;
                    (diagnostic == kind).then_some((diagnostic, msg))
                });
                let (assembled, rejected_first) = match &strict_rejection {
                    Some(_) => (build(true).map_err(asm_err)?, Some(first)),
                    None => (first, None),
                };
                let strict_fallback_seen = strict_rejection.zip(rejected_first.as_ref()).map(
                    |((diagnostic, message), first)| StrictFallback {
                        diagnostic,
                        message,
                        rejected_payload: first.payload.clone(),
                    },
                );
                // The request the endpoint answered, when a message thread sent another form.
                let mut answered = None;
                let mut thread = None;
                let mut thread_fallback_seen = None;
                if let (Some(h), Some(info)) = (&history, &assembled.thread) {
                    if threads.len() <= target {
                        threads.resize_with(target + 1, Threads::new);
                    }
                    let t = &mut threads[target];
                    if h.previous.get(&i).copied() != previous_on_path {
                        t.forget(&info.session);
                    }
                    if h.off.contains(&i) {
                        t.turn_off(&info.session);
                    }
                    // The strict attempt went through the thread state first (consuming a
                    // continuation point) and was rejected; the resend prepares again.
                    if let (Some(first), Some(f)) = (&rejected_first, &strict_fallback_seen) {
                        let rejection = Rejection {
                            status: 400,
                            error_code: None,
                            message: f.message.clone(),
                        };
                        t.send(&model, first, &Answer::Rejected(rejection));
                    }
                    let answer = match thread_fallback(&message).filter(|_| recorded_model) {
                        Some((reason, msg)) => {
                            Answer::Rejected(Rejection::from_reason(&reason, msg.as_deref()))
                        }
                        None => Answer::Accepted,
                    };
                    let exchange = t.send(&model, &assembled, &answer);
                    let stop = message.get("stopReason").and_then(Value::as_str);
                    if exchange.error.is_none() && !matches!(stop, Some("error" | "aborted")) {
                        t.record_reply(
                            opts.catalog.release(),
                            &model,
                            &assembled,
                            &exchange,
                            &message,
                        )
                        .map_err(asm_err)?;
                    }
                    if let Some(a) = exchange.last() {
                        answered = Some(a.wire.clone());
                    }
                    thread = exchange.answered_thread().cloned();
                    thread_fallback_seen = exchange.fallback;
                }
                let continued = matches!(thread, Some(ThreadForm::Continue { .. }));
                // Moved, not copied, unless the request is both the answered and the created one.
                let (wire, created) = match answered {
                    Some(a) => (Some(a), assembled.wire.filter(|_| continued)),
                    None if continued => (assembled.wire.clone(), assembled.wire),
                    None => (assembled.wire, None),
                };
                let reuse = assembled.reuse;
                let back = sink(Outcome::Built(Box::new(Request {
                    index,
                    entry_id: entry_id.clone(),
                    line,
                    api: assembled.api,
                    provider: model.provider().to_string(),
                    model: model.id().to_string(),
                    options: options.clone(),
                    thinking: thinking.clone(),
                    transcript,
                    transcript_hashes,
                    payload: assembled.payload,
                    wire,
                    thread,
                    thread_fallback: thread_fallback_seen,
                    created,
                    strict_tools_disabled: assembled.strict_tools_disabled,
                    strict_fallback: strict_fallback_seen,
                    reuse,
                })))
                .map_err(ReplayError::Sink)?;
                if let Some(payload) = back {
                    carried[target].wire.recycle(reuse.token, payload);
                }
            }
            previous_on_path = Some(i);
            index += 1;
        }
        let effect = replayer
            .push_effect(i)
            .map_err(|source| ReplayError::Context {
                path: session.path().to_path_buf(),
                line: e.line(),
                entry_id: e.id().unwrap_or_default().to_string(),
                source: Box::new(source),
            })?;
        if effect.rewrote_from.is_some() {
            // Slots of the builder were replaced: their messages are gone.
            hashed.forget();
            carried.iter_mut().for_each(Carried::forget);
        }
    }
    Ok(())
}

/// What a walk carries from one request of a target to the next: the previous request's
/// context by address, to say how many leading messages the next one shares with it, and the
/// wire's [`forge_replay_wire::Resume`].
///
/// As for [`HashedMessages`], only messages borrowed from the session builder count: they stay
/// where they are, unchanged, until a push replaces builder slots ([`Carried::forget`]). A
/// message a step made is freed after its request, so its address could come back with other
/// content; it ends the shared prefix.
#[derive(Debug, Default)]
struct Carried {
    /// The previous request's messages: the address of each borrowed one, 0 for one a step made.
    addresses: Vec<usize>,
    wire: forge_replay_wire::Resume,
}

impl Carried {
    /// How many leading messages of `messages` the previous request had, the same values at the
    /// same addresses; `messages` becomes the previous request.
    fn shared_with(&mut self, messages: &[std::borrow::Cow<'_, Value>]) -> usize {
        let address = |m| lent_address(m).unwrap_or(0);
        let shared = self
            .addresses
            .iter()
            .zip(messages)
            .take_while(|&(&a, m)| a != 0 && a == address(m))
            .count();
        self.addresses.clear();
        self.addresses.extend(messages.iter().map(address));
        shared
    }

    /// After the builder replaced slots.
    fn forget(&mut self) {
        self.addresses.clear();
    }
}

/// The address of a message lent by the session builder, which names it until a push replaces
/// builder slots; `None` for one a step made for this request (freed after it, so its address
/// could come back with other content).
#[allow(clippy::ptr_arg)] // the variant is what it reads, not the value
fn lent_address(m: &std::borrow::Cow<'_, Value>) -> Option<usize> {
    match m {
        std::borrow::Cow::Borrowed(v) => Some(std::ptr::from_ref::<Value>(v) as usize),
        std::borrow::Cow::Owned(_) => None,
    }
}

/// [`Request::transcript_hashes`] of the requests of one walk (a pi-ai context of these
/// messages and no systemPrompt or tools, which `normalizeContext` returns as they are), each
/// message hashed once rather than once per request.
///
/// A message borrowed from the replayer's session builder stays where it is, unchanged, until a
/// push replaces builder slots (`PushEffect::rewrote_from`, after which [`HashedMessages::forget`]
/// is called); so until then its address names it, and its hash is kept under that address.
/// Messages the capability step or `convertToLlm` made are hashed every time (their memory is
/// freed after the request, and an address could be reused).
#[derive(Debug, Default)]
struct HashedMessages {
    by_address: std::collections::HashMap<usize, u64>,
    scratch: String,
}

impl HashedMessages {
    fn hashes(&mut self, messages: &[std::borrow::Cow<'_, Value>]) -> Vec<u64> {
        let HashedMessages {
            by_address,
            scratch,
        } = self;
        messages
            .iter()
            .map(|m| match lent_address(m) {
                Some(address) => *by_address
                    .entry(address)
                    .or_insert_with(|| json::stringify_hash(m, scratch)),
                None => json::stringify_hash(m, scratch),
            })
            .collect()
    }

    /// After the builder replaced slots.
    fn forget(&mut self) {
        self.by_address.clear();
    }
}

fn recorded_model(
    session: &Session,
    catalog: &Catalog,
    i: usize,
) -> Result<(String, Model), ReplayError> {
    let e = session.entry(i);
    let entry_id = e.id().unwrap_or_default().to_string();
    let no_model = || ReplayError::NoModel {
        path: session.path().to_path_buf(),
        line: e.line(),
        entry_id: entry_id.clone(),
    };
    let v = e.value().map_err(|_| no_model())?;
    let m = &v["message"];
    let (Some(p), Some(id)) = (m["provider"].as_str(), m["model"].as_str()) else {
        return Err(no_model());
    };
    let name = format!("{p}/{id}");
    let model = catalog
        .lookup(p, id)
        .map_err(|source| ReplayError::Model {
            path: session.path().to_path_buf(),
            line: e.line(),
            entry_id: entry_id.clone(),
            model: name.clone(),
            source: Box::new(source),
        })?
        .clone();
    Ok((name, model))
}

#[cfg(test)]
mod tests {
    use super::*;
    use forge_replay_model::release::PiRelease;
    use std::borrow::Cow;

    #[test]
    fn a_target_model_that_cannot_be_used_is_the_fault() {
        let bad = ReplayError::BadModel { model: "x".into() };
        assert_eq!(
            bad.target_fault().as_deref(),
            Some("x: expected provider/id")
        );
        let catalog = Catalog::builtin(PiRelease::DEFAULT);
        let source = Box::new(catalog.lookup("no", "such").unwrap_err());
        let why = forge_replay_model::error::chain(&*source);
        let target = ReplayError::Target {
            model: "no/such".into(),
            source,
        };
        assert_eq!(target.target_fault(), Some(format!("no/such: {why}")));
        let sink = ReplayError::Sink(std::io::Error::other("full"));
        assert_eq!(sink.target_fault(), None);
    }

    #[test]
    fn a_model_name_is_provider_slash_id() {
        assert_eq!(
            parse_model("openrouter/a/b"),
            Ok("openrouter/a/b".to_string())
        );
        for bad in ["opus", "/id", "provider/"] {
            assert_eq!(parse_model(bad), Err(NotProviderModel));
        }
    }

    #[test]
    fn the_target_asked_for_and_the_hidden_declarations_a_release_ignores() {
        let catalog = Catalog::builtin(PiRelease::DEFAULT);
        let one = |m: &str| Target::Models(vec![m.to_string()]);
        let chosen = |m, a, all| Target::chosen(m, a, all, catalog);
        assert_eq!(chosen(Some("a/b"), None, false), Ok(one("a/b")));
        let api = REPRESENTATIVE_MODELS[0].0;
        let model = representative_model(api, catalog).unwrap();
        assert_eq!(chosen(None, Some(api), false), Ok(one(model)));
        assert_eq!(chosen(None, None, true), Ok(Target::all_apis(catalog)));
        assert_eq!(chosen(None, None, false), Ok(Target::Recorded));
        let err = chosen(None, Some("x"), false).unwrap_err();
        assert_eq!(err.to_string(), "--api x: unknown API");
        let mut opts = ReplayOptions::new(catalog);
        assert_eq!(opts.hidden_declarations_ignored(), None);
        opts.hidden_declarations = vec!["bash".into()];
        let note = opts.hidden_declarations_ignored().unwrap();
        assert!(
            note.starts_with("--hide-declarations has no effect on Pi 0.87.1"),
            "{note}"
        );
        opts.catalog = Catalog::builtin(PiRelease::V1_6_0);
        assert_eq!(opts.hidden_declarations_ignored(), None);
    }

    /// 1.3's hidden declarations leave the other messages borrowed and copy only the system
    /// messages whose lists they filter (`{...rest, toolsAdded?, toolsRemoved?}`: the lists move
    /// to the end, an emptied one is left out); the builder's messages are not changed.
    #[test]
    fn hidden_declarations_copy_only_the_messages_they_filter() {
        let tool = |n: &str| json!({"name": n, "description": n});
        let messages = [
            json!({"role": "user", "content": "hi", "timestamp": 1}),
            json!({"role": "system", "toolsAdded": [tool("a"), tool("b")], "toolsRemoved": [tool("a")], "content": "x"}),
            json!({"role": "system", "content": "no lists"}),
            json!({"role": "assistant", "toolsAdded": [tool("a")], "content": []}),
        ];
        let mut lent: Vec<Cow<'_, Value>> = messages.iter().map(Cow::Borrowed).collect();
        hide_declarations(&mut lent, &["a".to_string()]);
        let borrowed: Vec<bool> = lent.iter().map(|m| matches!(m, Cow::Borrowed(_))).collect();
        assert_eq!(borrowed, [true, false, true, true]);
        assert_eq!(
            json::stringify(&lent[1]),
            r#"{"role":"system","content":"x","toolsAdded":[{"name":"b","description":"b"}]}"#
        );
        // The lent messages are as they were.
        assert_eq!(messages[1]["toolsAdded"].as_array().map(Vec::len), Some(2));
        // The owned form filters the same way.
        let mut owned = messages.to_vec();
        hide_declarations(&mut owned, &["a".to_string()]);
        let lent: Vec<Value> = lent.into_iter().map(Cow::into_owned).collect();
        assert_eq!(owned, lent);
    }

    /// Every release gets a representative model its catalog holds for each API; a release keeps
    /// the first one (so its goldens keep their names), and 1.6.0, which dropped
    /// `openai-codex/gpt-5.5`, gets the stand-in.
    #[test]
    fn each_release_has_a_representative_its_catalog_holds() {
        for release in PiRelease::ALL {
            let catalog = Catalog::builtin(release);
            let reps = representative_models(catalog);
            assert_eq!(reps.len(), REPRESENTATIVE_MODELS.len(), "{release}");
            for (api, m) in reps {
                let (p, id) = m.split_once('/').unwrap();
                let model = catalog
                    .lookup(p, id)
                    .unwrap_or_else(|e| panic!("{release} {m}: {e}"));
                assert_eq!(model.api_name(), api, "{release} {m}");
            }
        }
        let codex = |r| representative_model("openai-codex-responses", Catalog::builtin(r));
        assert_eq!(codex(PiRelease::V0_87_1), Some("openai-codex/gpt-5.5"));
        assert_eq!(codex(PiRelease::V1_3_0), Some("openai-codex/gpt-5.5"));
        assert_eq!(codex(PiRelease::V1_6_0), Some("openai-codex/gpt-5.6-sol"));
        assert_eq!(
            representative_model("no-such-api", Catalog::builtin(PiRelease::V1_6_0)),
            None
        );
    }
}
