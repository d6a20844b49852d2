//! Shared conversion for the Responses family (pi-ai `api/openai-responses-shared.js`), used by
//! openai-responses, azure-openai-responses and openai-codex-responses.

use crate::js::Field;
use std::collections::HashMap;

use forge_replay_model::json::{parse, stringify};
use forge_replay_model::release::{Change, PiRelease};
use serde_json::{Map, Value};

use crate::constrained::{
    json_schema_tool_parameters, resolve_grammar_constrained_sampling,
    resolve_json_schema_strict_sampling,
};
use crate::error::AssembleError;
use crate::hash::short_hash;
use crate::js::{self, obj, s};
use crate::model::Model;
use crate::transcript::{
    render_system_message_update, role, system_message_text, transcript_tools, ToolSupport,
    TranscriptTools,
};
use crate::transform::transform_messages_cow;

/// A JavaScript object under construction whose keys may hold `undefined` (kept for their
/// position, dropped when serialized), so that later assignments land where JavaScript puts them.
#[derive(Debug, Default, Clone)]
pub struct JsObject {
    entries: Vec<(String, Option<Value>)>,
}

impl JsObject {
    /// An empty object.
    pub fn new() -> Self {
        JsObject::default()
    }

    /// `obj[key] = value` (`None` is `undefined`).
    pub fn set(&mut self, key: &str, value: Option<Value>) {
        match self.entries.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => self.entries.push((key.to_string(), value)),
        }
    }

    /// `obj[key] = value`.
    pub fn put(&mut self, key: &str, value: Value) {
        self.set(key, Some(value));
    }

    /// `Object.assign(obj, src)`.
    pub fn assign(&mut self, src: &Value) {
        if let Some(m) = src.as_object() {
            for (k, v) in forge_replay_model::json::js_key_order(m) {
                self.set(k, Some(v.clone()));
            }
        }
    }

    /// The JSON value (`undefined` properties dropped).
    pub fn into_value(self) -> Value {
        let mut m = Map::with_capacity(self.entries.len());
        for (k, v) in self.entries {
            if let Some(v) = v {
                m.insert(k, v);
            }
        }
        Value::Object(m)
    }
}

/// Tool conversion options (`convertResponsesTools`'s second argument).
#[derive(Debug, Clone)]
pub struct ToolOptions {
    /// The release whose strict-schema rules apply.
    pub release: PiRelease,
    /// `strict` (`None` = undefined, which means `false`).
    pub strict: Option<Value>,
    /// `supportsStrictMode` (`None` = undefined = true).
    pub supports_strict_mode: Option<bool>,
    /// `supportsOpenAIGrammarTools`.
    pub supports_openai_grammar_tools: bool,
    /// `toolSearchResult`.
    pub tool_search_result: bool,
}

/// `convertResponsesTools(tools, options)`.
pub fn convert_responses_tools(
    tools: &[Value],
    options: &ToolOptions,
) -> Result<Vec<Value>, AssembleError> {
    let default_strict = options.strict.clone().unwrap_or(Value::Bool(false));
    let supports_strict = options.supports_strict_mode.unwrap_or(true);
    let mut out = Vec::with_capacity(tools.len());
    for tool in tools {
        if let Some(g) =
            resolve_grammar_constrained_sampling(tool, options.supports_openai_grammar_tools)?
        {
            let mut m = Map::new();
            m.insert("type".into(), s("custom"));
            crate::constrained::insert_defined(&mut m, "name", tool.field("name"));
            crate::constrained::insert_defined(&mut m, "description", tool.field("description"));
            m.insert(
                "format".into(),
                obj!([
                    ("type", s("grammar")),
                    ("syntax", s(g.format)),
                    ("definition", s(g.definition)),
                ]),
            );
            if options.tool_search_result {
                m.insert("defer_loading".into(), Value::Bool(true));
            }
            out.push(Value::Object(m));
            continue;
        }
        let constrained =
            resolve_json_schema_strict_sampling(options.release, tool, supports_strict)?;
        let strict = match constrained {
            Some(b) => Value::Bool(b),
            None => default_strict.clone(),
        };
        let mut m = Map::new();
        m.insert("type".into(), s("function"));
        crate::constrained::insert_defined(&mut m, "name", tool.field("name"));
        crate::constrained::insert_defined(&mut m, "description", tool.field("description"));
        let params =
            json_schema_tool_parameters(tool, (strict == Value::Bool(true)).then_some(true));
        if tool.field("parameters").is_some() || strict == Value::Bool(true) {
            m.insert("parameters".into(), params);
        }
        if options.tool_search_result {
            m.insert("defer_loading".into(), Value::Bool(true));
        }
        if supports_strict {
            m.insert("strict".into(), strict);
        }
        out.push(Value::Object(m));
    }
    Ok(out)
}

