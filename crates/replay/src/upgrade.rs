//! `forge-replay upgrade`: what changes in every request when Pi moves from one release to another.
//!
//! Every request of an input (a session, a scenario, or a wire case file) is rebuilt under both
//! releases, each with its own catalog, and the two are compared:
//!
//! * the JSON paths that differ in the `onPayload` object, the HTTP body and the headers (the
//!   structural diff of [`crate::diff`]), each put in a named [`Kind`] by [`KIND_TABLE`];
//! * the first byte where the two bodies differ (the body bytes as sent: `JSON.stringify` of the
//!   wire body, or of the payload for APIs that do not send through `fetch`);
//! * the cache consequence ([`Cache`]): the longest common prefix of the two bodies is what a
//!   prompt cache written by the old release still matches; everything after it is written again,
//!   estimated in tokens the way the target release's pi-ai estimates them (`CHARS_PER_TOKEN`)
//!   and priced from the target catalog's `cost` (see [`Cache`]).
//!
//! A model the target catalog lacks (or the source catalog: a model newer than the old release)
//! is reported on its request ([`Status::MissingInTarget`]), and the requests after it are still
//! compared. One input that cannot be read is a recorded failure ([`InputReport::error`]); the
//! batch goes on. Inputs run on rayon and are reported in input order.
//!
//! Headers are compared as the wire crate keeps them: lowercase names, credentials redacted, the
//! machine-dependent `user-agent` and `x-stainless-*` left out (so pi-ai 1.3's own `user-agent`
//! is not among the changes).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use forge_replay_model::json;
use forge_replay_model::release::PiRelease;
use forge_replay_session::input::VisitedDirs;
use forge_replay_session::Session;
use forge_replay_wire::{Case, Catalog, Model};
use rayon::prelude::*;
use serde_json::{json, Map, Value};

use crate::diff;
use crate::replay::{self, Outcome, ReplayOptions};
use crate::scenario;

/// The named kinds a changed path falls into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// HTTP headers, and payload fields an SDK sends as headers (Anthropic `betas`).
    Headers,
    /// Tool declarations: `tools`, tool choice, tools added or removed inside messages.
    Tools,
    /// Where and how the system prompt is sent.
    System,
    /// Thinking, reasoning effort, effort markers.
    Thinking,
    /// The output token limit.
    MaxTokens,
    /// Sampling parameters (temperature, top-p, top-k, penalties).
    Sampling,
    /// The transcript: messages, input items, contents.
    Messages,
    /// Conversation threading (previous response ids, message threads).
    Threading,
    /// Anything else (stream options, cache fields, the URL, an error).
    Other,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Kind; 9] = [
        Kind::Headers,
        Kind::Tools,
        Kind::System,
        Kind::Thinking,
        Kind::MaxTokens,
        Kind::Sampling,
        Kind::Messages,
        Kind::Threading,
        Kind::Other,
    ];

    /// The name used in output and in `--fail-on`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Headers => "headers",
            Kind::Tools => "tools",
            Kind::System => "system",
            Kind::Thinking => "thinking",
            Kind::MaxTokens => "max-tokens",
            Kind::Sampling => "sampling",
            Kind::Messages => "messages",
            Kind::Threading => "threading",
            Kind::Other => "other",
        }
    }

    /// The kind of a name ([`Kind::name`]).
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s.trim())
    }

    /// `headers, tools, …`.
    pub fn names() -> String {
        Kind::ALL.map(Kind::name).join(", ")
    }
}

/// Path patterns → kinds, first match wins. A pattern matches a path that starts with it, segment
/// by segment; `[*]` matches any array index. Paths are those of [`crate::diff`] on the payload
/// and the body (headers are always [`Kind::Headers`]). `docs/upgrade.md` shows this table.
pub const KIND_TABLE: &[(&str, Kind)] = &[
    // Sent as headers by the SDK.
    ("$.betas", Kind::Headers),
    (
        "$.additionalModelRequestFields.anthropic_beta",
        Kind::Headers,
    ),
    // Tool declarations.
    ("$.tools", Kind::Tools),
    ("$.tool_choice", Kind::Tools),
    ("$.toolChoice", Kind::Tools),
    ("$.toolConfig", Kind::Tools),
    ("$.parallel_tool_calls", Kind::Tools),
    ("$.config.tools", Kind::Tools),
    ("$.config.toolConfig", Kind::Tools),
    ("$.messages[*].content[*].tool", Kind::Tools),
    // System placement.
    ("$.system", Kind::System),
    ("$.instructions", Kind::System),
    ("$.systemInstruction", Kind::System),
    ("$.config.systemInstruction", Kind::System),
    ("$.systemPrompt", Kind::System),
    ("$.messages[0].role", Kind::System),
    ("$.input[0].role", Kind::System),
    // Thinking and effort.
    ("$.thinking", Kind::Thinking),
    ("$.reasoning", Kind::Thinking),
    ("$.reasoning_effort", Kind::Thinking),
    ("$.reasoningEffort", Kind::Thinking),
    ("$.output_config", Kind::Thinking),
    ("$.prompt_mode", Kind::Thinking),
    ("$.promptMode", Kind::Thinking),
    ("$.include", Kind::Thinking),
    ("$.additionalModelRequestFields", Kind::Thinking),
    ("$.config.thinkingConfig", Kind::Thinking),
    ("$.generationConfig.thinkingConfig", Kind::Thinking),
    ("$.messages[*].reasoning_content", Kind::Thinking),
    // Output limit.
    ("$.max_tokens", Kind::MaxTokens),
    ("$.maxTokens", Kind::MaxTokens),
    ("$.max_output_tokens", Kind::MaxTokens),
    ("$.max_completion_tokens", Kind::MaxTokens),
    ("$.inferenceConfig.maxTokens", Kind::MaxTokens),
    ("$.config.maxOutputTokens", Kind::MaxTokens),
    ("$.generationConfig.maxOutputTokens", Kind::MaxTokens),
    // Sampling.
    ("$.temperature", Kind::Sampling),
    ("$.top_p", Kind::Sampling),
    ("$.topP", Kind::Sampling),
    ("$.top_k", Kind::Sampling),
    ("$.topK", Kind::Sampling),
    ("$.frequency_penalty", Kind::Sampling),
    ("$.presence_penalty", Kind::Sampling),
    ("$.inferenceConfig", Kind::Sampling),
    ("$.config.temperature", Kind::Sampling),
    ("$.config.topP", Kind::Sampling),
    ("$.config.topK", Kind::Sampling),
    ("$.generationConfig", Kind::Sampling),
    // Threading.
    ("$.thread", Kind::Threading),
    ("$.previous_response_id", Kind::Threading),
    ("$.conversation", Kind::Threading),
    // The transcript.
    ("$.messages", Kind::Messages),
    ("$.input", Kind::Messages),
    ("$.contents", Kind::Messages),
];

