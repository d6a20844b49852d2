//! `google-generative-ai` and `google-vertex` (pi-ai `api/google-generative-ai.js`,
//! `api/google-vertex.js`, `api/google-shared.js`).
//!
//! Both always fold system messages into `config.systemInstruction`. pi-ai hands the
//! `@google/genai` SDK `{model, contents, config}` (the `onPayload` object; `config.abortSignal`
//! serializes as `{}`), and the SDK (2.21.0) rewrites it into the REST body
//! `{contents, systemInstruction:{parts:[{text}],role:"user"}, tools?, toolConfig?,
//! generationConfig:{temperature?, maxOutputTokens?, thinkingConfig?}}`. The SDK's converters
//! rebuild every part with a fixed key order (`functionCall`, `functionResponse`, `inlineData`,
//! `text`, `thought`, `thoughtSignature`); the Gemini API converter also reorders
//! `functionCall` to `{args, id, name}` and `inlineData` to `{data, mimeType}`, Vertex keeps them.

use crate::js::Field;

use forge_replay_model::json::stringify;
use forge_replay_model::release::{Change, PiRelease};
use serde_json::{Map, Value};

use crate::api::{merge_headers, Api, ApiInput, ApiOutput, Entry, DUMMY_API_KEY};
use crate::constrained::resolve_json_schema_strict_sampling;
use crate::error::AssembleError;
use crate::js::{self, obj, s};
use crate::model::Model;
use crate::options::{build_base_options, clamp_thinking_level, provider_env_value};
use crate::transcript::{collapse_system_messages_cow, is_system, system_message_text};
use crate::transform::transform_messages_cow;

const GCP_VERTEX_CREDENTIALS_MARKER: &str = "gcp-vertex-credentials";

/// `sanitizeSurrogates(value)` (a non-string is pi-ai's `TypeError`, see [`js::sanitize`]).
fn sanitize(v: Option<&Value>) -> Value {
    s(js::sanitize(v).into_owned())
}

/// `!value || value.trim() === ""` (a truthy non-string is the `TypeError` of `.trim`).
fn is_blank(v: Option<&Value>) -> bool {
    match v {
        Some(Value::String(t)) => js::trim(t).is_empty(),
        other if !js::truthy(other) => true,
        other => {
            js::str_or_fault(other, "block.text", "trim");
            false
        }
    }
}

/// `getGeminiMajorVersion(modelId)`: `/^gemini(?:-live)?-(\d+)/` on the lowercased id.
fn gemini_major_version(id: &str) -> Option<u64> {
    let lower = id.to_lowercase();
    let rest = lower.strip_prefix("gemini-")?;
    let rest = rest
        .strip_prefix("live-")
        .filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        .unwrap_or(rest);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return None;
    }
    // parseInt of a long digit run: saturate instead of overflowing.
    Some(digits.parse().unwrap_or(u64::MAX))
}

/// `requiresToolCallId(modelId)`.
fn requires_tool_call_id(id: &str) -> bool {
    id.starts_with("claude-")
        || id.starts_with("gpt-oss-")
        || gemini_major_version(id).is_some_and(|v| v >= 3)
}

fn supports_multimodal_function_response(id: &str) -> bool {
    gemini_major_version(id).is_none_or(|v| v >= 3)
}

/// `supportsGoogleStrictToolSampling(modelId)`.
fn supports_strict_tools(id: &str) -> bool {
    gemini_major_version(id).is_some_and(|v| v >= 3)
}

/// `/gemini-(?:[4-9]|[1-9]\d)/.test(id)`: Gemini 4 and later (1.3,
/// [`Change::GoogleGemini4ThinkingLevel`]).
fn is_gemini_4_or_later(id: &str) -> bool {
    id.match_indices("gemini-").any(|(i, _)| {
        let b = id.as_bytes();
        let at = i + "gemini-".len();
        match (b.get(at), b.get(at + 1)) {
            (Some(c), _) if (b'4'..=b'9').contains(c) => true,
            (Some(c), Some(d)) => (b'1'..=b'9').contains(c) && d.is_ascii_digit(),
            _ => false,
        }
    })
}

/// `usesGoogleThinkingLevel(model)`.
fn uses_thinking_level(release: PiRelease, model: &Model) -> bool {
    let id = model.id().to_lowercase();
    if release.has(Change::GoogleGemini4ThinkingLevel) && is_gemini_4_or_later(&id) {
        return true;
    }
    let gemini3 = id.match_indices("gemini-3").any(|(i, _)| {
        let rest = &id[i + "gemini-3".len()..];
        let rest = match rest.strip_prefix('.') {
            Some(r) => {
                let n = r.chars().take_while(char::is_ascii_digit).count();
                if n == 0 {
                    return false;
                }
                &r[n..]
            }
            None => rest,
        };
        rest.starts_with("-pro") || rest.starts_with("-flash")
    });
    gemini3
        || id == "gemini-flash-latest"
        || id == "gemini-flash-lite-latest"
        || id.contains("gemma4")
        || id.contains("gemma-4")
}

/// `resolveGoogleThinkingLevel(model, level)`.
fn resolve_thinking_level(model: &Model, level: &str) -> Result<String, AssembleError> {
    let mapped = model.thinking_level(level);
    let resolved = match mapped {
        Some(Value::String(m)) => m.to_lowercase(),
        _ => level.to_string(),
    };
    match resolved.as_str() {
        "minimal" | "low" | "medium" | "high" => Ok(resolved),
        _ => Err(AssembleError::rejected(format!(
            "Unsupported Google thinking level mapping for {}/{}: {level} -> {}",
            model.provider(),
            model.id(),
            match mapped {
                None => "undefined".to_string(),
                Some(Value::Null) => "null".to_string(),
                Some(Value::String(m)) => m.clone(),
                Some(other) => forge_replay_model::json::stringify(other),
            }
        ))),
    }
}

