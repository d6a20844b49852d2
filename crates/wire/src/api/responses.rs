//! `openai-responses` (pi-ai `api/openai-responses.js`). URL `{baseUrl}/responses`; the OpenAI SDK
//! sends the params object as is.

use crate::js::Field;
use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::api::anthropic::join_url;
use crate::api::responses_shared::{
    convert_responses_messages, convert_responses_tools, grammar_tool_input_properties,
    prompt_cache_key, ConvertOptions, JsObject, ToolOptions,
};
use crate::api::{merge_headers, ApiInput, ApiOutput, Entry};
use crate::error::AssembleError;
use crate::js::{self, obj, s};
use crate::model::Model;
use crate::options::{
    build_base_options, clamp_thinking_level, resolve_cache_retention, resolve_sampling_params,
};
use crate::transcript::resolve_transcript;
use forge_replay_model::release::Change;

const OPENAI_TOOL_CALL_PROVIDERS: [&str; 3] = ["openai", "openai-codex", "opencode"];
const MIN_OUTPUT_TOKENS: f64 = 16.0;
/// `reasoning.effort` while `configuration_update` items carry the thinking level (1.3).
const CONFIGURATION_UPDATE_REQUEST_EFFORT: &str = "medium";

/// `isChatGPTSignIn(model, apiKey)` (1.3, [`Change::ResponsesChatGptSignIn`]): a credential that
/// is not an `sk-` key, sent straight to OpenAI.
fn is_chatgpt_sign_in(model: &Model, api_key: Option<&Value>) -> bool {
    model.provider() == "openai"
        && model.base_url() == "https://api.openai.com/v1"
        && api_key.is_some()
        && !js::str_or_fault(api_key, "apiKey", "startsWith").starts_with("sk-")
}

/// `getConfigurationUpdateEffort(model, options, compat)` (1.3): the level for
/// `configuration_update` items, or `None` to send it as `reasoning.effort`.
fn configuration_update_effort(
    model: &Model,
    options: &Map<String, Value>,
    sign_in: bool,
) -> Option<Value> {
    let effort = options
        .field("reasoningEffort")
        .filter(|v| js::truthy(Some(v)))?;
    if !flag(model, "supportsMidConvoEffort", false) || sign_in {
        return None;
    }
    Some(mapped_level(model, effort))
}

fn flag(model: &Model, key: &str, default: bool) -> bool {
    match model.compat_value(key) {
        None | Some(Value::Null) => default,
        v => js::truthy(v),
    }
}

fn has_auth_header(headers: Option<&Value>, name: &str) -> bool {
    headers.and_then(Value::as_object).is_some_and(|m| {
        m.iter().any(|(k, v)| {
            k.to_lowercase() == name && v.as_str().is_some_and(|v| !js::trim(v).is_empty())
        })
    })
}

/// `getClientApiKey(provider, apiKey, headers)`.
pub(crate) fn client_api_key(
    model: &Model,
    options: &Map<String, Value>,
) -> Result<String, AssembleError> {
    if let Some(k) = options.field("apiKey").filter(|v| js::truthy(Some(v))) {
        return Ok(k.as_str().unwrap_or("").to_string());
    }
    let h = options.field("headers");
    if has_auth_header(h, "authorization") || has_auth_header(h, "cf-aig-authorization") {
        return Ok("unused".into());
    }
    Err(AssembleError::rejected(format!(
        "No API key for provider: {}",
        model.provider()
    )))
}

/// The options object `streamSimple` hands to `stream` for the Responses family.
pub(crate) fn simple_options(
    input: &ApiInput<'_>,
    options: &Map<String, Value>,
) -> Map<String, Value> {
    let mut base = build_base_options(input.release, input.model, input.estimate, options);
    if let Some(tc) = options.field("toolChoice") {
        base.insert("toolChoice".into(), tc.clone());
    }
    if let Some(level) = options.field("reasoning").filter(|v| js::truthy(Some(v))) {
        let clamped = clamp_thinking_level(input.model, level.as_str().unwrap_or(""));
        if clamped != "off" {
            base.insert("reasoningEffort".into(), s(clamped));
        }
    }
    base
}

/// Options with the harness's dummy key when the case sets none.
pub(crate) fn with_api_key(input: &ApiInput<'_>, key: &str) -> Map<String, Value> {
    let mut options = input.options.clone();
    if !options.contains_key("apiKey") {
        options.insert("apiKey".into(), s(key));
    }
    options
}