/// One segment of a JSON path: `.name`, `[3]` or `["name"]`.
fn segments(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let rest = path.strip_prefix('$').unwrap_or(path);
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'.' => {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j] != b'.' && b[j] != b'[' {
                    j += 1;
                }
                out.push(rest[start..j].to_string());
                i = j;
            }
            b'[' if b.get(i + 1) == Some(&b'"') => {
                // A quoted key: up to the closing `"]` (escapes are kept as written).
                let start = i + 2;
                let mut j = start;
                while j < b.len() && !(b[j] == b'"' && b.get(j + 1) == Some(&b']')) {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                out.push(rest[start..j.min(b.len())].to_string());
                i = (j + 2).min(b.len());
            }
            b'[' => {
                let j = rest[i..].find(']').map_or(b.len(), |k| i + k);
                out.push(format!("[{}]", &rest[i + 1..j]));
                i = (j + 1).min(b.len());
            }
            _ => i += 1,
        }
    }
    out
}

/// The kind of a changed payload or body path ([`KIND_TABLE`]; [`Kind::Other`] when none).
pub fn kind_of(path: &str) -> Kind {
    let segs = segments(path);
    for (pattern, kind) in KIND_TABLE {
        let pat = segments(pattern);
        if pat.len() <= segs.len()
            && pat
                .iter()
                .zip(&segs)
                .all(|(p, s)| p == s || (p == "[*]" && s.starts_with('[') && s.ends_with(']')))
        {
            return *kind;
        }
    }
    Kind::Other
}

/// Which part of a request a change is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The `onPayload` object.
    Payload,
    /// The HTTP body.
    Body,
    /// The HTTP headers.
    Headers,
    /// The URL.
    Url,
    /// The error pi-ai throws instead of building the request.
    Error,
}

impl Part {
    pub fn name(self) -> &'static str {
        match self {
            Part::Payload => "payload",
            Part::Body => "body",
            Part::Headers => "headers",
            Part::Url => "url",
            Part::Error => "error",
        }
    }
}

/// One changed path.
#[derive(Debug, Clone, PartialEq)]
pub struct PathChange {
    pub part: Part,
    /// `added`, `removed` or `changed`.
    pub op: &'static str,
    pub path: String,
    pub kind: Kind,
}

/// A request as one release builds it.
#[derive(Debug, Clone)]
pub struct Built {
    pub api: String,
    pub payload: Value,
    /// Wire requests only.
    pub url: Option<String>,
    pub headers: BTreeMap<String, String>,
    /// Wire requests only: the body as JSON.
    pub body: Option<Value>,
    /// The bytes sent: the wire body, or `JSON.stringify(payload)`.
    pub body_text: String,
    /// The whole prompt behind a request that continued an Anthropic message thread (the
    /// un-threaded body, as JSON and as text): the server holds the rest, so the cache sees
    /// this, not `body_text`.
    pub prompt: Option<(Value, String)>,
}

impl Built {
    fn new(api: String, payload: Value, wire: Option<forge_replay_wire::WireRequest>) -> Built {
        match wire {
            Some(w) => Built {
                api,
                url: Some(w.url.clone()),
                body: Some(w.body()),
                headers: w.headers,
                body_text: w.body_text,
                prompt: None,
                payload,
            },
            None => Built {
                api,
                url: None,
                headers: BTreeMap::new(),
                body: None,
                body_text: json::stringify(&payload),
                prompt: None,
                payload,
            },
        }
    }
}

/// What a prompt cache written by the old release keeps under the new one.
///
/// `commonPrefixBytes` is the longest common prefix of the two bodies; a provider's prefix cache
/// still matches up to there (at most: providers cache at block boundaries). The rest of the new
/// body, `rewriteTokens`, is estimated as pi-ai does (`ceil(chars / CHARS_PER_TOKEN)` of the
/// target release) and priced per million tokens at the target catalog's `cost.cacheWrite`
/// (the tier whose `inputTokensAbove` the new body's estimate passes), or at `cost.input` where
/// the catalog prices cache writes at 0 (providers that cache automatically bill a miss as
/// input).
#[derive(Debug, Clone, PartialEq)]
pub struct Cache {
    pub from_bytes: usize,
    pub to_bytes: usize,
    pub common_prefix_bytes: usize,
    /// The two bodies are identical: the cache the old release wrote is kept whole.
    pub kept: bool,
    /// The new request continues an Anthropic message thread (1.6): it sends only the new
    /// messages, and the sizes and prefix above are of the whole prompt the endpoint rebuilds.
    pub continued_thread: bool,
    pub rewrite_tokens: u64,
    /// USD per million tokens, when the target catalog prices the model.
    pub price_per_mtok: Option<f64>,
    /// USD, when priced.
    pub rewrite_cost: Option<f64>,
}

/// The comparison of one request under both releases.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub api_from: String,
    pub api_to: String,
    /// The target model, when the target release names it otherwise (an Azure model under 1.3).
    pub model_to: Option<String>,
    pub changes: Vec<PathChange>,
    /// Byte offset of the first difference between the bodies (none when equal).
    pub first_changed_byte: Option<usize>,
    pub cache: Option<Cache>,
}