/// `toGoogleThinkingLevel(level)`: pi's lowercase level to the API's name.
fn to_google_thinking_level(level: &str) -> Option<&'static str> {
    match level {
        "minimal" => Some("MINIMAL"),
        "low" => Some("LOW"),
        "medium" => Some("MEDIUM"),
        "high" => Some("HIGH"),
        _ => None,
    }
}

/// `toGoogleSdkThinkingLevel(level)`: a lookup keyed by the API names (the SDK enum values are
/// the same strings); anything else is undefined.
fn sdk_thinking_level(level: &str) -> Option<&'static str> {
    match level {
        "MINIMAL" => Some("MINIMAL"),
        "LOW" => Some("LOW"),
        "MEDIUM" => Some("MEDIUM"),
        "HIGH" => Some("HIGH"),
        "THINKING_LEVEL_UNSPECIFIED" => Some("THINKING_LEVEL_UNSPECIFIED"),
        _ => None,
    }
}

/// `getDisabledGoogleThinkingConfig(model)`.
fn disabled_thinking_config(release: PiRelease, model: &Model) -> Result<Value, AssembleError> {
    if !uses_thinking_level(release, model) {
        return Ok(obj!([("thinkingBudget", Value::from(0))]));
    }
    let fallback = clamp_thinking_level(model, "off");
    if fallback == "off" {
        return Ok(obj!([("thinkingBudget", Value::from(0))]));
    }
    let resolved = resolve_thinking_level(model, &fallback)?;
    let mut m = Map::new();
    if let Some(l) = to_google_thinking_level(&resolved).and_then(sdk_thinking_level) {
        m.insert("thinkingLevel".into(), s(l));
    }
    Ok(Value::Object(m))
}

/// `getGoogleBudget(model, level, customBudgets)`; Vertex has no flash-lite row.
fn google_budget(model: &Model, level: &str, custom: Option<&Value>, vertex: bool) -> Value {
    if let Some(v) = js::get(custom, level) {
        return v.clone();
    }
    let id = model.id();
    let table: Option<[f64; 4]> = if id.contains("2.5-pro") {
        Some([128.0, 2048.0, 8192.0, 32768.0])
    } else if !vertex && id.contains("2.5-flash-lite") {
        Some([512.0, 2048.0, 8192.0, 24576.0])
    } else if id.contains("2.5-flash") {
        Some([128.0, 2048.0, 8192.0, 24576.0])
    } else {
        None
    };
    match table {
        None => Value::from(-1),
        Some(t) => {
            let i = match level {
                "minimal" => 0,
                "low" => 1,
                "medium" => 2,
                _ => 3,
            };
            js::num(t[i])
        }
    }
}

