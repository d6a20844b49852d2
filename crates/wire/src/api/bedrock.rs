//! `bedrock-converse-stream` (pi-ai `api/bedrock-converse-stream.js`).
//!
//! The request goes through the AWS SDK (`ConverseStreamCommand`), not `fetch`, so the golden is
//! the `onPayload` object: `{modelId, messages, system?, inferenceConfig, toolConfig?,
//! additionalModelRequestFields?, requestMetadata?}`. System messages always fold. Image and
//! redacted-thinking bytes are `Uint8Array`s, which `JSON.stringify` renders as objects keyed
//! `"0"`, `"1"`, … (that is how they appear in a saved payload, and so here).

use crate::js::Field;
use forge_replay_model::release::{Change, PiRelease};
use serde_json::{Map, Value};

use crate::api::{ApiInput, ApiOutput, Entry};
use crate::constrained::{defined_tool_parameters, resolve_json_schema_strict_sampling};
use crate::error::AssembleError;
use crate::js::{self, obj, s};
use crate::model::Model;
use crate::options::{
    adjust_max_tokens_for_thinking, build_base_options, clamp_max_tokens_to_context,
    clamp_reasoning, provider_env_value, resolve_cache_retention,
};
use crate::transcript::{collapse_system_messages_cow, is_system, system_message_text};
use crate::transform::{split_error_tool_result_images, transform_messages_cow};

const EMPTY_TEXT_PLACEHOLDER: &str = "<empty>";

/// `getModelMatchCandidates(id, name)`: each lowercased, and with `[\s_.:]+` → `-`.
fn match_candidates(model: &Model) -> Vec<String> {
    let mut values = vec![model.id()];
    if !model.name().is_empty() {
        values.push(model.name());
    }
    let mut out = Vec::new();
    for v in values {
        let lower = v.to_lowercase();
        let mut dashed = String::with_capacity(lower.len());
        let mut in_run = false;
        for c in lower.chars() {
            if js::is_whitespace(c) || matches!(c, '_' | '.' | ':') {
                if !in_run {
                    dashed.push('-');
                }
                in_run = true;
            } else {
                dashed.push(c);
                in_run = false;
            }
        }
        out.push(lower);
        out.push(dashed);
    }
    out
}

/// `isAnthropicClaudeModel(model)`.
fn is_claude(model: &Model) -> bool {
    let id = model.id().to_lowercase();
    let name = model.name().to_lowercase();
    id.contains("anthropic.claude")
        || id.contains("anthropic/claude")
        || name.contains("anthropic.claude")
        || name.contains("anthropic/claude")
        || name.contains("claude")
}

fn any_candidate(model: &Model, needles: &[&str]) -> bool {
    match_candidates(model)
        .iter()
        .any(|c| needles.iter().any(|n| c.contains(n)))
}

/// Whether Claude haiku-5 counts among the Claude 5 models (1.3, [`Change::BedrockHaiku5Adaptive`]).
fn haiku_5(release: PiRelease, model: &Model) -> bool {
    release.has(Change::BedrockHaiku5Adaptive) && any_candidate(model, &["haiku-5"])
}

/// `supportsAdaptiveThinking(id, name)`.
fn supports_adaptive_thinking(release: PiRelease, model: &Model) -> bool {
    haiku_5(release, model)
        || any_candidate(
            model,
            &[
                "opus-4-6",
                "opus-4-7",
                "opus-4-8",
                "opus-5",
                "sonnet-4-6",
                "sonnet-5",
                "fable-5",
            ],
        )
}

/// `supportsNativeXhighEffort(model)`.
fn supports_native_xhigh(release: PiRelease, model: &Model) -> bool {
    haiku_5(release, model)
        || any_candidate(
            model,
            &["opus-4-7", "opus-4-8", "opus-5", "sonnet-5", "fable-5"],
        )
}

/// `supportsThinkingBlockBinding(model)` (1.3, [`Change::BedrockBlockBinding`]).
fn supports_block_binding(model: &Model) -> bool {
    any_candidate(
        model,
        &[
            "opus-4-7", "opus-4-8", "opus-5", "sonnet-5", "haiku-5", "fable-5",
        ],
    )
}

