//! Case files: `{pi?, model, context, options?, entry?, env?}`, the oracle harness's format.
//!
//! * `pi`: the Pi release the case follows (`"0.87.1"`, `"1.3.0"`); absent means the caller's
//!   choice (`--pi`, `FORGE_REPLAY_PI`, else [`PiRelease::DEFAULT`]).
//! * `model`: `{provider, id, overrides?}` (catalog) or a full pi-ai `Model` object (it has `api`
//!   and `baseUrl`), optionally with `overrides`.
//! * `context`: a pi-ai `Context` (`systemPrompt?`, `messages`, `tools?`).
//! * `options`: `SimpleStreamOptions` (or `StreamOptions` for `entry: "stream"`).
//! * `entry`: `"streamSimple"` (default) or `"stream"`.
//! * `env` (forge-replay extension): environment variables pi-ai would read from the process
//!   (`PI_CACHE_RETENTION`, `AZURE_OPENAI_*`).
//!
//! A multi-request case (a *sequence*, [`Sequence`]) has `requests` instead of `context` and
//! `options`: `{pi?, model, entry?, env?, requests: [{context, options?, model?, entry?, reply?,
//! reject?}]}`, several requests of one process in order, so pi-ai's per-process state (Anthropic
//! message threads, 1.6) carries from one to the next. `reply` is what the endpoint answers
//! (`{id, text}`; default `msg_oracle_<n>` / `ok`), `reject` an HTTP error it answers the first
//! attempt with (`{status?, errorCode?, message}`). [`CaseFile::parse`] reads either kind;
//! [`Case::parse`] refuses a sequence.
//!
//! Parsing checks the shapes the assemblers rely on and names the JSON path of the first problem.

use crate::js::Field;
use std::collections::BTreeMap;

use serde_json::{Map, Value};

use forge_replay_model::release::PiRelease;

use crate::api::Entry;
use crate::catalog::ModelSpec;
use crate::options::Env;

/// A parsed case.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The release the case names (`"pi"`), if any.
    pub pi: Option<PiRelease>,
    /// How the model is named.
    pub model: ModelSpec,
    /// The pi-ai context (before `normalizeContext`).
    pub context: Value,
    /// The options object.
    pub options: Map<String, Value>,
    /// The entry point.
    pub entry: Entry,
    /// Environment variables.
    pub env: Env,
}

/// A malformed case: the JSON path and what is wrong there.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct CaseError {
    /// JSON path, `$` for the root (`$.context.messages[3].content[0].text`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

fn err(path: impl Into<String>, message: impl Into<String>) -> CaseError {
    CaseError {
        path: path.into(),
        message: message.into(),
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn expect_obj<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>, CaseError> {
    v.as_object()
        .ok_or_else(|| err(path, format!("must be an object, found {}", type_name(v))))
}

fn expect_str(parent: &Map<String, Value>, key: &str, path: &str) -> Result<(), CaseError> {
    match parent.get(key) {
        Some(Value::String(_)) => Ok(()),
        Some(v) => Err(err(
            format!("{path}.{key}"),
            format!("must be a string, found {}", type_name(v)),
        )),
        None => Err(err(format!("{path}.{key}"), "is required (a string)")),
    }
}

/// A multi-request case: requests of one process, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Sequence {
    /// The release the case names (`"pi"`), if any.
    pub pi: Option<PiRelease>,
    /// The model of every request that names none.
    pub model: ModelSpec,
    /// Environment variables (the process's).
    pub env: Env,
    /// The requests, in order.
    pub requests: Vec<SequenceRequest>,
}

/// One request of a [`Sequence`].
#[derive(Debug, Clone, PartialEq)]
pub struct SequenceRequest {
    /// The request's own model (a model switch), if any.
    pub model: Option<ModelSpec>,
    /// The pi-ai context.
    pub context: Value,
    /// The options object.
    pub options: Map<String, Value>,
    /// The entry point (the request's, else the case's).
    pub entry: Entry,
    /// What the endpoint answers.
    pub reply: Reply,
    /// The HTTP error the endpoint answers the first attempt with, if any.
    pub reject: Option<Reject>,
}

/// The reply a sequence's endpoint streams: one text block.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The message id (`responseId`).
    pub id: Value,
    /// The text.
    pub text: String,
}

