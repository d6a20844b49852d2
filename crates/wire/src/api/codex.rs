//! `openai-codex-responses` (pi-ai `api/openai-codex-responses.js`). The transport is a WebSocket
//! first, so only the `onPayload` body exists, unless `options.transport` is `"sse"`: then the
//! body goes through fetch to `{baseUrl}/codex/responses`.

use crate::js::Field;
use forge_replay_model::json::parse;
use forge_replay_model::release::Change;
use serde_json::Value;

use crate::api::responses::{simple_options, with_api_key};
use crate::api::responses_shared::{
    convert_responses_messages, convert_responses_tools, grammar_tool_input_properties,
    prompt_cache_key, ConvertOptions, JsObject, ToolOptions,
};
use crate::api::{ApiInput, ApiOutput, Entry};
use crate::error::AssembleError;
use crate::js::{self, obj, s};
use crate::model::Model;
use crate::transcript::{initial_system_message, resolve_transcript, system_message_text};

const CODEX_TOOL_CALL_PROVIDERS: [&str; 3] = ["openai", "openai-codex", "opencode"];
const JWT_CLAIM_PATH: &str = "https://api.openai.com/auth";
/// A JWT-shaped key carrying `chatgpt_account_id` (the oracle harness uses one like it).
const DUMMY_CODEX_KEY: &str = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJodHRwczovL2FwaS5vcGVuYWkuY29tL2F1dGgiOnsiY2hhdGdwdF9hY2NvdW50X2lkIjoiYWNjdF9vcmFjbGUifX0.sig";

fn flag(model: &Model, key: &str, default: bool) -> bool {
    match model.compat_value(key) {
        None | Some(Value::Null) => default,
        v => js::truthy(v),
    }
}

/// `atob` (forgiving base64) followed by a UTF-8-ish decode; `None` when it would throw.
fn atob(input: &str) -> Option<String> {
    let cleaned: String = input
        .chars()
        .filter(|c| !matches!(c, ' ' | '\t' | '\n' | '\x0c' | '\r'))
        .collect();
    let mut data = cleaned.as_str();
    if data.len() % 4 == 0 {
        data = data
            .strip_suffix("==")
            .or_else(|| data.strip_suffix('='))
            .unwrap_or(data);
    }
    if data.len() % 4 == 1 {
        return None;
    }
    let mut bits: u32 = 0;
    let mut nbits = 0;
    let mut bytes = Vec::new();
    for c in data.bytes() {
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
            bytes.push((bits >> nbits) as u8);
        }
    }
    // atob yields a Latin-1 "binary string".
    Some(bytes.into_iter().map(char::from).collect())
}

fn check_account_id(token: &str) -> Result<(), AssembleError> {
    let fail = || AssembleError::rejected("Failed to extract accountId from token");
    let parts: Vec<&str> = token.split('.').collect();
    if parts.len() != 3 {
        return Err(fail());
    }
    let payload = parse(&atob(parts[1]).ok_or_else(fail)?).map_err(|_| fail())?;
    let id = js::get(
        js::get(Some(&payload), JWT_CLAIM_PATH),
        "chatgpt_account_id",
    );
    if !js::truthy(id) {
        return Err(fail());
    }
    Ok(())
}

/// The Responses API rejects `max_output_tokens` below 16.
const MIN_OUTPUT_TOKENS: f64 = 16.0;
/// `reasoning.effort` while `configuration_update` items carry the thinking level (1.6).
const CONFIGURATION_UPDATE_REQUEST_EFFORT: &str = "medium";

/// `resolveReasoningEffort(model, reasoningEffort)`: the provider's effort for a level, `null`
/// when the model takes no reasoning field for it.
fn resolve_reasoning_effort(model: &Model, effort: &Value) -> Value {
    if effort.as_str() == Some("none") {
        match model.thinking_level("off") {
            None => s("none"),
            Some(v) => v.clone(),
        }
    } else {
        crate::api::responses::mapped_level(model, effort)
    }
}