/// `thinking-binding-controls-2026-08-01` (1.3).
const THINKING_BINDING_CONTROLS_BETA: &str = "thinking-binding-controls-2026-08-01";

/// `supportsPromptCaching(model, env)`.
fn supports_prompt_caching(
    model: &Model,
    input: &ApiInput<'_>,
    options: &Map<String, Value>,
) -> bool {
    let candidates = match_candidates(model);
    if !candidates.iter().any(|c| c.contains("claude")) {
        return provider_env_value("AWS_BEDROCK_FORCE_CACHE", options, input.env) == Some("1");
    }
    candidates.iter().any(|c| {
        c.contains("fable-5")
            || c.contains("opus-5")
            || c.contains("sonnet-5")
            || (input.has(Change::BedrockHaiku5Adaptive) && c.contains("haiku-5"))
            || c.contains("-4-")
            || c.contains("claude-3-7-sonnet")
            || c.contains("claude-3-5-haiku")
    })
}

/// `mapThinkingLevelToEffort(model, level)`.
fn effort_for(release: PiRelease, model: &Model, level: Option<&Value>) -> Value {
    let level_str = level.and_then(Value::as_str);
    if level_str == Some("xhigh") && supports_native_xhigh(release, model) {
        return s("xhigh");
    }
    if js::truthy(level) {
        if let Some(Value::String(m)) = model.thinking_level(level_str.unwrap_or("")) {
            return s(m.clone());
        }
    }
    s(match level_str {
        Some("minimal") | Some("low") => "low",
        Some("medium") => "medium",
        _ => "high",
    })
}

/// Node's `atob` (forgiving base64): the decoded bytes, or `None` where it would throw.
fn atob(input: &str) -> Option<Vec<u8>> {
    let cleaned: Vec<u8> = input
        .bytes()
        .filter(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r'))
        .collect();
    if !input.is_ascii() {
        return None;
    }
    let mut data: &[u8] = &cleaned;
    if data.len() % 4 == 0 {
        if data.ends_with(b"==") {
            data = &data[..data.len() - 2];
        } else if data.ends_with(b"=") {
            data = &data[..data.len() - 1];
        }
    }
    if data.len() % 4 == 1 {
        return None;
    }
    let mut bits: u32 = 0;
    let mut nbits = 0;
    let mut out = Vec::with_capacity(data.len() * 3 / 4);
    for &c in data {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            out.push((bits >> nbits) as u8);
            bits &= (1 << nbits) - 1;
        }
    }
    Some(out)
}

/// A `Uint8Array` as `JSON.stringify` renders it: `{"0": b0, "1": b1, …}`.
fn bytes_value(bytes: &[u8]) -> Value {
    let mut m = Map::with_capacity(bytes.len());
    for (i, b) in bytes.iter().enumerate() {
        m.insert(i.to_string(), Value::from(*b));
    }
    Value::Object(m)
}

/// `createImageBlock(mimeType, data)`.
fn image_block(block: &Value) -> Result<Value, AssembleError> {
    let mime = block
        .field("mimeType")
        .and_then(Value::as_str)
        .unwrap_or("");
    let format = match mime {
        "image/jpeg" | "image/jpg" => "jpeg",
        "image/png" => "png",
        "image/gif" => "gif",
        "image/webp" => "webp",
        other => {
            return Err(AssembleError::rejected(format!(
                "Unknown image type: {}",
                if block.field("mimeType").is_none() {
                    "undefined"
                } else {
                    other
                }
            )))
        }
    };
    let data = block.field("data").and_then(Value::as_str).unwrap_or("");
    let bytes = atob(data).ok_or_else(|| {
        AssembleError::rejected("The string to be decoded is not correctly encoded.")
    })?;
    Ok(obj!([(
        "image",
        obj!([
            ("source", obj!([("bytes", bytes_value(&bytes))])),
            ("format", s(format)),
        ]),
    )]))
}

/// `createNonBlankTextBlock(text)`.
fn non_blank_text(text: Option<&Value>) -> Option<Value> {
    let sanitized = js::sanitize(text);
    (!js::trim(&sanitized).is_empty()).then(|| obj!([("text", s(sanitized.into_owned()))]))
}