/// `/^[A-Za-z0-9+/]+={0,2}$/` and a length divisible by 4.
fn is_valid_thought_signature(sig: Option<&Value>) -> bool {
    let Some(sig) = sig.and_then(Value::as_str) else {
        return false;
    };
    if sig.is_empty() || js::len(sig) % 4 != 0 {
        return false;
    }
    let body = sig.trim_end_matches('=');
    let pad = sig.len() - body.len();
    pad <= 2
        && !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

fn thought_signature(same: bool, sig: Option<&Value>) -> Option<Value> {
    (same && is_valid_thought_signature(sig)).then(|| sig.cloned().unwrap_or(Value::Null))
}

/// The tool-call id normalizer: `[^a-zA-Z0-9_-]` → `_` per UTF-16 unit, at most 64 units.
fn normalize_tool_call_id(id: &str, model: &Model) -> String {
    if !requires_tool_call_id(model.id()) {
        return id.to_string();
    }
    js::utf16_units(id)
        .map(|u| match u {
            0x30..=0x39 | 0x41..=0x5a | 0x61..=0x7a | 0x5f | 0x2d => u as u8 as char,
            _ => '_',
        })
        .take(64)
        .collect()
}

fn inline_data(block: &Value) -> Value {
    let mut m = Map::new();
    insert(&mut m, "mimeType", block.field("mimeType"));
    insert(&mut m, "data", block.field("data"));
    obj!([("inlineData", Value::Object(m))])
}

fn insert(m: &mut Map<String, Value>, key: &str, v: Option<&Value>) {
    if let Some(v) = v {
        m.insert(key.into(), v.clone());
    }
}

/// `convertMessages(model, context)` over the collapsed transcript without its leading system
/// message.
fn convert_messages<'a>(
    release: PiRelease,
    model: &Model,
    conversation: impl IntoIterator<Item = &'a Value>,
) -> Vec<Value> {
    // `id.replace(…)` only for models that require ids; the others return the id unchanged.
    let normalize = |id: Option<&Value>, m: &Model, _: &Value| {
        let id = if requires_tool_call_id(m.id()) {
            js::str_or_fault(id, "id", "replace")
        } else {
            id.and_then(Value::as_str).unwrap_or("")
        };
        normalize_tool_call_id(id, m)
    };
    let transformed = transform_messages_cow(release, conversation, model, Some(&normalize));
    let with_id = requires_tool_call_id(model.id());
    let mut contents: Vec<Value> = Vec::new();
    for msg in &transformed {
        let msg: &Value = msg;
        match msg.field("role").and_then(Value::as_str).unwrap_or("") {
            "user" => {
                let parts: Vec<Value> = match msg.field("content") {
                    Some(Value::String(t)) => {
                        vec![obj!([("text", s(js::sanitize_surrogates(t).into_owned()))])]
                    }
                    _ => js::arr(msg, "content")
                        .iter()
                        .map(|item| {
                            if item.field("type").and_then(Value::as_str) == Some("text") {
                                obj!([("text", sanitize(item.field("text")))])
                            } else {
                                inline_data(item)
                            }
                        })
                        .collect(),
                };
                if parts.is_empty() {
                    continue;
                }
                contents.push(obj!([("role", s("user")), ("parts", Value::Array(parts))]));
            }
            "assistant" => {
                let same = js::str_of(msg, "provider") == Some(model.provider())
                    && js::str_of(msg, "model") == Some(model.id());
                let mut parts = Vec::new();
                for block in js::arr(msg, "content") {
                    match block.field("type").and_then(Value::as_str) {
                        Some("text") => {
                            let sig = thought_signature(same, block.field("textSignature"));
                            if is_blank(block.field("text")) && sig.is_none() {
                                continue;
                            }
                            let mut p = Map::with_capacity(2);
                            p.insert("text".into(), sanitize(block.field("text")));
                            insert(&mut p, "thoughtSignature", sig.as_ref());
                            parts.push(Value::Object(p));
                        }
                        Some("thinking") => {
                            if same {
                                let sig = thought_signature(same, block.field("thinkingSignature"));
                                if is_blank(block.field("thinking")) && sig.is_none() {
                                    continue;
                                }
                                let mut p = Map::with_capacity(3);
                                p.insert("thought".into(), Value::Bool(true));
                                p.insert("text".into(), sanitize(block.field("thinking")));
                                insert(&mut p, "thoughtSignature", sig.as_ref());
                                parts.push(Value::Object(p));
                            } else {
                                if is_blank(block.field("thinking")) {
                                    continue;
                                }
                                parts.push(obj!([("text", sanitize(block.field("thinking")))]));
                            }
                        }
                        Some("toolCall") => {
                            let sig = thought_signature(same, block.field("thoughtSignature"));
                            let mut call = Map::with_capacity(3);
                            insert(&mut call, "name", block.field("name"));
                            call.insert(
                                "args".into(),
                                match block.field("arguments") {
                                    None | Some(Value::Null) => Value::Object(Map::new()),
                                    Some(a) => a.clone(),
                                },
                            );
                            if with_id {
                                insert(&mut call, "id", block.field("id"));
                            }
                            let mut p = Map::with_capacity(2);
                            p.insert("functionCall".into(), Value::Object(call));
                            insert(&mut p, "thoughtSignature", sig.as_ref());
                            parts.push(Value::Object(p));
                        }
                        _ => {}
                    }
                }
                if parts.is_empty() {
                    continue;
                }
                contents.push(obj!([("role", s("model")), ("parts", Value::Array(parts))]));
            }
            "toolResult" => {
                let blocks = js::arr(msg, "content");
                let text_result = blocks
                    .iter()
                    .filter(|c| c.field("type").and_then(Value::as_str) == Some("text"))
                    .map(|c| match c.field("text") {
                        Some(Value::String(t)) => t.clone(),
                        None | Some(Value::Null) => String::new(),
                        Some(other) => forge_replay_model::json::stringify(other),
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                let images: Vec<&Value> = if model.supports_images() {
                    blocks
                        .iter()
                        .filter(|c| c.field("type").and_then(Value::as_str) == Some("image"))
                        .collect()
                } else {
                    Vec::new()
                };
                let has_text = if release.has(Change::GoogleBlankToolResultText) {
                    !js::trim(&text_result).is_empty()
                } else {
                    !text_result.is_empty()
                };
                let has_images = !images.is_empty();
                let multimodal = supports_multimodal_function_response(model.id());
                let response_value = if has_text {
                    js::sanitize_surrogates(&text_result).into_owned()
                } else if has_images {
                    "(see attached image)".to_string()
                } else {
                    String::new()
                };
                let image_parts: Vec<Value> = images.iter().map(|b| inline_data(b)).collect();
                let mut fr = Map::with_capacity(4);
                insert(&mut fr, "name", msg.field("toolName"));
                fr.insert(
                    "response".into(),
                    if js::truthy(msg.field("isError")) {
                        obj!([("error", s(response_value))])
                    } else {
                        obj!([("output", s(response_value))])
                    },
                );
                if has_images && multimodal {
                    fr.insert("parts".into(), Value::Array(image_parts.clone()));
                }
                if with_id {
                    insert(&mut fr, "id", msg.field("toolCallId"));
                }
                let part = obj!([("functionResponse", Value::Object(fr))]);
                let merge = contents.last().is_some_and(|c| {
                    c.field("role").and_then(Value::as_str) == Some("user")
                        && js::arr(c, "parts")
                            .iter()
                            .any(|p| js::truthy(p.field("functionResponse")))
                });
                if merge {
                    if let Some(Value::Array(parts)) =
                        contents.last_mut().and_then(|c| c.get_mut("parts"))
                    {
                        parts.push(part);
                    }
                } else {
                    contents.push(obj!([
                        ("role", s("user")),
                        ("parts", Value::Array(vec![part])),
                    ]));
                }
                if has_images && !multimodal {
                    let mut parts = vec![obj!([("text", s("Tool result image:"))])];
                    parts.extend(image_parts);
                    contents.push(obj!([("role", s("user")), ("parts", Value::Array(parts))]));
                }
            }
            _ => {}
        }
    }
    contents
}

/// JSON Schema keywords whose values map names to subschemas (their keys are not keywords).
const JSON_SCHEMA_NAME_MAPS: [&str; 6] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

/// JSON Schema keywords holding a subschema or an array of subschemas.
const JSON_SCHEMA_SUBSCHEMAS: [&str; 16] = [
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "items",
    "prefixItems",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];

/// `rewriteConstAsEnum(schema, isNameMap)` ([`Change::GoogleConstAsEnum`]): string and number
/// `const` values at schema positions become one-value `enum`s (appended after the node's other
/// keys, as `delete` + assignment orders them).
fn rewrite_const_as_enum(schema: &Value, is_name_map: bool) -> Value {
    match schema {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| rewrite_const_as_enum(item, false))
                .collect(),
        ),
        Value::Object(map) => {
            let mut result: Map<String, Value> = map
                .iter()
                .map(|(k, v)| {
                    let v = if is_name_map || JSON_SCHEMA_SUBSCHEMAS.contains(&k.as_str()) {
                        rewrite_const_as_enum(v, false)
                    } else if JSON_SCHEMA_NAME_MAPS.contains(&k.as_str()) {
                        rewrite_const_as_enum(v, true)
                    } else {
                        v.clone()
                    };
                    (k.clone(), v)
                })
                .collect();
            if !is_name_map && !result.contains_key("enum") {
                if let Some(value @ (Value::String(_) | Value::Number(_))) = result.get("const") {
                    let value = value.clone();
                    result.shift_remove("const");
                    result.insert("enum".into(), Value::Array(vec![value]));
                }
            }
            Value::Object(result)
        }
        other => other.clone(),
    }
}