impl Comparison {
    /// The kinds of every change, in [`Kind::ALL`] order.
    pub fn kinds(&self) -> BTreeSet<Kind> {
        self.changes.iter().map(|c| c.kind).collect()
    }

    pub fn changed(&self) -> bool {
        !self.changes.is_empty()
    }
}

/// What became of one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Compared(Comparison),
    /// The model is not in the target release's catalog.
    MissingInTarget {
        message: String,
    },
    /// The model is not in the source release's catalog.
    MissingInSource {
        message: String,
    },
}

/// One request of an input.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestReport {
    pub index: usize,
    /// Sessions and scenarios: the assistant entry and its line.
    pub entry_id: Option<String>,
    pub line: Option<u64>,
    /// `provider/id` as the input names it.
    pub model: String,
    pub status: Status,
}

/// What kind of file an input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Session,
    Scenario,
    Case,
}

impl InputKind {
    pub fn name(self) -> &'static str {
        match self {
            InputKind::Session => "session",
            InputKind::Scenario => "scenario",
            InputKind::Case => "case",
        }
    }

    /// By file name: `.jsonl` session, `.toml` scenario, `.json` wire case.
    pub fn of(path: &Path) -> Option<InputKind> {
        let name = path.file_name()?.to_string_lossy();
        if name.ends_with(".jsonl") {
            Some(InputKind::Session)
        } else if name.ends_with(".toml") {
            Some(InputKind::Scenario)
        } else if name.ends_with(".json") {
            Some(InputKind::Case)
        } else {
            None
        }
    }
}

/// One input's result.
#[derive(Debug, Clone, PartialEq)]
pub struct InputReport {
    pub path: PathBuf,
    pub kind: Option<InputKind>,
    pub requests: Vec<RequestReport>,
    /// Why the input could not be compared (the requests before the failure are kept).
    pub error: Option<String>,
    /// What reading the session found (a truncated last line, a skipped bad line), said on
    /// stderr as every command that reads a session says it.
    pub diagnostics: Vec<forge_replay_session::Diagnostic>,
}

/// The result over every input.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub from: PiRelease,
    pub to: PiRelease,
    pub inputs: Vec<InputReport>,
}

