//! `anthropic-messages` (pi-ai `api/anthropic-messages.js`).
//!
//! `payload` is `buildParams(...)`; the wire body is the same object without `betas`, which the
//! Anthropic SDK sends as the `anthropic-beta` header. URL `{baseUrl}/v1/messages?beta=true`.

use crate::js::Field;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

use crate::api::{merge_headers, ApiInput, ApiOutput, Entry};
use crate::constrained::{
    insert_defined, json_schema_tool_parameters, resolve_json_schema_strict_sampling_with,
    KeywordRule,
};
use crate::error::AssembleError;
use crate::js::{self, obj, s};
use crate::model::Model;
use crate::options::{
    adjust_max_tokens_for_thinking, build_base_options, clamp_max_tokens_to_context,
    resolve_cache_retention,
};
use crate::resume::Reuse;
use crate::strict::StrictTools;
use crate::thread::ThreadInfo;
use crate::transcript::{
    current_tools, declared_tools, has_tool_redefinitions, initial_system_message,
    render_system_message_update, resolve_transcript, system_message_text,
};
use crate::transform::{
    split_error_tool_result_images, transform_messages_cow, transform_messages_tracked,
};
use forge_replay_model::release::Change;

const FINE_GRAINED_TOOL_STREAMING_BETA: &str = "fine-grained-tool-streaming-2025-05-14";
const INTERLEAVED_THINKING_BETA: &str = "interleaved-thinking-2025-05-14";
const SERVER_SIDE_FALLBACK_BETA: &str = "server-side-fallback-2026-07-01";
const MID_CONVERSATION_OUTPUT_CONFIG_BETA: &str = "mid-conversation-output-config-2026-07-01";
const THINKING_BINDING_CONTROLS_BETA: &str = "thinking-binding-controls-2026-08-01";
const MID_CONVERSATION_TOOL_CHANGES_BETA: &str = "mid-conversation-tool-changes-2026-07-01";
/// 1.3 ([`Change::AnthropicInlineToolsBeta`]).
const INLINE_TOOLS_BETA: &str = "inline-tools-2026-09-15";
/// 1.6 ([`Change::AnthropicMessageThreads`]).
pub(crate) const MESSAGE_THREADS_BETA: &str = "message-threads-2026-08-12";
const CLAUDE_CODE_IDENTITY: &str = "You are Claude Code, Anthropic's official CLI for Claude.";

const CLAUDE_CODE_TOOLS: [&str; 17] = [
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "KillShell",
    "NotebookEdit",
    "Skill",
    "Task",
    "TaskOutput",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
];

fn to_claude_code_name(name: &str) -> String {
    let lower = name.to_lowercase();
    CLAUDE_CODE_TOOLS
        .iter()
        .find(|t| t.to_lowercase() == lower)
        .map_or_else(|| name.to_string(), |t| t.to_string())
}

fn deferred_placeholder() -> Value {
    obj!([
        ("name", s("__pi_deferred_placeholder__")),
        (
            "description",
            s("Reserved placeholder. Never available. Never call this."),
        ),
        (
            "input_schema",
            obj!([
                ("type", s("object")),
                ("properties", Value::Object(Map::new())),
                ("required", Value::Array(Vec::new())),
            ]),
        ),
        ("defer_loading", Value::Bool(true)),
    ])
}

/// `getAnthropicCompat(model)`.
struct Compat {
    eager_tool_input_streaming: bool,
    long_cache_retention: bool,
    send_session_affinity_headers: bool,
    session_affinity_openrouter: bool,
    cache_control_on_tools: bool,
    temperature: bool,
    allow_empty_signature: bool,
    strict_tools: bool,
    mid_convo_system: bool,
    mid_convo_tool_changes: bool,
    /// 1.6: `supportsMessageThreads ?? baseUrl.includes("api.anthropic.com")`.
    message_threads: bool,
}

fn flag(model: &Model, key: &str, default: bool) -> bool {
    match model.compat_value(key) {
        None | Some(Value::Null) => default,
        v => js::truthy(v),
    }
}

fn compat(model: &Model) -> Compat {
    let openrouter = model.provider() == "openrouter" || model.base_url().contains("openrouter.ai");
    let format = match model.compat_value("sessionAffinityFormat") {
        None | Some(Value::Null) => openrouter.then_some("openrouter"),
        Some(v) => v.as_str(),
    };
    Compat {
        eager_tool_input_streaming: flag(model, "supportsEagerToolInputStreaming", true),
        long_cache_retention: flag(model, "supportsLongCacheRetention", true),
        send_session_affinity_headers: flag(model, "sendSessionAffinityHeaders", openrouter),
        session_affinity_openrouter: format == Some("openrouter"),
        cache_control_on_tools: flag(model, "supportsCacheControlOnTools", true),
        temperature: flag(model, "supportsTemperature", true),
        allow_empty_signature: flag(model, "allowEmptySignature", false),
        strict_tools: flag(model, "supportsStrictTools", false),
        mid_convo_system: flag(model, "supportsMidConvoSystemMessages", false),
        mid_convo_tool_changes: flag(model, "supportsMidConvoToolChanges", false),
        message_threads: flag(
            model,
            "supportsMessageThreads",
            model.base_url().contains("api.anthropic.com"),
        ),
    }
}

/// `normalizeToolCallId`: `[^a-zA-Z0-9_-]` → `_` per UTF-16 unit, at most 64 units.
fn normalize_tool_call_id(id: &str, _model: &Model, _source: &Value) -> String {
    let mut out = String::with_capacity(id.len());
    for unit in js::utf16_units(id) {
        let c = char::from_u32(u32::from(unit))
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-');
        out.push(c.unwrap_or('_'));
        if out.len() == 64 {
            break;
        }
    }
    out
}

/// `sanitizeSurrogates(value)` (a non-string is pi-ai's `TypeError`, see [`js::sanitize`]).
fn sanitize(v: Option<&Value>) -> Value {
    s(js::sanitize(v).into_owned())
}

fn text_str(v: Option<&Value>) -> &str {
    v.and_then(Value::as_str).unwrap_or("")
}

/// `mapThinkingLevelToEffort(model, level)`.
fn map_thinking_level_to_effort(model: &Model, level: &str) -> String {
    if let Some(Value::String(m)) = model.thinking_level(level) {
        return m.clone();
    }
    match level {
        "minimal" | "low" => "low",
        "medium" => "medium",
        _ => "high",
    }
    .to_string()
}

fn assert_request_auth(
    input: &ApiInput<'_>,
    api_key: Option<&Value>,
    headers: Option<&Value>,
) -> Result<(), AssembleError> {
    if js::truthy(api_key) {
        return Ok(());
    }
    let has = |name: &str| {
        headers.and_then(Value::as_object).is_some_and(|m| {
            m.iter().any(|(k, v)| {
                k.to_lowercase() == name && v.as_str().is_some_and(|v| !js::trim(v).is_empty())
            })
        })
    };
    if has("authorization") || has("x-api-key") || has("cf-aig-authorization") {
        return Ok(());
    }
    Err(AssembleError::rejected(format!(
        "No API key for provider: {}",
        input.model.provider()
    )))
}

/// Assembles an `anthropic-messages` request.
pub fn assemble(input: &ApiInput<'_>) -> Result<ApiOutput, AssembleError> {
    assemble_threaded(input, None).map(|(out, _, _)| out)
}

/// An Anthropic request, its message-thread settings and what its message list shares with the
/// previous request of a walk.
type Threaded = (ApiOutput, Option<ThreadInfo>, Reuse);