fn required_text(text: Option<&Value>) -> Value {
    non_blank_text(text).unwrap_or_else(|| obj!([("text", s(EMPTY_TEXT_PLACEHOLDER))]))
}

/// `sanitizeBedrockDocument(value)`: drops empty-string keys, recursively.
fn sanitize_document(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(sanitize_document).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !k.is_empty())
                .map(|(k, v)| (k.clone(), sanitize_document(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `normalizeToolCallId(id)`: `[^a-zA-Z0-9_-]` → `_` per UTF-16 unit, at most 64 units.
fn normalize_tool_call_id(id: &str) -> String {
    js::utf16_units(id)
        .map(|u| match u {
            0x30..=0x39 | 0x41..=0x5a | 0x61..=0x7a | 0x5f | 0x2d => u as u8 as char,
            _ => '_',
        })
        .take(64)
        .collect()
}

fn tool_result_content(content: &[Value]) -> Result<Vec<Value>, AssembleError> {
    let mut out = Vec::new();
    for c in content {
        if c.field("type").and_then(Value::as_str) == Some("image") {
            out.push(image_block(c)?);
        } else if let Some(t) = non_blank_text(c.field("text")) {
            out.push(t);
        }
    }
    if out.is_empty() {
        out.push(obj!([("text", s(EMPTY_TEXT_PLACEHOLDER))]));
    }
    Ok(out)
}

fn tool_result(m: &Value) -> Result<Value, AssembleError> {
    tool_result_with(m, js::arr(m, "content"))
}

/// A tool result with `content` in place of the message's own.
fn tool_result_with(m: &Value, content: &[Value]) -> Result<Value, AssembleError> {
    let mut r = Map::with_capacity(3);
    if let Some(id) = m.field("toolCallId") {
        r.insert("toolUseId".into(), id.clone());
    }
    r.insert(
        "content".into(),
        Value::Array(tool_result_content(content)?),
    );
    r.insert(
        "status".into(),
        s(if js::truthy(m.field("isError")) {
            "error"
        } else {
            "success"
        }),
    );
    Ok(obj!([("toolResult", Value::Object(r))]))
}

fn cache_point(retention: &str) -> Value {
    let mut cp = Map::new();
    cp.insert("type".into(), s("default"));
    if retention == "long" {
        cp.insert("ttl".into(), s("1h"));
    }
    obj!([("cachePoint", Value::Object(cp))])
}

/// `convertMessages(context, model, cacheRetention, env)` over the collapsed transcript without
/// its leading system message.
fn convert_messages<'a>(
    release: PiRelease,
    conversation: impl IntoIterator<Item = &'a Value>,
    model: &Model,
    caching: bool,
    retention: &str,
) -> Result<Vec<Value>, AssembleError> {
    let normalize = |id: Option<&Value>, _: &Model, _: &Value| {
        normalize_tool_call_id(js::str_or_fault(id, "id", "replace"))
    };
    let transformed = transform_messages_cow(release, conversation, model, Some(&normalize));
    let claude = is_claude(model);
    let mut result: Vec<Value> = Vec::new();
    let mut i = 0;
    while i < transformed.len() {
        let m: &Value = &transformed[i];
        match m.field("role").and_then(Value::as_str).unwrap_or("") {
            "user" => {
                let mut content = Vec::new();
                if let Some(Value::String(_)) = m.field("content") {
                    content.push(required_text(m.field("content")));
                } else {
                    for c in js::arr(m, "content") {
                        match c.field("type").and_then(Value::as_str) {
                            Some("text") => {
                                if let Some(t) = non_blank_text(c.field("text")) {
                                    content.push(t);
                                }
                            }
                            Some("image") => content.push(image_block(c)?),
                            _ => {}
                        }
                    }
                    if content.is_empty() {
                        content.push(obj!([("text", s(EMPTY_TEXT_PLACEHOLDER))]));
                    }
                }
                result.push(obj!([
                    ("role", s("user")),
                    ("content", Value::Array(content)),
                ]));
            }
            "assistant" => {
                let blocks = js::arr(m, "content");
                if blocks.is_empty() {
                    i += 1;
                    continue;
                }
                let mut content = Vec::new();
                for c in blocks {
                    match c.field("type").and_then(Value::as_str) {
                        Some("text") => {
                            if let Some(t) = non_blank_text(c.field("text")) {
                                content.push(t);
                            }
                        }
                        Some("toolCall") => {
                            let mut tu = Map::with_capacity(3);
                            if let Some(v) = c.field("id") {
                                tu.insert("toolUseId".into(), v.clone());
                            }
                            if let Some(v) = c.field("name") {
                                tu.insert("name".into(), v.clone());
                            }
                            if let Some(v) = c.field("arguments") {
                                tu.insert("input".into(), sanitize_document(v));
                            }
                            content.push(obj!([("toolUse", Value::Object(tu))]));
                        }
                        Some("thinking") => {
                            let sig = c.field("thinkingSignature").and_then(Value::as_str);
                            if js::truthy(c.field("redacted")) {
                                if let Some(bytes) = sig.filter(|s| !s.is_empty()).and_then(atob) {
                                    if !bytes.is_empty() {
                                        content.push(obj!([(
                                            "reasoningContent",
                                            obj!([("redactedContent", bytes_value(&bytes))]),
                                        )]));
                                    }
                                }
                                continue;
                            }
                            let thinking = js::sanitize(c.field("thinking")).into_owned();
                            if js::trim(&thinking).is_empty() {
                                continue;
                            }
                            if claude {
                                match sig.filter(|s| !js::trim(s).is_empty()) {
                                    None => content.push(obj!([("text", s(thinking))])),
                                    Some(sig) => content.push(obj!([(
                                        "reasoningContent",
                                        obj!([(
                                            "reasoningText",
                                            obj!([("text", s(thinking)), ("signature", s(sig))]),
                                        )]),
                                    )])),
                                }
                            } else {
                                content.push(obj!([(
                                    "reasoningContent",
                                    obj!([("reasoningText", obj!([("text", s(thinking))]))]),
                                )]));
                            }
                        }
                        _ => {}
                    }
                }
                if !content.is_empty() {
                    result.push(obj!([
                        ("role", s("assistant")),
                        ("content", Value::Array(content)),
                    ]));
                }
            }
            "toolResult" => {
                // 1.3: for Claude, images of error results follow all results of the turn.
                let split = claude && release.has(Change::ErrorToolImagesSplit);
                let mut results = Vec::new();
                let mut error_images = Vec::new();
                let mut j = i;
                while j < transformed.len()
                    && transformed[j].field("role").and_then(Value::as_str) == Some("toolResult")
                {
                    let t: &Value = &transformed[j];
                    match split.then(|| split_error_tool_result_images(t)).flatten() {
                        Some(sp) => {
                            results.push(tool_result_with(t, &sp.content)?);
                            error_images.push(obj!([("text", s(sp.caption))]));
                            for img in &sp.images {
                                error_images.push(image_block(img)?);
                            }
                        }
                        None => results.push(tool_result(t)?),
                    }
                    j += 1;
                }
                results.append(&mut error_images);
                i = j - 1;
                result.push(obj!([
                    ("role", s("user")),
                    ("content", Value::Array(results)),
                ]));
            }
            _ => {}
        }
        i += 1;
    }
    if retention != "none" && caching {
        if let Some(last) = result.last_mut() {
            if last.field("role").and_then(Value::as_str) == Some("user") {
                if let Some(Value::Array(content)) = last.get_mut("content") {
                    content.push(cache_point(retention));
                }
            }
        }
    }
    Ok(result)
}

/// `convertToolConfig(tools, toolChoice, supportsStrictMode, disablePreferredStrictTools)` (1.6:
/// a `prefer` tool is non-strict in the resend after a strict-limit rejection, and one sent
/// strict sets `hasPreferredStrictTools`).
fn tool_config(
    release: PiRelease,
    tools: &[Value],
    choice: Option<&Value>,
    supports_strict: bool,
    strict_tools: &crate::strict::StrictTools,
) -> Result<Option<Value>, AssembleError> {
    if tools.is_empty() || choice.and_then(Value::as_str) == Some("none") {
        return Ok(None);
    }
    let mut specs = Vec::with_capacity(tools.len());
    for tool in tools {
        let strict = strict_tools.resolve(tool, || {
            resolve_json_schema_strict_sampling(release, tool, supports_strict)
        })?;
        let mut spec = Map::new();
        if let Some(v) = tool.field("name") {
            spec.insert("name".into(), v.clone());
        }
        if let Some(v) = tool.field("description") {
            spec.insert("description".into(), v.clone());
        }
        let mut schema = Map::new();
        if let Some(p) = defined_tool_parameters(tool, strict) {
            schema.insert("json".into(), p);
        }
        spec.insert("inputSchema".into(), Value::Object(schema));
        if strict == Some(true) {
            spec.insert("strict".into(), Value::Bool(true));
        }
        specs.push(obj!([("toolSpec", Value::Object(spec))]));
    }
    let mut cfg = Map::new();
    cfg.insert("tools".into(), Value::Array(specs));
    let tc = match choice.and_then(Value::as_str) {
        Some("auto") => Some(obj!([("auto", Value::Object(Map::new()))])),
        Some("any") => Some(obj!([("any", Value::Object(Map::new()))])),
        _ if js::str_of(choice.unwrap_or(&Value::Null), "type") == Some("tool") => Some(obj!([(
            "tool",
            match choice.and_then(|c| c.field("name")) {
                Some(n) => obj!([("name", n.clone())]),
                None => Value::Object(Map::new()),
            },
        )])),
        _ => None,
    };
    if let Some(tc) = tc {
        cfg.insert("toolChoice".into(), tc);
    }
    Ok(Some(Value::Object(cfg)))
}

/// `getConfiguredBedrockRegion(options)`.
fn configured_region<'a>(
    options: &'a Map<String, Value>,
    input: &'a ApiInput<'_>,
) -> Option<&'a str> {
    options
        .field("region")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty())
        .or_else(|| provider_env_value("AWS_REGION", options, input.env))
        .or_else(|| provider_env_value("AWS_DEFAULT_REGION", options, input.env))
}

