//! Case files: `{model, context, options?, entry?, env?}`, the oracle harness's format.
//!
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

use crate::api::Entry;
use crate::catalog::ModelSpec;
use crate::options::Env;

/// A parsed case.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
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

fn opt_str(parent: &Map<String, Value>, key: &str, path: &str) -> Result<(), CaseError> {
    match parent.get(key) {
        None | Some(Value::Null) | Some(Value::String(_)) => Ok(()),
        Some(v) => Err(err(
            format!("{path}.{key}"),
            format!("must be a string, found {}", type_name(v)),
        )),
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

/// Checks a pi-ai context: the shapes every assembler relies on.
pub fn check_context(context: &Value) -> Result<(), CaseError> {
    let ctx = expect_obj(context, "$.context")?;
    opt_str(ctx, "systemPrompt", "$.context")?;
    if let Some(tools) = ctx.field("tools").filter(|v| !v.is_null()) {
        check_tools(tools, "$.context.tools")?;
    }
    let messages = match ctx.field("messages") {
        Some(Value::Array(a)) => a,
        Some(v) => {
            return Err(err(
                "$.context.messages",
                format!("must be an array, found {}", type_name(v)),
            ))
        }
        None => return Err(err("$.context.messages", "is required (an array)")),
    };
    for (i, m) in messages.iter().enumerate() {
        check_message(m, &format!("$.context.messages[{i}]"))?;
    }
    Ok(())
}

fn check_tools(tools: &Value, path: &str) -> Result<(), CaseError> {
    let arr = tools.as_array().ok_or_else(|| {
        err(
            path,
            format!("must be an array, found {}", type_name(tools)),
        )
    })?;
    for (i, t) in arr.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let o = expect_obj(t, &p)?;
        expect_str(o, "name", &p)?;
    }
    Ok(())
}

fn check_blocks(
    content: &Value,
    path: &str,
    allowed: &[&str],
    allow_string: bool,
) -> Result<(), CaseError> {
    match content {
        Value::Null => Ok(()),
        Value::String(_) if allow_string => Ok(()),
        Value::Array(blocks) => {
            for (i, b) in blocks.iter().enumerate() {
                let p = format!("{path}[{i}]");
                let o = expect_obj(b, &p)?;
                let ty = o.field("type").and_then(Value::as_str).ok_or_else(|| {
                    err(
                        format!("{p}.type"),
                        format!("is required (one of {})", allowed.join(", ")),
                    )
                })?;
                if !allowed.contains(&ty) {
                    return Err(err(
                        format!("{p}.type"),
                        format!(
                            "unknown block type \"{ty}\"; expected one of {}",
                            allowed.join(", ")
                        ),
                    ));
                }
                match ty {
                    "text" => expect_str(o, "text", &p)?,
                    "thinking" => expect_str(o, "thinking", &p)?,
                    "image" => {
                        expect_str(o, "data", &p)?;
                        expect_str(o, "mimeType", &p)?;
                    }
                    "toolCall" => {
                        expect_str(o, "id", &p)?;
                        expect_str(o, "name", &p)?;
                    }
                    _ => {}
                }
            }
            Ok(())
        }
        v => Err(err(
            path,
            format!(
                "must be {}, found {}",
                if allow_string {
                    "a string or an array of blocks"
                } else {
                    "an array of blocks"
                },
                type_name(v)
            ),
        )),
    }
}

fn check_message(m: &Value, path: &str) -> Result<(), CaseError> {
    let o = expect_obj(m, path)?;
    let role = match o.field("role") {
        Some(Value::String(r)) => r.as_str(),
        Some(v) => {
            return Err(err(
                format!("{path}.role"),
                format!("must be a string, found {}", type_name(v)),
            ))
        }
        None => return Err(err(format!("{path}.role"), "is required")),
    };
    let content = o.field("content").unwrap_or(&Value::Null);
    let cpath = format!("{path}.content");
    match role {
        "system" => {
            check_blocks(content, &cpath, &["text"], true)?;
            if let Some(s) = o.field("sections").filter(|v| !v.is_null()) {
                let sp = format!("{path}.sections");
                for (k, v) in expect_obj(s, &sp)? {
                    if !(v.is_string() || v.is_null()) {
                        return Err(err(
                            format!("{sp}.{k}"),
                            format!("must be a string or null, found {}", type_name(v)),
                        ));
                    }
                }
            }
            for key in ["toolsAdded", "toolsRemoved"] {
                if let Some(t) = o.get(key).filter(|v| !v.is_null()) {
                    check_tools(t, &format!("{path}.{key}"))?;
                }
            }
        }
        "user" => check_blocks(content, &cpath, &["text", "image"], true)?,
        "assistant" => {
            check_blocks(content, &cpath, &["text", "thinking", "toolCall"], false)?;
        }
        "toolResult" => {
            expect_str(o, "toolCallId", path)?;
            check_blocks(content, &cpath, &["text", "image"], false)?;
        }
        other => {
            return Err(err(
                format!("{path}.role"),
                format!("unknown role \"{other}\"; expected system, user, assistant or toolResult"),
            ))
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_json_path() {
        let e = Case::parse(r#"{"model":{"provider":"anthropic","id":"x"},"context":{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"text","text":5}]}]}}"#).unwrap_err();
        assert_eq!(e.path, "$.context.messages[1].content[0].text");
        let e = Case::parse(r#"{"model":{"provider":"anthropic"}}"#).unwrap_err();
        assert_eq!(e.path, "$.model.id");
        let e = Case::parse(r#"{"model":{"provider":"a","id":"b"},"entry":"go"}"#).unwrap_err();
        assert_eq!(e.path, "$.entry");
        let e = Case::parse(
            r#"{"model":{"provider":"a","id":"b"},"context":{"messages":[{"role":"bot"}]}}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("unknown role"), "{e}");
    }

    #[test]
    fn full_model_and_env() {
        let c = Case::parse(r#"{"model":{"id":"m","api":"pi-messages","provider":"p","baseUrl":"u"},"env":{"PI_CACHE_RETENTION":"long"},"entry":"stream"}"#).unwrap();
        assert!(matches!(c.model, ModelSpec::Full { .. }));
        assert_eq!(c.env.var("PI_CACHE_RETENTION"), Some("long"));
        assert_eq!(c.entry, Entry::Stream);
    }
}
