//! The ten pi-ai provider APIs and the per-API request builders.
//!
//! Each module exposes `pub fn assemble(input: &ApiInput) -> Result<ApiOutput, AssembleError>`,
//! following that API's `streamSimple`/`stream` in `pi-ai/dist/api/<api>.js`. Input messages are
//! the normalized transcript ([`crate::transcript::normalize_context`]); options are the case's
//! options object (`SimpleStreamOptions` for `streamSimple`, `StreamOptions` for `stream`).

use std::collections::BTreeMap;

use forge_replay_model::json::stringify;
use forge_replay_model::release::{Change, PiRelease};
use serde_json::{Map, Value};

use crate::error::AssembleError;
use crate::js::Field;
use crate::model::Model;
use crate::options::{provider_env_value, Env};

pub mod anthropic;
pub mod azure;
pub mod bedrock;
pub mod codex;
pub mod completions;
pub mod google;
pub mod mistral;
pub mod pi_messages;
pub mod responses;
pub mod responses_shared;

/// pi-ai's `KnownApi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Api {
    OpenAiCompletions,
    MistralConversations,
    OpenAiResponses,
    AzureOpenAiResponses,
    OpenAiCodexResponses,
    AnthropicMessages,
    BedrockConverseStream,
    GoogleGenerativeAi,
    GoogleVertex,
    PiMessages,
}

impl Api {
    /// Every API, in pi-ai's `KnownApi` order.
    pub const ALL: [Api; 10] = [
        Api::OpenAiCompletions,
        Api::MistralConversations,
        Api::OpenAiResponses,
        Api::AzureOpenAiResponses,
        Api::OpenAiCodexResponses,
        Api::AnthropicMessages,
        Api::BedrockConverseStream,
        Api::GoogleGenerativeAi,
        Api::GoogleVertex,
        Api::PiMessages,
    ];

    /// The API's name as pi-ai spells it (`model.api`).
    pub fn name(self) -> &'static str {
        match self {
            Api::OpenAiCompletions => "openai-completions",
            Api::MistralConversations => "mistral-conversations",
            Api::OpenAiResponses => "openai-responses",
            Api::AzureOpenAiResponses => "azure-openai-responses",
            Api::OpenAiCodexResponses => "openai-codex-responses",
            Api::AnthropicMessages => "anthropic-messages",
            Api::BedrockConverseStream => "bedrock-converse-stream",
            Api::GoogleGenerativeAi => "google-generative-ai",
            Api::GoogleVertex => "google-vertex",
            Api::PiMessages => "pi-messages",
        }
    }

    /// Parses an API name.
    pub fn from_name(name: &str) -> Option<Api> {
        Api::ALL.into_iter().find(|a| a.name() == name)
    }

    /// Whether pi-ai sends this API's request through `fetch` by default (so a wire request
    /// exists). Bedrock uses the AWS SDK transport and Codex a WebSocket first (fetch only with
    /// `transport: "sse"`).
    pub fn has_wire(self) -> bool {
        !matches!(self, Api::BedrockConverseStream | Api::OpenAiCodexResponses)
    }
}

impl std::fmt::Display for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which pi-ai entry point is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Entry {
    /// `streamSimple` (the agent's path): reasoning level, clamped `maxTokens`, defaults.
    #[default]
    StreamSimple,
    /// `stream`: provider options passed as they are.
    Stream,
}

impl Entry {
    /// The entry's name in case files.
    pub fn name(self) -> &'static str {
        match self {
            Entry::StreamSimple => "streamSimple",
            Entry::Stream => "stream",
        }
    }
}

/// Everything an API builder reads.
#[derive(Debug, Clone, Copy)]
pub struct ApiInput<'a> {
    /// The Pi release whose pi-ai builds the request.
    pub release: PiRelease,
    /// The resolved model.
    pub model: &'a Model,
    /// The normalized transcript (`normalizeContext(context).messages`), borrowed message by
    /// message (the caller's transcript is never copied to build a request).
    pub messages: &'a [&'a Value],
    /// The case's options object.
    pub options: &'a Map<String, Value>,
    /// Entry point.
    pub entry: Entry,
    /// Process environment stand-in (the case's `env`).
    pub env: &'a Env,
    /// Whether `prefer` strict tools are sent non-strict (`disablePreferredStrictTools`, Anthropic
    /// and Bedrock), and where the builder notes a `prefer` tool it sent strict.
    pub strict: &'a crate::strict::StrictTools,
    /// Whether the HTTP body is written ([`crate::Build::without_body`]).
    pub body: bool,
    /// pi-ai's `estimateContextTokens` of [`ApiInput::messages`] (read once per request).
    pub estimate: &'a crate::options::ContextEstimate<'a>,
}