/// `convertTools(tools, false, supportsStrictMode)`.
fn convert_tools(
    release: PiRelease,
    tools: &[Value],
    supports_strict: bool,
) -> Result<Value, AssembleError> {
    let decls = tools
        .iter()
        .map(|tool| {
            let strict = resolve_json_schema_strict_sampling(release, tool, supports_strict)?;
            let mut d = Map::new();
            insert(&mut d, "name", tool.field("name"));
            insert(&mut d, "description", tool.field("description"));
            if let Some(p) = crate::constrained::defined_tool_parameters(tool, strict) {
                let p = if release.has(Change::GoogleConstAsEnum) {
                    rewrite_const_as_enum(&p, false)
                } else {
                    p
                };
                d.insert("parametersJsonSchema".into(), p);
            }
            Ok(Value::Object(d))
        })
        .collect::<Result<Vec<_>, AssembleError>>()?;
    Ok(Value::Array(vec![obj!([(
        "functionDeclarations",
        Value::Array(decls),
    )])]))
}

fn map_tool_choice(choice: Option<&Value>) -> &'static str {
    match choice.and_then(Value::as_str) {
        Some("none") => "NONE",
        Some("any") => "ANY",
        _ => "AUTO",
    }
}

/// `resolveGoogleFunctionCallingMode(tools, toolChoice, supportsStrictMode)`.
fn function_calling_mode(
    release: PiRelease,
    tools: &[Value],
    choice: Option<&Value>,
    supports_strict: bool,
) -> Result<Option<&'static str>, AssembleError> {
    let mut use_strict = false;
    for t in tools {
        if resolve_json_schema_strict_sampling(release, t, supports_strict)? == Some(true) {
            use_strict = true;
        }
    }
    let c = choice.and_then(Value::as_str);
    if c == Some("none") || c == Some("any") {
        return Ok(Some(map_tool_choice(choice)));
    }
    if use_strict {
        return Ok(Some("VALIDATED"));
    }
    Ok(js::truthy(choice).then(|| map_tool_choice(choice)))
}

/// `streamSimple`'s options: base options, toolChoice and `thinking`.
fn simple_options(
    input: &ApiInput<'_>,
    options: &Map<String, Value>,
    vertex: bool,
) -> Result<Map<String, Value>, AssembleError> {
    let model = input.model;
    let mut base = build_base_options(input.release, model, input.estimate, options);
    if let Some(tc) = options.field("toolChoice") {
        base.insert("toolChoice".into(), tc.clone());
    }
    let disabled = obj!([("enabled", Value::Bool(false))]);
    let level = options.field("reasoning").filter(|v| js::truthy(Some(v)));
    let Some(level) = level else {
        base.insert("thinking".into(), disabled);
        return Ok(base);
    };
    let clamped = clamp_thinking_level(model, level.as_str().unwrap_or(""));
    if clamped == "off" {
        base.insert("thinking".into(), disabled);
        return Ok(base);
    }
    let resolved = resolve_thinking_level(model, &clamped)?;
    let thinking = if uses_thinking_level(input.release, model) {
        let mut m = Map::new();
        m.insert("enabled".into(), Value::Bool(true));
        if let Some(l) = to_google_thinking_level(&resolved) {
            m.insert("level".into(), s(l));
        }
        Value::Object(m)
    } else {
        obj!([
            ("enabled", Value::Bool(true)),
            (
                "budgetTokens",
                google_budget(model, &resolved, options.field("thinkingBudgets"), vertex),
            ),
        ])
    };
    base.insert("thinking".into(), thinking);
    Ok(base)
}