/// `buildAdditionalModelRequestFields(model, options)`.
fn additional_fields(
    model: &Model,
    options: &Map<String, Value>,
    input: &ApiInput<'_>,
) -> Option<Value> {
    let reasoning = options.field("reasoning");
    if !js::truthy(reasoning) || !model.reasoning() {
        return None;
    }
    if !is_claude(model) {
        return if input.has(Change::BedrockGptReasoning) {
            gpt_reasoning_fields(model, reasoning)
        } else {
            None
        };
    }
    let gov = configured_region(options, input)
        .is_some_and(|r| r.to_lowercase().starts_with("us-gov-"))
        || {
            let id = model.id().to_lowercase();
            id.starts_with("us-gov.") || id.starts_with("arn:aws-us-gov:")
        };
    let display = if gov {
        None
    } else {
        Some(match options.field("thinkingDisplay") {
            None | Some(Value::Null) => s("summarized"),
            Some(v) => v.clone(),
        })
    };
    let adaptive = supports_adaptive_thinking(input.release, model);
    let mut result = Map::new();
    if adaptive {
        // 1.3: signed thinking bound to the prompt it was made with; skipped on GovCloud.
        let block_binding =
            input.has(Change::BedrockBlockBinding) && !gov && supports_block_binding(model);
        let mut thinking = Map::new();
        thinking.insert("type".into(), s("adaptive"));
        if let Some(d) = &display {
            thinking.insert("display".into(), d.clone());
        }
        if block_binding {
            thinking.insert(
                "block_binding".into(),
                obj!([("prefix_mismatch_behavior", s("drop_block"))]),
            );
        }
        result.insert("thinking".into(), Value::Object(thinking));
        result.insert(
            "output_config".into(),
            obj!([("effort", effort_for(input.release, model, reasoning))]),
        );
        if block_binding {
            result.insert(
                "anthropic_beta".into(),
                Value::Array(vec![s(THINKING_BINDING_CONTROLS_BETA)]),
            );
        }
    } else {
        let level_raw = reasoning.and_then(Value::as_str).unwrap_or("");
        let level = clamp_reasoning(level_raw);
        let default = match level_raw {
            "minimal" => Some(1024.0),
            "low" => Some(2048.0),
            "medium" => Some(8192.0),
            "high" | "xhigh" | "max" => Some(16384.0),
            _ => None,
        };
        // streamSimple writes this level's budget itself, so a `null` there is a NaN (an
        // undefined budget for `reasoning: "off"`), which `??` keeps.
        let budget = match js::get(options.field("thinkingBudgets"), level) {
            Some(Value::Null) if input.entry == Entry::StreamSimple => Some(Value::Null),
            Some(v) if !v.is_null() => Some(v.clone()),
            _ => default.map(js::num),
        };
        let mut thinking = Map::new();
        thinking.insert("type".into(), s("enabled"));
        if let Some(b) = budget {
            thinking.insert("budget_tokens".into(), b);
        }
        if let Some(d) = &display {
            thinking.insert("display".into(), d.clone());
        }
        result.insert("thinking".into(), Value::Object(thinking));
        let interleaved = match options.field("interleavedThinking") {
            None | Some(Value::Null) => true,
            v => js::truthy(v),
        };
        if interleaved {
            result.insert(
                "anthropic_beta".into(),
                Value::Array(vec![s("interleaved-thinking-2025-05-14")]),
            );
        }
    }
    Some(Value::Object(result))
}