/// `getConfigurationUpdateEffort(model, options)` (1.6, [`Change::CodexConfigurationUpdate`]):
/// with `compat.supportsMidConvoEffort`, the level goes into `configuration_update` items.
fn configuration_update_effort(
    model: &Model,
    options: &serde_json::Map<String, Value>,
) -> Option<Value> {
    if !js::truthy(model.compat_value("supportsMidConvoEffort")) {
        return None;
    }
    let effort = options.field("reasoningEffort")?;
    Some(resolve_reasoning_effort(model, effort)).filter(|v| !v.is_null())
}

/// Assembles an `openai-codex-responses` body.
pub fn assemble(input: &ApiInput<'_>) -> Result<ApiOutput, AssembleError> {
    let model = input.model;
    let options = with_api_key(input, DUMMY_CODEX_KEY);
    if !js::truthy(options.field("apiKey")) {
        return Err(AssembleError::rejected(format!(
            "No API key for provider: {}",
            model.provider()
        )));
    }
    let options = match input.entry {
        Entry::StreamSimple => {
            let mut o = simple_options(input, &options);
            // 1.6: off (or no level) is sent as effort `none` on a reasoning model.
            if input.has(Change::CodexOffAsEffortNone)
                && model.reasoning()
                && !o.contains_key("reasoningEffort")
            {
                o.insert("reasoningEffort".into(), s("none"));
            }
            o
        }
        Entry::Stream => options,
    };
    check_account_id(
        options
            .field("apiKey")
            .and_then(Value::as_str)
            .unwrap_or(""),
    )?;
    let supports_mid = js::truthy(model.compat_value("supportsMidConvoSystemMessages"));
    let messages = resolve_transcript(input.messages, supports_mid);
    let supports_strict = flag(model, "supportsStrictMode", true);
    let supports_grammar = flag(model, "supportsOpenAIGrammarTools", false);
    let supports_additional = flag(model, "supportsAdditionalTools", false);
    let supports_search = flag(model, "supportsToolSearch", false);
    let grammar = grammar_tool_input_properties(&messages, supports_grammar)?;
    let session = if options.field("cacheRetention").and_then(Value::as_str) == Some("none") {
        None
    } else {
        prompt_cache_key(options.field("sessionId"))?
    };
    let tool_options = ToolOptions {
        release: input.release,
        strict: Some(Value::Null),
        supports_strict_mode: Some(supports_strict),
        supports_openai_grammar_tools: supports_grammar,
        tool_search_result: false,
    };
    let config_effort = if input.has(Change::CodexConfigurationUpdate) {
        configuration_update_effort(model, &options)
    } else {
        None
    };
    // 1.6 ([`Change::CodexSystemPromptInInput`]): the system prompt is a leading developer item
    // of `input`, not `instructions`.
    let prompt_in_input = input.has(Change::CodexSystemPromptInInput);
    let convert_options = ConvertOptions {
        release: input.release,
        configuration_update_effort: config_effort.clone(),
        include_system_prompt: prompt_in_input,
        grammar_tool_input_properties: grammar,
        supports_additional_tools: supports_additional,
        supports_tool_search: supports_search,
        supports_mid_convo_system_messages: supports_mid,
        tool_options: tool_options.clone(),
    };
    let request_tools = convert_options.transcript_tools(&messages).request_tools;
    let items = convert_responses_messages(
        model,
        &messages,
        &CODEX_TOOL_CALL_PROVIDERS,
        &convert_options,
    )?;
    let mut b = JsObject::new();
    b.put("model", s(model.id()));
    b.put("store", Value::Bool(false));
    b.put("stream", Value::Bool(true));
    if !prompt_in_input {
        let instructions = initial_system_message(&messages)
            .map(system_message_text)
            .unwrap_or_default();
        b.put(
            "instructions",
            s(if instructions.is_empty() {
                "You are a helpful assistant.".to_string()
            } else {
                instructions
            }),
        );
    }
    b.put("input", Value::Array(items));
    let verbosity = options
        .field("textVerbosity")
        .filter(|v| js::truthy(Some(v)))
        .cloned()
        .unwrap_or_else(|| s("low"));
    b.put("text", obj!([("verbosity", verbosity)]));
    b.put(
        "include",
        Value::Array(vec![s("reasoning.encrypted_content")]),
    );
    b.set("prompt_cache_key", session.clone());
    b.put(
        "tool_choice",
        match options.field("toolChoice") {
            None | Some(Value::Null) => s("auto"),
            Some(v) => v.clone(),
        },
    );
    b.put("parallel_tool_calls", Value::Bool(true));
    if input.has(Change::CodexMaxOutputTokens)
        && js::truthy(options.field("maxTokens"))
        && flag(model, "supportsMaxOutputTokens", true)
    {
        let mt = options
            .field("maxTokens")
            .map_or(f64::NAN, |v| js::to_number(Some(v)));
        b.put(
            "max_output_tokens",
            js::num(js::math_max(mt, MIN_OUTPUT_TOKENS)),
        );
    }
    if let Some(t) = options.field("temperature") {
        b.put("temperature", t.clone());
    }
    if let Some(t) = options.field("serviceTier") {
        b.put("service_tier", t.clone());
    }
    if !request_tools.is_empty() {
        b.put(
            "tools",
            Value::Array(convert_responses_tools(&request_tools, &tool_options)?),
        );
    }
    match options.field("reasoningEffort") {
        Some(effort) => {
            let e = if config_effort.is_some() {
                s(CONFIGURATION_UPDATE_REQUEST_EFFORT)
            } else {
                resolve_reasoning_effort(model, effort)
            };
            if !e.is_null() {
                let summary = match options.field("reasoningSummary") {
                    None | Some(Value::Null) => s("auto"),
                    Some(v) => v.clone(),
                };
                b.put("reasoning", obj!([("effort", e), ("summary", summary)]));
            }
        }
        None => {
            if model.reasoning() && !matches!(model.thinking_level("off"), Some(Value::Null)) {
                b.put(
                    "reasoning",
                    obj!([("effort", crate::api::responses::off_effort(model))]),
                );
            }
        }
    }
    let payload = b.into_value();
    // With `transport: "sse"` the request goes through fetch (zstd-compressed JSON; the body here
    // is the uncompressed text). Otherwise a WebSocket carries it and there is no wire request.
    let wire = (options.field("transport").and_then(Value::as_str) == Some("sse")).then(|| {
        let mut headers = crate::api::identity_headers(input.release, model, &options);
        // `buildBaseCodexHeaders`: from 1.3 `originator` is a default the model's and the
        // caller's headers override; 0.87.1 sets it last.
        let defaults_first = input.release.has(Change::CodexHeaderDefaultsFirst);
        if defaults_first {
            headers.insert("originator".into(), "pi".into());
        }
        crate::api::merge_headers(&mut headers, model.get("headers"));
        crate::api::merge_headers(&mut headers, options.field("headers"));
        let key = options
            .field("apiKey")
            .and_then(Value::as_str)
            .unwrap_or("");
        headers.insert("authorization".into(), format!("Bearer {key}"));
        headers.insert("chatgpt-account-id".into(), "[account]".into());
        if !defaults_first {
            headers.insert("originator".into(), "pi".into());
        }
        headers.insert("openai-beta".into(), "responses=experimental".into());
        headers.insert("accept".into(), "text/event-stream".into());
        headers.insert("content-type".into(), "application/json".into());
        headers.insert("content-encoding".into(), "zstd".into());
        if let Some(sid) = session.as_ref().filter(|v| js::truthy(Some(v))) {
            let sid = js::to_string(Some(sid));
            headers.insert("session-id".into(), sid.clone());
            headers.insert("x-client-request-id".into(), sid);
        }
        input.post_json(codex_url(model.base_url()), headers, &payload)
    });
    Ok(ApiOutput { payload, wire })
}

/// `resolveCodexUrl(baseUrl)`.
fn codex_url(base: &str) -> String {
    let raw = if js::trim(base).is_empty() {
        "https://chatgpt.com/backend-api"
    } else {
        base
    };
    let n = raw.trim_end_matches('/');
    if n.ends_with("/codex/responses") {
        n.to_string()
    } else if n.ends_with("/codex") {
        format!("{n}/responses")
    } else {
        format!("{n}/codex/responses")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dummy_key_carries_an_account() {
        assert!(check_account_id(DUMMY_CODEX_KEY).is_ok());
        assert!(check_account_id("sk-plain").is_err());
    }
}