/// [`assemble`], and the message-thread settings of the request when threads apply (1.6,
/// [`Change::AnthropicMessageThreads`]). The wire body is then the `create` form, what the
/// first request of a session sends in a fresh process; [`crate::thread::Threads`] derives the
/// others. With `memo` (what the previous request of a walk left, and how many leading messages
/// this one shares with it) the message list resumes from the previous one's ([`Memo`]).
pub(crate) fn assemble_threaded(
    input: &ApiInput<'_>,
    memo: Option<(&mut Memo, usize)>,
) -> Result<Threaded, AssembleError> {
    let model = input.model;
    // The harness passes `apiKey` (a dummy unless the case sets one).
    let mut options = input.options.clone();
    if !options.contains_key("apiKey") {
        options.insert("apiKey".into(), s(crate::api::DUMMY_API_KEY));
    }
    let stream_options = match input.entry {
        Entry::Stream => options,
        Entry::StreamSimple => {
            assert_request_auth(input, options.field("apiKey"), options.field("headers"))?;
            let mut base = build_base_options(input.release, model, input.estimate, &options);
            if let Some(tc) = options.field("toolChoice") {
                base.insert("toolChoice".into(), tc.clone());
            }
            let reasoning = options.field("reasoning").filter(|v| js::truthy(Some(v)));
            match reasoning {
                None => {
                    base.insert("thinkingEnabled".into(), Value::Bool(false));
                }
                Some(level) => {
                    let level = level.as_str().unwrap_or("");
                    if model.compat_true("forceAdaptiveThinking") {
                        base.insert("thinkingEnabled".into(), Value::Bool(true));
                        base.insert(
                            "effort".into(),
                            s(map_thinking_level_to_effort(model, level)),
                        );
                    } else {
                        // A `null` maxTokens is a NaN (JSON has no NaN): still defined.
                        let base_max = base
                            .field("maxTokens")
                            .map(|v| js::as_f64(v).unwrap_or(f64::NAN));
                        let (adj_max, adj_budget) = adjust_max_tokens_for_thinking(
                            base_max,
                            model.max_tokens_number(),
                            level,
                            options.field("thinkingBudgets"),
                        );
                        let max = clamp_max_tokens_to_context(
                            input.release,
                            model,
                            input.estimate,
                            adj_max,
                        );
                        base.insert("maxTokens".into(), js::num(max));
                        base.insert("thinkingEnabled".into(), Value::Bool(true));
                        base.insert(
                            "thinkingBudgetTokens".into(),
                            js::num(js::math_min(adj_budget, js::math_max(0.0, max - 1024.0))),
                        );
                    }
                }
            }
            base
        }
    };
    stream(input, &stream_options, memo)
}

fn stream(
    input: &ApiInput<'_>,
    options: &Map<String, Value>,
    memo: Option<(&mut Memo, usize)>,
) -> Result<Threaded, AssembleError> {
    let model = input.model;
    let c = compat(model);
    if input.entry == Entry::Stream {
        assert_request_auth(input, options.field("apiKey"), options.field("headers"))?;
    }
    let messages = resolve_transcript(input.messages, c.mid_convo_system);
    let api_key = options
        .field("apiKey")
        .and_then(Value::as_str)
        .unwrap_or("");
    let is_oauth = model.provider() != "github-copilot" && api_key.contains("sk-ant-oat");
    let retention = resolve_cache_retention(options, input.env);
    // `threadSessionId = compat.supportsMessageThreads ? cacheSessionId : undefined`, where
    // `cacheSessionId` is `options.sessionId` unless retention is `none` (any defined value,
    // even an empty string or null, keys the thread state).
    let thread = (input.has(Change::AnthropicMessageThreads)
        && c.message_threads
        && retention != "none")
        .then(|| options.field("sessionId"))
        .flatten()
        .map(|sid| ThreadInfo {
            session: forge_replay_model::json::stringify(sid),
            // `options?.disableContinuation !== true` (`buildBaseOptions` copies it as it is).
            continuation: input.options.field("disableContinuation") != Some(&Value::Bool(true)),
            is_oauth,
            allow_empty_signature: c.allow_empty_signature,
        });
    let mut memo = memo.filter(|_| c.mid_convo_system);
    let (params, reuse) = build_params(
        input,
        &c,
        &messages,
        is_oauth,
        options,
        thread.is_some(),
        memo.as_mut().map(|(m, shared)| (&mut **m, *shared)),
    )?;

    // Wire: the SDK moves `betas` to the `anthropic-beta` header.
    let betas = params.field("betas");
    let mut headers = BTreeMap::new();
    headers.insert("accept".to_string(), "application/json".to_string());
    headers.insert(
        "anthropic-dangerous-direct-browser-access".into(),
        "true".into(),
    );
    // `if (sessionId && …)`: an empty id sends no affinity header.
    let session = options
        .field("sessionId")
        .filter(|sid| js::truthy(Some(sid)) && retention != "none")
        .map(|sid| js::to_string(Some(sid)));
    if model.provider() == "github-copilot" {
        headers.insert("authorization".into(), format!("Bearer {api_key}"));
        let last_user = input.messages.last().map(|m| crate::transcript::role(m)) == Some("user");
        headers.insert(
            "x-initiator".into(),
            if last_user || input.messages.is_empty() {
                "user"
            } else {
                "agent"
            }
            .into(),
        );
        headers.insert("openai-intent".into(), "conversation-edits".into());
    } else if is_oauth {
        headers.insert("authorization".into(), format!("Bearer {api_key}"));
        headers.insert("x-app".into(), "cli".into());
    } else {
        if let (Some(sid), true) = (session, c.send_session_affinity_headers) {
            let name = if c.session_affinity_openrouter {
                "x-session-id"
            } else {
                "x-session-affinity"
            };
            headers.insert(name.into(), sid);
        }
        if !api_key.is_empty() {
            headers.insert("x-api-key".into(), api_key.to_string());
        }
    }
    merge_headers(&mut headers, model.get("headers"));
    merge_headers(&mut headers, options.field("headers"));
    headers.insert("anthropic-version".into(), "2023-06-01".into());
    headers.insert("content-type".into(), "application/json".into());
    if let Some(Value::Array(b)) = betas {
        let joined: Vec<String> = b
            .iter()
            .map(|v| v.as_str().unwrap_or("").to_string())
            .collect();
        headers.insert("anthropic-beta".into(), joined.join(","));
    }
    let url = crate::api::whatwg_url(&join_url(model.base_url(), "/v1/messages?beta=true"));
    // A fresh process holds no thread for the session: a threaded request is a `create`.
    let wire = input.post_json_text(url, headers, || match &thread {
        Some(t) if t.continuation => {
            crate::thread::body_text(&params, &[], None, Some(&crate::thread::ThreadForm::Create))
        }
        _ => match memo {
            Some((memo, _)) => memo.body_text(&params, reuse),
            None => crate::api::stringify_without(&params, &["betas"]),
        },
    });
    Ok((
        ApiOutput {
            payload: params,
            wire: Some(wire),
        },
        thread,
        reuse,
    ))
}