impl ApiInput<'_> {
    /// [`WireRequest::post_json`], with an empty body when the body is left out.
    pub fn post_json(
        &self,
        url: String,
        headers: BTreeMap<String, String>,
        body: &Value,
    ) -> WireRequest {
        self.post_json_text(url, headers, || {
            let mut text = String::with_capacity(body_capacity_hint());
            forge_replay_model::json::write_compact(&mut text, body);
            text
        })
    }

    /// [`WireRequest::post_json_text`] of the body `write` makes, unless the body is left out.
    pub fn post_json_text(
        &self,
        url: String,
        headers: BTreeMap<String, String>,
        write: impl FnOnce() -> String,
    ) -> WireRequest {
        WireRequest::post_json_text(
            url,
            headers,
            if self.body { write() } else { String::new() },
        )
    }
}

/// The API key pi-ai sees when a case names none: the oracle harness's dummy key.
pub const DUMMY_API_KEY: &str = "oracle-dummy-key";

/// The dummy key of an OpenAI Responses request from 1.3 ([`Change::ResponsesChatGptSignIn`]):
/// an API-key-shaped `sk-` key, so pi-ai takes the API-key path a real OpenAI key takes.
pub const DUMMY_OPENAI_API_KEY: &str = "sk-oracle-dummy-key";

/// The dummy key for `api` under `release`.
pub fn dummy_api_key(release: PiRelease, api: Option<Api>) -> &'static str {
    if api == Some(Api::OpenAiResponses) && release.has(Change::ResponsesChatGptSignIn) {
        DUMMY_OPENAI_API_KEY
    } else {
        DUMMY_API_KEY
    }
}

impl ApiInput<'_> {
    /// `options[key]` (with `null` kept).
    pub fn opt(&self, key: &str) -> Option<&Value> {
        self.options.get(key)
    }

    /// `options[key]` as a string.
    pub fn opt_str(&self, key: &str) -> Option<&str> {
        self.options.get(key).and_then(Value::as_str)
    }

    /// `getProviderEnvValue(name, options.env)`.
    pub fn env_value(&self, name: &str) -> Option<&str> {
        provider_env_value(name, self.options, self.env)
    }

    /// The API key pi-ai receives.
    pub fn api_key(&self) -> &str {
        self.opt_str("apiKey")
            .unwrap_or_else(|| dummy_api_key(self.release, self.model.api()))
    }

    /// Whether `change` is in effect for this request's release.
    #[inline]
    pub fn has(&self, change: Change) -> bool {
        self.release.has(change)
    }
}

/// What a builder produces.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiOutput {
    /// The object pi-ai hands to `onPayload`.
    pub payload: Value,
    /// The HTTP request after SDK serialization, for fetch transports.
    pub wire: Option<WireRequest>,
}

/// An HTTP request as it leaves the SDK.
#[derive(Debug, Clone, PartialEq)]
pub struct WireRequest {
    /// Full URL.
    pub url: String,
    /// HTTP method.
    pub method: String,
    /// Headers, lowercase names, secrets redacted, without machine-dependent `user-agent` and
    /// `x-stainless-*`.
    pub headers: BTreeMap<String, String>,
    /// The body bytes (`JSON.stringify(body)`). Builders write them straight from the payload
    /// (no second copy of the request as a JSON tree); [`WireRequest::body`] parses them back.
    pub body_text: String,
}

impl WireRequest {
    /// A JSON POST of `body`; headers are lowercased, filtered and redacted here.
    pub fn post_json(url: String, headers: BTreeMap<String, String>, body: &Value) -> Self {
        let mut text = String::with_capacity(body_capacity_hint());
        forge_replay_model::json::write_compact(&mut text, body);
        Self::post_json_text(url, headers, text)
    }

