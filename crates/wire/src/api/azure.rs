//! `azure-openai-responses` (pi-ai `api/azure-openai-responses.js`). The AzureOpenAI client posts
//! to `{baseUrl}/responses?api-version={version}` with an `api-key` header.
//!
//! Environment: `AZURE_OPENAI_DEPLOYMENT_NAME_MAP` (`id=name,…`), `AZURE_OPENAI_API_VERSION`
//! (default `v1`), `AZURE_OPENAI_BASE_URL`, `AZURE_OPENAI_RESOURCE_NAME`.

use crate::js::Field;

use serde_json::{Map, Value};

use crate::api::responses::{mapped_level, off_effort, simple_options, with_api_key};
use crate::api::responses_shared::{
    convert_responses_messages, convert_responses_tools, grammar_tool_input_properties,
    prompt_cache_key, ConvertOptions, JsObject, ToolOptions,
};
use crate::api::{merge_headers, ApiInput, ApiOutput, Entry};
use crate::error::AssembleError;
use crate::js::{self, obj, s};
use crate::model::Model;
use crate::transcript::resolve_transcript;
use forge_replay_model::release::Change;

const AZURE_TOOL_CALL_PROVIDERS: [&str; 4] = [
    "openai",
    "openai-codex",
    "opencode",
    "azure-openai-responses",
];
/// 1.3 ([`Change::AzureToolCallProviderRenamed`]): the provider is `azure`.
const AZURE_TOOL_CALL_PROVIDERS_1_3: [&str; 4] = ["openai", "openai-codex", "opencode", "azure"];
const DEFAULT_AZURE_API_VERSION: &str = "v1";

fn flag(model: &Model, key: &str, default: bool) -> bool {
    match model.compat_value(key) {
        None | Some(Value::Null) => default,
        v => js::truthy(v),
    }
}

fn opt_truthy_str<'a>(options: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    options
        .get(key)
        .filter(|v| js::truthy(Some(v)))
        .and_then(Value::as_str)
}

fn deployment_name(input: &ApiInput<'_>, options: &Map<String, Value>) -> String {
    if let Some(d) = opt_truthy_str(options, "azureDeploymentName") {
        return d.to_string();
    }
    let model = input.model;
    if let Some(map) =
        crate::options::provider_env_value("AZURE_OPENAI_DEPLOYMENT_NAME_MAP", options, input.env)
    {
        let mut found: Option<String> = None;
        for entry in map.split(',') {
            let t = js::trim(entry);
            if t.is_empty() {
                continue;
            }
            // split("=", 2): at most two parts.
            let mut parts = t.splitn(3, '=');
            let id = parts.next().unwrap_or("");
            let name = parts.next().unwrap_or("");
            if id.is_empty() || name.is_empty() {
                continue;
            }
            if js::trim(id) == model.id() {
                found = Some(js::trim(name).to_string());
            }
        }
        if let Some(f) = found.filter(|f| !f.is_empty()) {
            return f;
        }
    }
    model.id().to_string()
}

/// `normalizeAzureBaseUrl` (WHATWG URL serialization for plain http(s) URLs).
fn normalize_azure_base_url(base: &str) -> Result<String, AssembleError> {
    let invalid = || AssembleError::rejected(format!("Invalid Azure OpenAI base URL: {base}"));
    let trimmed = js::trim(base).trim_end_matches('/');
    let (scheme, rest) = trimmed.split_once("://").ok_or_else(invalid)?;
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return Err(invalid());
    }
    let scheme = scheme.to_ascii_lowercase();
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(host_end);
    if authority.is_empty() {
        return Err(invalid());
    }
    let authority = authority.to_ascii_lowercase();
    let (path_q, hash) = match tail.split_once('#') {
        Some((a, h)) => (a, Some(h)),
        None => (tail, None),
    };
    let (path, search) = match path_q.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (path_q, None),
    };
    let hostname = authority
        .rsplit('@')
        .next()
        .unwrap_or("")
        .split(':')
        .next()
        .unwrap_or("");
    let is_azure = hostname.ends_with(".openai.azure.com")
        || hostname.ends_with(".cognitiveservices.azure.com")
        || hostname.ends_with(".ai.azure.com");
    let normalized_path = path.trim_end_matches('/');
    let mut path = if path.is_empty() && (scheme == "http" || scheme == "https") {
        "/".to_string()
    } else {
        path.to_string()
    };
    let mut search = search.map(|q| format!("?{q}")).unwrap_or_default();
    if is_azure
        && matches!(
            normalized_path,
            "" | "/" | "/openai" | "/openai/v1/responses"
        )
    {
        path = "/openai/v1".into();
        search.clear();
    }
    if search == "?" {
        search.clear();
    }
    let hash = hash.map(|h| format!("#{h}")).unwrap_or_default();
    let url = format!("{scheme}://{authority}{path}{search}{hash}");
    Ok(url.trim_end_matches('/').to_string())
}