/// `createGrammarToolInputProperties(tools, supports)`: tool name → input property.
pub fn grammar_tool_input_properties<M: std::borrow::Borrow<Value>>(
    messages: &[M],
    supports: bool,
) -> Result<HashMap<String, String>, AssembleError> {
    let mut out = HashMap::new();
    for tool in crate::transcript::declared_tool_refs(messages) {
        if let Some(g) = resolve_grammar_constrained_sampling(tool, supports)? {
            out.insert(
                js::str_of(tool, "name").unwrap_or("").to_string(),
                g.input_property,
            );
        }
    }
    Ok(out)
}

/// `convertResponsesMessages`'s options.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    /// The release whose `convertResponsesMessages` runs.
    pub release: PiRelease,
    /// `configurationUpdateEffort` (1.3, [`Change::ResponsesConfigurationUpdate`]): the thinking
    /// level sent in `configuration_update` items.
    pub configuration_update_effort: Option<Value>,
    /// `includeSystemPrompt` (default true).
    pub include_system_prompt: bool,
    /// Grammar tools by name.
    pub grammar_tool_input_properties: HashMap<String, String>,
    /// `supportsAdditionalTools`.
    pub supports_additional_tools: bool,
    /// `supportsToolSearch`.
    pub supports_tool_search: bool,
    /// `supportsMidConvoSystemMessages` (read from 1.6 on, by `getResponsesToolSupport`).
    pub supports_mid_convo_system_messages: bool,
    /// Options for tool conversion inside the transcript.
    pub tool_options: ToolOptions,
}

impl ConvertOptions {
    /// How tool changes are expressed: 1.6's `getResponsesToolSupport(options)`
    /// ([`Change::ResponsesToolSupportModes`]): `changes` with mid-conversation system messages
    /// and `additional_tools`, else `additions` with tool search, else `none`. Before 1.6,
    /// additions whenever either `additional_tools` or tool search is supported.
    pub fn tool_support(&self) -> ToolSupport {
        if self.release.has(Change::ResponsesToolSupportModes) {
            if self.supports_mid_convo_system_messages && self.supports_additional_tools {
                ToolSupport::Changes
            } else if self.supports_tool_search {
                ToolSupport::Additions
            } else {
                ToolSupport::None
            }
        } else if self.supports_additional_tools || self.supports_tool_search {
            ToolSupport::Additions
        } else {
            ToolSupport::None
        }
    }

    /// `resolveTranscriptTools(messages, toolSupport)` for these options.
    pub fn transcript_tools<M: std::borrow::Borrow<Value>>(
        &self,
        messages: &[M],
    ) -> TranscriptTools {
        transcript_tools(self.release, messages, self.tool_support())
    }
}

/// `renderIncrementalToolsNotice(unavailable)` (1.6): precedes every `additional_tools` item
/// after the first.
fn incremental_tools_notice(unavailable: &[String]) -> String {
    let notice = "This is an incremental tools update. Previously declared tools remain available unless explicitly marked unavailable. A tool declared again here is available again, and its latest definition replaces the earlier one.";
    if unavailable.is_empty() {
        notice.to_string()
    } else {
        format!("{notice}\nStill unavailable: {}.", unavailable.join(", "))
    }
}

