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

impl Case {
    /// Parses and checks a case file's text.
    pub fn parse(text: &str) -> Result<Case, CaseError> {
        let value = forge_replay_model::json::parse(text)
            .map_err(|e| err("$", format!("not valid JSON: {e}")))?;
        Case::from_value(&value)
    }

    /// Checks a parsed case.
    pub fn from_value(value: &Value) -> Result<Case, CaseError> {
        let root = expect_obj(value, "$")?;
        let pi = match root.field("pi") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => {
                Some(PiRelease::parse(s).map_err(|e| err("$.pi", e.to_string()))?)
            }
            Some(v) => {
                return Err(err(
                    "$.pi",
                    format!("must be a release string, found {}", type_name(v)),
                ))
            }
        };
        let model = parse_model(
            root.field("model")
                .ok_or_else(|| err("$.model", "is required"))?,
        )?;
        let context = match root.field("context") {
            None | Some(Value::Null) => serde_json::json!({"messages": []}),
            Some(c) => c.clone(),
        };
        check_context(&context)?;
        let options = match root.field("options") {
            None | Some(Value::Null) => Map::new(),
            Some(o) => expect_obj(o, "$.options")?.clone(),
        };
        if let Some(v) = options.field("env") {
            if !v.is_null() {
                expect_obj(v, "$.options.env")?;
            }
        }
        let entry = match root.field("entry") {
            None | Some(Value::Null) => Entry::StreamSimple,
            Some(Value::String(s)) if s == "streamSimple" => Entry::StreamSimple,
            Some(Value::String(s)) if s == "stream" => Entry::Stream,
            Some(v) => {
                return Err(err(
                    "$.entry",
                    format!(
                        "must be \"streamSimple\" or \"stream\", found {}",
                        forge_replay_model::json::stringify(v)
                    ),
                ))
            }
        };
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
        Ok(Case {
            pi,
            model,
            context,
            options,
            entry,
            env: Env::new(env),
        })
    }
}

fn parse_model(v: &Value) -> Result<ModelSpec, CaseError> {
    let m = expect_obj(v, "$.model")?;
    let overrides = match m.field("overrides") {
        None | Some(Value::Null) => None,
        Some(o) => Some(expect_obj(o, "$.model.overrides")?.clone()),
    };
    if let Some(c) = overrides.as_ref().and_then(|o| o.field("compat")) {
        if !c.is_null() {
            expect_obj(c, "$.model.overrides.compat")?;
        }
    }
    let is_full = crate::js::truthy(m.field("api")) && crate::js::truthy(m.field("baseUrl"));
    if is_full {
        for key in ["id", "api", "provider", "baseUrl"] {
            expect_str(m, key, "$.model")?;
        }
        return Ok(ModelSpec::Full {
            model: m.clone(),
            overrides,
        });
    }
    expect_str(m, "provider", "$.model")?;
    expect_str(m, "id", "$.model")?;
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