/// The reply of a threaded request as the next request will send it
/// (`convertMessages(transformMessages([output], model, normalizeToolCallId), isOAuth, undefined,
/// allowEmptySignature)`, assistant messages only): what `recordThreadReply` hashes.
pub(crate) fn convert_reply(
    release: forge_replay_model::release::PiRelease,
    model: &Model,
    output: &Value,
    is_oauth: bool,
    allow_empty_signature: bool,
) -> Result<Vec<Value>, AssembleError> {
    let transformed = transform_messages_cow(
        release,
        std::iter::once(output),
        model,
        Some(&|id, m, source| {
            normalize_tool_call_id(js::str_or_fault(id, "id", "replace"), m, source)
        }),
    );
    let (converted, _) = convert_messages(
        &transformed,
        is_oauth,
        None,
        allow_empty_signature,
        None,
        &ToolChanges::None,
        release,
    )?;
    Ok(converted
        .into_iter()
        .filter(|m| js::str_of(m, "role") == Some("assistant"))
        .collect())
}

/// The SDK's URL join: one slash between base and path.
pub(crate) fn join_url(base: &str, path: &str) -> String {
    if base.ends_with('/') && path.starts_with('/') {
        format!("{base}{}", &path[1..])
    } else {
        format!("{base}{path}")
    }
}

fn cache_control(
    model: &Model,
    c: &Compat,
    options: &Map<String, Value>,
    input: &ApiInput<'_>,
) -> Option<Value> {
    let retention = resolve_cache_retention(options, input.env);
    if retention == "none" {
        return None;
    }
    let mut m = Map::new();
    m.insert("type".into(), s("ephemeral"));
    if retention == "long" && c.long_cache_retention {
        m.insert("ttl".into(), s("1h"));
    }
    let _ = model;
    Some(Value::Object(m))
}

fn beta_features(
    input: &ApiInput<'_>,
    c: &Compat,
    messages: &[Cow<'_, Value>],
    is_oauth: bool,
    native_tool_changes: bool,
    message_threads: bool,
    options: &Map<String, Value>,
) -> Vec<String> {
    let (release, model) = (input.release, input.model);
    let mut configured: Option<Option<String>> = None;
    for headers in [model.get("headers"), options.field("headers")] {
        if let Some(m) = headers.and_then(Value::as_object) {
            for (k, v) in m {
                if k.to_lowercase() == "anthropic-beta" {
                    configured = Some(v.as_str().map(str::to_string));
                }
            }
        }
    }
    if let Some(conf) = configured {
        let Some(text) = conf else { return Vec::new() };
        let mut out: Vec<String> = Vec::new();
        for f in text.split(',').map(js::trim).filter(|f| !f.is_empty()) {
            if !out.iter().any(|x| x == f) {
                out.push(f.to_string());
            }
        }
        return out;
    }
    let mut features: Vec<&str> = Vec::new();
    if is_oauth {
        features.extend(["claude-code-20250219", "oauth-2025-04-20"]);
    }
    if !crate::transcript::current_tool_refs(messages).is_empty() && !c.eager_tool_input_streaming {
        features.push(FINE_GRAINED_TOOL_STREAMING_BETA);
    }
    let interleaved = match options.field("interleavedThinking") {
        None | Some(Value::Null) => true,
        v => js::truthy(v),
    };
    if model.reasoning()
        && js::is_true(Some(&Value::Object(options.clone())), "thinkingEnabled")
        && interleaved
        && !model.compat_true("forceAdaptiveThinking")
    {
        features.push(INTERLEAVED_THINKING_BETA);
    }
    if has_fallbacks(model) {
        features.push(SERVER_SIDE_FALLBACK_BETA);
    }
    if model.compat_true("supportsMidConvoEffort") {
        features.extend([
            MID_CONVERSATION_OUTPUT_CONFIG_BETA,
            THINKING_BINDING_CONTROLS_BETA,
        ]);
    }
    if native_tool_changes {
        features.push(if release.has(Change::AnthropicInlineToolsBeta) {
            INLINE_TOOLS_BETA
        } else {
            MID_CONVERSATION_TOOL_CHANGES_BETA
        });
    }
    if message_threads {
        features.push(MESSAGE_THREADS_BETA);
    }
    let mut out: Vec<String> = Vec::new();
    for f in features {
        if !out.iter().any(|x| x == f) {
            out.push(f.to_string());
        }
    }
    out
}

fn has_fallbacks(model: &Model) -> bool {
    model
        .compat_value("allowedFallbackModels")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty())
}