/// `renderToolRemovalNotice(names)` (1.6).
fn tool_removal_notice(names: &[String]) -> String {
    let list: Vec<String> = names.iter().map(|n| format!("- {n}")).collect();
    format!(
        "The following tools are no longer available. Do not call them:\n{}",
        list.join("\n")
    )
}

fn normalize_id_part(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    for unit in js::utf16_units(part) {
        let c = char::from_u32(u32::from(unit))
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-');
        out.push(c.unwrap_or('_'));
        if out.len() == 64 {
            break;
        }
    }
    out.trim_end_matches('_').to_string()
}

fn split_pipe(id: &str) -> (&str, Option<&str>) {
    let mut parts = id.split('|');
    let first = parts.next().unwrap_or("");
    (first, parts.next())
}

fn text_signature(sig: Option<&Value>) -> Option<(String, Option<String>)> {
    let sig = sig.filter(|v| js::truthy(Some(v)))?;
    let text = match sig {
        Value::String(t) => t.clone(),
        other => stringify(other),
    };
    if text.starts_with('{') {
        if let Ok(parsed) = parse(&text) {
            if parsed.field("v").and_then(js::as_f64) == Some(1.0) {
                if let Some(Value::String(id)) = parsed.field("id") {
                    let phase = parsed
                        .field("phase")
                        .and_then(Value::as_str)
                        .filter(|p| *p == "commentary" || *p == "final_answer")
                        .map(str::to_string);
                    return Some((id.clone(), phase));
                }
            }
        }
    }
    Some((text, None))
}

fn tool_result_output(release: PiRelease, model: &Model, content: &[Value]) -> Value {
    let texts: Vec<_> = content
        .iter()
        .filter(|c| js::str_of(c, "type") == Some("text"))
        .map(|c| js::join_element(c.field("text")))
        .collect();
    let text = texts.join("\n");
    let images: Vec<&Value> = content
        .iter()
        .filter(|c| js::str_of(c, "type") == Some("image"))
        .collect();
    // 1.6 ([`Change::BlankToolOutputIsNoOutput`]): whitespace alone is no text.
    let has_text = if release.has(Change::BlankToolOutputIsNoOutput) {
        !js::trim(&text).is_empty()
    } else {
        !text.is_empty()
    };
    if images.is_empty() || !model.supports_images() {
        let t = if has_text {
            text.as_str()
        } else if !images.is_empty() {
            "(see attached image)"
        } else {
            "(no tool output)"
        };
        return s(js::sanitize_surrogates(t).into_owned());
    }
    let mut out = Vec::new();
    if has_text {
        out.push(obj!([
            ("type", s("input_text")),
            ("text", s(js::sanitize_surrogates(&text).into_owned())),
        ]));
    }
    for img in images {
        out.push(input_image(img));
    }
    Value::Array(out)
}

fn input_image(img: &Value) -> Value {
    let mime = js::to_string(img.field("mimeType"));
    let data = js::to_string(img.field("data"));
    obj!([
        ("type", s("input_image")),
        ("detail", s("auto")),
        ("image_url", s(format!("data:{mime};base64,{data}"))),
    ])
}

