//! `mistral-conversations` (pi-ai `api/mistral-conversations.js`).
//!
//! pi-ai builds a camelCase payload (what `onPayload` sees: `maxTokens`, `toolCalls`,
//! `toolCallId`, `imageUrl`, `promptCacheKey`, …) and `toMistralWirePayload` renames it to the
//! snake_case body POSTed to `{baseUrl}/v1/chat/completions`; each renamed key moves to the end of
//! its object, as `record[target] = record[source]; delete record[source]` does. The session id
//! also goes out as the `x-affinity` header.

use crate::js::Field;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

use forge_replay_model::json::stringify;
use forge_replay_model::release::{Change, PiRelease};
use serde_json::{Map, Value};

use crate::api::{merge_headers, ApiInput, ApiOutput, Entry, DUMMY_API_KEY};
use crate::constrained::resolve_json_schema_strict_sampling;
use crate::error::AssembleError;
use crate::hash::short_hash;
use crate::js::{self, obj, s};
use crate::model::Model;
use crate::options::{build_base_options, clamp_thinking_level};
use crate::transcript::{
    current_tools, render_system_message_update, resolve_transcript_cow, system_message_text,
};
use crate::transform::transform_messages_cow;

const MISTRAL_TOOL_CALL_ID_LENGTH: usize = 9;

/// `deriveMistralToolCallId(id, attempt)`.
fn derive_tool_call_id(id: &str, attempt: u32) -> String {
    let normalized: String = id.chars().filter(char::is_ascii_alphanumeric).collect();
    if attempt == 0 && normalized.len() == MISTRAL_TOOL_CALL_ID_LENGTH {
        return normalized;
    }
    let base = if normalized.is_empty() {
        id
    } else {
        normalized.as_str()
    };
    let seed = if attempt == 0 {
        base.to_string()
    } else {
        format!("{base}:{attempt}")
    };
    short_hash(&seed)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(MISTRAL_TOOL_CALL_ID_LENGTH)
        .collect()
}

/// `createMistralToolCallIdNormalizer()`: derived ids, collision-checked per request.
#[derive(Default)]
struct IdNormalizer {
    ids: HashMap<String, String>,
    owners: HashMap<String, String>,
}

impl IdNormalizer {
    fn normalize(&mut self, id: &str) -> String {
        if let Some(existing) = self.ids.get(id).filter(|e| !e.is_empty()) {
            return existing.clone();
        }
        let mut attempt = 0;
        loop {
            let candidate = derive_tool_call_id(id, attempt);
            match self.owners.get(&candidate) {
                Some(owner) if owner != id => attempt += 1,
                _ => {
                    self.ids.insert(id.to_string(), candidate.clone());
                    self.owners.insert(candidate.clone(), id.to_string());
                    return candidate;
                }
            }
        }
    }
}

fn image_url(block: &Value) -> String {
    format!(
        "data:{};base64,{}",
        js::to_string(block.field("mimeType")),
        js::to_string(block.field("data"))
    )
}

/// `buildToolResultText(text, hasImages, supportsImages, isError)`.
fn tool_result_text(text: &str, has_images: bool, supports_images: bool, is_error: bool) -> String {
    let trimmed = js::trim(text);
    let prefix = if is_error { "[tool error] " } else { "" };
    if !trimmed.is_empty() {
        let suffix = if has_images && !supports_images {
            "\n[tool image omitted: model does not support images]"
        } else {
            ""
        };
        return format!("{prefix}{trimmed}{suffix}");
    }
    if has_images {
        if supports_images {
            return format!("{prefix}(see attached image)");
        }
        return format!("{prefix}(image omitted: model does not support images)");
    }
    format!("{prefix}(no tool output)")
}

fn is_type(b: &Value, ty: &str) -> bool {
    b.field("type").and_then(Value::as_str) == Some(ty)
}

