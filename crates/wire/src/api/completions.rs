//! `openai-completions` (pi-ai `api/openai-completions.js`): Chat Completions for OpenAI and the
//! many OpenAI-compatible providers.
//!
//! `compat` is pi-ai's URL/provider auto-detection (`detectCompat`) overridden key by key by
//! `model.compat` (`getCompat`). System messages fold unless `supportsMidConvoSystemMessages`;
//! with `supportsMidConvoToolAdditions` too (Kimi), a purely additive later `toolsAdded` becomes
//! a `{role:"system", tools:[…]}` message right before the rendered update. Thinking goes out in
//! the field its format asks for (`reasoning_effort`, `thinking`, `reasoning`,
//! `chat_template_kwargs`, …). The OpenAI SDK sends the params object as it is, to
//! `{baseUrl}/chat/completions`.

use crate::js::Field;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use forge_replay_model::json::{parse, stringify};
use forge_replay_model::release::{Change, PiRelease};
use serde_json::{Map, Value};

use crate::api::anthropic::join_url;
use crate::api::responses_shared::{grammar_tool_input_properties, prompt_cache_key, JsObject};
use crate::api::{merge_headers, ApiInput, ApiOutput, Entry, DUMMY_API_KEY};
use crate::constrained::{
    resolve_grammar_constrained_sampling, resolve_json_schema_strict_sampling,
};
use crate::error::AssembleError;
use crate::hash::short_hash;
use crate::js::{self, obj, s};
use crate::model::Model;
use crate::options::{
    build_base_options, clamp_thinking_level, provider_env_value, thinking_budget_for_level,
    MIN_ANSWER_TOKENS,
};
use crate::transcript::{
    is_system, render_system_message_update, resolve_transcript_cow, system_message_text,
    transcript_tools, ToolSupport,
};
use crate::transform::transform_messages_cow;

const REASONING_FIELDS: [&str; 3] = ["reasoning", "reasoning_content", "reasoning_text"];

/// pi-ai's resolved completions compat (`getCompat(model)`). Values are kept as JSON so that
/// `undefined` (absent) and explicit values behave as in JavaScript.
#[derive(Debug, Clone)]
pub struct Compat {
    values: Map<String, Value>,
}

impl Compat {
    fn get(&self, key: &str) -> Option<&Value> {
        self.values.get(key).filter(|v| !v.is_null())
    }
    fn truthy(&self, key: &str) -> bool {
        js::truthy(self.values.get(key))
    }
    fn is_true(&self, key: &str) -> bool {
        matches!(self.values.get(key), Some(Value::Bool(true)))
    }
    fn str(&self, key: &str) -> Option<&str> {
        self.values.get(key).and_then(Value::as_str)
    }
    /// `compat.key !== false`.
    fn not_false(&self, key: &str) -> bool {
        !matches!(self.values.get(key), Some(Value::Bool(false)))
    }
}

/// `detectCompat(model)` of `release`.
fn detect_compat(release: PiRelease, model: &Model) -> Map<String, Value> {
    let provider = model.provider();
    let base = model.base_url();
    let is_zai = provider == "zai"
        || provider == "zai-coding-cn"
        || base.contains("api.z.ai")
        || base.contains("open.bigmodel.cn");
    let is_together = provider == "together"
        || base.contains("api.together.ai")
        || base.contains("api.together.xyz");
    let is_moonshot =
        provider == "moonshotai" || provider == "moonshotai-cn" || base.contains("api.moonshot.");
    let is_openrouter = provider == "openrouter" || base.contains("openrouter.ai");
    let is_cf_workers = provider == "cloudflare-workers-ai" || base.contains("api.cloudflare.com");
    let is_cf_gateway =
        provider == "cloudflare-ai-gateway" || base.contains("gateway.ai.cloudflare.com");
    let is_nvidia = provider == "nvidia" || base.contains("integrate.api.nvidia.com");
    let is_ant_ling = provider == "ant-ling" || base.contains("api.ant-ling.com");
    let is_cerebras = provider == "cerebras" || base.contains("cerebras.ai");
    let is_deepseek = provider == "deepseek" || base.to_lowercase().contains("deepseek.com");
    let is_non_standard = is_nvidia
        || is_cerebras
        || provider == "xai"
        || base.contains("api.x.ai")
        || is_together
        || base.contains("chutes.ai")
        || is_deepseek
        || is_zai
        || is_moonshot
        || provider == "opencode"
        || base.contains("opencode.ai")
        || is_cf_workers
        || is_cf_gateway
        || is_ant_ling;
    let use_max_tokens = base.contains("chutes.ai")
        || is_deepseek
        || is_moonshot
        || is_cf_gateway
        || is_together
        || is_nvidia
        || is_ant_ling
        || is_zai;
    let is_grok = provider == "xai" || base.contains("api.x.ai");
    let id = model.id();
    let or_dev = is_openrouter && (id.starts_with("anthropic/") || id.starts_with("openai/"));
    let thinking_format = if is_deepseek {
        "deepseek"
    } else if is_zai {
        "zai"
    } else if is_together {
        "together"
    } else if is_ant_ling {
        "ant-ling"
    } else if is_openrouter {
        "openrouter"
    } else {
        "openai"
    };
    let b = Value::Bool;
    let empty = || Value::Object(Map::new());
    let mut m = Map::new();
    m.insert("supportsStore".into(), b(!is_non_standard));
    // 1.6 ([`Change::CompletionsDeveloperRoleOpenAiOnly`]): only OpenAI takes the developer role.
    let developer_role = if release.has(Change::CompletionsDeveloperRoleOpenAiOnly) {
        provider == "openai" || base.contains("api.openai.com")
    } else {
        or_dev || (!is_non_standard && !is_openrouter)
    };
    m.insert("supportsDeveloperRole".into(), b(developer_role));
    m.insert(
        "supportsReasoningEffort".into(),
        b(!is_grok
            && !is_zai
            && !is_moonshot
            && !is_together
            && !is_cf_gateway
            && !is_nvidia
            && !is_ant_ling),
    );
    m.insert("supportsUsageInStreaming".into(), b(true));
    m.insert("supportsFinishReason".into(), b(true));
    m.insert(
        "maxTokensField".into(),
        s(if use_max_tokens {
            "max_tokens"
        } else {
            "max_completion_tokens"
        }),
    );
    m.insert("requiresToolResultName".into(), b(false));
    m.insert("requiresAssistantAfterToolResult".into(), b(false));
    m.insert("requiresThinkingAsText".into(), b(false));
    m.insert(
        "requiresReasoningContentOnAssistantMessages".into(),
        b(is_deepseek),
    );
    m.insert("thinkingFormat".into(), s(thinking_format));
    m.insert("openRouterRouting".into(), empty());
    m.insert("vercelGatewayRouting".into(), empty());
    m.insert("chatTemplateKwargs".into(), empty());
    m.insert("chatTemplateArgs".into(), empty());
    m.insert("zaiToolStream".into(), b(false));
    m.insert("supportsThinkingTokenBudget".into(), b(false));
    m.insert("supportsStrictMode".into(), b(false));
    m.insert("supportsOpenAIGrammarTools".into(), b(false));
    m.insert("supportsMidConvoSystemMessages".into(), b(false));
    m.insert("supportsMidConvoToolAdditions".into(), b(false));
    if provider == "openrouter" && id.starts_with("anthropic/") {
        m.insert("cacheControlFormat".into(), s("anthropic"));
    }
    m.insert("sendSessionAffinityHeaders".into(), b(is_openrouter));
    m.insert(
        "sessionAffinityFormat".into(),
        s(if is_openrouter {
            "openrouter"
        } else {
            "openai"
        }),
    );
    m.insert(
        "supportsLongCacheRetention".into(),
        b(!(is_together || is_cf_workers || is_cf_gateway || is_nvidia || is_ant_ling)),
    );
    m
}