/// `buildParams(model, context, options)` (identical in both modules), over the collapsed
/// transcript (`head` = its replayed system message).
fn build_params<'a>(
    release: PiRelease,
    model: &Model,
    head: Option<&Value>,
    conversation: impl IntoIterator<Item = &'a Value>,
    options: &Map<String, Value>,
) -> Result<Value, AssembleError> {
    let contents = convert_messages(release, model, conversation);
    // getCurrentTools(collapsed) = the replayed message's toolsAdded.
    let tools: &[Value] = head.map_or(&[], |h| js::arr(h, "toolsAdded"));
    let mut config = Map::with_capacity(12);
    insert(&mut config, "temperature", options.field("temperature"));
    insert(&mut config, "maxOutputTokens", options.field("maxTokens"));
    let supports_strict = supports_strict_tools(model.id());
    let mode = if tools.is_empty() {
        None
    } else {
        function_calling_mode(release, tools, options.field("toolChoice"), supports_strict)?
    };
    let system = head.map(system_message_text).unwrap_or_default();
    if !system.is_empty() {
        config.insert(
            "systemInstruction".into(),
            s(js::sanitize_surrogates(&system).into_owned()),
        );
    }
    if !tools.is_empty() {
        config.insert(
            "tools".into(),
            convert_tools(release, tools, supports_strict)?,
        );
    }
    if let Some(mode) = mode {
        config.insert(
            "toolConfig".into(),
            obj!([("functionCallingConfig", obj!([("mode", s(mode))]))]),
        );
    }
    if release.has(Change::GoogleAutomaticContinuationOff) {
        config.insert("automaticContinuation".into(), Value::Bool(false));
    }
    let thinking = options.field("thinking");
    if js::truthy(js::get(thinking, "enabled")) && model.reasoning() {
        let mut tc = Map::new();
        tc.insert("includeThoughts".into(), Value::Bool(true));
        match (
            js::get(thinking, "level"),
            js::get(thinking, "budgetTokens"),
        ) {
            (Some(level), _) => {
                if let Some(l) = level.as_str().and_then(sdk_thinking_level) {
                    tc.insert("thinkingLevel".into(), s(l));
                }
            }
            (None, Some(budget)) => {
                tc.insert("thinkingBudget".into(), budget.clone());
            }
            (None, None) => {}
        }
        config.insert("thinkingConfig".into(), Value::Object(tc));
    } else if model.reasoning() && js::truthy(thinking) && !js::truthy(js::get(thinking, "enabled"))
    {
        config.insert(
            "thinkingConfig".into(),
            disabled_thinking_config(release, model)?,
        );
    }
    // The agent always passes an AbortSignal; JSON.stringify renders it as `{}`.
    config.insert("abortSignal".into(), Value::Object(Map::new()));
    Ok(obj!([
        ("model", s(model.id())),
        ("contents", Value::Array(contents)),
        ("config", Value::Object(config)),
    ]))
}

/// The part fields the SDK's `partToMldev`/`partToVertex` copy, in the order it writes them.
const SDK_PART_KEYS: [&str; 6] = [
    "functionCall",
    "functionResponse",
    "inlineData",
    "text",
    "thought",
    "thoughtSignature",
];

/// Which `@google/genai` converters serialize the request: the Gemini API (`mldev`) or Vertex,
/// and whether the SDK is the one pi-ai 1.6 depends on (2.32, [`Change::GoogleGenai232Parts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sdk {
    vertex: bool,
    genai_2_32: bool,
}

impl Sdk {
    fn of(release: PiRelease, vertex: bool) -> Sdk {
        Sdk {
            vertex,
            genai_2_32: release.has(Change::GoogleGenai232Parts),
        }
    }
}

/// `{k: from[k]}` for the listed keys whose values are not `null`/`undefined`
/// (`getValueByPath` + `setValueByPath` of a generated converter).
fn pick(from: &Value, keys: &[&str]) -> Value {
    let mut c = Map::new();
    for k in keys {
        insert(&mut c, k, from.get(*k).filter(|x| !x.is_null()));
    }
    Value::Object(c)
}

/// One part field as the SDK's `partToMldev`/`partToVertex` rebuilds it, when it is rebuilt
/// (`None`: copied as it is).
fn sdk_part_field(key: &str, v: &Value, sdk: Sdk) -> Option<Value> {
    match (key, sdk.vertex) {
        ("functionCall", false) => Some(pick(v, &["args", "id", "name"])),
        // 2.21's `blobToMldev`; 2.32 copies the blob.
        ("inlineData", false) if !sdk.genai_2_32 => Some(pick(v, &["data", "mimeType"])),
        // 2.32's `functionResponseToVertex` / `functionResponsePartToVertex`.
        ("functionResponse", true) if sdk.genai_2_32 => {
            let mut c = Map::new();
            insert(&mut c, "id", v.get("id").filter(|x| !x.is_null()));
            insert(&mut c, "name", v.get("name").filter(|x| !x.is_null()));
            if let Some(parts) = v.get("parts").filter(|x| !x.is_null()) {
                let parts = match parts {
                    Value::Array(items) => Value::Array(
                        items
                            .iter()
                            .map(|p| pick(p, &["fileData", "inlineData"]))
                            .collect(),
                    ),
                    other => other.clone(),
                };
                c.insert("parts".into(), parts);
            }
            insert(
                &mut c,
                "response",
                v.get("response").filter(|x| !x.is_null()),
            );
            insert(
                &mut c,
                "scheduling",
                v.get("scheduling").filter(|x| !x.is_null()),
            );
            Some(Value::Object(c))
        }
        _ => None,
    }
}

/// A part as the SDK's `partToMldev`/`partToVertex` rebuilds it.
fn sdk_part(part: &Value, sdk: Sdk) -> Value {
    let mut out = Map::new();
    for key in SDK_PART_KEYS {
        let Some(v) = part.get(key).filter(|v| !v.is_null()) else {
            continue;
        };
        let v = sdk_part_field(key, v, sdk).unwrap_or_else(|| v.clone());
        out.insert(key.into(), v);
    }
    Value::Object(out)
}

fn sdk_content(content: &Value, sdk: Sdk) -> Value {
    let mut out = Map::new();
    if let Some(Value::Array(parts)) = content.field("parts") {
        out.insert(
            "parts".into(),
            Value::Array(parts.iter().map(|p| sdk_part(p, sdk)).collect()),
        );
    }
    insert(
        &mut out,
        "role",
        content.field("role").filter(|v| !v.is_null()),
    );
    Value::Object(out)
}

/// `generateContentParametersTo{Mldev,Vertex}`: the REST body (without `_url`).
fn rest_body(params: &Value, sdk: Sdk, nan_max: bool) -> Value {
    let mut body = Map::new();
    if let Some(Value::Array(contents)) = params.field("contents") {
        body.insert(
            "contents".into(),
            Value::Array(contents.iter().map(|c| sdk_content(c, sdk)).collect()),
        );
    }
    body.extend(rest_body_without_contents(params, sdk, nan_max));
    Value::Object(body)
}