/// 1.3's reasoning fields for OpenAI models on Bedrock ([`Change::BedrockGptReasoning`]):
/// gpt-oss a flat `reasoning_effort` (low/medium/high), other GPT models `reasoning.effort` (the
/// model's mapped level, else minimal → low). An unknown level maps to `undefined`.
fn gpt_reasoning_fields(model: &Model, reasoning: Option<&Value>) -> Option<Value> {
    let level = reasoning.and_then(Value::as_str);
    let table = |oss: bool| -> Option<&'static str> {
        Some(match level? {
            "minimal" | "low" => "low",
            "medium" => "medium",
            "high" => "high",
            "xhigh" if oss => "high",
            "max" if oss => "high",
            "xhigh" => "xhigh",
            "max" => "max",
            _ => return None,
        })
    };
    if any_candidate(model, &["gpt-oss"]) {
        let mut m = Map::new();
        if let Some(e) = table(true) {
            m.insert("reasoning_effort".into(), s(e));
        }
        return Some(Value::Object(m));
    }
    if any_candidate(model, &["gpt-"]) {
        let mapped = level.and_then(|l| match model.thinking_level(l) {
            Some(Value::String(m)) => Some(m.clone()),
            _ => None,
        });
        let mut effort = Map::new();
        if let Some(e) = mapped.or_else(|| table(false).map(str::to_string)) {
            effort.insert("effort".into(), s(e));
        }
        return Some(obj!([("reasoning", Value::Object(effort))]));
    }
    None
}