/// Assembles an `azure-openai-responses` request.
pub fn assemble(input: &ApiInput<'_>) -> Result<ApiOutput, AssembleError> {
    let model = input.model;
    let options = with_api_key(input, crate::api::DUMMY_API_KEY);
    let no_key =
        || AssembleError::rejected(format!("No API key for provider: {}", model.provider()));
    if !js::truthy(options.field("apiKey")) {
        return Err(no_key());
    }
    let options = match input.entry {
        Entry::StreamSimple => simple_options(input, &options),
        Entry::Stream => options,
    };
    let api_key = options
        .field("apiKey")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let supports_mid = js::truthy(model.compat_value("supportsMidConvoSystemMessages"));
    let messages = resolve_transcript(input.messages, supports_mid);
    let deployment = deployment_name(input, &options);

    // createClient runs before buildParams: the base URL must resolve.
    let env = |name: &str| crate::options::provider_env_value(name, &options, input.env);
    let api_version = opt_truthy_str(&options, "azureApiVersion")
        .or_else(|| env("AZURE_OPENAI_API_VERSION"))
        .unwrap_or(DEFAULT_AZURE_API_VERSION)
        .to_string();
    let base = options
        .field("azureBaseUrl")
        .and_then(Value::as_str)
        .map(js::trim)
        .filter(|s| !s.is_empty())
        .or_else(|| {
            env("AZURE_OPENAI_BASE_URL")
                .map(js::trim)
                .filter(|s| !s.is_empty())
        })
        .map(str::to_string);
    let resource =
        opt_truthy_str(&options, "azureResourceName").or_else(|| env("AZURE_OPENAI_RESOURCE_NAME"));
    let resolved = base
        .or_else(|| resource.map(|r| format!("https://{r}.openai.azure.com/openai/v1")))
        .or_else(|| (!model.base_url().is_empty()).then(|| model.base_url().to_string()))
        .ok_or_else(|| {
            AssembleError::rejected(
                "Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, or pass azureBaseUrl, azureResourceName, or model.baseUrl.",
            )
        })?;
    let base_url = normalize_azure_base_url(&resolved)?;

    let supports_grammar = flag(model, "supportsOpenAIGrammarTools", false);
    let supports_additional = flag(model, "supportsAdditionalTools", false);
    let supports_search = flag(model, "supportsToolSearch", false);
    let supports_strict = flag(model, "supportsStrictMode", true);
    let grammar = grammar_tool_input_properties(&messages, supports_grammar)?;
    let tool_options = ToolOptions {
        release: input.release,
        strict: None,
        supports_strict_mode: Some(supports_strict),
        supports_openai_grammar_tools: supports_grammar,
        tool_search_result: false,
    };
    let convert_options = ConvertOptions {
        release: input.release,
        configuration_update_effort: None,
        include_system_prompt: true,
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
        if input.has(Change::AzureToolCallProviderRenamed) {
            &AZURE_TOOL_CALL_PROVIDERS_1_3
        } else {
            &AZURE_TOOL_CALL_PROVIDERS
        },
        &convert_options,
    )?;
    let mut p = JsObject::new();
    p.put("model", s(deployment));
    p.put("input", Value::Array(items));
    p.put("stream", Value::Bool(true));
    let key_disabled =
        input.has(Change::PromptCacheKeyMode) && crate::api::prompt_cache_key_disabled(model);
    p.set(
        "prompt_cache_key",
        if key_disabled {
            None
        } else {
            prompt_cache_key(options.field("sessionId"))?
        },
    );
    p.put("store", Value::Bool(false));
    if js::truthy(options.field("maxTokens")) {
        let mt = options
            .field("maxTokens")
            .map_or(f64::NAN, |v| js::to_number(Some(v)));
        p.put("max_output_tokens", js::num(js::math_max(mt, 16.0)));
    }
    if let Some(t) = options.field("temperature") {
        p.put("temperature", t.clone());
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
    let reasoning = crate::api::responses::Reasoning::of(input, &options);
    if model.reasoning() {
        let effort = options
            .field("reasoningEffort")
            .filter(|v| js::truthy(Some(v)));
        let summary = options
            .field("reasoningSummary")
            .filter(|v| js::truthy(Some(v)));
        if reasoning.requested {
            let effort = effort.map_or_else(|| s("medium"), |e| mapped_level(model, e));
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
        } else if !matches!(model.thinking_level("off"), Some(Value::Null)) {
            p.put("reasoning", obj!([("effort", off_effort(model))]));
        }
    }
    if let Some(sp) = reasoning.sampling(input, &options) {
        p.assign(&sp);
    }
    let params = p.into_value();

    let mut headers = crate::api::identity_headers(input.release, model, &options);
    headers.insert("accept".to_string(), "application/json".to_string());
    headers.insert("content-type".into(), "application/json".into());
    headers.insert("api-key".into(), api_key);
    merge_headers(&mut headers, model.get("headers"));
    merge_headers(&mut headers, options.field("headers"));
    let url = crate::api::whatwg_url(&format!(
        "{base_url}/responses?api-version={}",
        encode_query(&api_version)
    ));
    Ok(ApiOutput {
        wire: Some(input.post_json(url, headers, &params)),
        payload: params,
    })
}

fn encode_query(v: &str) -> String {
    let mut out = String::new();
    for b in v.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_normalization() {
        assert_eq!(
            normalize_azure_base_url("https://X.openai.azure.com/").unwrap(),
            "https://x.openai.azure.com/openai/v1"
        );
        assert_eq!(
            normalize_azure_base_url("https://x.openai.azure.com/openai?a=1").unwrap(),
            "https://x.openai.azure.com/openai/v1"
        );
        assert_eq!(
            normalize_azure_base_url("https://proxy.example/v1/").unwrap(),
            "https://proxy.example/v1"
        );
        assert!(normalize_azure_base_url("not a url").is_err());
    }
}