/// `toChatMessages(messages, supportsImages)`.
fn to_chat_messages(messages: &[Cow<'_, Value>], supports_images: bool) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len());
    for (index, msg) in messages.iter().enumerate() {
        let msg: &Value = msg;
        match msg.field("role").and_then(Value::as_str).unwrap_or("") {
            "system" => {
                let text = if index == 0 {
                    system_message_text(msg)
                } else {
                    render_system_message_update(msg)
                };
                if !text.is_empty() {
                    out.push(obj!([
                        ("role", s("system")),
                        ("content", s(js::sanitize_surrogates(&text).into_owned())),
                    ]));
                }
            }
            "user" => {
                let content = msg.field("content");
                if let Some(Value::String(t)) = content {
                    out.push(obj!([
                        ("role", s("user")),
                        ("content", s(js::sanitize_surrogates(t).into_owned())),
                    ]));
                    continue;
                }
                let blocks = js::arr(msg, "content");
                let had_images = blocks.iter().any(|b| is_type(b, "image"));
                let parts: Vec<Value> = blocks
                    .iter()
                    .filter(|b| is_type(b, "text") || supports_images)
                    .map(|b| {
                        if is_type(b, "text") {
                            obj!([
                                ("type", s("text")),
                                ("text", s(js::sanitize(b.field("text")).into_owned())),
                            ])
                        } else {
                            obj!([("type", s("image_url")), ("imageUrl", s(image_url(b)))])
                        }
                    })
                    .collect();
                if !parts.is_empty() {
                    out.push(obj!([
                        ("role", s("user")),
                        ("content", Value::Array(parts))
                    ]));
                } else if had_images && !supports_images {
                    out.push(obj!([
                        ("role", s("user")),
                        (
                            "content",
                            s("(image omitted: model does not support images)"),
                        ),
                    ]));
                }
            }
            "assistant" => {
                let mut parts = Vec::new();
                let mut calls = Vec::new();
                for b in js::arr(msg, "content") {
                    match b.field("type").and_then(Value::as_str) {
                        Some("text") => {
                            // `block.text.trim().length > 0`
                            let t = js::str_or_fault(b.field("text"), "block.text", "trim");
                            if !js::trim(t).is_empty() {
                                parts.push(obj!([
                                    ("type", s("text")),
                                    ("text", s(js::sanitize_surrogates(t).into_owned())),
                                ]));
                            }
                        }
                        Some("thinking") => {
                            let t = b.field("thinking").and_then(Value::as_str).unwrap_or("");
                            if !js::trim(t).is_empty() {
                                parts.push(obj!([
                                    ("type", s("thinking")),
                                    (
                                        "thinking",
                                        Value::Array(vec![obj!([
                                            ("type", s("text")),
                                            ("text", s(js::sanitize_surrogates(t).into_owned())),
                                        ])]),
                                    ),
                                ]));
                            }
                        }
                        _ => {
                            let args = match b.field("arguments") {
                                Some(v) if js::truthy(Some(v)) => stringify(v),
                                _ => "{}".to_string(),
                            };
                            let mut function = obj!([
                                ("name", b.field("name").cloned().unwrap_or(Value::Null)),
                                ("arguments", s(args)),
                            ]);
                            let mut call = obj!([
                                ("id", b.field("id").cloned().unwrap_or(Value::Null)),
                                ("type", s("function")),
                                ("function", Value::Null),
                                ("index", Value::from(0)),
                            ]);
                            // `undefined` properties (a block without `id` or `name`) are
                            // not serialized.
                            if b.field("name").is_none() {
                                if let Value::Object(f) = &mut function {
                                    js::delete(f, "name");
                                }
                            }
                            if let Value::Object(c) = &mut call {
                                c.insert("function".into(), function);
                                if b.field("id").is_none() {
                                    js::delete(c, "id");
                                }
                            }
                            calls.push(call);
                        }
                    }
                }
                let mut m = Map::with_capacity(4);
                m.insert("role".into(), s("assistant"));
                m.insert("prefix".into(), Value::Bool(false));
                let has_parts = !parts.is_empty();
                let has_calls = !calls.is_empty();
                if has_parts {
                    m.insert("content".into(), Value::Array(parts));
                }
                if has_calls {
                    m.insert("toolCalls".into(), Value::Array(calls));
                }
                if has_parts || has_calls {
                    out.push(Value::Object(m));
                }
            }
            _ => {
                let blocks = js::arr(msg, "content");
                let text = blocks
                    .iter()
                    .filter(|b| is_type(b, "text"))
                    .map(|b| js::sanitize(b.field("text")).into_owned())
                    .collect::<Vec<_>>()
                    .join("\n");
                let has_images = blocks.iter().any(|b| is_type(b, "image"));
                let is_error = js::truthy(msg.field("isError"));
                let mut content = vec![obj!([
                    ("type", s("text")),
                    (
                        "text",
                        s(tool_result_text(
                            &text,
                            has_images,
                            supports_images,
                            is_error,
                        )),
                    ),
                ])];
                if supports_images {
                    for b in blocks.iter().filter(|b| is_type(b, "image")) {
                        content.push(obj!([
                            ("type", s("image_url")),
                            ("imageUrl", s(image_url(b))),
                        ]));
                    }
                }
                let mut m = Map::with_capacity(4);
                m.insert("role".into(), s("tool"));
                js_set(&mut m, "toolCallId", msg.field("toolCallId"));
                js_set(&mut m, "name", msg.field("toolName"));
                m.insert("content".into(), Value::Array(content));
                out.push(Value::Object(m));
            }
        }
    }
    out
}

/// `obj[key] = value` where `undefined` is dropped on serialization.
fn js_set(m: &mut Map<String, Value>, key: &str, v: Option<&Value>) {
    if let Some(v) = v {
        m.insert(key.into(), v.clone());
    }
}

/// `toFunctionTools(tools)`.
fn to_function_tools(
    release: PiRelease,
    model: &Model,
    tools: &[Value],
) -> Result<Vec<Value>, AssembleError> {
    // 1.6 ([`Change::MistralStrictModeOptIn`]): strict only with `compat.supportsStrictMode`.
    let supports_strict = !release.has(Change::MistralStrictModeOptIn)
        || js::truthy(model.compat_value("supportsStrictMode"));
    tools
        .iter()
        .map(|tool| {
            let strict = resolve_json_schema_strict_sampling(release, tool, supports_strict)?;
            let mut f = Map::new();
            js_set(&mut f, "name", tool.field("name"));
            js_set(&mut f, "description", tool.field("description"));
            if let Some(p) = crate::constrained::defined_tool_parameters(tool, strict) {
                f.insert("parameters".into(), p);
            }
            f.insert("strict".into(), Value::Bool(strict.unwrap_or(false)));
            Ok(obj!([
                ("type", s("function")),
                ("function", Value::Object(f)),
            ]))
        })
        .collect()
}

/// `mapToolChoice(choice)`.
fn map_tool_choice(choice: &Value) -> Result<Value, AssembleError> {
    if let Some(c) = choice.as_str() {
        if matches!(c, "auto" | "none" | "any" | "required") {
            return Ok(choice.clone());
        }
    }
    match js::get(Some(choice), "function") {
        Some(f) if f.is_object() => Ok(obj!([
            ("type", s("function")),
            (
                "function",
                match f.field("name") {
                    Some(n) => obj!([("name", n.clone())]),
                    None => Value::Object(Map::new()),
                },
            ),
        ])),
        _ => Err(AssembleError::rejected(
            "Cannot read properties of undefined (reading 'name')",
        )),
    }
}

fn uses_reasoning_effort(model: &Model) -> bool {
    let id = model.id();
    id == "mistral-small-2603"
        || id == "mistral-small-latest"
        || id.starts_with("mistral-medium-")
        || id == "zai-glm-5-2"
}

/// `streamSimple`'s options: base options + toolChoice + promptMode / reasoningEffort.
fn simple_options(input: &ApiInput<'_>, options: &Map<String, Value>) -> Map<String, Value> {
    let model = input.model;
    let mut base = build_base_options(input.release, model, input.estimate, options);
    if let Some(tc) = options.field("toolChoice") {
        base.insert("toolChoice".into(), tc.clone());
    }
    let reasoning = options
        .field("reasoning")
        .filter(|v| js::truthy(Some(v)))
        .map(|v| clamp_thinking_level(model, v.as_str().unwrap_or("")))
        .filter(|l| l != "off");
    if input.has(Change::MistralEffortByLevelMap) {
        // 1.3: a thinking level map means `reasoning_effort` (the mapped level, `high` when
        // unmapped, the map's `off` when off); other reasoning models get `prompt_mode`.
        let map = model.thinking_level_map().filter(|_| model.reasoning());
        let effort = match (map, &reasoning) {
            (None, _) => None,
            (Some(_), Some(level)) => Some(match model.thinking_level(level) {
                None | Some(Value::Null) => s("high"),
                Some(v) => v.clone(),
            }),
            (Some(_), None) => match model.thinking_level("off") {
                None | Some(Value::Null) => None,
                Some(v) => Some(v.clone()),
            },
        };
        if model.reasoning() && map.is_none() && reasoning.is_some() {
            base.insert("promptMode".into(), s("reasoning"));
        }
        if let Some(e) = effort {
            base.insert("reasoningEffort".into(), e);
        }
        return base;
    }
    if let (true, Some(level)) = (model.reasoning(), reasoning) {
        if !uses_reasoning_effort(model) {
            base.insert("promptMode".into(), s("reasoning"));
        } else {
            let effort = match model.thinking_level(&level) {
                None | Some(Value::Null) => s("high"),
                Some(v) => v.clone(),
            };
            base.insert("reasoningEffort".into(), effort);
        }
    }
    base
}

fn should_use_prompt_caching(options: &Map<String, Value>) -> bool {
    options.field("cacheRetention").and_then(Value::as_str) != Some("none")
        && js::truthy(options.field("sessionId"))
}

/// `buildChatPayload(model, context, messages, options)`.
fn build_payload(
    release: PiRelease,
    model: &Model,
    original: &[&Value],
    transformed: &[Cow<'_, Value>],
    options: &Map<String, Value>,
) -> Result<Value, AssembleError> {
    let mut p = Map::with_capacity(16);
    p.insert("model".into(), s(model.id()));
    p.insert("stream".into(), Value::Bool(true));
    p.insert(
        "messages".into(),
        Value::Array(to_chat_messages(transformed, model.supports_images())),
    );
    // getCurrentTools(resolveTranscript(context)) = getCurrentTools(context): folding keeps it.
    let tools = current_tools(original);
    if !tools.is_empty() {
        p.insert(
            "tools".into(),
            Value::Array(to_function_tools(release, model, &tools)?),
        );
    }
    js_set(&mut p, "temperature", options.field("temperature"));
    js_set(&mut p, "maxTokens", options.field("maxTokens"));
    if let Some(tc) = options.field("toolChoice").filter(|v| js::truthy(Some(v))) {
        p.insert("toolChoice".into(), map_tool_choice(tc)?);
    }
    if let Some(v) = options.field("promptMode").filter(|v| js::truthy(Some(v))) {
        p.insert("promptMode".into(), v.clone());
    }
    if let Some(v) = options
        .field("reasoningEffort")
        .filter(|v| js::truthy(Some(v)))
    {
        p.insert("reasoningEffort".into(), v.clone());
    }
    if should_use_prompt_caching(options) {
        js_set(&mut p, "promptCacheKey", options.field("sessionId"));
    }
    Ok(Value::Object(p))
}

/// `remapMistralProperty(record, source, target)`: the value moves to the end under `target`.
fn remap(m: &mut Map<String, Value>, source: &str, target: &str) {
    if let Some(v) = m.shift_remove(source) {
        m.shift_remove(target);
        m.insert(target.into(), v);
    }
}

/// `toMistralWirePayload(payload)`.
pub fn to_wire_payload(payload: &Value) -> Value {
    let Some(src) = payload.as_object() else {
        return payload.clone();
    };
    // `{ ...payload }` with `messages` converted (each value copied once).
    let mut wire = Map::with_capacity(src.len());
    for (k, v) in src {
        let v = match (k.as_str(), v) {
            ("messages", Value::Array(messages)) => {
                Value::Array(messages.iter().map(to_wire_message).collect())
            }
            _ => v.clone(),
        };
        wire.insert(k.clone(), v);
    }
    for (source, target) in TOP_RENAMES {
        remap(&mut wire, source, target);
    }
    if let Some(Value::Object(rf)) = wire.field("response_format").cloned() {
        let mut rf = rf;
        remap(&mut rf, "jsonSchema", "json_schema");
        if let Some(Value::Object(js)) = rf.field("json_schema").cloned() {
            let mut js = js;
            remap(&mut js, "schemaDefinition", "schema");
            rf.insert("json_schema".into(), Value::Object(js));
        }
        wire.insert("response_format".into(), Value::Object(rf));
    }
    Value::Object(wire)
}

/// Top-level keys the Mistral SDK renames (each moves to the end under its new name).
const TOP_RENAMES: [(&str, &str); 12] = [
    ("topP", "top_p"),
    ("maxTokens", "max_tokens"),
    ("randomSeed", "random_seed"),
    ("responseFormat", "response_format"),
    ("toolChoice", "tool_choice"),
    ("presencePenalty", "presence_penalty"),
    ("frequencyPenalty", "frequency_penalty"),
    ("parallelToolCalls", "parallel_tool_calls"),
    ("reasoningEffort", "reasoning_effort"),
    ("promptMode", "prompt_mode"),
    ("promptCacheKey", "prompt_cache_key"),
    ("safePrompt", "safe_prompt"),
];

/// Content-chunk keys the SDK renames.
const CHUNK_RENAMES: [(&str, &str); 6] = [
    ("imageUrl", "image_url"),
    ("documentUrl", "document_url"),
    ("documentName", "document_name"),
    ("fileId", "file_id"),
    ("referenceIds", "reference_ids"),
    ("inputAudio", "input_audio"),
];

/// Message keys the SDK renames.
const MESSAGE_RENAMES: [(&str, &str); 2] =
    [("toolCalls", "tool_calls"), ("toolCallId", "tool_call_id")];

/// An object's entries after [`remap`] of each pair in order, without copying any value. Every
/// renamed key is camelCase, so an object without an ASCII capital in its keys is passed
/// through as it is (no list built).
fn remapped<'a>(m: &'a Map<String, Value>, pairs: &[(&'a str, &'a str)]) -> Entries<'a> {
    if !has_capital_key(m) {
        return Entries::Plain(m.iter());
    }
    let mut out: Vec<(&str, &Value)> = m.iter().map(|(k, v)| (k.as_str(), v)).collect();
    for &(source, target) in pairs {
        if let Some(pos) = out.iter().position(|(k, _)| *k == source) {
            let (_, v) = out.remove(pos);
            if let Some(at) = out.iter().position(|(k, _)| *k == target) {
                out.remove(at);
            }
            out.push((target, v));
        }
    }
    Entries::Remapped(out.into_iter())
}