/// The members of [`rest_body`] after `contents`. `nan_max`: a `null` `maxOutputTokens` stands
/// for NaN (streamSimple's clamp on a NaN token estimate), which the SDK keeps (`NaN != null`)
/// and `JSON.stringify` writes as `null`; an explicit `null` is dropped.
fn rest_body_without_contents(params: &Value, sdk: Sdk, nan_max: bool) -> Map<String, Value> {
    let config = params.field("config").cloned().unwrap_or(Value::Null);
    let mut body = Map::new();
    let mut generation = Map::new();
    let field = |k: &str| config.get(k).filter(|v| !v.is_null());
    if let Some(si) = field("systemInstruction") {
        let content = match si {
            Value::String(t) => obj!([
                ("role", s("user")),
                ("parts", Value::Array(vec![obj!([("text", s(t.clone()))])])),
            ]),
            other => other.clone(),
        };
        body.insert("systemInstruction".into(), sdk_content(&content, sdk));
    }
    insert(&mut generation, "temperature", field("temperature"));
    insert(
        &mut generation,
        "maxOutputTokens",
        if nan_max {
            config.get("maxOutputTokens")
        } else {
            field("maxOutputTokens")
        },
    );
    if let Some(tools) = field("tools") {
        body.insert("tools".into(), tools.clone());
    }
    if let Some(tc) = field("toolConfig") {
        let tc = match (sdk.vertex, tc.field("functionCallingConfig")) {
            (false, Some(fcc)) if !fcc.is_null() => {
                let mut f = Map::new();
                insert(
                    &mut f,
                    "allowedFunctionNames",
                    fcc.field("allowedFunctionNames").filter(|v| !v.is_null()),
                );
                insert(&mut f, "mode", fcc.field("mode").filter(|v| !v.is_null()));
                obj!([("functionCallingConfig", Value::Object(f))])
            }
            _ => tc.clone(),
        };
        body.insert("toolConfig".into(), tc);
    }
    insert(&mut generation, "thinkingConfig", field("thinkingConfig"));
    if !config.is_null() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    body
}

/// Writes `JSON.stringify(sdk_part(part, sdk))` without building it.
fn write_sdk_part(out: &mut String, part: &Value, sdk: Sdk) {
    use forge_replay_model::json::{write_compact, write_string};
    out.push('{');
    let mut first = true;
    for key in SDK_PART_KEYS {
        let Some(v) = part.get(key).filter(|v| !v.is_null()) else {
            continue;
        };
        if !first {
            out.push(',');
        }
        first = false;
        write_string(out, key);
        out.push(':');
        match sdk_part_field(key, v, sdk) {
            Some(rebuilt) => write_compact(out, &rebuilt),
            None => write_compact(out, v),
        }
    }
    out.push('}');
}

/// Writes `JSON.stringify(sdk_content(content, vertex))` without building it.
fn write_sdk_content(out: &mut String, content: &Value, sdk: Sdk) {
    use forge_replay_model::json::{write_compact, write_string};
    out.push('{');
    let mut first = true;
    if let Some(Value::Array(parts)) = content.field("parts") {
        out.push_str("\"parts\":[");
        for (i, p) in parts.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_sdk_part(out, p, sdk);
        }
        out.push(']');
        first = false;
    }
    if let Some(role) = content.field("role").filter(|v| !v.is_null()) {
        if !first {
            out.push(',');
        }
        write_string(out, "role");
        out.push(':');
        write_compact(out, role);
    }
    out.push('}');
}

/// `JSON.stringify(rest_body(params, vertex))`, with `contents` (nearly all of the body) written
/// straight from the payload instead of rebuilt.
fn rest_body_text(params: &Value, sdk: Sdk, nan_max: bool) -> String {
    let Some(Value::Array(contents)) = params.field("contents") else {
        return stringify(&rest_body(params, sdk, nan_max));
    };
    let rest = rest_body_without_contents(params, sdk, nan_max);
    let mut out = String::with_capacity(16 * 1024);
    out.push_str("{\"contents\":[");
    for (i, c) in contents.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_sdk_content(&mut out, c, sdk);
    }
    out.push(']');
    for (k, v) in &rest {
        out.push(',');
        forge_replay_model::json::write_string(&mut out, k);
        out.push(':');
        forge_replay_model::json::write_compact(&mut out, v);
    }
    out.push('}');
    out
}

/// `tModel(apiClient, model)`.
fn sdk_model_path(id: &str, vertex: bool) -> String {
    if vertex {
        if id.starts_with("publishers/") || id.starts_with("projects/") || id.starts_with("models/")
        {
            id.to_string()
        } else if let Some((a, b)) = id.split_once('/') {
            let b = b.split('/').next().unwrap_or(b);
            format!("publishers/{a}/models/{b}")
        } else {
            format!("publishers/google/models/{id}")
        }
    } else if id.starts_with("models/") || id.starts_with("tunedModels/") {
        id.to_string()
    } else {
        format!("models/{id}")
    }
}

/// Whether a path segment looks like an API version (`v1`, `v1beta`, `v1beta2`).
fn is_version_segment(part: &str) -> bool {
    let Some(rest) = part.strip_prefix('v') else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let tail = &rest[digits..];
    tail.is_empty()
        || tail
            .strip_prefix("beta")
            .is_some_and(|t| t.chars().all(|c| c.is_ascii_digit()))
}