fn build_params(
    input: &ApiInput<'_>,
    c: &Compat,
    messages: &[Cow<'_, Value>],
    is_oauth: bool,
    options: &Map<String, Value>,
    message_threads: bool,
    memo: Option<(&mut Memo, usize)>,
) -> Result<(Value, Reuse), AssembleError> {
    let model = input.model;
    let cache = cache_control(model, c, options, input);
    let initial = initial_system_message(messages);
    let initial_text = initial.map(system_message_text).unwrap_or_default();
    let initial_tools: Vec<Value> = initial
        .map(|m| js::arr(m, "toolsAdded").to_vec())
        .unwrap_or_default();
    let native = c.mid_convo_system
        && c.mid_convo_tool_changes
        && !initial_tools.is_empty()
        && (input.has(Change::AnthropicNoRedefinitionGate) || !has_tool_redefinitions(messages));
    let managed = model.compat_true("supportsMidConvoEffort");
    // `model.reasoning && options?.thinkingEnabled === false && model.thinkingLevelMap?.off !== null`
    let thinking_disabled = model.reasoning()
        && options.field("thinkingEnabled") == Some(&Value::Bool(false))
        && !matches!(model.thinking_level("off"), Some(Value::Null));
    let disabled_wins = input.has(Change::AnthropicThinkingDisabledWins);
    // 1.3: effort cannot change between messages while thinking is disabled.
    let effort_messages = managed && !(disabled_wins && thinking_disabled);
    let keyword: Option<KeywordRule> = input
        .has(Change::AnthropicStrictKeywordRules)
        .then_some(is_strict_unsupported_keyword as KeywordRule);
    let keep_keywords = input.has(Change::AnthropicNonStrictSchemaKeywords);
    let inline = native && input.has(Change::AnthropicInlineToolDefinitions);
    let define = |tools: &[Value]| {
        convert_tools(
            tools,
            is_oauth,
            c.eager_tool_input_streaming,
            c.strict_tools,
            None,
            keyword,
            keep_keywords,
            input.strict,
        )
    };
    let tool_changes = match (native, inline) {
        (false, _) => ToolChanges::None,
        (true, false) => ToolChanges::ByReference,
        (true, true) => ToolChanges::ByDefinition(&define),
    };
    let managed_provider = effort_messages.then(|| model.provider());
    let run = |msgs: &[Cow<'_, Value>], quiet: &mut dyn FnMut(Quiet)| {
        convert_run(
            msgs,
            is_oauth,
            c.allow_empty_signature,
            managed_provider,
            &tool_changes,
            input.release,
            quiet,
        )
    };
    let active_effort = match options.field("effort") {
        None | Some(Value::Null) => s("high"),
        Some(v) => v.clone(),
    };
    let memo = memo.map(|(memo, shared)| {
        let key = MemoKey {
            is_oauth,
            cache: cache.clone(),
            allow_empty_signature: c.allow_empty_signature,
            managed_provider: managed_provider.map(str::to_string),
            native,
            inline,
            disables_preferred: input.strict.disables_preferred(),
        };
        (memo, shared, key)
    });
    let (list, reuse) = message_list(
        input,
        messages,
        initial.is_some(),
        &run,
        cache.as_ref(),
        effort_messages.then_some(active_effort),
        memo,
    )?;
    let betas = beta_features(
        input,
        c,
        messages,
        is_oauth,
        native,
        message_threads,
        options,
    );
    let mut params = Map::with_capacity(16);
    params.insert("model".into(), s(model.id()));
    params.insert("messages".into(), Value::Array(list));
    // `options?.maxTokens ?? model.maxTokens`; with streamSimple a `null` here is a NaN (the
    // clamp of a NaN token estimate), which `??` keeps and JSON writes as `null`.
    let max_tokens = match options.field("maxTokens") {
        None => model.get("maxTokens").cloned(),
        Some(Value::Null) if input.entry != Entry::StreamSimple => model.get("maxTokens").cloned(),
        Some(v) => Some(v.clone()),
    };
    insert_defined(&mut params, "max_tokens", max_tokens.as_ref());
    params.insert("stream".into(), Value::Bool(true));
    if !betas.is_empty() {
        params.insert(
            "betas".into(),
            Value::Array(betas.into_iter().map(Value::String).collect()),
        );
    }
    let with_cache = |mut block: Map<String, Value>| {
        if let Some(cc) = &cache {
            block.insert("cache_control".into(), cc.clone());
        }
        Value::Object(block)
    };
    let text_block = |text: &str| {
        let mut b = Map::new();
        b.insert("type".into(), s("text"));
        b.insert("text".into(), s(text));
        b
    };
    if is_oauth {
        let mut system = vec![with_cache(text_block(CLAUDE_CODE_IDENTITY))];
        if !initial_text.is_empty() {
            system.push(with_cache(text_block(&js::sanitize_surrogates(
                &initial_text,
            ))));
        }
        params.insert("system".into(), Value::Array(system));
    } else if !initial_text.is_empty() {
        params.insert(
            "system".into(),
            Value::Array(vec![with_cache(text_block(&js::sanitize_surrogates(
                &initial_text,
            )))]),
        );
    }
    let thinking_enabled = js::truthy(options.field("thinkingEnabled"));
    if options.contains_key("temperature") && !thinking_enabled && !managed && c.temperature {
        params.insert("temperature".into(), options["temperature"].clone());
    }
    let tool_cache = if c.cache_control_on_tools {
        cache.as_ref()
    } else {
        None
    };
    if native {
        // `convertTools(tools)` maps the list: a string one (iterated as characters elsewhere)
        // is V8's TypeError once 1.3 no longer refuses it as a redefinition first.
        if inline && initial.is_some_and(|m| is_string_tool_list(m, "toolsAdded")) {
            return Err(AssembleError::rejected("tools.map is not a function"));
        }
        // Initial tools stay active with the cache breakpoint on the last one, then the
        // placeholder. 0.87.1 declares every later tool after it with `defer_loading`; from 1.3
        // the list never changes (later tools are defined by value in `tool_addition` blocks).
        let mut tools = convert_tools(
            &initial_tools,
            is_oauth,
            c.eager_tool_input_streaming,
            c.strict_tools,
            tool_cache,
            keyword,
            keep_keywords,
            input.strict,
        )?;
        tools.push(deferred_placeholder());
        if !inline {
            // `new Set(initialTools.map((tool) => tool.name))`: names compared as JavaScript
            // values.
            let initial_names: Vec<String> = initial_tools
                .iter()
                .map(crate::transcript::tool_key)
                .collect();
            let later: Vec<Value> = declared_tools(messages)
                .into_iter()
                .filter(|t| !initial_names.contains(&crate::transcript::tool_key(t)))
                .collect();
            for mut t in convert_tools(
                &later,
                is_oauth,
                c.eager_tool_input_streaming,
                c.strict_tools,
                None,
                keyword,
                keep_keywords,
                input.strict,
            )? {
                if let Some(m) = t.as_object_mut() {
                    m.insert("defer_loading".into(), Value::Bool(true));
                }
                tools.push(t);
            }
        }
        params.insert("tools".into(), Value::Array(tools));
    } else {
        let tools = current_tools(messages);
        if !tools.is_empty() {
            params.insert(
                "tools".into(),
                Value::Array(convert_tools(
                    &tools,
                    is_oauth,
                    c.eager_tool_input_streaming,
                    c.strict_tools,
                    tool_cache,
                    keyword,
                    keep_keywords,
                    input.strict,
                )?),
            );
        }
    }
    let display = match options.field("thinkingDisplay") {
        None | Some(Value::Null) => s("summarized"),
        Some(v) => v.clone(),
    };
    if disabled_wins && thinking_disabled {
        // 1.3: no effort is sent (the model default applies); `block_binding` is rejected with
        // disabled thinking.
        params.insert("thinking".into(), obj!([("type", s("disabled"))]));
    } else if effort_messages {
        params.insert(
            "thinking".into(),
            obj!([
                ("type", s("adaptive")),
                ("display", display),
                (
                    "block_binding",
                    obj!([("prefix_mismatch_behavior", s("drop_block"))]),
                ),
            ]),
        );
        // 1.6: the top-level effort is part of the cached prompt and stays fixed; "low" because
        // organizations can cap effort.
        let fixed = if input.has(Change::AnthropicManagedEffortLow) {
            "low"
        } else {
            "high"
        };
        params.insert("output_config".into(), obj!([("effort", s(fixed))]));
    } else if model.reasoning() {
        if thinking_enabled {
            if model.compat_true("forceAdaptiveThinking") {
                params.insert(
                    "thinking".into(),
                    obj!([("type", s("adaptive")), ("display", display)]),
                );
                if let Some(e) = options.field("effort").filter(|e| js::truthy(Some(e))) {
                    params.insert("output_config".into(), obj!([("effort", e.clone())]));
                }
            } else {
                let budget = options
                    .field("thinkingBudgetTokens")
                    .filter(|v| js::truthy(Some(v)))
                    .cloned()
                    .unwrap_or(Value::from(1024));
                params.insert(
                    "thinking".into(),
                    obj!([
                        ("type", s("enabled")),
                        ("budget_tokens", budget),
                        ("display", display),
                    ]),
                );
            }
        } else if thinking_disabled {
            params.insert("thinking".into(), obj!([("type", s("disabled"))]));
        }
    }
    if let Some(meta) = options.field("metadata").filter(|v| js::truthy(Some(v))) {
        if let Some(Value::String(uid)) = meta.field("user_id") {
            params.insert("metadata".into(), obj!([("user_id", s(uid.clone()))]));
        }
    }
    if let Some(tc) = options.field("toolChoice").filter(|v| js::truthy(Some(v))) {
        match tc {
            Value::String(t) => {
                params.insert("tool_choice".into(), obj!([("type", s(t.clone()))]));
            }
            other => {
                params.insert("tool_choice".into(), other.clone());
            }
        }
    }
    if has_fallbacks(model) {
        let list = model
            .compat_value("allowedFallbackModels")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|f| {
                        let mut m = Map::new();
                        insert_defined(&mut m, "model", f.field("model"));
                        Value::Object(m)
                    })
                    .collect()
            })
            .unwrap_or_default();
        params.insert("fallbacks".into(), Value::Array(list));
    }
    Ok((Value::Object(params), reuse))
}

/// Keywords Anthropic's strict tool use rejects (1.3, `isAnthropicStrictUnsupportedKeyword`).
fn is_strict_unsupported_keyword(key: &str, value: &Value) -> bool {
    const UNSUPPORTED: [&str; 11] = [
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "maxItems",
        "uniqueItems",
        "minContains",
        "maxContains",
        "minProperties",
        "maxProperties",
    ];
    const FORMATS: [&str; 10] = [
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "uri",
        "ipv4",
        "ipv6",
        "uuid",
    ];
    if UNSUPPORTED.contains(&key) {
        return true;
    }
    match key {
        // `value !== 0 && value !== 1` (strict equality: only the numbers 0 and 1 pass).
        "minItems" => !value.as_f64().is_some_and(|n| n == 0.0 || n == 1.0),
        "format" => !value.as_str().is_some_and(|f| FORMATS.contains(&f)),
        _ => false,
    }
}