/// `streamSimple`'s options.
fn simple_options(input: &ApiInput<'_>) -> Map<String, Value> {
    let model = input.model;
    let options = input.options;
    let mut base = build_base_options(input.release, model, input.estimate, options);
    if let Some(tc) = options.field("toolChoice") {
        base.insert("toolChoice".into(), tc.clone());
    }
    let Some(reasoning) = options.field("reasoning").filter(|v| js::truthy(Some(v))) else {
        return base;
    };
    base.insert("reasoning".into(), reasoning.clone());
    let budgets = options.field("thinkingBudgets");
    if is_claude(model) && !supports_adaptive_thinking(input.release, model) {
        let level = reasoning.as_str().unwrap_or("");
        // A `null` maxTokens is a NaN (JSON has no NaN): still defined.
        let base_max = base
            .field("maxTokens")
            .map(|v| js::as_f64(v).unwrap_or(f64::NAN));
        let (adjusted_max, budget) =
            adjust_max_tokens_for_thinking(base_max, model.max_tokens_number(), level, budgets);
        let max_tokens =
            clamp_max_tokens_to_context(input.release, model, input.estimate, adjusted_max);
        base.insert("maxTokens".into(), js::num(max_tokens));
        let mut b = budgets
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        b.insert(
            clamp_reasoning(level).to_string(),
            js::num(js::math_min(budget, js::math_max(0.0, max_tokens - 1024.0))),
        );
        base.insert("thinkingBudgets".into(), Value::Object(b));
    } else if let Some(b) = budgets {
        base.insert("thinkingBudgets".into(), b.clone());
    }
    base
}