/// An HTTP error answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Reject {
    pub status: u16,
    /// `error.details.error_code`.
    pub error_code: Option<String>,
    /// `error.message`.
    pub message: String,
}

/// A case file of either kind.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseFile {
    /// One request.
    Single(Case),
    /// Several requests of one process.
    Sequence(Sequence),
}

/// A case file's text as JSON.
fn parse_json(text: &str) -> Result<Value, CaseError> {
    forge_replay_model::json::parse(text)
        .map_err(|e| err("$", format!("not valid JSON: {}", e.at_line())))
}

/// Whether a case file's root holds several requests (`requests`).
fn is_sequence(root: &Map<String, Value>) -> bool {
    !matches!(root.field("requests"), None | Some(Value::Null))
}

impl CaseFile {
    /// Parses and checks a case file's text.
    pub fn parse(text: &str) -> Result<CaseFile, CaseError> {
        let value = parse_json(text)?;
        CaseFile::from_value(&value)
    }

    /// Checks a parsed case file.
    pub fn from_value(value: &Value) -> Result<CaseFile, CaseError> {
        let root = expect_obj(value, "$")?;
        if is_sequence(root) {
            Sequence::from_root(root).map(CaseFile::Sequence)
        } else {
            Case::from_value(value).map(CaseFile::Single)
        }
    }

    /// The release the case names.
    pub fn pi(&self) -> Option<PiRelease> {
        match self {
            CaseFile::Single(c) => c.pi,
            CaseFile::Sequence(s) => s.pi,
        }
    }

    /// Sets the release the case follows.
    pub fn set_pi(&mut self, pi: Option<PiRelease>) {
        match self {
            CaseFile::Single(c) => c.pi = pi,
            CaseFile::Sequence(s) => s.pi = pi,
        }
    }
}

fn parse_pi(root: &Map<String, Value>) -> Result<Option<PiRelease>, CaseError> {
    match root.field("pi") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(
            PiRelease::parse(s).map_err(|e| err("$.pi", e.to_string()))?,
        )),
        Some(v) => Err(err(
            "$.pi",
            format!("must be a release string, found {}", type_name(v)),
        )),
    }
}

fn parse_entry(v: Option<&Value>, path: &str) -> Result<Option<Entry>, CaseError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s == "streamSimple" => Ok(Some(Entry::StreamSimple)),
        Some(Value::String(s)) if s == "stream" => Ok(Some(Entry::Stream)),
        Some(v) => Err(err(
            path,
            format!(
                "must be \"streamSimple\" or \"stream\", found {}",
                forge_replay_model::json::stringify(v)
            ),
        )),
    }
}

fn parse_env(root: &Map<String, Value>) -> Result<Env, CaseError> {
    let mut env = BTreeMap::new();
    if let Some(e) = root.field("env").filter(|v| !v.is_null()) {
        for (k, v) in expect_obj(e, "$.env")? {
            match v {
                Value::String(s) => {
                    env.insert(k.clone(), s.clone());
                }
                other => {
                    return Err(err(
                        format!("$.env.{k}"),
                        format!("must be a string, found {}", type_name(other)),
                    ))
                }
            }
        }
    }
    Ok(Env::new(env))
}

fn parse_options(v: Option<&Value>, path: &str) -> Result<Map<String, Value>, CaseError> {
    let options = match v {
        None | Some(Value::Null) => Map::new(),
        Some(o) => expect_obj(o, path)?.clone(),
    };
    if let Some(v) = options.field("env") {
        if !v.is_null() {
            expect_obj(v, &format!("{path}.env"))?;
        }
    }
    Ok(options)
}