#[allow(clippy::too_many_arguments)]
fn convert_tools(
    tools: &[Value],
    is_oauth: bool,
    eager: bool,
    strict_supported: bool,
    cache: Option<&Value>,
    keyword: Option<KeywordRule>,
    keep_keywords: bool,
    strict_tools: &StrictTools,
) -> Result<Vec<Value>, AssembleError> {
    let mut out = Vec::with_capacity(tools.len());
    for (index, tool) in tools.iter().enumerate() {
        // 1.3: `disablePreferredStrictTools` sends a `prefer` tool non-strict (the resend after a
        // strict-limit rejection); a `prefer` tool sent strict sets `hasPreferredStrictTools`.
        let strict = strict_tools.resolve(tool, || {
            resolve_json_schema_strict_sampling_with(tool, strict_supported, keyword)
        })?;
        let parameters = json_schema_tool_parameters(tool, strict);
        // `parameters.properties` on a tool without parameters is pi-ai's TypeError.
        if let Some(e) = match parameters {
            Value::Null if tool.field("parameters").is_none() => {
                Some("Cannot read properties of undefined (reading 'properties')")
            }
            Value::Null => Some("Cannot read properties of null (reading 'properties')"),
            _ => None,
        } {
            return Err(AssembleError::rejected(e));
        }
        let props = match parameters.field("properties") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(v) => v.clone(),
        };
        let required = match parameters.field("required") {
            None | Some(Value::Null) => Value::Array(Vec::new()),
            Some(v) => v.clone(),
        };
        let input_schema = if strict == Some(true) {
            let mut m = parameters.as_object().cloned().unwrap_or_default();
            m.insert("type".into(), s("object"));
            m.insert("properties".into(), props);
            m.insert("required".into(), required);
            Value::Object(m)
        } else {
            let mut m = Map::new();
            m.insert("type".into(), s("object"));
            m.insert("properties".into(), props);
            m.insert("required".into(), required);
            // 1.6: shared definitions (so `$ref`s resolve) and `additionalProperties` stay.
            if keep_keywords {
                for key in ["additionalProperties", "$defs", "definitions"] {
                    insert_defined(&mut m, key, parameters.field(key));
                }
            }
            Value::Object(m)
        };
        let mut m = Map::new();
        // A tool without a name has no `name` key (undefined is not serialized).
        if let Some(v) = tool.field("name") {
            let name = v.as_str().unwrap_or("");
            m.insert(
                "name".into(),
                if is_oauth {
                    s(to_claude_code_name(name))
                } else if v.is_string() {
                    s(name)
                } else {
                    v.clone()
                },
            );
        }
        insert_defined(&mut m, "description", tool.field("description"));
        if eager {
            m.insert("eager_input_streaming".into(), Value::Bool(true));
        }
        if strict == Some(true) {
            m.insert("strict".into(), Value::Bool(true));
        }
        m.insert("input_schema".into(), input_schema);
        if let (Some(cc), true) = (cache, index + 1 == tools.len()) {
            m.insert("cache_control".into(), cc.clone());
        }
        out.push(Value::Object(m));
    }
    Ok(out)
}

/// `convertContentBlocks(content)` for tool results.
fn convert_content_blocks(content: &[Value]) -> Value {
    let has_images = content
        .iter()
        .any(|c| js::str_of(c, "type") == Some("image"));
    if !has_images {
        let joined: Vec<_> = content
            .iter()
            .map(|c| js::join_element(c.field("text")))
            .collect();
        return s(js::sanitize_surrogates(&joined.join("\n")).into_owned());
    }
    let mut blocks: Vec<Value> = content
        .iter()
        .map(|b| {
            if js::str_of(b, "type") == Some("text") {
                obj!([("type", s("text")), ("text", sanitize(b.field("text")))])
            } else {
                image_block(b)
            }
        })
        .collect();
    if !blocks.iter().any(|b| js::str_of(b, "type") == Some("text")) {
        blocks.insert(
            0,
            obj!([("type", s("text")), ("text", s("(see attached image)"))]),
        );
    }
    Value::Array(blocks)
}

fn image_block(b: &Value) -> Value {
    let mut source = Map::new();
    source.insert("type".into(), s("base64"));
    insert_defined(&mut source, "media_type", b.field("mimeType"));
    insert_defined(&mut source, "data", b.field("data"));
    obj!([("type", s("image")), ("source", Value::Object(source))])
}

fn is_anthropic_effort(v: Option<&Value>) -> bool {
    matches!(
        v.and_then(Value::as_str),
        Some("low" | "medium" | "high" | "xhigh" | "max")
    )
}

/// Whether a system message's `key` tool list was a string (kept by
/// [`crate::transcript::string_tool_lists_as_arrays`]).
fn is_string_tool_list(msg: &Value, key: &str) -> bool {
    msg.field(&format!(
        "{key}{}",
        crate::transcript::TOOL_LIST_TEXT_SUFFIX
    ))
    .is_some()
}

/// How a later system message's tool changes reach the wire.
/// `convertTools` for the tools of one `tool_addition`.
type ConvertToolList<'f> = &'f dyn Fn(&[Value]) -> Result<Vec<Value>, AssembleError>;

enum ToolChanges<'f> {
    /// Not native: the transcript was folded, system messages carry no tool blocks.
    None,
    /// 0.87.1: `tool_addition`/`tool_removal` name the tool (`tool_reference`).
    ByReference,
    /// 1.3 ([`Change::AnthropicInlineToolDefinitions`]): a `tool_addition` defines the tool by
    /// value (`tool_definition`), and a redefined name needs no removal.
    ByDefinition(ConvertToolList<'f>),
}