/// Assembles a `bedrock-converse-stream` command input (no wire request: AWS SDK transport).
pub fn assemble(input: &ApiInput<'_>) -> Result<ApiOutput, AssembleError> {
    let model = input.model;
    let options = match input.entry {
        Entry::StreamSimple => simple_options(input),
        Entry::Stream => input.options.clone(),
    };
    let collapsed = collapse_system_messages_cow(input.messages);
    let head = collapsed.first().map(|m| &**m).filter(|m| is_system(m));
    let conversation = collapsed[usize::from(head.is_some())..]
        .iter()
        .map(|m| &**m);
    let supports_strict = model.compat_true("supportsStrictMode");
    let retention = resolve_cache_retention(&options, input.env);
    let caching = supports_prompt_caching(model, input, &options);
    // `options.maxTokens ?? (claude ? model.maxTokens : undefined)`. streamSimple's maxTokens is
    // always a number, so a `null` there is a NaN (e.g. `reasoning: "off"` on a budget model:
    // `adjustMaxTokensForThinking` adds an undefined budget), which `??` keeps.
    let inference_max = match options.field("maxTokens") {
        Some(Value::Null) if input.entry == Entry::StreamSimple => Some(Value::Null),
        Some(v) if !v.is_null() => Some(v.clone()),
        _ if is_claude(model) => model.get("maxTokens").cloned(),
        _ => None,
    };
    let system_prompt = head.map(system_message_text);

    let mut p = Map::with_capacity(12);
    p.insert("modelId".into(), s(model.id()));
    p.insert(
        "messages".into(),
        Value::Array(convert_messages(
            input.release,
            conversation,
            model,
            caching,
            &retention,
        )?),
    );
    if let Some(sp) = system_prompt.filter(|t| !t.is_empty()) {
        let mut blocks = vec![obj!([(
            "text",
            s(js::sanitize_surrogates(&sp).into_owned())
        )])];
        if retention != "none" && caching {
            blocks.push(cache_point(&retention));
        }
        p.insert("system".into(), Value::Array(blocks));
    }
    let mut inference = Map::new();
    if let Some(m) = inference_max {
        inference.insert("maxTokens".into(), m);
    }
    if let Some(t) = options.field("temperature") {
        inference.insert("temperature".into(), t.clone());
    }
    p.insert("inferenceConfig".into(), Value::Object(inference));
    // getCurrentTools(collapsed) = the replayed message's toolsAdded.
    if let Some(tc) = tool_config(
        input.release,
        head.map_or(&[], |h| js::arr(h, "toolsAdded")),
        options.field("toolChoice"),
        supports_strict,
        input.strict,
    )? {
        p.insert("toolConfig".into(), tc);
    }
    if let Some(extra) = additional_fields(model, &options, input) {
        p.insert("additionalModelRequestFields".into(), extra);
    }
    if let Some(meta) = options.field("requestMetadata") {
        p.insert("requestMetadata".into(), meta.clone());
    }
    Ok(ApiOutput {
        payload: Value::Object(p),
        wire: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atob_matches_node() {
        assert_eq!(atob("aGk="), Some(b"hi".to_vec()));
        assert_eq!(atob("aGk"), Some(b"hi".to_vec()));
        assert_eq!(atob(" aG k= "), Some(b"hi".to_vec()));
        assert_eq!(atob("a"), None);
        assert_eq!(atob("a-b="), None);
    }

    #[test]
    fn ids_are_sanitized_per_utf16_unit() {
        assert_eq!(normalize_tool_call_id("a|b😀"), "a_b__");
        assert_eq!(normalize_tool_call_id(&"x".repeat(70)).len(), 64);
    }
}