impl Sequence {
    /// Parses and checks a sequence's text.
    pub fn parse(text: &str) -> Result<Sequence, CaseError> {
        match CaseFile::parse(text)? {
            CaseFile::Sequence(s) => Ok(s),
            CaseFile::Single(_) => Err(err("$.requests", "is required (an array)")),
        }
    }

    fn from_root(root: &Map<String, Value>) -> Result<Sequence, CaseError> {
        for key in ["context", "options"] {
            if root.field(key).is_some() {
                return Err(err(
                    format!("$.{key}"),
                    "a case with `requests` gives each request its own context and options",
                ));
            }
        }
        let pi = parse_pi(root)?;
        let model = parse_model(
            root.field("model")
                .ok_or_else(|| err("$.model", "is required"))?,
            "$.model",
        )?;
        let entry = parse_entry(root.field("entry"), "$.entry")?.unwrap_or_default();
        let env = parse_env(root)?;
        let list = match root.field("requests") {
            Some(Value::Array(a)) if !a.is_empty() => a,
            Some(Value::Array(_)) => return Err(err("$.requests", "is empty")),
            Some(v) => {
                return Err(err(
                    "$.requests",
                    format!("must be an array, found {}", type_name(v)),
                ))
            }
            None => return Err(err("$.requests", "is required (an array)")),
        };
        let mut requests = Vec::with_capacity(list.len());
        for (i, r) in list.iter().enumerate() {
            let at = format!("$.requests[{i}]");
            let o = expect_obj(r, &at)?;
            let model = match o.field("model") {
                None | Some(Value::Null) => None,
                Some(m) => Some(parse_model(m, &format!("{at}.model"))?),
            };
            let context = match o.field("context") {
                None | Some(Value::Null) => serde_json::json!({"messages": []}),
                Some(c) => c.clone(),
            };
            check_context(&context).map_err(|e| err(format!("{at}{}", &e.path[1..]), e.message))?;
            let options = parse_options(o.field("options"), &format!("{at}.options"))?;
            let entry = parse_entry(o.field("entry"), &format!("{at}.entry"))?.unwrap_or(entry);
            let reply = match o.field("reply") {
                None | Some(Value::Null) => Reply {
                    id: Value::String(format!("msg_oracle_{}", i + 1)),
                    text: "ok".into(),
                },
                Some(v) => {
                    let rp = format!("{at}.reply");
                    let m = expect_obj(v, &rp)?;
                    expect_str(m, "id", &rp)?;
                    expect_str(m, "text", &rp)?;
                    Reply {
                        id: m["id"].clone(),
                        text: m["text"].as_str().unwrap_or_default().to_string(),
                    }
                }
            };
            let reject = match o.field("reject") {
                None | Some(Value::Null) => None,
                Some(v) => {
                    let rp = format!("{at}.reject");
                    let m = expect_obj(v, &rp)?;
                    expect_str(m, "message", &rp)?;
                    let status = match m.field("status") {
                        None | Some(Value::Null) => 400,
                        Some(s) => s
                            .as_u64()
                            .and_then(|n| u16::try_from(n).ok())
                            .filter(|n| (400..600).contains(n))
                            .ok_or_else(|| {
                                err(
                                    format!("{rp}.status"),
                                    "must be an HTTP error status (400–599)",
                                )
                            })?,
                    };
                    let error_code = match m.field("errorCode") {
                        None | Some(Value::Null) => None,
                        Some(Value::String(c)) => Some(c.clone()),
                        Some(v) => {
                            return Err(err(
                                format!("{rp}.errorCode"),
                                format!("must be a string, found {}", type_name(v)),
                            ))
                        }
                    };
                    Some(Reject {
                        status,
                        error_code,
                        message: m["message"].as_str().unwrap_or_default().to_string(),
                    })
                }
            };
            requests.push(SequenceRequest {
                model,
                context,
                options,
                entry,
                reply,
                reject,
            });
        }
        Ok(Sequence {
            pi,
            model,
            env,
            requests,
        })
    }
}