/// Assembles an `openai-responses` request.
pub fn assemble(input: &ApiInput<'_>) -> Result<ApiOutput, AssembleError> {
    let model = input.model;
    let options = with_api_key(
        input,
        crate::api::dummy_api_key(input.release, input.model.api()),
    );
    let options = match input.entry {
        Entry::StreamSimple => {
            client_api_key(model, &options)?;
            simple_options(input, &options)
        }
        Entry::Stream => options,
    };
    let api_key = client_api_key(model, &options)?;
    let supports_mid = flag(model, "supportsMidConvoSystemMessages", false);
    let messages = resolve_transcript(input.messages, supports_mid);
    let retention = resolve_cache_retention(&options, input.env);
    let supports_strict = flag(model, "supportsStrictMode", false);
    let supports_grammar = flag(model, "supportsOpenAIGrammarTools", false);
    let supports_additional = flag(model, "supportsAdditionalTools", false);
    let supports_search = flag(model, "supportsToolSearch", false);
    let explicit_cache = flag(model, "supportsExplicitPromptCacheMode", false);
    let long_cache = flag(model, "supportsLongCacheRetention", true);
    let grammar = grammar_tool_input_properties(&messages, supports_grammar)?;
    let tool_options = ToolOptions {
        release: input.release,
        strict: None,
        supports_strict_mode: Some(supports_strict),
        supports_openai_grammar_tools: supports_grammar,
        tool_search_result: false,
    };
    let sign_in = input.has(Change::ResponsesChatGptSignIn)
        && is_chatgpt_sign_in(model, options.field("apiKey"));
    let config_effort = if input.has(Change::ResponsesConfigurationUpdate) {
        configuration_update_effort(model, &options, sign_in)
    } else {
        None
    };
    let convert_options = ConvertOptions {
        release: input.release,
        configuration_update_effort: config_effort.clone(),
        include_system_prompt: true,
        grammar_tool_input_properties: grammar,
        supports_additional_tools: supports_additional,
        supports_tool_search: supports_search,
        supports_mid_convo_system_messages: supports_mid,
        tool_options: tool_options.clone(),
    };
    let request_tools = convert_options.transcript_tools(&messages).request_tools;
    let input_items = convert_responses_messages(
        model,
        &messages,
        &OPENAI_TOOL_CALL_PROVIDERS,
        &convert_options,
    )?;
    let cache_key = if retention == "none"
        || (input.has(Change::PromptCacheKeyMode) && crate::api::prompt_cache_key_disabled(model))
    {
        None
    } else {
        prompt_cache_key(options.field("sessionId"))?
    };
    let session = options
        .field("sessionId")
        .filter(|v| js::truthy(Some(v)))
        .map(|v| js::to_string(Some(v)));
    let mut p = JsObject::new();
    p.put("model", s(model.id()));
    p.put("input", Value::Array(input_items));
    p.put("stream", Value::Bool(true));
    p.set("prompt_cache_key", cache_key);
    p.set(
        "prompt_cache_retention",
        (!sign_in && retention == "long" && long_cache && !explicit_cache).then(|| s("24h")),
    );
    p.set(
        "prompt_cache_options",
        if !explicit_cache || sign_in {
            None
        } else if retention == "none" {
            Some(obj!([("mode", s("explicit"))]))
        } else if retention == "long" && long_cache {
            Some(obj!([("ttl", s("30m"))]))
        } else {
            None
        },
    );
    p.put("store", Value::Bool(false));
    if js::truthy(options.field("maxTokens"))
        && flag(model, "supportsMaxOutputTokens", true)
        && !sign_in
    {
        let mt = options
            .field("maxTokens")
            .map_or(f64::NAN, |v| js::to_number(Some(v)));
        p.put(
            "max_output_tokens",
            js::num(js::math_max(mt, MIN_OUTPUT_TOKENS)),
        );
    }
    if let (Some(t), false) = (options.field("temperature"), sign_in) {
        p.put("temperature", t.clone());
    }
    if let Some(t) = options.field("serviceTier") {
        p.put("service_tier", t.clone());
    }
    if !request_tools.is_empty() {
        p.put(
            "tools",
            Value::Array(convert_responses_tools(&request_tools, &tool_options)?),
        );
    }
    if let Some(tc) = options.field("toolChoice") {
        p.put("tool_choice", tc.clone());
    }
    let reasoning = Reasoning::of(input, &options);
    if model.reasoning() {
        let effort = options
            .field("reasoningEffort")
            .filter(|v| js::truthy(Some(v)));
        let summary = options
            .field("reasoningSummary")
            .filter(|v| js::truthy(Some(v)));
        if reasoning.requested {
            let effort = match (effort, &config_effort) {
                (_, Some(_)) => s(CONFIGURATION_UPDATE_REQUEST_EFFORT),
                (Some(e), None) => mapped_level(model, e),
                (None, None) => s("medium"),
            };
            p.put(
                "reasoning",
                obj!([
                    ("effort", effort),
                    ("summary", summary.cloned().unwrap_or_else(|| s("auto"))),
                ]),
            );
            p.put(
                "include",
                Value::Array(vec![s("reasoning.encrypted_content")]),
            );
        } else if model.provider() != "github-copilot"
            && !matches!(model.thinking_level("off"), Some(Value::Null))
        {
            p.put("reasoning", obj!([("effort", off_effort(model))]));
        }
        if model.provider() == "xai" {
            p.put(
                "include",
                Value::Array(vec![s("reasoning.encrypted_content")]),
            );
        }
    }
    if let Some(sp) = reasoning.sampling(input, &options) {
        p.assign(&sp);
    }
    let params = p.into_value();

    let mut headers = crate::api::identity_headers(input.release, model, &options);
    headers.insert("accept".to_string(), "application/json".to_string());
    headers.insert("content-type".into(), "application/json".into());
    headers.insert("authorization".into(), format!("Bearer {api_key}"));
    merge_headers(&mut headers, model.get("headers"));
    if model.provider() == "github-copilot" {
        copilot_headers(&mut headers, &messages);
    }
    if let (Some(sid), false) = (session, retention == "none") {
        let openrouter_default =
            model.provider() == "openrouter" || model.base_url().contains("openrouter.ai");
        let format = match model.compat_value("sessionAffinityFormat") {
            None | Some(Value::Null) => if openrouter_default {
                "openrouter"
            } else {
                "openai"
            }
            .to_string(),
            Some(v) => v.as_str().unwrap_or("").to_string(),
        };
        if format == "openrouter" {
            headers.insert("x-session-id".into(), sid.clone());
        } else {
            if format == "openai" {
                let name = if input.has(Change::ResponsesSessionIdHeader) {
                    "session-id"
                } else {
                    "session_id"
                };
                headers.insert(name.into(), sid.clone());
            }
            headers.insert("x-client-request-id".into(), sid);
        }
    }
    merge_headers(&mut headers, options.field("headers"));
    let url = crate::api::whatwg_url(&join_url(model.base_url(), "/responses"));
    Ok(ApiOutput {
        wire: Some(input.post_json(url, headers, &params)),
        payload: params,
    })
}