/// Whether some key has an ASCII capital letter (every key the SDK renames does).
fn has_capital_key(m: &Map<String, Value>) -> bool {
    m.keys().any(|k| k.bytes().any(|b| b.is_ascii_uppercase()))
}

/// The entries [`remapped`] yields.
enum Entries<'a> {
    Plain(serde_json::map::Iter<'a>),
    Remapped(std::vec::IntoIter<(&'a str, &'a Value)>),
}

impl<'a> Iterator for Entries<'a> {
    type Item = (&'a str, &'a Value);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Entries::Plain(it) => it.next().map(|(k, v)| (k.as_str(), v)),
            Entries::Remapped(it) => it.next(),
        }
    }
}

/// Writes `{k: v, ...}` with `value` writing each member's value.
fn write_entries<'a>(
    out: &mut String,
    entries: Entries<'a>,
    mut value: impl FnMut(&mut String, &str, &Value),
) {
    out.push('{');
    for (i, (k, v)) in entries.enumerate() {
        if i > 0 {
            out.push(',');
        }
        forge_replay_model::json::write_string(out, k);
        out.push(':');
        value(out, k, v);
    }
    out.push('}');
}

/// `JSON.stringify(toMistralWirePayload(payload))`, written straight from the payload (same
/// bytes as [`to_wire_payload`] then `stringify`, without building the renamed copy).
pub fn wire_body_text(payload: &Value) -> String {
    use forge_replay_model::json::write_compact;
    let Some(src) = payload.as_object() else {
        return stringify(payload);
    };
    if src.keys().any(|k| is_index_key(k)) {
        return stringify(&to_wire_payload(payload));
    }
    let mut out = String::with_capacity(16 * 1024);
    write_entries(&mut out, remapped(src, &TOP_RENAMES), |out, k, v| {
        match (k, v) {
            ("messages", Value::Array(messages)) => {
                out.push('[');
                for (i, m) in messages.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_wire_message(out, m);
                }
                out.push(']');
            }
            ("response_format", Value::Object(rf)) => {
                write_entries(
                    out,
                    remapped(rf, &[("jsonSchema", "json_schema")]),
                    |out, k, v| match (k, v) {
                        ("json_schema", Value::Object(js)) => write_entries(
                            out,
                            remapped(js, &[("schemaDefinition", "schema")]),
                            |out, _, v| write_compact(out, v),
                        ),
                        _ => write_compact(out, v),
                    },
                );
            }
            _ => write_compact(out, v),
        }
    });
    out
}