/// `getCompat(model)` of `release`: detection, overridden by `model.compat` (`??` per key).
pub fn compat(release: PiRelease, model: &Model) -> Compat {
    let mut values = detect_compat(release, model);
    let Some(overrides) = model.compat().and_then(Value::as_object) else {
        return Compat { values };
    };
    for (k, v) in overrides {
        if !v.is_null() {
            values.insert(k.clone(), v.clone());
        }
    }
    // `openRouterRouting: model.compat.openRouterRouting ?? {}`; `vllmPriority` only from
    // model.compat (already copied above when present).
    Compat { values }
}

fn is_type(b: &Value, ty: &str) -> bool {
    b.field("type").and_then(Value::as_str) == Some(ty)
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn sanitized(t: &str) -> Value {
    s(js::sanitize_surrogates(t).into_owned())
}

/// `String.prototype.replace(/[^a-zA-Z0-9_-]/g, "_")` over UTF-16 units.
fn replace_unsafe(id: &str) -> String {
    js::utf16_units(id)
        .map(|u| match u {
            0x30..=0x39 | 0x41..=0x5a | 0x61..=0x7a | 0x5f | 0x2d => u as u8 as char,
            _ => '_',
        })
        .collect()
}

/// The completions tool-call id normalizer.
fn normalize_tool_call_id(id: &str, model: &Model) -> String {
    if let Some(sep) = id.find('|') {
        let call_id = replace_unsafe(&id[..sep]);
        let item_id = replace_unsafe(&id[sep + 1..]);
        let combined = if item_id.is_empty() {
            call_id.clone()
        } else {
            format!("{call_id}_{item_id}")
        };
        if combined.len() <= 40 {
            return combined;
        }
        let hash: String = short_hash(id).chars().take(8).collect();
        let keep = 40usize.saturating_sub(hash.len() + 1).max(1);
        let prefix: String = call_id.chars().take(keep).collect();
        return format!("{prefix}_{hash}");
    }
    if model.provider() == "openai" {
        return js::slice_utf16(id, 40).into_owned();
    }
    id.to_string()
}

/// `convertTools(tools, compat)`.
fn convert_tools(
    release: PiRelease,
    tools: &[Value],
    c: &Compat,
) -> Result<Vec<Value>, AssembleError> {
    let mut out = Vec::with_capacity(tools.len());
    for tool in tools {
        if let Some(g) =
            resolve_grammar_constrained_sampling(tool, c.truthy("supportsOpenAIGrammarTools"))?
        {
            let mut custom = Map::new();
            if let Some(v) = tool.field("name") {
                custom.insert("name".into(), v.clone());
            }
            if let Some(v) = tool.field("description") {
                custom.insert("description".into(), v.clone());
            }
            custom.insert(
                "format".into(),
                obj!([
                    ("type", s("grammar")),
                    (
                        "grammar",
                        obj!([("syntax", s(g.format)), ("definition", s(g.definition))]),
                    ),
                ]),
            );
            out.push(obj!([
                ("type", s("custom")),
                ("custom", Value::Object(custom)),
            ]));
            continue;
        }
        let supports_strict = c.not_false("supportsStrictMode");
        let strict = resolve_json_schema_strict_sampling(release, tool, supports_strict)?;
        let mut f = Map::new();
        if let Some(v) = tool.field("name") {
            f.insert("name".into(), v.clone());
        }
        if let Some(v) = tool.field("description") {
            f.insert("description".into(), v.clone());
        }
        if let Some(p) = crate::constrained::defined_tool_parameters(tool, strict) {
            f.insert("parameters".into(), p);
        }
        if supports_strict {
            f.insert("strict".into(), Value::Bool(strict.unwrap_or(false)));
        }
        out.push(obj!([
            ("type", s("function")),
            ("function", Value::Object(f)),
        ]));
    }
    Ok(out)
}

fn is_reasoning_detail(d: &Value) -> bool {
    let Some(m) = d.as_object() else {
        return false;
    };
    let common = matches!(
        m.field("id"),
        None | Some(Value::Null) | Some(Value::String(_))
    ) && matches!(m.field("format"), None | Some(Value::String(_)))
        && matches!(m.field("index"), None | Some(Value::Number(_)));
    if !common {
        return false;
    }
    match m.field("type").and_then(Value::as_str) {
        Some("reasoning.summary") => m.field("summary").is_some_and(Value::is_string),
        Some("reasoning.encrypted") => m.field("data").is_some_and(Value::is_string),
        Some("reasoning.text") => {
            m.field("text").is_some_and(Value::is_string)
                && matches!(
                    m.field("signature"),
                    None | Some(Value::Null) | Some(Value::String(_))
                )
        }
        _ => false,
    }
}

/// Whether JSON text can only be a value opening with `open` (`[` or `{`): its first
/// non-whitespace byte. Lets plain-text signatures skip the parser (and its error message).
fn opens_with(text: &str, open: u8) -> bool {
    text.bytes()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        == Some(open)
}

/// `parseOpenAIReasoningDetails(signature)`.
fn parse_reasoning_details(sig: Option<&Value>) -> Option<Vec<Value>> {
    let sig = sig
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty() && opens_with(s, b'['))?;
    match parse(sig).ok()? {
        Value::Array(a) if !a.is_empty() && a.iter().all(is_reasoning_detail) => Some(a),
        _ => None,
    }
}