    /// A JSON POST whose body bytes are already written (`JSON.stringify` exact).
    pub fn post_json_text(
        url: String,
        headers: BTreeMap<String, String>,
        body_text: String,
    ) -> Self {
        let headers: BTreeMap<String, String> = headers
            .into_iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), v))
            .filter(|(k, _)| k != "user-agent" && !k.starts_with("x-stainless"))
            .collect();
        WireRequest {
            url,
            method: "POST".into(),
            headers: forge_replay_model::redact::redact_headers(&headers),
            body_text,
        }
    }

    /// The request as `fetch` sends it, or `None` when `fetch` refuses its headers. `fetch`
    /// turns the headers into a `Headers` list after pi-ai built the payload and before anything
    /// is sent: each value loses its leading and trailing HTTP whitespace (tab, LF, CR, space: a
    /// token read from a file with its newline is sent without it), and a value that then holds
    /// NUL, CR or LF, or a character above U+00FF (an emoji or a lone surrogate in a session id;
    /// not a ByteString), is a TypeError. Latin-1 passes.
    pub fn as_fetch_sends(mut self) -> Option<WireRequest> {
        for v in self.headers.values_mut() {
            let trimmed = v.trim_matches(['\t', '\n', '\r', ' ']);
            if trimmed
                .chars()
                .any(|c| u32::from(c) > 0xFF || matches!(c, '\0' | '\n' | '\r'))
            {
                return None;
            }
            if trimmed.len() != v.len() {
                *v = trimmed.to_owned();
            }
        }
        Some(self)
    }

    /// The body as JSON (parsed from [`WireRequest::body_text`], lone surrogates kept as
    /// stand-ins; `null` if the text were not JSON, which our writer never produces).
    pub fn body(&self) -> Value {
        forge_replay_model::json::parse(&self.body_text).unwrap_or(Value::Null)
    }
}