/// `convertMessages`: the converted messages and the effort levels of the assistant messages
/// by converted index.
fn convert_messages(
    msgs: &[std::borrow::Cow<'_, Value>],
    is_oauth: bool,
    cache: Option<&Value>,
    allow_empty_signature: bool,
    managed_provider: Option<&str>,
    tool_changes: &ToolChanges<'_>,
    release: forge_replay_model::release::PiRelease,
) -> Result<(Vec<Value>, HashMap<usize, Value>), AssembleError> {
    let mut run = convert_run(
        msgs,
        is_oauth,
        allow_empty_signature,
        managed_provider,
        tool_changes,
        release,
        &mut |_| {},
    )?;
    run.params.append(&mut run.pending);
    cache_tail(run.params.last_mut(), cache);
    Ok((run.params, run.levels))
}

/// What `convertMessages`' loop leaves before its tail rules.
struct Run {
    /// The converted messages.
    params: Vec<Value>,
    /// Effort levels of assistant messages, by index in `params`.
    levels: HashMap<usize, Value>,
    /// System blocks not yet placed (appended at the end).
    pending: Vec<Value>,
}

/// A point of [`convert_run`] right after a user message with no system blocks pending: the
/// loop keeps no state there but what it has output.
#[derive(Debug, Clone, Copy)]
struct Quiet {
    /// Which user message of the list it follows (0 for the first).
    user: usize,
    /// `params.len()` and `levels.len()` there.
    converted: usize,
    levels: usize,
}

/// `convertMessages`' loop over `msgs`, without the tail rules (the pending system blocks
/// appended, the last message's cache marker); `quiet` is told of every [`Quiet`] point.
fn convert_run(
    msgs: &[std::borrow::Cow<'_, Value>],
    is_oauth: bool,
    allow_empty_signature: bool,
    managed_provider: Option<&str>,
    tool_changes: &ToolChanges<'_>,
    release: forge_replay_model::release::PiRelease,
    quiet: &mut dyn FnMut(Quiet),
) -> Result<Run, AssembleError> {
    let mut users = 0;
    // 1.3: images of error results follow all results of the turn.
    let split_error_images = release.has(Change::ErrorToolImagesSplit);
    let flush_before_sent_assistant = release.has(Change::AnthropicFlushBeforeSentAssistant);
    let mut params: Vec<Value> = Vec::with_capacity(msgs.len());
    let mut levels: HashMap<usize, Value> = HashMap::new();
    let mut pending: Vec<Value> = Vec::new();
    let tool_ref = |name: Option<&Value>| {
        let text = text_str(name);
        let mut r = obj!([
            ("type", s("tool_reference")),
            (
                "name",
                match name {
                    Some(v) if !is_oauth && !v.is_string() => v.clone(),
                    _ if is_oauth => s(to_claude_code_name(text)),
                    _ => s(text),
                },
            ),
        ]);
        // A tool without a name: `name: undefined` is not serialized.
        if name.is_none() {
            if let Value::Object(m) = &mut r {
                js::delete(m, "name");
            }
        }
        r
    };
    let mut i = 0;
    while i < msgs.len() {
        let msg: &Value = &msgs[i];
        match crate::transcript::role(msg) {
            "system" => {
                let text = render_system_message_update(msg);
                let mut blocks = Vec::new();
                if !text.is_empty() {
                    blocks.push(obj!([
                        ("type", s("text")),
                        ("text", s(js::sanitize_surrogates(&text).into_owned())),
                    ]));
                }
                match tool_changes {
                    ToolChanges::None => {}
                    ToolChanges::ByReference => {
                        for t in js::arr(msg, "toolsRemoved") {
                            blocks.push(obj!([
                                ("type", s("tool_removal")),
                                ("tool", tool_ref(t.field("name"))),
                            ]));
                        }
                        for t in js::arr(msg, "toolsAdded") {
                            blocks.push(obj!([
                                ("type", s("tool_addition")),
                                ("tool", tool_ref(t.field("name"))),
                            ]));
                        }
                    }
                    ToolChanges::ByDefinition(define) => {
                        // `added.map(...)` on a string tool list (iterated as characters
                        // elsewhere) is V8's TypeError.
                        if is_string_tool_list(msg, "toolsAdded") {
                            return Err(AssembleError::rejected("added.map is not a function"));
                        }
                        let added = js::arr(msg, "toolsAdded");
                        // `new Set(added.map((tool) => tool.name))`
                        let redefined: Vec<String> =
                            added.iter().map(crate::transcript::tool_key).collect();
                        for t in js::arr(msg, "toolsRemoved") {
                            if redefined.contains(&crate::transcript::tool_key(t)) {
                                continue;
                            }
                            blocks.push(obj!([
                                ("type", s("tool_removal")),
                                ("tool", tool_ref(t.field("name"))),
                            ]));
                        }
                        for definition in define(added)? {
                            blocks.push(obj!([
                                ("type", s("tool_addition")),
                                (
                                    "tool",
                                    obj!([
                                        ("type", s("tool_definition")),
                                        ("definition", definition)
                                    ])
                                ),
                            ]));
                        }
                    }
                }
                if !blocks.is_empty() {
                    pending.push(obj!([
                        ("role", s("system")),
                        ("content", Value::Array(blocks)),
                    ]));
                }
            }
            "user" => {
                match msg.field("content") {
                    Some(Value::String(t)) => {
                        if !js::trim(t).is_empty() {
                            params.push(obj!([
                                ("role", s("user")),
                                ("content", s(js::sanitize_surrogates(t).into_owned())),
                            ]));
                        }
                    }
                    _ => {
                        let blocks: Vec<Value> = js::arr(msg, "content")
                            .iter()
                            .map(|item| {
                                if js::str_of(item, "type") == Some("text") {
                                    obj!([
                                        ("type", s("text")),
                                        ("text", sanitize(item.field("text")))
                                    ])
                                } else {
                                    image_block(item)
                                }
                            })
                            .filter(|b| {
                                js::str_of(b, "type") != Some("text")
                                    || !js::trim(text_str(b.field("text"))).is_empty()
                            })
                            .collect();
                        if !blocks.is_empty() {
                            params.push(obj!([
                                ("role", s("user")),
                                ("content", Value::Array(blocks)),
                            ]));
                        }
                    }
                }
                if pending.is_empty() {
                    quiet(Quiet {
                        user: users,
                        converted: params.len(),
                        levels: levels.len(),
                    });
                }
                users += 1;
            }
            "assistant" => {
                // 1.6: held back past an assistant message that converts to no blocks.
                if !flush_before_sent_assistant {
                    params.append(&mut pending);
                }
                let mut blocks = Vec::new();
                for block in js::arr(msg, "content") {
                    match js::str_of(block, "type") {
                        Some("text") => {
                            // `block.text.trim().length === 0`
                            if js::trim(js::str_or_fault(block.field("text"), "block.text", "trim"))
                                .is_empty()
                            {
                                continue;
                            }
                            blocks.push(obj!([
                                ("type", s("text")),
                                ("text", sanitize(block.field("text"))),
                            ]));
                        }
                        Some("thinking") => {
                            if js::truthy(block.field("redacted")) {
                                let mut m = Map::new();
                                m.insert("type".into(), s("redacted_thinking"));
                                insert_defined(&mut m, "data", block.field("thinkingSignature"));
                                blocks.push(Value::Object(m));
                                continue;
                            }
                            let sig = block.field("thinkingSignature");
                            let has_sig = js::truthy(sig)
                                && sig
                                    .and_then(Value::as_str)
                                    .is_none_or(|t| !js::trim(t).is_empty());
                            let thinking = text_str(block.field("thinking"));
                            if js::trim(thinking).is_empty() && !has_sig {
                                continue;
                            }
                            if !has_sig {
                                if allow_empty_signature {
                                    blocks.push(obj!([
                                        ("type", s("thinking")),
                                        ("thinking", sanitize(block.field("thinking"))),
                                        ("signature", s("")),
                                    ]));
                                } else {
                                    blocks.push(obj!([
                                        ("type", s("text")),
                                        ("text", sanitize(block.field("thinking"))),
                                    ]));
                                }
                            } else {
                                blocks.push(obj!([
                                    ("type", s("thinking")),
                                    ("thinking", sanitize(block.field("thinking"))),
                                    ("signature", sig.cloned().unwrap_or(Value::Null)),
                                ]));
                            }
                        }
                        Some("toolCall") => {
                            let name = text_str(block.field("name"));
                            let input = match block.field("arguments") {
                                None | Some(Value::Null) => Value::Object(Map::new()),
                                Some(v) => v.clone(),
                            };
                            let name = s(if is_oauth {
                                to_claude_code_name(name)
                            } else {
                                name.to_string()
                            });
                            let mut tool_use = match block.field("id") {
                                Some(id) => obj!([
                                    ("type", s("tool_use")),
                                    ("id", id.clone()),
                                    ("name", name),
                                    ("input", input),
                                ]),
                                None => obj!([
                                    ("type", s("tool_use")),
                                    ("name", name),
                                    ("input", input),
                                ]),
                            };
                            // `name: undefined` is not serialized.
                            if block.field("name").is_none() && !is_oauth {
                                if let Value::Object(m) = &mut tool_use {
                                    js::delete(m, "name");
                                }
                            }
                            blocks.push(tool_use);
                        }
                        _ => {}
                    }
                }
                if blocks.is_empty() {
                    i += 1;
                    continue;
                }
                if flush_before_sent_assistant {
                    params.append(&mut pending);
                }
                let index = params.len();
                params.push(obj!([
                    ("role", s("assistant")),
                    ("content", Value::Array(blocks)),
                ]));
                if let Some(p) = managed_provider {
                    if js::str_of(msg, "api") == Some("anthropic-messages")
                        && js::str_of(msg, "provider") == Some(p)
                        && is_anthropic_effort(msg.field("providerThinkingLevel"))
                    {
                        levels.insert(index, msg["providerThinkingLevel"].clone());
                    }
                }
            }
            "toolResult" => {
                let mut results = Vec::new();
                // 1.3: images of error results follow all results of the turn.
                let mut error_images = Vec::new();
                let mut j = i;
                while j < msgs.len() && crate::transcript::role(&msgs[j]) == "toolResult" {
                    let m: &Value = &msgs[j];
                    let split = if split_error_images {
                        split_error_tool_result_images(m)
                    } else {
                        None
                    };
                    let content = convert_content_blocks(match &split {
                        Some(sp) => &sp.content,
                        None => js::arr(m, "content"),
                    });
                    if let Some(sp) = split {
                        error_images.push(obj!([("type", s("text")), ("text", s(sp.caption))]));
                        error_images.extend(sp.images.iter().map(image_block));
                    }
                    let ty = s("tool_result");
                    results.push(match (m.field("toolCallId"), m.field("isError")) {
                        (Some(id), Some(e)) => obj!([
                            ("type", ty),
                            ("tool_use_id", id.clone()),
                            ("content", content),
                            ("is_error", e.clone()),
                        ]),
                        (Some(id), None) => obj!([
                            ("type", ty),
                            ("tool_use_id", id.clone()),
                            ("content", content),
                        ]),
                        (None, Some(e)) => {
                            obj!([("type", ty), ("content", content), ("is_error", e.clone())])
                        }
                        (None, None) => obj!([("type", ty), ("content", content)]),
                    });
                    j += 1;
                }
                i = j - 1;
                results.append(&mut error_images);
                params.push(obj!([
                    ("role", s("user")),
                    ("content", Value::Array(results)),
                ]));
            }
            _ => {}
        }
        i += 1;
    }
    Ok(Run {
        params,
        levels,
        pending,
    })
}

/// `convertMessages`' last rule: the cache marker on the last block of a last user or system
/// message. Returns the message as it was when the rule changed it.
fn cache_tail(last: Option<&mut Value>, cache: Option<&Value>) -> Option<Value> {
    let (Some(cc), Some(last)) = (cache, last) else {
        return None;
    };
    if !matches!(js::str_of(last, "role"), Some("user" | "system")) {
        return None;
    }
    let marks = match last.field("content") {
        Some(Value::Array(blocks)) => blocks.last().is_some_and(|b| {
            b.is_object()
                && matches!(
                    b.field("type").and_then(Value::as_str).unwrap_or(""),
                    "text" | "image" | "tool_result" | "tool_addition" | "tool_removal"
                )
        }),
        Some(Value::String(_)) => true,
        _ => false,
    };
    if !marks {
        return None;
    }
    let original = last.clone();
    let lm = last.as_object_mut()?;
    match lm.get_mut("content") {
        Some(Value::Array(blocks)) => {
            if let Some(Value::Object(b)) = blocks.last_mut() {
                b.insert("cache_control".into(), cc.clone());
            }
        }
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            lm.insert(
                "content".into(),
                Value::Array(vec![obj!([
                    ("type", s("text")),
                    ("text", s(t)),
                    ("cache_control", cc.clone()),
                ])]),
            );
        }
        _ => {}
    }
    Some(original)
}

fn insert_thinking_level_messages(
    converted: Vec<Value>,
    levels: &HashMap<usize, Value>,
    active: Value,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(converted.len() + levels.len() + 1);
    extend_with_levels(&mut out, converted, levels);
    out.push(level_message(active));
    out
}

/// `converted` onto `out`, each message after its effort level's message (`levels`, by index
/// in `converted`).
fn extend_with_levels(out: &mut Vec<Value>, converted: Vec<Value>, levels: &HashMap<usize, Value>) {
    for (index, m) in converted.into_iter().enumerate() {
        if let Some(e) = levels.get(&index) {
            out.push(level_message(e.clone()));
        }
        out.push(m);
    }
}

fn level_message(effort: Value) -> Value {
    obj!([
        ("role", s("system")),
        ("content", Value::Array(Vec::new())),
        ("output_config", obj!([("effort", effort)])),
    ])
}

/// What the message list of an Anthropic request depends on besides its messages, the model
/// and the release (which [`crate::Resume`] keys on).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MemoKey {
    is_oauth: bool,
    cache: Option<Value>,
    allow_empty_signature: bool,
    managed_provider: Option<String>,
    native: bool,
    inline: bool,
    disables_preferred: bool,
}