/// `parseLegacyEncryptedReasoningDetail(signature)`.
fn parse_legacy_detail(sig: Option<&Value>) -> Option<Value> {
    let sig = sig
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty() && opens_with(s, b'{'))?;
    let v = parse(sig).ok()?;
    let ok = is_reasoning_detail(&v)
        && js::str_of(&v, "type") == Some("reasoning.encrypted")
        && js::str_of(&v, "id").is_some_and(|i| !i.is_empty())
        && js::str_of(&v, "data").is_some_and(|d| !d.is_empty());
    ok.then_some(v)
}

fn image_url_part(block: &Value) -> Value {
    obj!([
        ("type", s("image_url")),
        (
            "image_url",
            obj!([(
                "url",
                s(format!(
                    "data:{};base64,{}",
                    js::to_string(block.field("mimeType")),
                    js::to_string(block.field("data"))
                )),
            )]),
        ),
    ])
}

/// `convertMessages(model, context, compat, {grammarToolInputProperties})`.
fn convert_messages(
    release: PiRelease,
    model: &Model,
    resolved: &[Cow<'_, Value>],
    sys_view: &[&Value],
    c: &Compat,
    grammar: &HashMap<String, String>,
) -> Result<Vec<Value>, AssembleError> {
    let normalize = |id: Option<&Value>, m: &Model, _: &Value| {
        normalize_tool_call_id(js::str_or_fault(id, "id", "includes"), m)
    };
    let transformed = transform_messages_cow(
        release,
        resolved.iter().map(|m| &**m),
        model,
        Some(&normalize),
    );
    let folded = transcript_tools(release, sys_view, tool_support(c)).folded_system_messages;
    let mut system_index = 0;
    let instruction_role = if model.reasoning() && c.truthy("supportsDeveloperRole") {
        "developer"
    } else {
        "system"
    };
    let after_tool = c.truthy("requiresAssistantAfterToolResult");
    let processed = || {
        obj!([
            ("role", s("assistant")),
            ("content", s("I have processed the tool results.")),
        ])
    };
    let mut params: Vec<Value> = Vec::new();
    let mut last_role: Option<String> = None;
    let mut i = 0;
    while i < transformed.len() {
        let msg: &Value = &transformed[i];
        let role = str_field(msg, "role");
        if after_tool && last_role.as_deref() == Some("toolResult") && role == "user" {
            params.push(processed());
        }
        match role {
            "system" => {
                let anchors = system_index >= folded;
                system_index += 1;
                let added = if anchors {
                    js::arr(msg, "toolsAdded")
                } else {
                    &[]
                };
                if !added.is_empty() {
                    params.push(obj!([
                        ("role", s("system")),
                        ("tools", Value::Array(convert_tools(release, added, c)?)),
                    ]));
                }
                let text = if i == 0 {
                    system_message_text(msg)
                } else {
                    render_system_message_update(msg)
                };
                if !text.is_empty() {
                    params.push(obj!([
                        ("role", s(instruction_role)),
                        ("content", sanitized(&text)),
                    ]));
                }
            }
            "user" => {
                if let Some(Value::String(t)) = msg.field("content") {
                    params.push(obj!([("role", s("user")), ("content", sanitized(t))]));
                } else {
                    let content: Vec<Value> = js::arr(msg, "content")
                        .iter()
                        .filter(|item| {
                            !is_type(item, "text") || !str_field(item, "text").is_empty()
                        })
                        .map(|item| {
                            if is_type(item, "text") {
                                obj!([
                                    ("type", s("text")),
                                    ("text", sanitized(str_field(item, "text"))),
                                ])
                            } else {
                                image_url_part(item)
                            }
                        })
                        .collect();
                    if content.is_empty() {
                        i += 1;
                        continue;
                    }
                    params.push(obj!([
                        ("role", s("user")),
                        ("content", Value::Array(content)),
                    ]));
                }
            }
            "assistant" => {
                let blocks = js::arr(msg, "content");
                let mut a = JsObject::new();
                a.put("role", s("assistant"));
                let non_null = after_tool
                    || (release.has(Change::CompletionsNonNullAssistantContent)
                        && c.truthy("requiresNonNullAssistantContent"));
                a.put("content", if non_null { s("") } else { Value::Null });
                let text_parts: Vec<String> = blocks
                    .iter()
                    .filter(|b| is_type(b, "text"))
                    // `block.text.trim().length > 0`
                    .filter(|b| {
                        !js::trim(js::str_or_fault(b.field("text"), "block.text", "trim"))
                            .is_empty()
                    })
                    .map(|b| js::sanitize_surrogates(str_field(b, "text")).into_owned())
                    .collect();
                let text = text_parts.concat();
                let thinking: Vec<&Value> =
                    blocks.iter().filter(|b| is_type(b, "thinking")).collect();
                let calls: Vec<&Value> = blocks.iter().filter(|b| is_type(b, "toolCall")).collect();
                let signed = thinking
                    .iter()
                    .find_map(|b| parse_reasoning_details(b.field("thinkingSignature")));
                let legacy: Vec<Value> = calls
                    .iter()
                    .filter_map(|b| parse_legacy_detail(b.field("thoughtSignature")))
                    .collect();
                let preserved = signed.or((!legacy.is_empty()).then_some(legacy));
                let non_empty: Vec<&&Value> = thinking
                    .iter()
                    .filter(|b| !js::trim(str_field(b, "thinking")).is_empty())
                    .collect();
                // Whether `content` ends up a non-empty string or array.
                let mut has_content = false;
                if !non_empty.is_empty() {
                    if c.truthy("requiresThinkingAsText") {
                        let thinking_text = non_empty
                            .iter()
                            .map(|b| js::sanitize_surrogates(str_field(b, "thinking")).into_owned())
                            .collect::<Vec<_>>()
                            .join("\n\n");
                        let mut parts =
                            vec![obj!([("type", s("text")), ("text", s(thinking_text))])];
                        parts.extend(
                            text_parts
                                .iter()
                                .map(|t| obj!([("type", s("text")), ("text", s(t.clone()))])),
                        );
                        has_content = true;
                        a.put("content", Value::Array(parts));
                    } else {
                        if !text.is_empty() {
                            has_content = true;
                            a.put("content", s(text));
                        }
                        if preserved.is_none() {
                            let mut sig = non_empty[0]
                                .field("thinkingSignature")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_string();
                            if model.provider() == "opencode-go" && sig == "reasoning" {
                                sig = "reasoning_content".into();
                            }
                            if REASONING_FIELDS.contains(&sig.as_str()) {
                                let joined = non_empty
                                    .iter()
                                    .map(|b| str_field(b, "thinking"))
                                    .collect::<Vec<_>>()
                                    .join("\n");
                                a.put(&sig, s(joined));
                            }
                        }
                    }
                } else if !text.is_empty() {
                    has_content = true;
                    a.put("content", s(text));
                }
                let has_calls = !calls.is_empty();
                if has_calls {
                    let mut tool_calls = Vec::with_capacity(calls.len());
                    for tc in &calls {
                        let name = str_field(tc, "name");
                        if let Some(prop) = grammar.get(name) {
                            let input = match js::get(tc.field("arguments"), prop) {
                                Some(Value::String(t)) => js::sanitize_surrogates(t).into_owned(),
                                _ => {
                                    return Err(AssembleError::rejected(format!(
                                        "Grammar tool call \"{name}\" requires argument \"{prop}\" to be a string."
                                    )))
                                }
                            };
                            let mut custom = Map::with_capacity(2);
                            custom.insert(
                                "name".into(),
                                tc.field("name").cloned().unwrap_or(Value::Null),
                            );
                            custom.insert("input".into(), s(input));
                            let mut call = Map::with_capacity(3);
                            if let Some(id) = tc.field("id") {
                                call.insert("id".into(), id.clone());
                            }
                            call.insert("type".into(), s("custom"));
                            call.insert("custom".into(), Value::Object(custom));
                            tool_calls.push(Value::Object(call));
                            continue;
                        }
                        let mut function = Map::with_capacity(2);
                        if let Some(n) = tc.field("name") {
                            function.insert("name".into(), n.clone());
                        }
                        if let Some(args) = tc.field("arguments") {
                            function.insert("arguments".into(), s(stringify(args)));
                        }
                        let mut call = Map::with_capacity(3);
                        if let Some(id) = tc.field("id") {
                            call.insert("id".into(), id.clone());
                        }
                        call.insert("type".into(), s("function"));
                        call.insert("function".into(), Value::Object(function));
                        tool_calls.push(Value::Object(call));
                    }
                    a.put("tool_calls", Value::Array(tool_calls));
                }
                if let Some(p) = preserved {
                    a.put("reasoning_details", Value::Array(p));
                }
                let mut built = match a.into_value() {
                    Value::Object(m) => m,
                    _ => Map::new(),
                };
                if c.truthy("requiresReasoningContentOnAssistantMessages")
                    && model.reasoning()
                    && !built.contains_key("reasoning_content")
                {
                    built.insert("reasoning_content".into(), s(""));
                }
                if !has_content && !has_calls {
                    i += 1;
                    continue;
                }
                params.push(Value::Object(built));
            }
            "toolResult" => {
                let mut images = Vec::new();
                let mut j = i;
                while j < transformed.len() && str_field(&transformed[j], "role") == "toolResult" {
                    let t = &transformed[j];
                    let content = js::arr(t, "content");
                    let text = content
                        .iter()
                        .filter(|b| is_type(b, "text"))
                        .map(|b| js::join_element(b.field("text")))
                        .collect::<Vec<_>>()
                        .join("\n");
                    let has_images = content.iter().any(|b| is_type(b, "image"));
                    let has_text = if release.has(Change::BlankToolOutputIsNoOutput) {
                        !js::trim(&text).is_empty()
                    } else {
                        !text.is_empty()
                    };
                    let body = if has_text {
                        text.as_str()
                    } else if has_images {
                        "(see attached image)"
                    } else {
                        "(no tool output)"
                    };
                    let mut m = Map::with_capacity(4);
                    m.insert("role".into(), s("tool"));
                    m.insert("content".into(), sanitized(body));
                    if let Some(id) = t.field("toolCallId") {
                        m.insert("tool_call_id".into(), id.clone());
                    }
                    if c.truthy("requiresToolResultName") && js::truthy(t.field("toolName")) {
                        m.insert(
                            "name".into(),
                            t.field("toolName").cloned().unwrap_or(Value::Null),
                        );
                    }
                    params.push(Value::Object(m));
                    if has_images && model.supports_images() {
                        images.extend(
                            content
                                .iter()
                                .filter(|b| is_type(b, "image"))
                                .map(image_url_part),
                        );
                    }
                    j += 1;
                }
                i = j;
                if !images.is_empty() {
                    if after_tool {
                        params.push(processed());
                    }
                    let mut content = vec![obj!([
                        ("type", s("text")),
                        ("text", s("Attached image(s) from tool result:")),
                    ])];
                    content.extend(images);
                    params.push(obj!([
                        ("role", s("user")),
                        ("content", Value::Array(content)),
                    ]));
                    last_role = Some("user".into());
                } else {
                    last_role = Some("toolResult".into());
                }
                continue;
            }
            _ => {}
        }
        last_role = Some(role.to_string());
        i += 1;
    }
    Ok(params)
}

/// `addCacheControlToTextContent(message, cacheControl)`.
fn add_cache_control(message: &mut Value, cc: &Value) -> bool {
    let Some(m) = message.as_object_mut() else {
        return false;
    };
    match m.get_mut("content") {
        Some(Value::String(t)) => {
            if t.is_empty() {
                return false;
            }
            let text = std::mem::take(t);
            m.insert(
                "content".into(),
                Value::Array(vec![obj!([
                    ("type", s("text")),
                    ("text", s(text)),
                    ("cache_control", cc.clone()),
                ])]),
            );
            true
        }
        Some(Value::Array(parts)) => {
            for part in parts.iter_mut().rev() {
                if is_type(part, "text") {
                    if let Some(p) = part.as_object_mut() {
                        p.insert("cache_control".into(), cc.clone());
                    }
                    return true;
                }
            }
            false
        }
        _ => false,
    }
}

/// `applyAnthropicCacheControl(messages, tools, cacheControl)`.
fn apply_anthropic_cache_control(messages: &mut [Value], tools: Option<&mut Value>, cc: &Value) {
    if let Some(first) = messages
        .iter_mut()
        .find(|m| matches!(str_field(m, "role"), "system" | "developer"))
    {
        add_cache_control(first, cc);
    }
    if let Some(Value::Array(tools)) = tools {
        if let Some(Value::Object(last)) = tools.last_mut() {
            last.insert("cache_control".into(), cc.clone());
        }
    }
    for m in messages.iter_mut().rev() {
        if matches!(str_field(m, "role"), "user" | "assistant" | "tool") && add_cache_control(m, cc)
        {
            return;
        }
    }
}

/// `hasToolHistory(context.messages)` calls `msg.content.some(...)` on each assistant message of
/// the untransformed context until it meets tool history: V8's `TypeError` when such a content
/// is not an array (pi-ai then refuses the request).
fn tool_history_type_error(messages: &[&Value]) -> Option<String> {
    for m in messages {
        match m.field("role").and_then(Value::as_str) {
            Some("toolResult") => return None,
            Some("assistant") => match m.field("content") {
                Some(Value::Array(blocks)) => {
                    if blocks.iter().any(|b| is_type(b, "toolCall")) {
                        return None;
                    }
                }
                None => return Some("Cannot read properties of undefined (reading 'some')".into()),
                Some(Value::Null) => {
                    return Some("Cannot read properties of null (reading 'some')".into())
                }
                Some(_) => return Some("msg.content.some is not a function".into()),
            },
            _ => {}
        }
    }
    None
}

fn has_tool_history(messages: &[Cow<'_, Value>]) -> bool {
    messages.iter().any(|m| match str_field(m, "role") {
        "toolResult" => true,
        "assistant" => js::arr(m, "content").iter().any(|b| is_type(b, "toolCall")),
        _ => false,
    })
}

/// `resolveChatTemplateKwargValue(model, options, value, thinkingBudget)`.
fn chat_template_value(
    model: &Model,
    effort: Option<&Value>,
    value: &Value,
    budget: Option<f64>,
) -> Option<Value> {
    if !value.is_object() {
        return Some(value.clone());
    }
    let on = js::truthy(effort);
    if !on && js::truthy(value.field("omitWhenOff")) {
        return None;
    }
    match value.field("$var").and_then(Value::as_str) {
        Some("thinking.enabled") => return Some(Value::Bool(on)),
        Some("thinking.budget") => return budget.map(js::num),
        _ => {}
    }
    let mapped = if on {
        model.thinking_level(effort.and_then(Value::as_str).unwrap_or(""))
    } else {
        model.thinking_level("off")
    };
    match mapped {
        None => effort.cloned(),
        Some(Value::String(m)) => Some(s(m.clone())),
        Some(_) => None,
    }
}

fn chat_template_values(
    model: &Model,
    effort: Option<&Value>,
    values: Option<&Value>,
    budget: Option<f64>,
) -> Option<Value> {
    let mut out = Map::with_capacity(16);
    for (k, v) in values.and_then(Value::as_object).into_iter().flatten() {
        if let Some(r) = chat_template_value(model, effort, v, budget) {
            out.insert(k.clone(), r);
        }
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// `model.thinkingLevelMap?.[effort] ?? effort`.
fn mapped_or(model: &Model, effort: &Value) -> Value {
    match model.thinking_level(effort.as_str().unwrap_or("")) {
        None | Some(Value::Null) => effort.clone(),
        Some(v) => v.clone(),
    }
}

/// Tool messages anchor additions with mid-conversation system messages and tool additions.
fn tool_support(c: &Compat) -> ToolSupport {
    if c.is_true("supportsMidConvoSystemMessages") && c.is_true("supportsMidConvoToolAdditions") {
        ToolSupport::Additions
    } else {
        ToolSupport::None
    }
}

/// `buildParams(model, context, options, compat, cacheRetention, grammar)`.
fn build_params(
    input: &ApiInput<'_>,
    resolved: &[Cow<'_, Value>],
    sys_view: &[&Value],
    options: &Map<String, Value>,
    c: &Compat,
    retention: &str,
    grammar: &HashMap<String, String>,
) -> Result<Value, AssembleError> {
    let model = input.model;
    let request_tools = transcript_tools(input.release, sys_view, tool_support(c)).request_tools;
    let mut converted = convert_messages(input.release, model, resolved, sys_view, c, grammar)?;
    let cache_control = (c.str("cacheControlFormat") == Some("anthropic") && retention != "none")
        .then(|| {
            let mut cc = Map::new();
            cc.insert("type".into(), s("ephemeral"));
            if retention == "long" && c.truthy("supportsLongCacheRetention") {
                cc.insert("ttl".into(), s("1h"));
            }
            Value::Object(cc)
        });
    let long = retention == "long" && c.truthy("supportsLongCacheRetention");
    let mut p = JsObject::new();
    p.put("model", s(model.id()));
    p.set("messages", None);
    p.put("stream", Value::Bool(true));
    let sends_key = if input.has(Change::PromptCacheKeyMode) {
        // `promptCacheKeyMode`: `enabled`, or `auto` for OpenAI and long retention.
        match c.str("promptCacheKeyMode").unwrap_or("auto") {
            "enabled" => retention != "none",
            "auto" => retention != "none" && (model.base_url().contains("api.openai.com") || long),
            _ => false,
        }
    } else {
        (model.base_url().contains("api.openai.com") && retention != "none") || long
    };
    let key = if sends_key {
        prompt_cache_key(options.field("sessionId"))?
    } else {
        None
    };
    p.set("prompt_cache_key", key);
    p.set("prompt_cache_retention", long.then(|| s("24h")));
    if c.not_false("supportsUsageInStreaming") {
        p.put(
            "stream_options",
            obj!([("include_usage", Value::Bool(true))]),
        );
    }
    if c.truthy("supportsStore") {
        p.put("store", Value::Bool(false));
    }
    let max_tokens = options.field("maxTokens").filter(|v| js::truthy(Some(v)));
    let mut ceiling_from_params = None;
    if let Some(mt) = max_tokens {
        let field = if c.str("maxTokensField") == Some("max_tokens") {
            "max_tokens"
        } else {
            "max_completion_tokens"
        };
        p.put(field, mt.clone());
        ceiling_from_params = Some(mt.clone());
    }
    if let Some(t) = options.field("temperature") {
        p.put("temperature", t.clone());
    }
    let mut tools: Option<Value> = None;
    if !request_tools.is_empty() {
        tools = Some(Value::Array(convert_tools(
            input.release,
            &request_tools,
            c,
        )?));
    } else {
        // 1.6 ([`Change::CompletionsToolsWithToolHistoryOptIn`]): only with
        // `requiresToolsWithToolHistory` (checked first, so the history is not read otherwise).
        let wants_empty_tools = !input.has(Change::CompletionsToolsWithToolHistoryOptIn)
            || c.truthy("requiresToolsWithToolHistory");
        if wants_empty_tools {
            if let Some(message) = tool_history_type_error(input.messages) {
                return Err(AssembleError::rejected(message));
            }
            if has_tool_history(resolved) {
                tools = Some(Value::Array(Vec::new()));
            }
        }
    }
    if let Some(cc) = &cache_control {
        apply_anthropic_cache_control(&mut converted, tools.as_mut(), cc);
    }
    p.put("messages", Value::Array(converted));
    if let Some(t) = tools {
        let non_empty = t.as_array().is_some_and(|a| !a.is_empty());
        p.put("tools", t);
        if non_empty && c.truthy("zaiToolStream") {
            p.put("tool_stream", Value::Bool(true));
        }
    }
    if let Some(tc) = options.field("toolChoice").filter(|v| js::truthy(Some(v))) {
        p.put("tool_choice", tc.clone());
    }
    if let Some(pr) = c.values.field("vllmPriority") {
        p.put("priority", pr.clone());
    }

    let effort = options
        .field("reasoningEffort")
        .filter(|v| js::truthy(Some(v)));
    let on = effort.is_some();
    let reasoning = model.reasoning();
    let budget_field = c
        .get("thinkingTokenBudgetField")
        .filter(|v| js::truthy(Some(v)))
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| {
            c.truthy("supportsThinkingTokenBudget")
                .then(|| "thinking_token_budget".to_string())
        });
    let thinking_budget = match effort {
        Some(e) if reasoning => {
            let ceiling = match ceiling_from_params.as_ref().filter(|v| !v.is_null()) {
                Some(v) => js::to_number(Some(v)),
                None => model.max_tokens_number(),
            };
            let budget = js::math_min(
                thinking_budget_for_level(
                    e.as_str().unwrap_or(""),
                    options.field("thinkingBudgets"),
                ),
                js::math_max(0.0, ceiling - MIN_ANSWER_TOKENS),
            );
            (budget > 0.0).then_some(budget)
        }
        _ => None,
    };
    let off = model.thinking_level("off");
    let supports_effort = c.truthy("supportsReasoningEffort");
    match c.str("thinkingFormat") {
        Some("zai") if reasoning => {
            p.put(
                "thinking",
                if on {
                    obj!([
                        ("type", s("enabled")),
                        ("clear_thinking", Value::Bool(false)),
                    ])
                } else {
                    obj!([("type", s("disabled"))])
                },
            );
            if let (Some(e), true) = (effort, supports_effort) {
                let mapped = match model.thinking_level(e.as_str().unwrap_or("")) {
                    None => Some(e.clone()),
                    Some(v) => Some(v.clone()),
                };
                if let Some(Value::String(eff)) = mapped {
                    p.put("reasoning_effort", s(eff));
                }
            }
        }
        Some("qwen") if reasoning => {
            p.put("enable_thinking", Value::Bool(on));
            if let (Some(e), true) = (effort, supports_effort) {
                if let Value::String(eff) = mapped_or(model, e) {
                    p.put("reasoning_effort", s(eff));
                }
            }
        }
        Some("qwen-chat-template") if reasoning => {
            p.put(
                "chat_template_kwargs",
                obj!([
                    ("enable_thinking", Value::Bool(on)),
                    ("preserve_thinking", Value::Bool(true)),
                ]),
            );
        }
        Some("chat-template") if reasoning => {
            if let Some(v) =
                chat_template_values(model, effort, c.get("chatTemplateKwargs"), thinking_budget)
            {
                p.put("chat_template_kwargs", v);
            }
        }
        Some("baseten") if reasoning => {
            if let Some(v) =
                chat_template_values(model, effort, c.get("chatTemplateArgs"), thinking_budget)
            {
                p.put("chat_template_args", v);
            }
            if supports_effort {
                let mapped = match effort {
                    Some(e) => model.thinking_level(e.as_str().unwrap_or("")),
                    None => off,
                };
                let eff = match mapped {
                    None => effort.cloned(),
                    Some(v) => Some(v.clone()),
                };
                if let Some(Value::String(eff)) = eff {
                    p.put("reasoning_effort", s(eff));
                }
            }
        }
        Some("deepseek") if reasoning => {
            if on {
                p.put("thinking", obj!([("type", s("enabled"))]));
            } else if !matches!(off, Some(Value::Null)) {
                p.put("thinking", obj!([("type", s("disabled"))]));
            }
            if let (Some(e), true) = (effort, supports_effort) {
                p.put("reasoning_effort", mapped_or(model, e));
            }
        }
        Some("openrouter") if reasoning => {
            if let Some(e) = effort {
                p.put("reasoning", obj!([("effort", mapped_or(model, e))]));
            } else if !matches!(off, Some(Value::Null)) {
                p.put(
                    "reasoning",
                    obj!([("effort", off.cloned().unwrap_or_else(|| s("none")))]),
                );
            }
        }
        Some("ant-ling") if reasoning && on => {
            if let Some(Value::String(eff)) =
                model.thinking_level(effort.and_then(Value::as_str).unwrap_or(""))
            {
                p.put("reasoning", obj!([("effort", s(eff.clone()))]));
            }
        }
        Some("together") if reasoning => {
            p.put("reasoning", obj!([("enabled", Value::Bool(on))]));
            if let (Some(e), true) = (effort, supports_effort) {
                p.put("reasoning_effort", mapped_or(model, e));
            }
        }
        Some("string-thinking") if reasoning => {
            if let Some(e) = effort {
                p.put("thinking", mapped_or(model, e));
            } else if !matches!(off, Some(Value::Null)) {
                p.put("thinking", off.cloned().unwrap_or_else(|| s("none")));
            }
        }
        _ => {
            if let (Some(e), true, true) = (effort, reasoning, supports_effort) {
                p.put("reasoning_effort", mapped_or(model, e));
            } else if !on && reasoning && supports_effort {
                if let Some(Value::String(o)) = off {
                    p.put("reasoning_effort", s(o.clone()));
                }
            }
        }
    }
    if let (Some(field), Some(b)) = (budget_field, thinking_budget) {
        p.put(&field, js::num(b));
    }
    if let Some(routing) =
        js::get(model.compat(), "openRouterRouting").filter(|v| js::truthy(Some(v)))
    {
        p.put("provider", routing.clone());
    }
    if let Some(routing) =
        js::get(model.compat(), "vercelGatewayRouting").filter(|v| js::truthy(Some(v)))
    {
        let only = routing.field("only").filter(|v| js::truthy(Some(v)));
        let order = routing.field("order").filter(|v| js::truthy(Some(v)));
        if only.is_some() || order.is_some() {
            let mut g = Map::new();
            if let Some(o) = only {
                g.insert("only".into(), o.clone());
            }
            if let Some(o) = order {
                g.insert("order".into(), o.clone());
            }
            p.put("providerOptions", obj!([("gateway", Value::Object(g))]));
        }
    }
    // Last, so sampling parameters override named request fields: 0.87.1
    // `options.samplingParams`; from 1.3 `resolveSamplingParams(model, reasoningEffort ?? "off",
    // options.samplingParams)`.
    if input.has(Change::CompletionsSamplingByEffort) {
        if let Some(sp) = crate::options::resolve_sampling_params(
            input.release,
            input.model,
            options.field("reasoningEffort"),
            options.field("samplingParams"),
        ) {
            p.assign(&sp);
        }
    } else if let Some(sp) = options
        .field("samplingParams")
        .filter(|v| js::truthy(Some(v)))
    {
        p.assign(sp);
    }
    Ok(p.into_value())
}

/// `getClientApiKey(provider, apiKey, headers)`.
fn client_api_key(model: &Model, options: &Map<String, Value>) -> Result<(), AssembleError> {
    if js::truthy(options.field("apiKey")) {
        return Ok(());
    }
    let has = |name: &str| {
        options
            .field("headers")
            .and_then(Value::as_object)
            .is_some_and(|m| {
                m.iter().any(|(k, v)| {
                    k.to_lowercase() == name && v.as_str().is_some_and(|v| !js::trim(v).is_empty())
                })
            })
    };
    if has("authorization") || has("cf-aig-authorization") {
        return Ok(());
    }
    Err(AssembleError::rejected(format!(
        "No API key for provider: {}",
        model.provider()
    )))
}

/// `resolveCacheRetention(cacheRetention, env)`.
fn cache_retention(options: &Map<String, Value>, input: &ApiInput<'_>) -> String {
    match options.field("cacheRetention") {
        Some(Value::String(r)) if !r.is_empty() => r.clone(),
        Some(v) if js::truthy(Some(v)) => stringify(v),
        _ => {
            if provider_env_value("PI_CACHE_RETENTION", options, input.env) == Some("long") {
                "long".into()
            } else {
                "short".into()
            }
        }
    }
}

/// The request headers pi-ai adds (`createClient`), before the SDK's own.
fn request_headers(
    release: PiRelease,
    model: &Model,
    messages: &[Cow<'_, Value>],
    options: &Map<String, Value>,
    session: Option<&str>,
    c: &Compat,
) -> BTreeMap<String, String> {
    let mut h = crate::api::identity_headers(release, model, options);
    h.insert("accept".into(), "application/json".to_string());
    h.insert("content-type".into(), "application/json".to_string());
    h.insert("authorization".into(), "Bearer [redacted]".to_string());
    merge_headers(&mut h, model.get("headers"));
    if model.provider() == "github-copilot" {
        let initiator = match messages.last() {
            Some(m) if str_field(m, "role") != "user" => "agent",
            _ => "user",
        };
        h.insert("x-initiator".into(), initiator.into());
        h.insert("openai-intent".into(), "conversation-edits".into());
        let vision = messages.iter().any(|m| {
            matches!(str_field(m, "role"), "user" | "toolResult")
                && m.field("content")
                    .and_then(Value::as_array)
                    .is_some_and(|a| a.iter().any(|b| is_type(b, "image")))
        });
        if vision {
            h.insert("copilot-vision-request".into(), "true".into());
        }
    }
    if let Some(sid) = session.filter(|s| !s.is_empty()) {
        if c.truthy("sendSessionAffinityHeaders") {
            if c.str("sessionAffinityFormat") == Some("openrouter") {
                h.insert("x-session-id".into(), sid.to_string());
            } else {
                if c.str("sessionAffinityFormat") == Some("openai") {
                    h.insert("session_id".into(), sid.to_string());
                }
                h.insert("x-client-request-id".into(), sid.to_string());
                h.insert("x-session-affinity".into(), sid.to_string());
            }
        }
    }
    merge_headers(&mut h, options.field("headers"));
    h
}

/// `streamSimple`'s options.
fn simple_options(input: &ApiInput<'_>, options: &Map<String, Value>) -> Map<String, Value> {
    let model = input.model;
    let mut base = build_base_options(input.release, model, input.estimate, options);
    if let Some(tc) = options.field("toolChoice") {
        base.insert("toolChoice".into(), tc.clone());
    }
    if let Some(level) = options.field("reasoning").filter(|v| js::truthy(Some(v))) {
        let clamped = clamp_thinking_level(model, level.as_str().unwrap_or(""));
        if clamped != "off" {
            base.insert("reasoningEffort".into(), s(clamped));
        }
    }
    if let Some(b) = options.field("thinkingBudgets") {
        base.insert("thinkingBudgets".into(), b.clone());
    }
    base
}

/// Assembles an `openai-completions` request.
pub fn assemble(input: &ApiInput<'_>) -> Result<ApiOutput, AssembleError> {
    let model = input.model;
    let mut options = input.options.clone();
    if !options.contains_key("apiKey") {
        options.insert("apiKey".into(), s(DUMMY_API_KEY));
    }
    client_api_key(model, &options)?;
    let options = match input.entry {
        Entry::StreamSimple => simple_options(input, &options),
        Entry::Stream => options,
    };
    let c = compat(input.release, model);
    let flagged = c.truthy("supportsMidConvoSystemMessages");
    let messages = resolve_transcript_cow(input.messages, flagged);
    // The system messages of the resolved transcript: all of them, or the one replayed message.
    let head: [&Value; 1];
    let sys_view: &[&Value] = if flagged {
        input.messages
    } else {
        match messages.first() {
            Some(Cow::Owned(h)) if is_system(h) => {
                head = [h];
                &head
            }
            _ => &[],
        }
    };
    let grammar = grammar_tool_input_properties(sys_view, c.truthy("supportsOpenAIGrammarTools"))?;
    let retention = cache_retention(&options, input);
    let session = if retention == "none" {
        None
    } else {
        options.field("sessionId").and_then(Value::as_str)
    };
    let payload = build_params(
        input, &messages, sys_view, &options, &c, &retention, &grammar,
    )?;
    let headers = request_headers(input.release, model, &messages, &options, session, &c);
    let wire = input.post_json(
        crate::api::whatwg_url(&join_url(model.base_url(), "/chat/completions")),
        headers,
        &payload,
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

    fn model(provider: &str, base: &str) -> Model {
        Model::from_value(
            json!({"id":"m","api":"openai-completions","provider":provider,"baseUrl":base}),
        )
        .unwrap()
    }

    #[test]
    fn ids_with_item_part_are_combined_or_hashed() {
        let m = model("groq", "https://api.groq.com/openai/v1");
        assert_eq!(normalize_tool_call_id("call_1|fc_2", &m), "call_1_fc_2");
        let long = format!("call_{}|fc_{}", "a".repeat(30), "b".repeat(30));
        let n = normalize_tool_call_id(&long, &m);
        assert!(n.len() <= 40, "{n}");
        assert!(n.starts_with("call_aaaa"));
        assert_eq!(
            normalize_tool_call_id(&"x".repeat(50), &model("openai", "u")),
            "x".repeat(40)
        );
    }

    #[test]
    fn compat_detection_and_overrides() {
        let c = compat(
            PiRelease::V1_3_0,
            &model("deepseek", "https://api.deepseek.com"),
        );
        assert_eq!(c.str("thinkingFormat"), Some("deepseek"));
        assert_eq!(c.str("maxTokensField"), Some("max_tokens"));
        let m = Model::from_value(json!({"id":"m","api":"openai-completions","provider":"x","baseUrl":"u","compat":{"thinkingFormat":"qwen","supportsStore":null}})).unwrap();
        let c = compat(PiRelease::V1_3_0, &m);
        assert_eq!(c.str("thinkingFormat"), Some("qwen"));
        assert!(c.truthy("supportsStore"));
    }
}