/// How a Responses request reads its reasoning options (`openai-responses.js`,
/// `azure-openai-responses.js` `buildParams`).
pub(crate) struct Reasoning {
    /// Whether `reasoning` is sent with an effort (0.87.1: `reasoningEffort || reasoningSummary`;
    /// 1.3: `reasoningEffort ?? (reasoningSummary ? "medium" : undefined)` is truthy).
    pub requested: bool,
    /// 1.3's `reasoningEffort` (`None` for `undefined`).
    pub effort: Option<Value>,
}

impl Reasoning {
    pub(crate) fn of(input: &ApiInput<'_>, options: &Map<String, Value>) -> Reasoning {
        let summary = js::truthy(options.field("reasoningSummary"));
        let effort = options.field("reasoningEffort");
        if !input.has(Change::ResponsesSamplingByEffort) {
            return Reasoning {
                requested: js::truthy(effort) || summary,
                effort: None,
            };
        }
        let effort = match effort {
            None | Some(Value::Null) => summary.then(|| s("medium")),
            Some(v) => Some(v.clone()),
        };
        Reasoning {
            requested: js::truthy(effort.as_ref()),
            effort,
        }
    }

    /// The sampling parameters assigned last: 0.87.1 `options.samplingParams`; 1.3
    /// `resolveSamplingParams(model, reasoningEffort ?? "off", options.samplingParams)`.
    pub(crate) fn sampling(
        &self,
        input: &ApiInput<'_>,
        options: &Map<String, Value>,
    ) -> Option<Value> {
        if input.has(Change::ResponsesSamplingByEffort) {
            resolve_sampling_params(
                input.release,
                input.model,
                self.effort.as_ref(),
                options.field("samplingParams"),
            )
        } else {
            options
                .field("samplingParams")
                .filter(|v| js::truthy(Some(v)))
                .cloned()
        }
    }
}

/// `model.thinkingLevelMap?.[level] ?? level`.
pub(crate) fn mapped_level(model: &Model, level: &Value) -> Value {
    let key = level.as_str().unwrap_or("");
    match model.thinking_level(key) {
        None | Some(Value::Null) => level.clone(),
        Some(v) => v.clone(),
    }
}

/// `model.thinkingLevelMap?.off ?? "none"`.
pub(crate) fn off_effort(model: &Model) -> Value {
    match model.thinking_level("off") {
        None | Some(Value::Null) => s("none"),
        Some(v) => v.clone(),
    }
}

/// GitHub Copilot's dynamic headers.
pub(crate) fn copilot_headers<M: std::borrow::Borrow<Value>>(
    headers: &mut BTreeMap<String, String>,
    messages: &[M],
) {
    let last = messages.last().map(std::borrow::Borrow::borrow);
    let initiator = if last.is_some_and(|m| crate::transcript::role(m) != "user") {
        "agent"
    } else {
        "user"
    };
    headers.insert("x-initiator".into(), initiator.into());
    headers.insert("openai-intent".into(), "conversation-edits".into());
    let has_images = messages
        .iter()
        .map(std::borrow::Borrow::borrow)
        .any(|m: &Value| {
            matches!(crate::transcript::role(m), "user" | "toolResult")
                && m.field("content")
                    .and_then(Value::as_array)
                    .is_some_and(|c| c.iter().any(|b| js::str_of(b, "type") == Some("image")))
        });
    if has_images {
        headers.insert("copilot-vision-request".into(), "true".into());
    }
}