/// A point of the previous request's message list where the next one may resume: after the
/// transcript's first `input` messages, the list's first `converted + levels` elements are
/// what those messages convert to, whatever follows them.
#[derive(Debug, Clone, Copy)]
struct Checkpoint {
    input: usize,
    converted: usize,
    levels: usize,
    /// Whether converting those messages sent a `prefer` tool strict.
    preferred_sent: bool,
}

/// What one Anthropic request leaves for the next of the same walk ([`crate::Resume`]): its
/// message list (handed back by [`crate::Resume::recycle`] once the request was used) and where
/// in it the next request may resume, so that the next request converts only its new messages
/// and shares the rest with this one.
#[derive(Debug, Clone, Default)]
pub(crate) struct Memo {
    key: Option<MemoKey>,
    checkpoints: Vec<Checkpoint>,
    /// The element of the list the cache-marker rule changed: its index and what it was.
    tail: Option<(usize, Value)>,
    /// The request whose list this is ([`crate::Reuse::token`]), and the list once handed back.
    token: u64,
    list: Option<Vec<Value>>,
    /// The list of request `text_token` as its body writes it (`JSON.stringify` of each message,
    /// joined by commas), and where each message's text ends in it.
    text: String,
    ends: Vec<usize>,
    text_token: u64,
}

impl Memo {
    pub(crate) fn forget(&mut self) {
        *self = Memo::default();
    }

    /// The body text of `params` (`JSON.stringify` without `betas`), with the text of the
    /// messages the request kept from the previous one ([`Reuse`]) copied from that request's
    /// body instead of written again.
    fn body_text(&mut self, params: &Value, reuse: Reuse) -> String {
        let (Value::Object(map), Some(list)) =
            (params, params.field("messages").and_then(Value::as_array))
        else {
            return crate::api::stringify_without(params, &["betas"]);
        };
        let keep = if self.text_token != 0 && self.text_token == reuse.after {
            reuse.kept.min(self.ends.len())
        } else {
            0
        };
        self.ends.truncate(keep);
        self.text.truncate(self.ends.last().copied().unwrap_or(0));
        for (i, m) in list.iter().enumerate().skip(keep) {
            if i > 0 {
                self.text.push(',');
            }
            forge_replay_model::json::write_compact(&mut self.text, m);
            self.ends.push(self.text.len());
        }
        self.text_token = reuse.token;
        let mut out = String::with_capacity(self.text.len() + 4096);
        out.push('{');
        let mut first = true;
        for (k, v) in map.iter().filter(|(k, _)| k.as_str() != "betas") {
            if !first {
                out.push(',');
            }
            first = false;
            forge_replay_model::json::write_string(&mut out, k);
            out.push(':');
            if k == "messages" {
                out.push('[');
                out.push_str(&self.text);
                out.push(']');
            } else {
                forge_replay_model::json::write_compact(&mut out, v);
            }
        }
        out.push('}');
        out
    }