/// Errors of [`expand`].
#[derive(Debug, thiserror::Error)]
pub enum UpgradeError {
    #[error("{path}: cannot read the input")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: no session (.jsonl), scenario (.toml) or wire case (.case.json) in it")]
    Empty { path: PathBuf },
    #[error("{path}: not a session (.jsonl), scenario (.toml) or wire case (.json)")]
    UnknownKind { path: PathBuf },
    #[error("{path}: cannot replay the session")]
    Replay {
        path: PathBuf,
        #[source]
        source: Box<replay::ReplayError>,
    },
    #[error("{path}: cannot read the session")]
    Session {
        path: PathBuf,
        #[source]
        source: Box<forge_replay_session::ReadError>,
    },
    #[error("cannot compile the scenario")]
    Scenario(#[source] Box<scenario::ScenarioError>),
    #[error("{path}: not a wire case")]
    Case {
        path: PathBuf,
        #[source]
        source: Box<forge_replay_wire::CaseError>,
    },
    #[error("{path}: the two replays disagree on the requests of the path ({from} vs {to})")]
    Mismatch {
        path: PathBuf,
        from: usize,
        to: usize,
    },
}

/// The files of the inputs: files as given, directories walked (sorted; `.jsonl`, `.toml` and
/// `.case.json` files, hidden and temporary names skipped). A directory without any is an error.
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, UpgradeError> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let before = out.len();
            walk_dir(p, &mut out, &mut VisitedDirs::new())?;
            if out.len() == before {
                return Err(UpgradeError::Empty { path: p.clone() });
            }
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Each directory once, whatever symlink leads to it (`visited`).
fn walk_dir(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    visited: &mut VisitedDirs,
) -> Result<(), UpgradeError> {
    if !visited.first_visit(dir) {
        return Ok(());
    }
    let read = |source| UpgradeError::Read {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(read)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(read)?;
    entries.sort();
    for p in entries {
        let name = p.file_name().map(|n| n.to_string_lossy().to_string());
        if name.as_deref().is_none_or(|n| n.starts_with('.')) {
            continue;
        }
        let name = name.unwrap_or_default();
        if p.is_dir() {
            walk_dir(&p, out, visited)?;
        } else if name.ends_with(".jsonl")
            || name.ends_with(".toml")
            || name.ends_with(".case.json")
        {
            out.push(p);
        }
    }
    Ok(())
}

/// Compares every input from `from` to `to` (rayon; reported in input order).
pub fn upgrade(paths: &[PathBuf], from: PiRelease, to: PiRelease) -> Report {
    let inputs = paths
        .par_iter()
        .map(|p| upgrade_input(p, from, to))
        .collect();
    Report { from, to, inputs }
}

/// Compares one input.
pub fn upgrade_input(path: &Path, from: PiRelease, to: PiRelease) -> InputReport {
    let kind = InputKind::of(path);
    let mut report = InputReport {
        path: path.to_path_buf(),
        kind,
        requests: Vec::new(),
        error: None,
        diagnostics: Vec::new(),
    };
    let result = match kind {
        Some(InputKind::Session) => match Session::open(path) {
            Ok((s, diags)) => {
                report.diagnostics = diags;
                session_requests(&s, from, to, &mut report.requests)
            }
            Err(e) => Err(UpgradeError::Session {
                path: path.to_path_buf(),
                source: Box::new(e),
            }),
        },
        Some(InputKind::Scenario) => scenario_requests(path, from, to, &mut report.requests),
        Some(InputKind::Case) => case_request(path, from, to).map(|r| report.requests.push(r)),
        // A path that is not there is said as such, whatever its name.
        None => match std::fs::metadata(path) {
            Err(source) => Err(UpgradeError::Read {
                path: path.to_path_buf(),
                source,
            }),
            Ok(_) => Err(UpgradeError::UnknownKind {
                path: path.to_path_buf(),
            }),
        },
    };
    if let Err(e) = result {
        report.error = Some(forge_replay_model::error::chain(&e));
    }
    report
}

fn scenario_requests(
    path: &Path,
    from: PiRelease,
    to: PiRelease,
    out: &mut Vec<RequestReport>,
) -> Result<(), UpgradeError> {
    let compiled = scenario::load(path)
        .and_then(|l| scenario::compile(&l))
        .map_err(|e| UpgradeError::Scenario(Box::new(e)))?;
    let name = path.with_extension("jsonl");
    let (session, _) =
        Session::from_reader(compiled.session_jsonl.as_bytes(), &name).map_err(|e| {
            UpgradeError::Session {
                path: path.to_path_buf(),
                source: Box::new(e),
            }
        })?;
    session_requests(&session, from, to, out)
}

/// One side's requests of a session: index → built request or why not.
type Side = Vec<(usize, String, u64, Result<Built, String>, String)>;

fn replay_side(session: &Session, release: PiRelease) -> Result<Side, UpgradeError> {
    let mut opts = ReplayOptions::new(Catalog::builtin(release));
    // What the target release sends after a real reply, which always has an id.
    opts.assume_reply_ids = true;
    let mut side = Vec::new();
    replay::replay_outcomes(session, &opts, |o| {
        match o {
            Outcome::Built(r) => {
                let model = format!("{}/{}", r.provider, r.model);
                let r = *r;
                let mut built = Built::new(r.api.name().to_string(), r.payload, r.wire);
                built.prompt = r.created.map(|created| {
                    let mut body = created.body();
                    if let Some(o) = body.as_object_mut() {
                        o.remove("thread");
                    }
                    let text = json::stringify(&body);
                    (body, text)
                });
                side.push((r.index, r.entry_id, r.line, Ok(built), model));
            }
            Outcome::Missing { index, error } => {
                let (entry_id, line, model) = match &error {
                    replay::ReplayError::Model {
                        entry_id,
                        line,
                        model,
                        ..
                    } => (entry_id.clone(), *line, model.clone()),
                    _ => (String::new(), 0, String::new()),
                };
                side.push((
                    index,
                    entry_id,
                    line,
                    Err(forge_replay_model::error::chain(&error)),
                    model,
                ));
            }
        }
        Ok(())
    })
    .map_err(|e| UpgradeError::Replay {
        path: session.path().to_path_buf(),
        source: Box::new(e),
    })?;
    Ok(side)
}

fn session_requests(
    session: &Session,
    from: PiRelease,
    to: PiRelease,
    out: &mut Vec<RequestReport>,
) -> Result<(), UpgradeError> {
    let old = replay_side(session, from)?;
    let new = replay_side(session, to)?;
    if old.len() != new.len() {
        return Err(UpgradeError::Mismatch {
            path: session.path().to_path_buf(),
            from: old.len(),
            to: new.len(),
        });
    }
    let to_catalog = Catalog::builtin(to);
    for (a, b) in old.into_iter().zip(new) {
        let (index, entry_id, line, a, model) = a;
        let (_, _, _, b, model_to) = b;
        let status = match (a, b) {
            (Err(message), _) => Status::MissingInSource { message },
            (_, Err(message)) => Status::MissingInTarget { message },
            (Ok(a), Ok(b)) => {
                let target =
                    replay::split_model(&model_to).and_then(|(p, id)| to_catalog.get(p, id));
                let mut c = compare(Ok(&a), Ok(&b), target, to);
                c.model_to = (model_to != model).then_some(model_to);
                Status::Compared(c)
            }
        };
        out.push(RequestReport {
            index,
            entry_id: Some(entry_id),
            line: Some(line),
            model,
            status,
        });
    }
    Ok(())
}

/// A wire case assembled under `release` (its own `"pi"` is set aside): the model (or why it is
/// not in the catalog), and the request or pi-ai's error.
fn case_side(case: &Case, release: PiRelease) -> Result<(Model, Result<Built, String>), String> {
    let catalog = Catalog::builtin(release);
    let model = catalog
        .resolve(&case.model)
        .map_err(|e| forge_replay_model::error::chain(&e))?;
    let built = forge_replay_wire::assemble(
        release,
        &model,
        &case.context,
        &case.options,
        case.entry,
        &case.env,
    )
    .map(|a| Built::new(a.api.name().to_string(), a.payload, a.wire))
    .map_err(|e| e.to_string());
    Ok((model, built))
}

fn case_request(
    path: &Path,
    from: PiRelease,
    to: PiRelease,
) -> Result<RequestReport, UpgradeError> {
    let case_err = |source| UpgradeError::Case {
        path: path.to_path_buf(),
        source: Box::new(source),
    };
    let text =
        forge_replay_session::input::read_to_string(path).map_err(|source| UpgradeError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    let case = Case::parse(&text).map_err(case_err)?;
    let spec_name = |m: &Model| format!("{}/{}", m.provider(), m.id());
    let (status, model) = match (case_side(&case, from), case_side(&case, to)) {
        (Err(message), _) => (Status::MissingInSource { message }, String::new()),
        (Ok((m, _)), Err(message)) => (Status::MissingInTarget { message }, spec_name(&m)),
        (Ok((ma, a)), Ok((mb, b))) => {
            let mut c = compare(a.as_ref(), b.as_ref(), Some(&mb), to);
            let (na, nb) = (spec_name(&ma), spec_name(&mb));
            c.model_to = (na != nb).then_some(nb);
            (Status::Compared(c), na)
        }
    };
    Ok(RequestReport {
        index: 0,
        entry_id: None,
        line: None,
        model,
        status,
    })
}

fn push_diff(out: &mut Vec<PathChange>, part: Part, a: &Value, b: &Value) {
    for c in diff::diff(a, b).changes {
        let kind = if part == Part::Headers {
            Kind::Headers
        } else {
            kind_of(c.path())
        };
        out.push(PathChange {
            part,
            op: c.op(),
            path: c.path().to_string(),
            kind,
        });
    }
}

fn headers_value(h: &BTreeMap<String, String>) -> Value {
    Value::Object(
        h.iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect::<Map<_, _>>(),
    )
}

/// Compares one request as the two releases build it (`Err`: pi-ai's error).
pub fn compare(
    from: Result<&Built, &String>,
    to: Result<&Built, &String>,
    target: Option<&Model>,
    to_release: PiRelease,
) -> Comparison {
    let mut changes = Vec::new();
    let (a, b) = match (from, to) {
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => {
            let err = |r: Result<&Built, &String>| r.err().cloned();
            let (ea, eb) = (err(a), err(b));
            if ea != eb {
                changes.push(PathChange {
                    part: Part::Error,
                    op: match (&ea, &eb) {
                        (None, _) => "added",
                        (_, None) => "removed",
                        _ => "changed",
                    },
                    path: "$".into(),
                    kind: Kind::Other,
                });
            }
            let api = |r: Result<&Built, &String>| r.map(|b| b.api.clone()).unwrap_or_default();
            return Comparison {
                api_from: api(a),
                api_to: api(b),
                model_to: None,
                changes,
                first_changed_byte: None,
                cache: None,
            };
        }
    };
    push_diff(&mut changes, Part::Payload, &a.payload, &b.payload);
    match (&a.body, &b.body) {
        (Some(x), Some(y)) => {
            let at = changes.len();
            push_diff(&mut changes, Part::Body, x, y);
            if a.prompt.is_some() || b.prompt.is_some() {
                // A body change the whole prompts do not have is the thread's doing (a
                // `continue` leaves out the system prompt, the tools and the earlier messages).
                fn prompt<'v>(p: &'v Option<(Value, String)>, body: &'v Value) -> &'v Value {
                    p.as_ref().map_or(body, |p| &p.0)
                }
                let real: BTreeSet<String> = diff::diff(prompt(&a.prompt, x), prompt(&b.prompt, y))
                    .changes
                    .iter()
                    .map(|c| c.path().to_string())
                    .collect();
                for c in &mut changes[at..] {
                    if !real.contains(&c.path) {
                        c.kind = Kind::Threading;
                    }
                }
            }
        }
        (None, None) => {}
        // One release sends through fetch, the other does not.
        _ => changes.push(PathChange {
            part: Part::Body,
            op: if a.body.is_none() { "added" } else { "removed" },
            path: "$".into(),
            kind: Kind::Other,
        }),
    }
    if a.url != b.url {
        changes.push(PathChange {
            part: Part::Url,
            op: "changed",
            path: "$".into(),
            kind: Kind::Other,
        });
    }
    push_diff(
        &mut changes,
        Part::Headers,
        &headers_value(&a.headers),
        &headers_value(&b.headers),
    );
    let sent = common_prefix(&a.body_text, &b.body_text);
    // The cache compares whole prompts: a thread `continue` sends only the new messages, but the
    // endpoint caches the prompt it rebuilds from the thread.
    fn text(b: &Built) -> &str {
        b.prompt
            .as_ref()
            .map_or(b.body_text.as_str(), |p| p.1.as_str())
    }
    let (pa, pb) = (text(a), text(b));
    let common = common_prefix(pa, pb);
    let equal = pa == pb;
    let rest_chars = pb[common..].encode_utf16().count() as f64;
    let cpt = forge_replay_wire::options::chars_per_token(to_release);
    let rewrite_tokens = (rest_chars / cpt).ceil() as u64;
    let total_tokens = (pb.encode_utf16().count() as f64 / cpt).ceil();
    let price = target.and_then(|m| write_price(m, total_tokens));
    Comparison {
        api_from: a.api.clone(),
        api_to: b.api.clone(),
        model_to: None,
        changes,
        first_changed_byte: (a.body_text != b.body_text).then_some(sent),
        cache: Some(Cache {
            from_bytes: pa.len(),
            to_bytes: pb.len(),
            common_prefix_bytes: common,
            kept: equal,
            continued_thread: b.prompt.is_some(),
            rewrite_tokens,
            price_per_mtok: price,
            rewrite_cost: price.map(|p| p * rewrite_tokens as f64 / 1e6),
        }),
    }
}

/// The longest common prefix of two strings in bytes, at a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// USD per million tokens written again: `cost.cacheWrite` of the tier the request's size passes
/// (`tiers[].inputTokensAbove`), or `cost.input` where cache writes are priced 0.
fn write_price(model: &Model, tokens: f64) -> Option<f64> {
    let cost = model.get("cost")?.as_object()?;
    // pi-ai's calculateCost: the tier with the highest `inputTokensAbove` the input passes.
    let mut tier: &Map<String, Value> = cost;
    let mut matched = -1.0;
    if let Some(Value::Array(tiers)) = cost.get("tiers") {
        for t in tiers.iter().filter_map(Value::as_object) {
            if let Some(above) = t.get("inputTokensAbove").and_then(Value::as_f64) {
                if tokens > above && above > matched {
                    tier = t;
                    matched = above;
                }
            }
        }
    }
    let num = |k: &str| tier.get(k).and_then(Value::as_f64);
    match num("cacheWrite") {
        Some(w) if w > 0.0 => Some(w),
        _ => num("input"),
    }
}

/// Totals over a report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub inputs: usize,
    pub failed_inputs: usize,
    pub requests: usize,
    pub compared: usize,
    pub changed: usize,
    pub unchanged: usize,
    pub missing_in_target: usize,
    pub missing_in_source: usize,
    /// Requests with a change of each kind.
    pub by_kind: BTreeMap<Kind, usize>,
    /// Requests whose body keeps the old release's bytes whole.
    pub cache_kept: usize,
    pub rewrite_tokens: u64,
    pub rewrite_cost: f64,
    /// Requests with a rewrite the target catalog does not price.
    pub unpriced: usize,
}

/// What makes a run fail (`upgrade --fail-on`): any change, or only changes of the named kinds
/// and, with [`FailOn::MISSING_MODEL`], a model the target release lacks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FailOn {
    kinds: Vec<Kind>,
    missing_model: bool,
    any: bool,
}

/// A `--fail-on` name that is no [`Kind`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown kind {0:?}; expected {kinds}, {missing}", kinds = Kind::names(), missing = FailOn::MISSING_MODEL)]
pub struct UnknownKind(pub String);

impl FailOn {
    /// The name of a model missing from the target release.
    pub const MISSING_MODEL: &'static str = "missing-model";