/// Whether a key is a canonical array index (JavaScript orders those first; such objects take
/// the general path).
fn is_index_key(k: &str) -> bool {
    k.as_bytes().first().is_some_and(u8::is_ascii_digit)
}

fn write_wire_message(out: &mut String, message: &Value) {
    use forge_replay_model::json::write_compact;
    let Some(src) = message
        .as_object()
        .filter(|m| !m.keys().any(|k| is_index_key(k)))
    else {
        write_compact(out, &to_wire_message(message));
        return;
    };
    write_entries(out, remapped(src, &MESSAGE_RENAMES), |out, k, v| {
        match (k, v) {
            ("content", Value::Array(chunks)) => {
                out.push('[');
                for (i, chunk) in chunks.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    match chunk
                        .as_object()
                        .filter(|c| !c.keys().any(|k| is_index_key(k)))
                    {
                        Some(c) => write_entries(out, remapped(c, &CHUNK_RENAMES), |out, _, v| {
                            write_compact(out, v)
                        }),
                        None => write_compact(out, &to_wire_message_chunk(chunk)),
                    }
                }
                out.push(']');
            }
            _ => write_compact(out, v),
        }
    });
}

fn to_wire_message(message: &Value) -> Value {
    let Some(src) = message.as_object() else {
        return message.clone();
    };
    let mut m = Map::with_capacity(src.len());
    for (k, v) in src {
        let v = match (k.as_str(), v) {
            ("content", Value::Array(chunks)) => {
                Value::Array(chunks.iter().map(to_wire_message_chunk).collect())
            }
            _ => v.clone(),
        };
        m.insert(k.clone(), v);
    }
    for (source, target) in MESSAGE_RENAMES {
        remap(&mut m, source, target);
    }
    Value::Object(m)
}