/// The request URL, following the SDK's `constructUrl`.
fn request_url(
    model: &Model,
    options: &Map<String, Value>,
    input: &ApiInput<'_>,
    vertex: bool,
) -> String {
    let path = format!(
        "{}:streamGenerateContent?alt=sse",
        sdk_model_path(model.id(), vertex)
    );
    let join = |base: &str, version: &str| {
        let base = base.strip_suffix('/').unwrap_or(base);
        if version.is_empty() {
            format!("{base}/{path}")
        } else {
            format!("{base}/{version}/{path}")
        }
    };
    if !vertex {
        // httpOptions.baseUrl = model.baseUrl with apiVersion "" (when baseUrl is set).
        let base = model.base_url();
        return if base.is_empty() {
            join("https://generativelanguage.googleapis.com/", "v1beta")
        } else {
            join(base, "")
        };
    }
    let custom = {
        let t = js::trim(model.base_url());
        (!t.is_empty() && !t.contains("{location}")).then_some(t)
    };
    if let Some(base) = custom {
        let path_part = base.split_once("://").map_or(base, |(_, rest)| {
            rest.split_once('/').map_or("", |(_, p)| p)
        });
        let has_version = path_part
            .split(['?', '#'])
            .next()
            .unwrap_or("")
            .split('/')
            .any(is_version_segment);
        return join(base, if has_version { "" } else { "v1" });
    }
    if vertex_api_key(options).is_some() {
        return join("https://aiplatform.googleapis.com/", "v1");
    }
    let project = options
        .field("project")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        .or_else(|| provider_env_value("GOOGLE_CLOUD_PROJECT", options, input.env))
        .or_else(|| provider_env_value("GCLOUD_PROJECT", options, input.env))
        .unwrap_or("");
    let location = options
        .field("location")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        .or_else(|| provider_env_value("GOOGLE_CLOUD_LOCATION", options, input.env))
        .unwrap_or("");
    let base = if location == "global" {
        "https://aiplatform.googleapis.com/".to_string()
    } else {
        format!("https://{location}-aiplatform.googleapis.com/")
    };
    let base = format!(
        "{}/v1/projects/{project}/locations/{location}",
        base.trim_end_matches('/')
    );
    join(&base, "")
}

/// `resolveApiKey(options)` of google-vertex.
fn vertex_api_key(options: &Map<String, Value>) -> Option<String> {
    let key = js::trim(options.field("apiKey").and_then(Value::as_str)?).to_string();
    let placeholder = key.starts_with('<')
        && key.ends_with('>')
        && key.len() > 2
        && !key[1..key.len() - 1].contains('>');
    (!key.is_empty() && key != GCP_VERTEX_CREDENTIALS_MARKER && !placeholder).then_some(key)
}