    /// From the names given; none at all is any change (blank names are skipped).
    pub fn parse(names: &[String]) -> Result<FailOn, UnknownKind> {
        let mut f = FailOn {
            any: names.is_empty(),
            missing_model: names.is_empty(),
            kinds: Vec::new(),
        };
        for name in names.iter().filter(|n| !n.trim().is_empty()) {
            if name.trim() == Self::MISSING_MODEL {
                f.missing_model = true;
            } else {
                f.kinds
                    .push(Kind::parse(name).ok_or_else(|| UnknownKind(name.clone()))?);
            }
        }
        Ok(f)
    }

    /// Whether `summary` holds a change that fails the run.
    pub fn fails(&self, summary: &Summary) -> bool {
        if self.any {
            return summary.any_change();
        }
        (self.missing_model && summary.missing_in_target > 0)
            || self
                .kinds
                .iter()
                .any(|k| summary.by_kind.get(k).is_some_and(|n| *n > 0))
    }
}

impl Summary {
    /// Whether anything changed (a missing model counts as a change).
    pub fn any_change(&self) -> bool {
        self.changed > 0 || self.missing_in_target > 0
    }
}

pub fn summarize(report: &Report) -> Summary {
    let mut s = Summary {
        inputs: report.inputs.len(),
        ..Summary::default()
    };
    for input in &report.inputs {
        if input.error.is_some() {
            s.failed_inputs += 1;
        }
        for r in &input.requests {
            s.requests += 1;
            match &r.status {
                Status::MissingInTarget { .. } => s.missing_in_target += 1,
                Status::MissingInSource { .. } => s.missing_in_source += 1,
                Status::Compared(c) => {
                    s.compared += 1;
                    if c.changed() {
                        s.changed += 1;
                    } else {
                        s.unchanged += 1;
                    }
                    for k in c.kinds() {
                        *s.by_kind.entry(k).or_default() += 1;
                    }
                    if let Some(cache) = &c.cache {
                        if cache.kept {
                            s.cache_kept += 1;
                        }
                        s.rewrite_tokens += cache.rewrite_tokens;
                        match cache.rewrite_cost {
                            Some(x) => s.rewrite_cost += x,
                            None if cache.rewrite_tokens > 0 => s.unpriced += 1,
                            None => {}
                        }
                    }
                }
            }
        }
    }
    s
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn num(x: f64) -> Value {
    serde_json::Number::from_f64(round6(x)).map_or(Value::Null, Value::Number)
}

fn summary_json(s: &Summary) -> Value {
    let by_kind: Map<String, Value> = Kind::ALL
        .iter()
        .map(|k| {
            (
                k.name().to_string(),
                json!(s.by_kind.get(k).copied().unwrap_or(0)),
            )
        })
        .collect();
    json!({
        "inputs": s.inputs,
        "failedInputs": s.failed_inputs,
        "requests": s.requests,
        "compared": s.compared,
        "changed": s.changed,
        "unchanged": s.unchanged,
        "missingInTarget": s.missing_in_target,
        "missingInSource": s.missing_in_source,
        "byKind": by_kind,
        "cacheKept": s.cache_kept,
        "cacheWriteTokens": s.rewrite_tokens,
        "cacheWriteCostUsd": num(s.rewrite_cost),
        "unpriced": s.unpriced,
    })
}

fn request_json(r: &RequestReport) -> Value {
    let mut m = Map::new();
    m.insert("index".into(), json!(r.index));
    if let Some(e) = &r.entry_id {
        m.insert("entryId".into(), json!(e));
    }
    if let Some(l) = r.line {
        m.insert("line".into(), json!(l));
    }
    m.insert("model".into(), json!(r.model));
    match &r.status {
        Status::MissingInTarget { message } => {
            m.insert("status".into(), json!("missing-in-target"));
            m.insert("message".into(), json!(message));
        }
        Status::MissingInSource { message } => {
            m.insert("status".into(), json!("missing-in-source"));
            m.insert("message".into(), json!(message));
        }
        Status::Compared(c) => {
            m.insert(
                "status".into(),
                json!(if c.changed() { "changed" } else { "unchanged" }),
            );
            if let Some(t) = &c.model_to {
                m.insert("modelTo".into(), json!(t));
            }
            m.insert("api".into(), json!(c.api_to));
            if c.api_from != c.api_to {
                m.insert("apiFrom".into(), json!(c.api_from));
            }
            m.insert(
                "kinds".into(),
                json!(c.kinds().iter().map(|k| k.name()).collect::<Vec<_>>()),
            );
            m.insert(
                "changes".into(),
                Value::Array(
                    c.changes
                        .iter()
                        .map(|p| {
                            json!({"part": p.part.name(), "op": p.op, "path": p.path, "kind": p.kind.name()})
                        })
                        .collect(),
                ),
            );
            m.insert("firstChangedByte".into(), json!(c.first_changed_byte));
            if let Some(cache) = &c.cache {
                m.insert(
                    "cache".into(),
                    json!({
                        "fromBytes": cache.from_bytes,
                        "toBytes": cache.to_bytes,
                        "commonPrefixBytes": cache.common_prefix_bytes,
                        "kept": cache.kept,
                        "continuedThread": cache.continued_thread,
                        "cacheWriteTokens": cache.rewrite_tokens,
                        "pricePerMTokUsd": cache.price_per_mtok.map(num),
                        "cacheWriteCostUsd": cache.rewrite_cost.map(num),
                    }),
                );
            }
        }
    }
    Value::Object(m)
}

/// The report as JSON (`--format json`).
pub fn report_json(report: &Report) -> Value {
    let inputs: Vec<Value> = report
        .inputs
        .iter()
        .map(|i| {
            json!({
                "path": i.path.to_string_lossy(),
                "kind": i.kind.map(InputKind::name),
                "error": i.error,
                "requests": i.requests.iter().map(request_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "from": report.from.version(),
        "to": report.to.version(),
        "summary": summary_json(&summarize(report)),
        "inputs": inputs,
    })
}

/// The changed paths of a comparison as people read them: the body's (the payload's for APIs
/// without a wire request), then the headers', the URL, the error.
fn shown_changes(c: &Comparison) -> Vec<&PathChange> {
    let has_body = c.changes.iter().any(|p| p.part == Part::Body);
    let wire = has_body || c.changes.iter().any(|p| p.part == Part::Headers);
    c.changes
        .iter()
        .filter(|p| match p.part {
            Part::Payload => !wire || (!has_body && kind_of(&p.path) == Kind::Headers),
            _ => true,
        })
        .collect()
}

fn kinds_line(c: &Comparison) -> String {
    c.kinds()
        .iter()
        .map(|k| k.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn usd(x: f64) -> String {
    format!("${x:.6}")
}

fn request_label(input: &InputReport, r: &RequestReport) -> String {
    match (&r.entry_id, r.line) {
        (Some(e), Some(l)) => format!("{}:{l} request {} ({e})", input.path.display(), r.index),
        _ => input.path.display().to_string(),
    }
}

/// The report for people (`--format text`, the default).
pub fn render_text(report: &Report) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(out, "Pi {} → {}", report.from, report.to);
    for input in &report.inputs {
        for r in &input.requests {
            let label = request_label(input, r);
            match &r.status {
                Status::MissingInTarget { message } => {
                    let _ = writeln!(
                        out,
                        "{label} {}: model missing in {}: {message}",
                        r.model, report.to
                    );
                }
                Status::MissingInSource { message } => {
                    let _ = writeln!(
                        out,
                        "{label} {}: model missing in {}: {message}",
                        r.model, report.from
                    );
                }
                Status::Compared(c) if !c.changed() => {
                    let _ = writeln!(out, "{label} {}: unchanged", r.model);
                }
                Status::Compared(c) => {
                    let renamed = c
                        .model_to
                        .as_ref()
                        .map(|t| format!(" (→ {t})"))
                        .unwrap_or_default();
                    let _ = writeln!(out, "{label} {}{renamed}: {}", r.model, kinds_line(c));
                    for p in shown_changes(c) {
                        let _ = writeln!(
                            out,
                            "  {:<10} {:<7} {:<8} {}",
                            p.kind.name(),
                            p.op,
                            p.part.name(),
                            p.path
                        );
                    }
                    if let Some(cache) = &c.cache {
                        let cost = cache
                            .rewrite_cost
                            .map(|x| format!(", {}", usd(x)))
                            .unwrap_or_else(|| ", not priced".into());
                        let prefix = if cache.kept {
                            "cache prefix kept whole".to_string()
                        } else {
                            format!(
                                "cache prefix kept {} of {} bytes; ~{} tokens written again{cost}",
                                cache.common_prefix_bytes, cache.to_bytes, cache.rewrite_tokens
                            )
                        };
                        match c.first_changed_byte {
                            Some(at) if cache.continued_thread => {
                                let _ = writeln!(
                                    out,
                                    "  body: first change at byte {at}; continues a thread, so the prompt is compared whole: {prefix}"
                                );
                            }
                            Some(at) => {
                                let _ = writeln!(
                                    out,
                                    "  body: first change at byte {at} of {}; {prefix}",
                                    cache.from_bytes
                                );
                            }
                            None => {
                                let _ = writeln!(out, "  body: unchanged ({prefix})");
                            }
                        }
                    }
                }
            }
        }
        if let Some(e) = &input.error {
            let line = format!("{}: error: {e}", input.path.display());
            let _ = writeln!(out, "{}", forge_replay_model::error::once_located(&line));
        }
    }
    let s = summarize(report);
    let _ = writeln!(out);
    out.push_str(&summary_text(&s));
    out
}

/// The summary lines of [`render_text`].
pub fn summary_text(s: &Summary) -> String {
    use forge_replay_model::text::count;
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}, {}: {} changed, {} unchanged, {} missing in the target release, {} missing in the source release, {} failed",
        count(s.inputs, "input", "inputs"),
        count(s.requests, "request", "requests"),
        s.changed,
        s.unchanged,
        count(s.missing_in_target, "model", "models"),
        s.missing_in_source,
        count(s.failed_inputs, "input", "inputs")
    );
    let kinds: Vec<String> = Kind::ALL
        .iter()
        .filter_map(|k| s.by_kind.get(k).map(|n| format!("{} {n}", k.name())))
        .collect();
    if !kinds.is_empty() {
        let _ = writeln!(out, "requests changed by kind: {}", kinds.join(", "));
    }
    let _ = writeln!(
        out,
        "cache: {} of {} keep the old body whole; ~{} tokens written again, {}{}",
        s.cache_kept,
        count(s.compared, "compared request", "compared requests"),
        s.rewrite_tokens,
        usd(s.rewrite_cost),
        if s.unpriced > 0 {
            format!(" ({} not priced)", count(s.unpriced, "request", "requests"))
        } else {
            String::new()
        }
    );
    out
}

/// The report as Markdown (`--format md`).
pub fn render_md(report: &Report) -> String {
    use std::fmt::Write as _;
    let s = summarize(report);
    let mut out = String::new();
    let _ = writeln!(out, "# Pi {} → {}\n", report.from, report.to);
    let _ = writeln!(out, "| | |\n|---|---|");
    let _ = writeln!(
        out,
        "| inputs | {} ({} failed) |",
        s.inputs, s.failed_inputs
    );
    let _ = writeln!(out, "| requests | {} |", s.requests);
    let _ = writeln!(out, "| changed | {} |", s.changed);
    let _ = writeln!(out, "| unchanged | {} |", s.unchanged);
    let _ = writeln!(
        out,
        "| model missing in {} | {} |",
        report.to, s.missing_in_target
    );
    let _ = writeln!(
        out,
        "| model missing in {} | {} |",
        report.from, s.missing_in_source
    );
    for k in Kind::ALL {
        let _ = writeln!(
            out,
            "| changed: {} | {} |",
            k.name(),
            s.by_kind.get(&k).copied().unwrap_or(0)
        );
    }
    let _ = writeln!(
        out,
        "| cache kept whole | {} of {} |",
        s.cache_kept, s.compared
    );
    let _ = writeln!(out, "| tokens written again | {} |", s.rewrite_tokens);
    let _ = writeln!(out, "| their price | {} |", usd(s.rewrite_cost));
    let _ = writeln!(out, "\n## Requests\n");
    let _ = writeln!(out, "| input | request | model | status | kinds | first changed byte | prefix kept | tokens again | price |");
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|");
    let esc = |s: &str| s.replace('|', "\\|");
    for input in &report.inputs {
        let path = esc(&input.path.display().to_string());
        for r in &input.requests {
            let req = match (&r.entry_id, r.line) {
                (Some(e), Some(l)) => format!("{} (`{}`, line {l})", r.index, esc(e)),
                _ => "-".into(),
            };
            let (status, kinds, first, kept, tokens, price) = match &r.status {
                Status::MissingInTarget { .. } => (
                    format!("model missing in {}", report.to),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                ),
                Status::MissingInSource { .. } => (
                    format!("model missing in {}", report.from),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                ),
                Status::Compared(c) => {
                    let cache = c.cache.as_ref();
                    (
                        if c.changed() {
                            "changed".into()
                        } else {
                            "unchanged".into()
                        },
                        kinds_line(c),
                        c.first_changed_byte
                            .map(|b| b.to_string())
                            .unwrap_or_default(),
                        cache
                            .map(|x| format!("{} of {}", x.common_prefix_bytes, x.to_bytes))
                            .unwrap_or_default(),
                        cache
                            .map(|x| x.rewrite_tokens.to_string())
                            .unwrap_or_default(),
                        cache
                            .and_then(|x| x.rewrite_cost)
                            .map(usd)
                            .unwrap_or_default(),
                    )
                }
            };
            let _ = writeln!(out, "| {path} | {req} | {} | {status} | {kinds} | {first} | {kept} | {tokens} | {price} |", esc(&r.model));
        }
        if let Some(e) = &input.error {
            let _ = writeln!(out, "| {path} | - | - | error: {} | | | | | |", esc(e));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fail_on_names_kinds_or_missing_models() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let kind = Kind::ALL[0];
        let mut changed = Summary {
            changed: 1,
            ..Summary::default()
        };
        changed.by_kind.insert(kind, 1);
        let missing = Summary {
            missing_in_target: 1,
            ..Summary::default()
        };
        let any = FailOn::parse(&[]).unwrap();
        assert!(any.fails(&changed) && any.fails(&missing) && !any.fails(&Summary::default()));
        let only_missing = FailOn::parse(&names(&[" missing-model "])).unwrap();
        assert!(only_missing.fails(&missing) && !only_missing.fails(&changed));
        let only_kind = FailOn::parse(&names(&[kind.name(), ""])).unwrap();
        assert!(only_kind.fails(&changed) && !only_kind.fails(&missing));
        assert!(!FailOn::parse(&names(&[" "])).unwrap().fails(&changed));
        let e = FailOn::parse(&names(&["nope"])).unwrap_err().to_string();
        assert!(e.starts_with("unknown kind \"nope\"; expected "), "{e}");
        assert!(e.ends_with(", missing-model"), "{e}");
    }

    #[test]
    fn kinds_of_paths() {
        assert_eq!(kind_of("$.tools[3]"), Kind::Tools);
        assert_eq!(
            kind_of("$.messages[5].content[1].tool.definition"),
            Kind::Tools
        );
        assert_eq!(kind_of("$.messages[5].content[1].text"), Kind::Messages);
        assert_eq!(kind_of("$.messages[0].role"), Kind::System);
        assert_eq!(kind_of("$.messages[2].role"), Kind::Messages);
        assert_eq!(kind_of("$.betas[0]"), Kind::Headers);
        assert_eq!(kind_of("$.max_tokens"), Kind::MaxTokens);
        assert_eq!(kind_of("$.inferenceConfig.maxTokens"), Kind::MaxTokens);
        assert_eq!(kind_of("$.inferenceConfig.temperature"), Kind::Sampling);
        assert_eq!(kind_of("$.thinking.block_binding"), Kind::Thinking);
        assert_eq!(kind_of("$.thread"), Kind::Threading);
        assert_eq!(kind_of("$.stream_options"), Kind::Other);
        assert_eq!(kind_of("$.toolsX"), Kind::Other);
        assert_eq!(kind_of("$[\"max_tokens\"]"), Kind::MaxTokens);
    }

    #[test]
    fn the_write_price_follows_the_highest_tier_passed() {
        let model = Model::from_value(json!({
            "id": "m", "provider": "p", "api": "anthropic-messages", "baseUrl": "https://p",
            "cost": {"input": 1, "output": 5, "cacheRead": 0.1, "cacheWrite": 1.25,
                     "tiers": [{"inputTokensAbove": 200000, "input": 2, "cacheWrite": 2.5},
                               {"inputTokensAbove": 100000, "input": 1.5, "cacheWrite": 0}]}
        }))
        .unwrap();
        assert_eq!(write_price(&model, 1000.0), Some(1.25));
        // The 100k tier prices cache writes at 0: a miss is billed as input.
        assert_eq!(write_price(&model, 150000.0), Some(1.5));
        assert_eq!(write_price(&model, 250000.0), Some(2.5));
    }

    #[test]
    fn common_prefix_stops_at_a_char_boundary() {
        assert_eq!(common_prefix("abc", "abd"), 2);
        assert_eq!(common_prefix("aé", "aè"), 1);
        assert_eq!(common_prefix("same", "same"), 4);
    }
}