impl Case {
    /// Parses and checks a case file's text (one request; a sequence is refused, see
    /// [`CaseFile`]).
    pub fn parse(text: &str) -> Result<Case, CaseError> {
        let value = parse_json(text)?;
        Case::from_value(&value)
    }

    /// Checks a parsed case (one request; a sequence is refused, see [`CaseFile`]).
    pub fn from_value(value: &Value) -> Result<Case, CaseError> {
        let root = expect_obj(value, "$")?;
        if is_sequence(root) {
            return Err(err(
                "$.requests",
                "a multi-request case (several requests of one process); it is read as a sequence, not as one request",
            ));
        }
        let pi = parse_pi(root)?;
        let model = parse_model(
            root.field("model")
                .ok_or_else(|| err("$.model", "is required"))?,
            "$.model",
        )?;
        let context = match root.field("context") {
            None | Some(Value::Null) => serde_json::json!({"messages": []}),
            Some(c) => c.clone(),
        };
        check_context(&context)?;
        let options = parse_options(root.field("options"), "$.options")?;
        let entry = parse_entry(root.field("entry"), "$.entry")?.unwrap_or_default();
        let env = parse_env(root)?;
        Ok(Case {
            pi,
            model,
            context,
            options,
            entry,
            env,
        })
    }
}

fn parse_model(v: &Value, path: &str) -> Result<ModelSpec, CaseError> {
    let m = expect_obj(v, path)?;
    let overrides = match m.field("overrides") {
        None | Some(Value::Null) => None,
        Some(o) => Some(expect_obj(o, &format!("{path}.overrides"))?.clone()),
    };
    if let Some(c) = overrides.as_ref().and_then(|o| o.field("compat")) {
        if !c.is_null() {
            expect_obj(c, &format!("{path}.overrides.compat"))?;
        }
    }
    let is_full = crate::js::truthy(m.field("api")) && crate::js::truthy(m.field("baseUrl"));
    if is_full {
        for key in ["id", "api", "provider", "baseUrl"] {
            expect_str(m, key, path)?;
        }
        return Ok(ModelSpec::Full {
            model: m.clone(),
            overrides,
        });
    }
    expect_str(m, "provider", path)?;
    expect_str(m, "id", path)?;
    Ok(ModelSpec::Catalog {
        provider: m["provider"].as_str().unwrap_or_default().to_string(),
        id: m["id"].as_str().unwrap_or_default().to_string(),
        overrides,
    })
}