/// Assembles a `google-generative-ai` or `google-vertex` request.
pub fn assemble(input: &ApiInput<'_>) -> Result<ApiOutput, AssembleError> {
    let model = input.model;
    let vertex = model.api() == Some(Api::GoogleVertex);
    let mut options = input.options.clone();
    if !options.contains_key("apiKey") {
        options.insert("apiKey".into(), s(DUMMY_API_KEY));
    }
    if !vertex && !js::truthy(options.field("apiKey")) {
        return Err(AssembleError::rejected(format!(
            "No API key for provider: {}",
            model.provider()
        )));
    }
    let options = match input.entry {
        Entry::StreamSimple => simple_options(input, &options, vertex)?,
        Entry::Stream => options,
    };
    let nan_max = input.entry == Entry::StreamSimple
        && matches!(options.field("maxTokens"), Some(Value::Null));
    if vertex && vertex_api_key(&options).is_none() {
        let has = |opt: &str, envs: &[&str]| {
            options.get(opt).is_some_and(|v| js::truthy(Some(v)))
                || envs
                    .iter()
                    .any(|e| provider_env_value(e, &options, input.env).is_some())
        };
        if !has("project", &["GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT"]) {
            return Err(AssembleError::rejected(
                "Vertex AI requires a project ID. Set GOOGLE_CLOUD_PROJECT/GCLOUD_PROJECT or pass project in options.",
            ));
        }
        if !has("location", &["GOOGLE_CLOUD_LOCATION"]) {
            return Err(AssembleError::rejected(
                "Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION or pass location in options.",
            ));
        }
    }
    let collapsed = collapse_system_messages_cow(input.messages);
    let head = collapsed.first().map(|m| &**m).filter(|m| is_system(m));
    let conversation = collapsed[usize::from(head.is_some())..]
        .iter()
        .map(|m| &**m);
    let payload = build_params(input.release, model, head, conversation, &options)?;

    // The SDK refuses an empty `contents` ("contents are required") before any request.
    let has_contents = payload
        .field("contents")
        .and_then(Value::as_array)
        .is_some_and(|c| !c.is_empty());
    let wire = has_contents.then(|| {
        let mut headers = crate::api::identity_headers(input.release, model, &options);
        headers.insert("content-type".into(), "application/json".to_string());
        if input.has(Change::HeadersMergedCaseInsensitively) {
            // `providerHeadersToRecord`: by lowercased name, the last source winning, `null`
            // deleting every spelling.
            merge_headers(&mut headers, model.get("headers"));
            merge_headers(&mut headers, options.field("headers"));
        } else {
            // 0.87.1: `{...model.headers, ...optionsHeaders}` by exact name, then `null` values
            // dropped; a `null` removes only the spelling it names.
            let mut spread: Map<String, Value> = Map::new();
            for src in [model.get("headers"), options.field("headers")] {
                if let Some(m) = src.and_then(Value::as_object) {
                    for (k, v) in m {
                        spread.insert(k.clone(), v.clone());
                    }
                }
            }
            spread.retain(|_, v| !v.is_null());
            merge_headers(&mut headers, Some(&Value::Object(spread)));
        }
        input.post_json_text(
            crate::api::whatwg_url(&request_url(model, &options, input, vertex)),
            headers,
            || rest_body_text(&payload, Sdk::of(input.release, vertex), nan_max),
        )
    });
    Ok(ApiOutput { payload, wire })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn model(id: &str) -> Model {
        Model::from_value(
            json!({"id": id, "api": "google-generative-ai", "provider": "google", "baseUrl": "u"}),
        )
        .unwrap()
    }

    #[test]
    fn version_and_thinking_level_detection() {
        assert_eq!(gemini_major_version("gemini-2.5-pro"), Some(2));
        assert_eq!(gemini_major_version("Gemini-Live-3-x"), Some(3));
        assert_eq!(gemini_major_version("gemma-4"), None);
        let old = PiRelease::V0_87_1;
        assert!(uses_thinking_level(old, &model("gemini-3.1-pro-preview")));
        assert!(uses_thinking_level(old, &model("gemini-3-flash-preview")));
        assert!(!uses_thinking_level(old, &model("gemini-3.x-pro")));
        assert!(!uses_thinking_level(old, &model("gemini-2.5-flash")));
        assert!(uses_thinking_level(old, &model("gemma-4-31b-it")));
        // 1.3: Gemini 4 and later.
        let new = PiRelease::V1_3_0;
        assert!(!uses_thinking_level(old, &model("gemini-4-argon")));
        assert!(uses_thinking_level(new, &model("gemini-4-argon")));
        assert!(uses_thinking_level(new, &model("models/gemini-12-x")));
        assert!(!uses_thinking_level(new, &model("gemini-1.5-pro")));
        assert!(!uses_thinking_level(new, &model("gemini-2.5-pro")));
    }

    #[test]
    fn thought_signatures_must_be_base64() {
        assert!(is_valid_thought_signature(Some(&json!("abcd"))));
        assert!(is_valid_thought_signature(Some(&json!("ab=="))));
        assert!(!is_valid_thought_signature(Some(&json!("a==="))));
        assert!(!is_valid_thought_signature(Some(&json!("abc"))));
        assert!(!is_valid_thought_signature(Some(&json!("ab-d"))));
    }

    const MLDEV: Sdk = Sdk {
        vertex: false,
        genai_2_32: false,
    };

    #[test]
    fn const_becomes_enum_at_schema_positions_only() {
        let schema = json!({"type": "object", "properties": {
            "key": {"const": "mode", "description": "d"},
            "n": {"const": 3, "enum": [3]},
            "b": {"const": true},
            "const": {"type": "string"}
        }, "items": {"anyOf": [{"const": "x"}]}, "default": {"const": "kept"}});
        assert_eq!(
            forge_replay_model::json::stringify(&rewrite_const_as_enum(&schema, false)),
            r#"{"type":"object","properties":{"key":{"description":"d","enum":["mode"]},"n":{"const":3,"enum":[3]},"b":{"const":true},"const":{"type":"string"}},"items":{"anyOf":[{"enum":["x"]}]},"default":{"const":"kept"}}"#
        );
    }

    #[test]
    fn genai_2_32_keeps_blobs_and_rebuilds_vertex_function_responses() {
        let image = json!({"inlineData": {"mimeType": "image/png", "data": "AA"}});
        let old = Sdk {
            vertex: false,
            genai_2_32: false,
        };
        let new = Sdk {
            vertex: false,
            genai_2_32: true,
        };
        assert_eq!(
            forge_replay_model::json::stringify(&sdk_part(&image, old)),
            r#"{"inlineData":{"data":"AA","mimeType":"image/png"}}"#
        );
        assert_eq!(
            forge_replay_model::json::stringify(&sdk_part(&image, new)),
            r#"{"inlineData":{"mimeType":"image/png","data":"AA"}}"#
        );
        let response = json!({"functionResponse": {"name": "n", "response": {"output": "o"}, "id": "c",
            "parts": [{"inlineData": {"mimeType": "image/png", "data": "AA"}, "x": 1}]}});
        assert_eq!(
            forge_replay_model::json::stringify(&sdk_part(
                &response,
                Sdk {
                    vertex: true,
                    genai_2_32: true
                }
            )),
            r#"{"functionResponse":{"id":"c","name":"n","parts":[{"inlineData":{"mimeType":"image/png","data":"AA"}}],"response":{"output":"o"}}}"#
        );
    }

    #[test]
    fn sdk_reorders_parts_for_the_gemini_api() {
        let part =
            json!({"functionCall": {"name": "n", "args": {}, "id": "i"}, "thoughtSignature": "x"});
        assert_eq!(
            forge_replay_model::json::stringify(&sdk_part(&part, MLDEV)),
            r#"{"functionCall":{"args":{},"id":"i","name":"n"},"thoughtSignature":"x"}"#
        );
        let thought = json!({"thought": true, "text": "t"});
        assert_eq!(
            forge_replay_model::json::stringify(&sdk_part(
                &thought,
                Sdk {
                    vertex: true,
                    genai_2_32: false
                }
            )),
            r#"{"text":"t","thought":true}"#
        );
    }

    #[test]
    fn rest_body_text_equals_the_rebuilt_body() {
        let p = json!({"model": "m", "contents": [
            {"role": "user", "parts": [{"text": "hi", "extra": 1}, {"inlineData": {"mimeType": "image/png", "data": "AA", "x": null}}]},
            {"role": "model", "parts": [{"thought": true, "text": "t", "thoughtSignature": "s"},
                {"functionCall": {"name": "read", "args": {"a": 1e21}, "id": "c1", "partialArgs": []}}]},
            {"parts": [{"functionResponse": {"name": "read", "response": {"output": "x"}}}], "role": null},
            "odd", {"role": "user"}
        ], "config": {"systemInstruction": "sys", "temperature": 0.5, "tools": [{"functionDeclarations": []}],
            "toolConfig": {"functionCallingConfig": {"mode": "AUTO", "other": 1}}, "abortSignal": {}}});
        for vertex in [false, true] {
            for genai_2_32 in [false, true] {
                let sdk = Sdk { vertex, genai_2_32 };
                assert_eq!(
                    rest_body_text(&p, sdk, false),
                    stringify(&rest_body(&p, sdk, false))
                );
            }
        }
        let no_contents = json!({"model": "m", "config": {"temperature": 1}});
        assert_eq!(
            rest_body_text(&no_contents, MLDEV, false),
            stringify(&rest_body(&no_contents, MLDEV, false))
        );
    }
}