    /// Takes back the message list of request `token`'s payload, if it is the last one made.
    pub(crate) fn recycle(&mut self, token: u64, payload: Value) {
        if token != 0 && token == self.token && self.key.is_some() {
            if let Value::Object(mut m) = payload {
                if let Some(Value::Array(list)) = m.shift_remove("messages") {
                    self.list = Some(list);
                }
            }
        }
    }
}

/// The converter of one request's messages (`convertMessages` with the request's settings).
type RunMessages<'f> =
    &'f dyn Fn(&[Cow<'_, Value>], &mut dyn FnMut(Quiet)) -> Result<Run, AssembleError>;

/// The message list of a request (`convertMessages(transformMessages(…))`, then the effort-level
/// messages when `active_effort` is set), from scratch or, with `memo`, from the previous
/// request's list: cut back to the last checkpoint within the first `shared` messages, then
/// only the messages after it converted. Returns the list and what of it is the previous
/// request's ([`Reuse`]).
#[allow(clippy::too_many_arguments)]
fn message_list(
    input: &ApiInput<'_>,
    messages: &[Cow<'_, Value>],
    skip_initial: bool,
    run: RunMessages<'_>,
    cache: Option<&Value>,
    active_effort: Option<Value>,
    memo: Option<(&mut Memo, usize, MemoKey)>,
) -> Result<(Vec<Value>, Reuse), AssembleError> {
    let normalize = |id: Option<&Value>, m: &Model, source: &Value| {
        normalize_tool_call_id(js::str_or_fault(id, "id", "replace"), m, source)
    };
    let Some((memo, shared, key)) = memo else {
        let transformed = transform_messages_cow(
            input.release,
            messages.iter().map(|m| &**m),
            input.model,
            Some(&normalize),
        );
        let conversation = if skip_initial {
            &transformed[1..]
        } else {
            &transformed[..]
        };
        let mut r = run(conversation, &mut |_| {})?;
        r.params.append(&mut r.pending);
        cache_tail(r.params.last_mut(), cache);
        let list = match active_effort {
            Some(active) => insert_thinking_level_messages(r.params, &r.levels, active),
            None => r.params,
        };
        return Ok((list, Reuse::default()));
    };
    let resumable = memo.key.as_ref() == Some(&key) && memo.list.is_some();
    let at = resumable
        .then(|| {
            memo.checkpoints
                .iter()
                .rposition(|c| c.input <= shared && c.input <= messages.len())
        })
        .flatten();
    // Where this request starts: the checkpoint's messages, converted elements and levels.
    let (from, mut list, mut kept, base) = match at {
        Some(k) => {
            let cp = memo.checkpoints[k];
            memo.checkpoints.truncate(k + 1);
            let mut list = memo.list.take().unwrap_or_default();
            list.truncate(cp.converted + cp.levels);
            let mut kept = list.len();
            if let Some((i, original)) = memo.tail.take() {
                if i < list.len() {
                    list[i] = original;
                    kept = i;
                }
            }
            if cp.preferred_sent {
                input.strict.note_preferred_sent();
            }
            (cp.input, list, kept, cp)
        }
        None => {
            memo.checkpoints.clear();
            let base = Checkpoint {
                input: 0,
                converted: 0,
                levels: 0,
                preferred_sent: false,
            };
            (0, Vec::new(), 0, base)
        }
    };
    memo.list = None;
    memo.tail = None;
    let rest = &messages[from..];
    let (transformed, renamed) = transform_messages_tracked(
        input.release,
        rest.iter().map(|m| &**m),
        input.model,
        Some(&normalize),
    );
    let skip = usize::from(skip_initial && from == 0);
    let conversation = &transformed[skip..];
    // The transcript index after each user message of `rest`: user messages keep their order
    // through the transform.
    let users: Vec<usize> = rest
        .iter()
        .enumerate()
        .filter(|(_, m)| crate::transcript::role(m) == "user")
        .map(|(i, _)| from + i + 1)
        .collect();
    let renamed = renamed.map_or(usize::MAX, |r| from + r);
    let mut found = Vec::new();
    let mut r = run(conversation, &mut |q: Quiet| {
        if let Some(&input_at) = users.get(q.user).filter(|&&i| i <= renamed) {
            found.push(Checkpoint {
                input: input_at,
                converted: base.converted + q.converted,
                levels: base.levels + q.levels,
                preferred_sent: input.strict.preferred_sent(),
            });
        }
    })?;
    r.params.append(&mut r.pending);
    // The cache marker goes on the last converted message: a new one, or the checkpoint's
    // last when nothing after it converted to a message.
    let tail = if r.params.is_empty() {
        match list.last_mut() {
            Some(last) => cache_tail(Some(last), cache).map(|orig| {
                kept = kept.min(list.len() - 1);
                (list.len() - 1, orig)
            }),
            None => None,
        }
    } else {
        let j = r.params.len() - 1;
        let before = r.levels.keys().filter(|&&k| k <= j).count();
        cache_tail(r.params.last_mut(), cache).map(|orig| (list.len() + j + before, orig))
    };
    match &active_effort {
        Some(_) => extend_with_levels(&mut list, r.params, &r.levels),
        None => list.extend(r.params),
    }
    if let Some(active) = active_effort {
        list.push(level_message(active));
    }
    memo.checkpoints.extend(found);
    memo.tail = tail;
    memo.key = Some(key);
    let after = if at.is_some() { memo.token } else { 0 };
    memo.token = Reuse::next_token();
    Ok((
        list,
        Reuse {
            token: memo.token,
            after,
            kept: if after == 0 { 0 } else { kept },
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_call_ids_follow_the_anthropic_pattern() {
        let m = Model::from_value(
            serde_json::json!({"id":"m","api":"anthropic-messages","provider":"p","baseUrl":"u"}),
        )
        .unwrap();
        assert_eq!(
            normalize_tool_call_id("call_1|fc_2", &m, &Value::Null),
            "call_1_fc_2"
        );
        // A non-BMP character is two UTF-16 units, so two underscores.
        assert_eq!(normalize_tool_call_id("a😀b", &m, &Value::Null), "a__b");
        assert_eq!(
            normalize_tool_call_id(&"x".repeat(80), &m, &Value::Null).len(),
            64
        );
    }

    #[test]
    fn claude_code_names() {
        assert_eq!(to_claude_code_name("bash"), "Bash");
        assert_eq!(to_claude_code_name("todowrite"), "TodoWrite");
        assert_eq!(to_claude_code_name("custom"), "custom");
    }

    #[test]
    fn effort_mapping() {
        let m = Model::from_value(
            serde_json::json!({"id":"m","api":"anthropic-messages","provider":"p","baseUrl":"u",
            "thinkingLevelMap": {"xhigh": "xhigh", "minimal": null}}),
        )
        .unwrap();
        assert_eq!(map_thinking_level_to_effort(&m, "xhigh"), "xhigh");
        assert_eq!(map_thinking_level_to_effort(&m, "minimal"), "low");
        assert_eq!(map_thinking_level_to_effort(&m, "max"), "high");
    }
}