/// `convertResponsesMessages(model, context, allowedToolCallProviders, options)` over a transcript
/// that is already resolved (collapsed when the model lacks mid-conversation system messages).
pub fn convert_responses_messages<M: std::borrow::Borrow<Value>>(
    model: &Model,
    messages: &[M],
    allowed_tool_call_providers: &[&str],
    options: &ConvertOptions,
) -> Result<Vec<Value>, AssembleError> {
    let allowed = allowed_tool_call_providers.contains(&model.provider());
    let normalize = |id: Option<&Value>, _target: &Model, source: &Value| -> String {
        // `normalizeIdPart(id)` (`part.replace`) when the provider is not allowed, else
        // `id.includes("|")` first.
        let id = if allowed {
            js::str_or_fault(id, "id", "includes")
        } else {
            js::str_or_fault(id, "part", "replace")
        };
        if !allowed || !id.contains('|') {
            return normalize_id_part(id);
        }
        let (call_id, item_id) = split_pipe(id);
        let item_id = item_id.unwrap_or("");
        let foreign = js::str_of(source, "provider") != Some(model.provider())
            || js::str_of(source, "api") != Some(model.api_name());
        let mut item = if foreign {
            let n = format!("fc_{}", short_hash(item_id));
            js::slice_utf16(&n, 64).into_owned()
        } else {
            normalize_id_part(item_id)
        };
        if !item.starts_with("fc_") {
            item = normalize_id_part(&format!("fc_{item}"));
        }
        format!("{}|{item}", normalize_id_part(call_id))
    };
    let transformed = transform_messages_cow(
        options.release,
        messages.iter().map(std::borrow::Borrow::borrow),
        model,
        Some(&normalize),
    );
    let item_id_prefix_rule = options.release.has(Change::ResponsesItemIdPrefix);
    let configuration_update = |effort: Value| {
        obj!([
            ("type", s("configuration_update")),
            ("reasoning", obj!([("effort", effort)])),
        ])
    };
    let support = options.tool_support();
    let folded = options.transcript_tools(messages).folded_system_messages;
    let notices = options.release.has(Change::ResponsesToolSupportModes);
    // 1.6: `changes` declares in `additional_tools` items, `additions` loads through tool
    // search; before, `additional_tools` whenever supported, else tool search.
    let (emit_additional, emit_search) = if notices {
        (
            support == ToolSupport::Changes,
            support == ToolSupport::Additions,
        )
    } else {
        (
            options.supports_additional_tools,
            !options.supports_additional_tools && options.supports_tool_search,
        )
    };
    let instruction_role = if model.reasoning()
        && model.compat_value("supportsDeveloperRole") != Some(&Value::Bool(false))
    {
        "developer"
    } else {
        "system"
    };
    let grammar = &options.grammar_tool_input_properties;
    let mut out: Vec<Value> = Vec::with_capacity(transformed.len() + 4);
    let mut msg_index: usize = 0;
    let mut system_index: usize = 0;
    let mut declared_additional_tools = false;
    // Tools announced as removed and not declared again since, in insertion order.
    let mut unavailable: Vec<String> = Vec::new();
    for (source_index, msg) in transformed.iter().map(|m| m.as_ref()).enumerate() {
        let leading = source_index == 0 && role(msg) == "system";
        match role(msg) {
            "system" => {
                let anchors = system_index >= folded;
                system_index += 1;
                if anchors {
                    let tools = js::arr(msg, "toolsAdded");
                    for t in tools {
                        let name = js::to_string(t.field("name"));
                        unavailable.retain(|n| *n != name);
                    }
                    if !tools.is_empty() {
                        if emit_additional {
                            if notices && declared_additional_tools {
                                out.push(obj!([
                                    ("role", s(instruction_role)),
                                    ("content", s(incremental_tools_notice(&unavailable))),
                                ]));
                            }
                            declared_additional_tools = true;
                            out.push(obj!([
                                ("type", s("additional_tools")),
                                ("role", s("developer")),
                                (
                                    "tools",
                                    Value::Array(convert_responses_tools(
                                        tools,
                                        &options.tool_options,
                                    )?),
                                ),
                            ]));
                        } else if emit_search {
                            let names: Vec<String> = tools
                                .iter()
                                .map(|t| js::str_of(t, "name").unwrap_or("").to_string())
                                .collect();
                            let call_id = format!(
                                "pi_tool_load_{}",
                                short_hash(&format!("system:{msg_index}:{}", names.join(",")))
                            );
                            out.push(obj!([
                                ("type", s("tool_search_call")),
                                ("call_id", s(call_id.clone())),
                                ("execution", s("client")),
                                ("status", s("completed")),
                                (
                                    "arguments",
                                    obj!([
                                        ("query", s(names.join(" "))),
                                        ("limit", Value::from(names.len())),
                                    ]),
                                ),
                            ]));
                            let mut topts = options.tool_options.clone();
                            topts.tool_search_result = true;
                            out.push(obj!([
                                ("type", s("tool_search_output")),
                                ("call_id", s(call_id)),
                                ("execution", s("client")),
                                ("status", s("completed")),
                                (
                                    "tools",
                                    Value::Array(convert_responses_tools(tools, &topts)?),
                                ),
                            ]));
                        }
                    }
                }
                if !leading || options.include_system_prompt {
                    let mut text = if leading {
                        system_message_text(msg)
                    } else {
                        render_system_message_update(msg)
                    };
                    if notices && anchors {
                        // A redefinition is a removal plus an addition of the same name; only
                        // true removals are announced.
                        let added: Vec<String> = js::arr(msg, "toolsAdded")
                            .iter()
                            .map(|t| js::to_string(t.field("name")))
                            .collect();
                        let removed: Vec<String> = js::arr(msg, "toolsRemoved")
                            .iter()
                            .map(|t| js::to_string(t.field("name")))
                            .filter(|n| !added.contains(n))
                            .collect();
                        if !removed.is_empty() {
                            let notice = tool_removal_notice(&removed);
                            text = if text.is_empty() {
                                notice
                            } else {
                                format!("{text}\n\n{notice}")
                            };
                        }
                        for name in removed {
                            if !unavailable.contains(&name) {
                                unavailable.push(name);
                            }
                        }
                    }
                    if !text.is_empty() {
                        out.push(obj!([
                            ("role", s(instruction_role)),
                            ("content", s(js::sanitize_surrogates(&text).into_owned())),
                        ]));
                    }
                }
            }
            "user" => match msg.field("content") {
                Some(Value::String(t)) => {
                    out.push(obj!([
                        ("role", s("user")),
                        (
                            "content",
                            Value::Array(vec![obj!([
                                ("type", s("input_text")),
                                ("text", s(js::sanitize_surrogates(t).into_owned())),
                            ])]),
                        ),
                    ]));
                }
                _ => {
                    let content: Vec<Value> = js::arr(msg, "content")
                        .iter()
                        .map(|item| {
                            if js::str_of(item, "type") == Some("text") {
                                obj!([
                                    ("type", s("input_text")),
                                    ("text", s(js::sanitize(item.field("text")).into_owned()),),
                                ])
                            } else {
                                input_image(item)
                            }
                        })
                        .collect();
                    if content.is_empty() {
                        continue;
                    }
                    out.push(obj!([
                        ("role", s("user")),
                        ("content", Value::Array(content)),
                    ]));
                }
            },
            "assistant" => {
                let same_pa = js::str_of(msg, "provider") == Some(model.provider())
                    && js::str_of(msg, "api") == Some(model.api_name());
                let same_model = same_pa && js::str_of(msg, "model") == Some(model.id());
                let different_model = same_pa && js::str_of(msg, "model") != Some(model.id());
                let mut output = Vec::new();
                let mut text_index = 0usize;
                for block in js::arr(msg, "content") {
                    match js::str_of(block, "type") {
                        Some("thinking") => {
                            if let Some(sig) = block
                                .field("thinkingSignature")
                                .filter(|v| js::truthy(Some(v)))
                            {
                                let text: std::borrow::Cow<'_, str> = match sig {
                                    Value::String(t) => t.as_str().into(),
                                    other => stringify(other).into(),
                                };
                                // Whatever our parser accepts, V8's `JSON.parse` accepts too; only
                                // a failure needs V8's exact message.
                                let item = match parse(&text) {
                                    Ok(item) => item,
                                    Err(e) => match js::json_parse_error(&text) {
                                        // JSON.parse throws: pi-ai fails with V8's message.
                                        Some(message) => {
                                            return Err(AssembleError::rejected(message))
                                        }
                                        None => {
                                            return Err(AssembleError::rejected(format!(
                                                "thinkingSignature is not valid JSON ({e})"
                                            )))
                                        }
                                    },
                                };
                                output.push(item);
                            }
                        }
                        Some("text") => {
                            let parsed = text_signature(block.field("textSignature"));
                            let fallback = if text_index == 0 {
                                format!("msg_pi_{msg_index}")
                            } else {
                                format!("msg_pi_{msg_index}_{text_index}")
                            };
                            text_index += 1;
                            let mut id = parsed.as_ref().map(|p| p.0.clone()).unwrap_or_default();
                            if id.is_empty() {
                                id = fallback;
                            } else if js::len(&id) > 64 {
                                id = format!("msg_{}", short_hash(&id));
                            }
                            let mut m = Map::with_capacity(6);
                            m.insert("type".into(), s("message"));
                            m.insert("role".into(), s("assistant"));
                            m.insert(
                                "content".into(),
                                Value::Array(vec![obj!([
                                    ("type", s("output_text")),
                                    ("text", s(js::sanitize(block.field("text")).into_owned()),),
                                    ("annotations", Value::Array(Vec::new())),
                                ])]),
                            );
                            m.insert("status".into(), s("completed"));
                            m.insert("id".into(), s(id));
                            if let Some((_, Some(phase))) = parsed {
                                m.insert("phase".into(), s(phase));
                            }
                            output.push(Value::Object(m));
                        }
                        Some("toolCall") => {
                            // `toolCall.id.split("|")`
                            let full_id =
                                js::str_or_fault(block.field("id"), "toolCall.id", "split");
                            let (call_id, item_raw) = split_pipe(full_id);
                            let name = js::str_of(block, "name").unwrap_or("");
                            let custom = grammar.get(name);
                            let mut item_id = item_raw;
                            if item_id_prefix_rule {
                                // 1.3: another model's id, or one whose prefix is not the item
                                // type's (`fc_` function call, `ctc_` custom tool call), is dropped.
                                let prefix = if custom.is_none() { "fc_" } else { "ctc_" };
                                if different_model
                                    || !item_id.is_some_and(|i| i.starts_with(prefix))
                                {
                                    item_id = None;
                                }
                            } else {
                                let starts_fc = item_id.is_some_and(|i| i.starts_with("fc_"));
                                if (different_model && starts_fc)
                                    || (custom.is_none() && !starts_fc)
                                {
                                    item_id = None;
                                }
                            }
                            let mut m = Map::with_capacity(6);
                            if let Some(prop) = custom {
                                let input = match js::get(block.field("arguments"), prop) {
                                    Some(Value::String(t)) => t.clone(),
                                    _ => {
                                        return Err(AssembleError::rejected(format!(
                                            "Grammar tool call \"{name}\" requires argument \"{prop}\" to be a string."
                                        )))
                                    }
                                };
                                m.insert("type".into(), s("custom_tool_call"));
                                if let Some(i) = item_id {
                                    m.insert("id".into(), s(i));
                                }
                                m.insert("call_id".into(), s(call_id));
                                crate::constrained::insert_defined(
                                    &mut m,
                                    "name",
                                    block.field("name"),
                                );
                                m.insert(
                                    "input".into(),
                                    s(js::sanitize_surrogates(&input).into_owned()),
                                );
                            } else {
                                m.insert("type".into(), s("function_call"));
                                if let Some(i) = item_id {
                                    m.insert("id".into(), s(i));
                                }
                                m.insert("call_id".into(), s(call_id));
                                crate::constrained::insert_defined(
                                    &mut m,
                                    "name",
                                    block.field("name"),
                                );
                                if let Some(args) = block.field("arguments") {
                                    m.insert("arguments".into(), s(stringify(args)));
                                }
                            }
                            if same_model {
                                if let Some(ns) = block.field("namespace") {
                                    m.insert("namespace".into(), ns.clone());
                                }
                            }
                            output.push(Value::Object(m));
                        }
                        _ => {}
                    }
                }
                if output.is_empty() {
                    continue;
                }
                if let (Some(_), true, Some(level)) = (
                    &options.configuration_update_effort,
                    same_model,
                    msg.field("providerThinkingLevel"),
                ) {
                    out.push(configuration_update(level.clone()));
                }
                out.extend(output);
            }
            "toolResult" => {
                let (call_id, _) = split_pipe(js::str_or_fault(
                    msg.field("toolCallId"),
                    "msg.toolCallId",
                    "split",
                ));
                let output = tool_result_output(options.release, model, js::arr(msg, "content"));
                let tool_name = js::str_of(msg, "toolName").unwrap_or("");
                let ty = if msg.field("toolName").is_some() && grammar.contains_key(tool_name) {
                    "custom_tool_call_output"
                } else {
                    "function_call_output"
                };
                out.push(obj!([
                    ("type", s(ty)),
                    ("call_id", s(call_id)),
                    ("output", output),
                ]));
            }
            _ => {}
        }
        if !leading {
            msg_index += 1;
        }
    }
    if let Some(effort) = &options.configuration_update_effort {
        out.push(configuration_update(effort.clone()));
    }
    Ok(out)
}