fn to_wire_message_chunk(chunk: &Value) -> Value {
    match chunk.as_object() {
        Some(c) => {
            let mut c = c.clone();
            for (source, target) in CHUNK_RENAMES {
                remap(&mut c, source, target);
            }
            Value::Object(c)
        }
        None => chunk.clone(),
    }
}

/// `new URL("v1/chat/completions", base-with-trailing-slash)`.
fn chat_url(base: &str) -> String {
    let base = base.split(['?', '#']).next().unwrap_or(base);
    format!("{}/v1/chat/completions", base.trim_end_matches('/'))
}

fn has_header_override(headers: Option<&Value>, target: &str) -> bool {
    headers
        .and_then(Value::as_object)
        .is_some_and(|m| m.keys().any(|k| k.to_lowercase() == target))
}

/// Assembles a `mistral-conversations` request.
pub fn assemble(input: &ApiInput<'_>) -> Result<ApiOutput, AssembleError> {
    let model = input.model;
    let mut options = input.options.clone();
    if !options.contains_key("apiKey") {
        options.insert("apiKey".into(), s(DUMMY_API_KEY));
    }
    if !js::truthy(options.field("apiKey")) {
        return Err(AssembleError::rejected(format!(
            "No API key for provider: {}",
            model.provider()
        )));
    }
    let options = match input.entry {
        Entry::StreamSimple => simple_options(input, &options),
        Entry::Stream => options,
    };
    let resolved = resolve_transcript_cow(
        input.messages,
        js::truthy(model.compat_value("supportsMidConvoSystemMessages")),
    );
    let ids = RefCell::new(IdNormalizer::default());
    // `deriveMistralToolCallId(id, 0)` starts with `id.replace(…)`.
    let normalize = |id: Option<&Value>, _: &Model, _: &Value| {
        ids.borrow_mut()
            .normalize(js::str_or_fault(id, "id", "replace"))
    };
    let transformed = transform_messages_cow(
        input.release,
        resolved.iter().map(|m| &**m),
        model,
        Some(&normalize),
    );
    let payload = build_payload(input.release, model, input.messages, &transformed, &options)?;

    let mut headers = crate::api::identity_headers(input.release, model, &options);
    headers.insert("accept".into(), "text/event-stream".to_string());
    headers.insert("authorization".into(), "Bearer [redacted]".to_string());
    headers.insert("content-type".into(), "application/json".to_string());
    merge_headers(&mut headers, model.get("headers"));
    merge_headers(&mut headers, options.field("headers"));
    let explicit_affinity = has_header_override(model.get("headers"), "x-affinity")
        || has_header_override(options.field("headers"), "x-affinity");
    if should_use_prompt_caching(&options) && !explicit_affinity {
        // `headers.set("x-affinity", options.sessionId)`: String(sessionId), unsanitized (a lone
        // surrogate makes fetch refuse the header, see `WireRequest::as_fetch_sends`).
        headers.insert(
            "x-affinity".into(),
            js::to_string(options.field("sessionId")),
        );
    }
    let wire = input.post_json_text(
        crate::api::whatwg_url(&chat_url(model.base_url())),
        headers,
        || wire_body_text(&payload),
    );
    Ok(ApiOutput {
        payload,
        wire: Some(wire),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_call_ids_are_nine_alphanumerics() {
        assert_eq!(derive_tool_call_id("aB3dE5gH1", 0), "aB3dE5gH1");
        let mut n = IdNormalizer::default();
        let a = n.normalize("toolu_01A+B/c.d:e");
        assert_eq!(a.len(), 9);
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric()));
        assert_eq!(n.normalize("toolu_01A+B/c.d:e"), a);
    }

    #[test]
    fn wire_payload_renames_and_moves_keys_last() {
        let p = json!({"model":"m","stream":true,"messages":[
            {"role":"tool","toolCallId":"x","name":"n","content":[{"type":"image_url","imageUrl":"u"}]}
        ],"maxTokens":5,"promptCacheKey":"k"});
        assert_eq!(
            stringify(&to_wire_payload(&p)),
            r#"{"model":"m","stream":true,"messages":[{"role":"tool","name":"n","content":[{"type":"image_url","image_url":"u"}],"tool_call_id":"x"}],"max_tokens":5,"prompt_cache_key":"k"}"#
        );
        assert_eq!(wire_body_text(&p), stringify(&to_wire_payload(&p)));
    }

    #[test]
    fn direct_wire_text_equals_the_renamed_copy() {
        for p in [
            json!({"model":"m","max_tokens":1,"maxTokens":5,"responseFormat":{"type":"json_schema",
                "jsonSchema":{"name":"x","schemaDefinition":{"type":"object"},"strict":true},"z":1},
                "messages":[{"role":"assistant","toolCalls":[{"id":"a"}],"content":"t","tool_calls":0},
                    "odd",{"role":"user","content":[{"imageUrl":"u","type":"image_url","image_url":"old"},3]}],
                "promptCacheKey":"k","topP":0.5}),
            json!({"response_format":{"jsonSchema":1},"messages":"not an array"}),
            json!({"1":"index key","model":"m"}),
            json!([1, 2]),
        ] {
            assert_eq!(wire_body_text(&p), stringify(&to_wire_payload(&p)), "{p}");
        }
    }
}