/// Checks a pi-ai context: only the shapes pi-ai cannot turn into a request at all.
///
/// pi-ai does not validate contexts: a malformed one is either sent as it is (an untyped block
/// becomes an image, a `tools` object is ignored, …) or fails inside pi-ai with a JavaScript
/// `TypeError`, which forge-replay reproduces as a refusal with the same text (see
/// `docs/wire.md`, "Malformed contexts"). What is checked here is what fails before any API code
/// runs (`normalizeContext` spreading `messages`): a context that is not an object and
/// `messages` that is not an array.
pub fn check_context(context: &Value) -> Result<(), CaseError> {
    let ctx = expect_obj(context, "$.context")?;
    // Every message shape is pi-ai's to accept or refuse (a message that is not an object has
    // no role: the token estimate finds its `content` not iterable; a `null` one fails on
    // `role`).
    match ctx.field("messages") {
        Some(Value::Array(_)) => Ok(()),
        Some(v) => Err(err(
            "$.context.messages",
            format!("must be an array, found {}", type_name(v)),
        )),
        None => Err(err("$.context.messages", "is required (an array)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_json_path() {
        let e =
            Case::parse(r#"{"model":{"provider":"anthropic","id":"x"},"context":[]}"#).unwrap_err();
        assert_eq!(e.path, "$.context");
        let e = Case::parse(r#"{"model":{"provider":"anthropic"}}"#).unwrap_err();
        assert_eq!(e.path, "$.model.id");
        let e = Case::parse(r#"{"model":{"provider":"a","id":"b"},"entry":"go"}"#).unwrap_err();
        assert_eq!(e.path, "$.entry");
        let e = Case::parse(r#"{"model":{"provider":"a","id":"b"},"context":{"messages":{}}}"#)
            .unwrap_err();
        assert_eq!(e.path, "$.context.messages");
        // Shapes pi-ai accepts (or refuses itself, while assembling) pass the case check.
        Case::parse(r#"{"model":{"provider":"a","id":"b"},"context":{"tools":{},"messages":[null,7,{"role":"bot","content":5},{"role":"user","content":[null,true,{}]}]}}"#)
            .unwrap();
    }

    #[test]
    fn sequences_are_read_by_case_file_and_refused_as_one_case() {
        let text = r#"{"pi":"1.6.0","model":{"provider":"anthropic","id":"claude-opus-4-8"},"requests":[
            {"context":{"messages":[]},"options":{"sessionId":"s"},"reply":{"id":"msg_1","text":"a"}},
            {"context":{"messages":[]},"model":{"provider":"anthropic","id":"claude-sonnet-4-6"},
             "reject":{"errorCode":"thread_not_found","message":"thread not found"}}]}"#;
        let e = Case::parse(text).unwrap_err();
        assert_eq!(e.path, "$.requests");
        let CaseFile::Sequence(seq) = CaseFile::parse(text).unwrap() else {
            panic!("a sequence")
        };
        assert_eq!(seq.requests.len(), 2);
        assert_eq!(seq.requests[0].reply.id, "msg_1");
        // Defaults: the oracle's scripted reply, status 400.
        assert_eq!(seq.requests[1].reply.id, "msg_oracle_2");
        let reject = seq.requests[1].reject.as_ref().unwrap();
        assert_eq!(
            (reject.status, reject.error_code.as_deref()),
            (400, Some("thread_not_found"))
        );
        assert!(seq.requests[1].model.is_some());
        let bad = |t: &str| CaseFile::parse(t).unwrap_err().path;
        assert_eq!(
            bad(r#"{"model":{"provider":"a","id":"b"},"requests":[]}"#),
            "$.requests"
        );
        assert_eq!(
            bad(r#"{"model":{"provider":"a","id":"b"},"requests":[{"context":{"messages":{}}}]}"#),
            "$.requests[0].context.messages"
        );
        assert_eq!(
            bad(
                r#"{"model":{"provider":"a","id":"b"},"requests":[{"reject":{"status":200,"message":"m"}}]}"#
            ),
            "$.requests[0].reject.status"
        );
        assert_eq!(
            bad(r#"{"model":{"provider":"a","id":"b"},"context":{"messages":[]},"requests":[{}]}"#),
            "$.context"
        );
        assert!(matches!(
            CaseFile::parse(r#"{"model":{"provider":"a","id":"b"}}"#),
            Ok(CaseFile::Single(_))
        ));
    }

    #[test]
    fn full_model_and_env() {
        let c = Case::parse(r#"{"model":{"id":"m","api":"pi-messages","provider":"p","baseUrl":"u"},"env":{"PI_CACHE_RETENTION":"long"},"entry":"stream"}"#).unwrap();
        assert!(matches!(c.model, ModelSpec::Full { .. }));
        assert_eq!(c.pi, None);
        assert_eq!(c.env.var("PI_CACHE_RETENTION"), Some("long"));
        assert_eq!(c.entry, Entry::Stream);
        let c = Case::parse(r#"{"pi":"1.3.0","model":{"provider":"a","id":"b"}}"#).unwrap();
        assert_eq!(c.pi, Some(PiRelease::V1_3_0));
        let e = Case::parse(r#"{"pi":"9.9","model":{"provider":"a","id":"b"}}"#).unwrap_err();
        assert_eq!(e.path, "$.pi");
        assert!(
            e.message.contains("supported releases: 0.87.1, 1.3.0"),
            "{e}"
        );
    }
}