/// `clampOpenAIPromptCacheKey(key)`: at most 64 code points.
pub fn clamp_prompt_cache_key(key: &str) -> String {
    key.chars().take(64).collect()
}

/// `clampOpenAIPromptCacheKey(options.sessionId)` for any JSON value: `Array.from(key)` refuses
/// `null` with V8's text; a number, boolean or object has no iterable elements and is kept as
/// it is; an array longer than 64 is cut and joined.
pub fn prompt_cache_key(key: Option<&Value>) -> Result<Option<Value>, AssembleError> {
    match key {
        None => Ok(None),
        Some(Value::Null) => Err(AssembleError::rejected(
            "object null is not iterable (cannot read property Symbol(Symbol.iterator))",
        )),
        Some(Value::String(k)) => Ok(Some(Value::String(clamp_prompt_cache_key(k)))),
        Some(Value::Array(a)) if a.len() > 64 => Ok(Some(Value::String(
            a[..64]
                .iter()
                .map(|x| match x {
                    Value::Null => String::new(),
                    other => crate::js::to_string(Some(other)),
                })
                .collect::<String>(),
        ))),
        Some(v) => Ok(Some(v.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_parts_are_sanitized_and_trimmed() {
        assert_eq!(normalize_id_part("call/é x__"), "call___x");
        assert_eq!(normalize_id_part(&"a".repeat(70)).len(), 64);
        assert_eq!(split_pipe("a|b|c"), ("a", Some("b")));
        assert_eq!(split_pipe("a"), ("a", None));
    }

    #[test]
    fn text_signatures() {
        let v = |s: &str| Value::String(s.to_string());
        assert_eq!(
            text_signature(Some(&v(r#"{"v":1,"id":"msg_1","phase":"final_answer"}"#))),
            Some(("msg_1".to_string(), Some("final_answer".to_string())))
        );
        assert_eq!(
            text_signature(Some(&v(r#"{"v":1,"id":"m","phase":"other"}"#))),
            Some(("m".to_string(), None))
        );
        assert_eq!(
            text_signature(Some(&v(r#"{"v":2}"#))),
            Some((r#"{"v":2}"#.to_string(), None))
        );
        assert_eq!(text_signature(Some(&v(""))), None);
    }

    #[test]
    fn js_object_keeps_undefined_positions() {
        let mut o = JsObject::new();
        o.put("a", Value::from(1));
        o.set("b", None);
        o.put("c", Value::from(3));
        o.assign(&serde_json::json!({"b": 2, "d": 4}));
        assert_eq!(
            forge_replay_model::json::stringify(&o.into_value()),
            r#"{"a":1,"b":2,"c":3,"d":4}"#
        );
    }

    #[test]
    fn prompt_cache_key_is_clamped_by_code_points() {
        let k = "😀".repeat(70);
        assert_eq!(clamp_prompt_cache_key(&k).chars().count(), 64);
    }
}