/// `JSON.stringify(object)` of a payload object without the top-level keys in `skip` (what an
/// SDK sends after moving those fields elsewhere), written without copying the object.
pub fn stringify_without(payload: &Value, skip: &[&str]) -> String {
    let Value::Object(map) = payload else {
        return stringify(payload);
    };
    let mut out = String::with_capacity(body_capacity_hint());
    out.push('{');
    let mut first = true;
    for (k, v) in map {
        if skip.contains(&k.as_str()) {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        forge_replay_model::json::write_string(&mut out, k);
        out.push(':');
        forge_replay_model::json::write_compact(&mut out, v);
    }
    out.push('}');
    out
}

/// A starting capacity for body text (request bodies of long transcripts are tens of KiB).
fn body_capacity_hint() -> usize {
    16 * 1024
}

/// Adds header values from a JSON object (`Object.assign` of a headers record; `null` deletes).
pub fn merge_headers(into: &mut BTreeMap<String, String>, src: Option<&Value>) {
    let Some(map) = src.and_then(Value::as_object) else {
        return;
    };
    for (k, v) in map {
        let key = k.to_ascii_lowercase();
        match v {
            Value::Null => {
                into.remove(&key);
            }
            Value::String(s) => {
                into.insert(key, s.clone());
            }
            other => {
                into.insert(key, stringify(other));
            }
        }
    }
}

/// The `TypeError` an API's message converter throws on a content of the wrong kind, if any
/// (V8's text, probed against pi-ai 0.87.1): a user content that is neither a string nor an
/// array (reached with `entry: "stream"`; `streamSimple`'s token estimate refuses it first), a
/// tool-result content that is not an array on a model with image input (without image input,
/// pi-ai's image downgrade iterates it first), and, for Mistral, a message of an unknown role
/// whose content is not an array.
pub fn content_type_error(api: Api, model: &Model, messages: &[&Value]) -> Option<String> {
    use Api::*;
    let not_array = |v: Option<&Value>| matches!(v, Some(c) if !c.is_null() && !c.is_array());
    for m in messages {
        let content = m.field("content");
        match m.field("role").and_then(Value::as_str) {
            Some("user") if not_array(content) && !content.is_some_and(Value::is_string) => {
                return Some(
                    match api {
                        OpenAiCompletions => "msg.content.filter is not a function",
                        MistralConversations => "msg.content.some is not a function",
                        BedrockConverseStream => "m.content is not iterable",
                        _ => "msg.content.map is not a function",
                    }
                    .into(),
                );
            }
            // Without image input, the image downgrade iterates the content first (a string
            // iterates as characters).
            Some("toolResult")
                if not_array(content)
                    && !model.supports_images()
                    && !content.is_some_and(Value::is_string) =>
            {
                return Some("content is not iterable".into());
            }
            Some("toolResult") if not_array(content) && model.supports_images() => {
                let text = match api {
                    AnthropicMessages => "content.some is not a function",
                    OpenAiResponses | AzureOpenAiResponses | OpenAiCodexResponses => {
                        "content.filter is not a function"
                    }
                    OpenAiCompletions => "toolMsg.content.filter is not a function",
                    // A string iterates as characters, each without a `text` to sanitize.
                    BedrockConverseStream if content.is_some_and(Value::is_string) => {
                        "Cannot read properties of undefined (reading 'replace')"
                    }
                    BedrockConverseStream => "content is not iterable",
                    _ => "msg.content.filter is not a function",
                };
                return Some(text.into());
            }
            Some("system" | "user" | "assistant" | "toolResult") => {}
            _ if api == MistralConversations && not_array(content) => {
                return Some("msg.content.filter is not a function".into());
            }
            _ => {}
        }
    }
    None
}

/// The lowercased hostname of an absolute URL (`new URL(url).hostname`), `None` when it has no
/// `scheme://`.
fn url_hostname(url: &str) -> Option<String> {
    let (_, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or("");
    let host = if host.starts_with('[') {
        host.split(']')
            .next()
            .map(|h| format!("{h}]"))
            .unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or("").to_string()
    };
    Some(host.to_ascii_lowercase())
}

/// `getAttributionHeaders(model, options.identity)` (1.6, [`Change::IdentityAttributionHeaders`]):
/// provider attribution headers when the request's identity names one (`identity.attribution`),
/// below the model's and the caller's headers. The `User-Agent` half of `getIdentityHeaders` is
/// left out (wire requests never carry the machine-dependent `user-agent`).
pub fn identity_headers(
    release: PiRelease,
    model: &Model,
    options: &Map<String, Value>,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if !release.has(Change::IdentityAttributionHeaders) {
        return out;
    }
    let attribution = crate::js::get(options.get("identity"), "attribution");
    if !crate::js::truthy(attribution) {
        return out;
    }
    let text = |key: &str| match crate::js::get(attribution, key) {
        None => None,
        Some(Value::String(t)) => Some(t.clone()),
        Some(v) => Some(crate::js::to_string(Some(v))),
    };
    let provider = model.provider();
    let base = model.base_url();
    let host = url_hostname(base);
    if provider == "openrouter" || base.contains("openrouter.ai") {
        if let Some(url) = text("url") {
            out.insert("http-referer".into(), url);
        }
        if let Some(name) = text("name") {
            out.insert("x-openrouter-title".into(), name);
        }
        if let Some(Value::Array(categories)) = crate::js::get(attribution, "categories") {
            if !categories.is_empty() {
                let joined: Vec<String> = categories
                    .iter()
                    .map(|c| crate::js::join_element(Some(c)).into_owned())
                    .collect();
                out.insert("x-openrouter-categories".into(), joined.join(","));
            }
        }
    } else if provider == "nvidia" || host.as_deref() == Some("integrate.api.nvidia.com") {
        // NVIDIA expects a capitalized origin, such as `Pi`.
        if let Some(name) = text("name") {
            let mut chars = name.chars();
            let origin = match chars.next() {
                Some(c) => c.to_uppercase().chain(chars).collect(),
                None => String::new(),
            };
            out.insert("x-billing-invoke-origin".into(), origin);
        }
    } else if provider == "opencode"
        || provider == "opencode-go"
        || host.as_deref() == Some("opencode.ai")
    {
        if let Some(name) = text("name") {
            out.insert("x-opencode-client".into(), name);
        }
    }
    out
}

/// `model.compat?.promptCacheKeyMode === "disabled"` (1.6, [`Change::PromptCacheKeyMode`]):
/// the model's endpoint gets no `prompt_cache_key`.
pub fn prompt_cache_key_disabled(model: &Model) -> bool {
    model
        .compat_value("promptCacheKeyMode")
        .and_then(Value::as_str)
        == Some("disabled")
}

/// Runs the builder of `model.api`.
pub fn dispatch(input: &ApiInput<'_>) -> Result<ApiOutput, AssembleError> {
    let api = input.model.api().ok_or_else(|| AssembleError::UnknownApi {
        api: input.model.api_name().to_string(),
    })?;
    match api {
        Api::AnthropicMessages => anthropic::assemble(input),
        Api::OpenAiResponses => responses::assemble(input),
        Api::AzureOpenAiResponses => azure::assemble(input),
        Api::OpenAiCodexResponses => codex::assemble(input),
        Api::OpenAiCompletions => completions::assemble(input),
        Api::MistralConversations => mistral::assemble(input),
        Api::GoogleGenerativeAi | Api::GoogleVertex => google::assemble(input),
        Api::BedrockConverseStream => bedrock::assemble(input),
        Api::PiMessages => pi_messages::assemble(input),
    }
}

/// The string `new URL(url).toString()` gives for an absolute http(s) URL, as the OpenAI and
/// Anthropic SDKs build request URLs: scheme and host lowercased, an empty path becomes `/`, and
/// the path and query are percent-encoded with the WHATWG encode sets (space, `"`, `<`, `>`,
/// `` ` ``, `{`, `}` and non-ASCII in the path; space, `"`, `'`, `<`, `>` and non-ASCII in the
/// query). Anything that does not look like `scheme://host…` is returned as is.
pub fn whatwg_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(host_end);
    let (before_hash, hash) = match tail.split_once('#') {
        Some((a, h)) => (a, Some(h)),
        None => (tail, None),
    };
    let (path, query) = match before_hash.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (before_hash, None),
    };
    let encode = |s: &str, extra: &[u8]| {
        let mut out = String::with_capacity(s.len());
        for &b in s.as_bytes() {
            if b <= 0x20 || b >= 0x7F || extra.contains(&b) {
                out.push_str(&format!("%{b:02X}"));
            } else {
                out.push(b as char);
            }
        }
        out
    };
    let mut out = format!(
        "{}://{}",
        scheme.to_ascii_lowercase(),
        authority.to_ascii_lowercase()
    );
    if path.is_empty() {
        out.push('/');
    } else {
        out.push_str(&encode(path, b"\"<>`{}"));
    }
    if let Some(q) = query {
        out.push('?');
        out.push_str(&encode(q, b"\"'<>"));
    }
    if let Some(h) = hash {
        out.push('#');
        out.push_str(&encode(h, b"\"<>`"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_serialize_like_whatwg() {
        assert_eq!(
            whatwg_url("https://Gateway.AI/v1/{ACCOUNT}/x y/responses"),
            "https://gateway.ai/v1/%7BACCOUNT%7D/x%20y/responses"
        );
        assert_eq!(whatwg_url("https://api.example"), "https://api.example/");
        assert_eq!(whatwg_url("https://h/p?a=b c'"), "https://h/p?a=b%20c%27");
        assert_eq!(whatwg_url("no-scheme"), "no-scheme");
    }

    #[test]
    fn api_names_round_trip() {
        for api in Api::ALL {
            assert_eq!(Api::from_name(api.name()), Some(api));
        }
        assert_eq!(Api::from_name("nope"), None);
    }

    #[test]
    fn wire_headers_are_filtered_and_redacted() {
        let mut h = BTreeMap::new();
        h.insert("User-Agent".to_string(), "pi".to_string());
        h.insert("x-stainless-os".to_string(), "Linux".to_string());
        h.insert("X-Api-Key".to_string(), "secret".to_string());
        h.insert("anthropic-version".to_string(), "2023-06-01".to_string());
        let w = WireRequest::post_json("u".into(), h, &serde_json::json!({"a": 1e21}));
        assert_eq!(w.body_text, r#"{"a":1e+21}"#);
        assert_eq!(w.headers.len(), 2);
        assert_eq!(w.headers["x-api-key"], "[redacted]");
    }
}
