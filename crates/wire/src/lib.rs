//! pi-ai request assembly, per Pi release: the exact provider request a release's pi-ai builds
//! for a context.
//!
//! Every entry point takes the [`PiRelease`] it follows. One builder per API serves every
//! release: where a release behaves differently, the builder asks
//! `release.has(Change::…)` for the named [`forge_replay_model::release::Change`].
//!
//! * [`catalog::Catalog`]: a release's pi-ai model catalog (embedded data files), user catalogs
//!   layered on top, `provider/id` lookup with near-match suggestions.
//! * [`model::Model`]: one model object (kept as JSON; typed accessors for what builders read).
//! * [`case::Case`]: the oracle case format `{model, context, options?, entry?, env?}`;
//!   [`case::Sequence`]: several requests of one process (`requests`), run by
//!   [`assemble_sequence`] with the state pi-ai keeps between them ([`thread`]: Anthropic message
//!   threads, 1.6).
//! * [`assemble`] → [`Assembled`]: the `onPayload` object (`payload`) and, for fetch transports,
//!   the HTTP request after SDK serialization ([`api::WireRequest`], with the body's exact bytes).
//!   [`assemble_with`] adds the retry form ([`Build`]); [`assemble_messages`] is the same over a
//!   borrowed message list (`&[&Value]`, a context without `systemPrompt`/`tools`), so a caller
//!   holding the transcript elsewhere copies nothing. Inside, every step takes the transcript
//!   as `&[&Value]` ([`ApiInput::messages`]).
//! * [`assemble_resumed`]: [`assemble_messages`] for one request of a walk, with a [`Resume`]
//!   that carries the transcript's checks and the token estimate's first loop from the
//!   previous request, so only the messages it did not have are read again (same result).
//! * Shared steps, one module each, following pi-ai's JavaScript: [`transcript`] (system-message
//!   replay, `normalizeContext`), [`transform`] (the shared message transform), [`options`]
//!   (`streamSimple` common options, token estimates, thinking budgets, cache retention, env),
//!   [`hash`] (`shortHash`), [`redact`] (pi-forge's payload capture transform).
//! * [`api`]: one builder module per API, dispatched on `model.api`.
//! * [`js`]: pi-ai's JavaScript, translated (property access, object literals, the `TypeError`s
//!   pi-ai throws), with the language semantics of `forge_replay_model::js` re-exported.

pub mod api;
pub mod case;
pub mod catalog;
pub mod constrained;
mod error;
pub mod hash;
pub mod js;
pub mod model;
pub mod options;
pub mod redact;
mod resume;
pub mod sequence;
pub mod strict;
pub mod thread;
pub mod transcript;
pub mod transform;

use forge_replay_model::release::PiRelease;
use serde_json::{Map, Value};

use crate::js::Field;
use crate::options::{ContextEstimate, ContextFold};

pub use api::{Api, ApiInput, ApiOutput, Entry, WireRequest};
pub use case::{Case, CaseError, CaseFile, Sequence};
pub use catalog::{Catalog, CatalogError, ModelSpec};
pub use error::AssembleError;
pub use model::Model;
pub use options::Env;
pub use resume::{Resume, Reuse};
pub use sequence::{assemble_sequence, Step, StrictFallback};
pub use transcript::normalize_context;

/// An assembled request.
#[derive(Debug, Clone, PartialEq)]
pub struct Assembled {
    /// The API that built it.
    pub api: Api,
    /// The object pi-ai hands to `onPayload` (unredacted; it holds no credential).
    pub payload: Value,
    /// The HTTP request, for APIs that send through `fetch`. For a request that uses Anthropic
    /// message threads (1.6) its body is the `create` form, the first request of a session in a
    /// fresh process; [`thread::Threads`] gives the body of a later request.
    pub wire: Option<WireRequest>,
    /// The request's message-thread settings, when threads apply.
    pub thread: Option<thread::ThreadInfo>,
    /// Whether it was built with `prefer` strict tools non-strict
    /// ([`Build::disable_preferred_strict_tools`]; Anthropic from 1.3, Bedrock from 1.6).
    pub strict_tools_disabled: bool,
    /// Whether a `prefer` tool went out strict (`hasPreferredStrictTools`): a rejection for
    /// Claude's strict-tool limits makes pi-ai resend it non-strict ([`strict`]).
    pub has_preferred_strict_tools: bool,
    /// What its payload's message list shares with the previous request of the same
    /// [`Resume`] (nothing unless built by [`assemble_resumed`]).
    pub reuse: Reuse,
}

/// How a request is built beyond its case: the form of a retry pi-ai makes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Build {
    /// `disablePreferredStrictTools`: every `prefer` strict tool is sent non-strict (the resend
    /// after a strict-limit rejection, and in 1.6 every later request of that session). Honoured
    /// where the release has the fallback ([`strict::diagnostic`]): Anthropic from 1.3, Bedrock
    /// from 1.6.
    pub disable_preferred_strict_tools: bool,
    /// Leave the HTTP body out: [`WireRequest::body_text`] is empty (the URL, method and
    /// headers are built). For callers that read only the payload (`cache explain` flattens it
    /// in cache order); writing the body is a tenth of a request's assembly. Message threads
    /// still write the bodies they send.
    pub without_body: bool,
}

impl Assembled {
    /// `{"api", "payload", "wire": {url, method, body} | null}` (what `forge-replay assemble`
    /// prints, after the CLI's redaction step).
    pub fn to_json(&self) -> Value {
        let wire = match &self.wire {
            Some(w) => js::obj!([
                ("url", js::s(w.url.clone())),
                ("method", js::s(w.method.clone())),
                ("body", w.body()),
            ]),
            None => Value::Null,
        };
        js::obj!([
            ("api", js::s(self.api.name())),
            ("payload", self.payload.clone()),
            ("wire", wire),
        ])
    }
}

/// Assembles the request `release`'s pi-ai would send for `model` and a pi-ai `Context`.
///
/// `context` is a pi-ai `Context` (`normalizeContext` runs here); `options` is the options object
/// of the chosen `entry`; `env` stands in for the process environment.
pub fn assemble(
    release: PiRelease,
    model: &Model,
    context: &Value,
    options: &Map<String, Value>,
    entry: Entry,
    env: &Env,
) -> Result<Assembled, AssembleError> {
    assemble_with(
        release,
        model,
        context,
        options,
        entry,
        env,
        Build::default(),
    )
}

/// [`assemble`] in the form `build` names (a strict-tools fallback's resend).
pub fn assemble_with(
    release: PiRelease,
    model: &Model,
    context: &Value,
    options: &Map<String, Value>,
    entry: Entry,
    env: &Env,
    build: Build,
) -> Result<Assembled, AssembleError> {
    let api = api_of(model)?;
    // normalizeContext reads `systemPrompt.length` and `tools.length` unless undefined.
    if ["systemPrompt", "tools"]
        .iter()
        .any(|k| matches!(context.field(k), Some(Value::Null)))
    {
        return Err(AssembleError::rejected(
            "Cannot read properties of null (reading 'length')",
        ));
    }
    let messages = transcript::normalized_messages(context)?;
    let messages: Vec<&Value> = messages.iter().collect();
    assemble_transcript(
        api, release, model, &messages, options, entry, env, build, None,
    )
}

/// [`assemble_with`] for the context `{"messages": messages}` (no `systemPrompt`, no `tools`:
/// what replay builds), over borrowed messages: the caller hands references into its own
/// transcript and nothing is copied to make a context. The result is exactly what
/// [`assemble_with`] returns for that context (`normalizeContext` returns such a transcript as
/// it is).
pub fn assemble_messages(
    release: PiRelease,
    model: &Model,
    messages: &[&Value],
    options: &Map<String, Value>,
    entry: Entry,
    env: &Env,
    build: Build,
) -> Result<Assembled, AssembleError> {
    let api = api_of(model)?;
    assemble_transcript(
        api, release, model, messages, options, entry, env, build, None,
    )
}

/// [`assemble_messages`] for one request of a walk: `resume` carries the checks of the whole
/// transcript from the previous request made with it ([`Resume`]), and the caller vouches that
/// the first `shared` messages are that request's first `shared` messages, unchanged. The result
/// is exactly what [`assemble_messages`] returns; only the messages past the shared ones are
/// checked again.
#[allow(clippy::too_many_arguments)]
pub fn assemble_resumed(
    release: PiRelease,
    model: &Model,
    messages: &[&Value],
    options: &Map<String, Value>,
    entry: Entry,
    env: &Env,
    build: Build,
    resume: &mut Resume,
    shared: usize,
) -> Result<Assembled, AssembleError> {
    let api = api_of(model)?;
    assemble_transcript(
        api,
        release,
        model,
        messages,
        options,
        entry,
        env,
        build,
        Some((resume, shared)),
    )
}

/// `model.api`, or the error for an API pi-ai does not know.
fn api_of(model: &Model) -> Result<Api, AssembleError> {
    model.api().ok_or_else(|| AssembleError::UnknownApi {
        api: model.api_name().to_string(),
    })
}

/// The one assembly path of [`assemble_with`], [`assemble_messages`] and [`assemble_resumed`]:
/// `messages` is the normalized transcript (`normalizeContext(context).messages`) of a request
/// for `api` (`model.api`); `resume`, the state carried from the previous request of a walk and
/// how many leading messages it shares with this one.
#[allow(clippy::too_many_arguments)]
fn assemble_transcript(
    api: Api,
    release: PiRelease,
    model: &Model,
    messages: &[&Value],
    options: &Map<String, Value>,
    entry: Entry,
    env: &Env,
    build: Build,
    resume: Option<(&mut Resume, usize)>,
) -> Result<Assembled, AssembleError> {
    // The checks below depend on each message alone (and on the API, release and model): those
    // of the messages a resumed request shares with the previous one passed already.
    let (mut start, mut fold, mut resume) = match resume {
        Some((r, shared)) if api != Api::PiMessages => {
            let (start, fold) = r.start(release, api, model, shared);
            (start, fold, Some(r))
        }
        _ => (0, ContextFold::default(), None),
    };
    // pi-messages sends the transcript as it is. The other APIs see `Object.entries(sections)` of
    // a string or an array section (its indices become section names) and iterate a string tool
    // list as characters. A rewritten list is kept alive here and borrowed again; its messages
    // are copies made for this request, so nothing about them is carried to the next one.
    let (sections, sections_refs);
    let (tool_lists, tool_lists_refs);
    let mut messages = messages;
    if api != Api::PiMessages {
        sections = transcript::sections_as_objects(messages, start);
        if let Some(m) = &sections {
            sections_refs = m.iter().collect::<Vec<&Value>>();
            messages = &sections_refs;
            (start, fold) = (0, ContextFold::default());
            resume.take().into_iter().for_each(Resume::forget);
        }
        tool_lists = transcript::string_tool_lists_as_arrays(messages, start);
        if let Some(m) = &tool_lists {
            tool_lists_refs = m.iter().collect::<Vec<&Value>>();
            messages = &tool_lists_refs;
            (start, fold) = (0, ContextFold::default());
            resume.take().into_iter().for_each(Resume::forget);
        }
    }
    // `estimateContextTokens`'s first loop, once for every use the request makes of it; with a
    // resume, its state after each message is kept for the next request.
    let mut states = Vec::new();
    let folded = messages
        .iter()
        .enumerate()
        .skip(start)
        .try_for_each(|(i, m)| {
            fold.step(i, m)?;
            if resume.is_some() {
                states.push(fold);
            }
            Ok::<(), String>(())
        })
        .map(|()| fold);
    let estimate = ContextEstimate::with_fold(release, messages, folded);
    let rejected = |resume: Option<&mut Resume>, message: String| {
        resume.into_iter().for_each(Resume::forget);
        Err(AssembleError::rejected(message))
    };
    if entry == Entry::StreamSimple && api != Api::PiMessages {
        if let Some(message) = estimate.type_error() {
            return rejected(resume, message);
        }
    }
    if api != Api::PiMessages {
        let unchecked = &messages[start..];
        if let Some(message) = transcript::transcript_type_error(unchecked)
            .or_else(|| transform::type_error(release, unchecked, model))
            .or_else(|| api::content_type_error(api, model, unchecked))
        {
            return rejected(resume, message);
        }
    }
    if let Some(r) = resume.as_deref_mut() {
        r.extend(states);
    }
    let disable =
        build.disable_preferred_strict_tools && strict::diagnostic(release, api).is_some();
    let strict_tools = strict::StrictTools::new(disable);
    let input = ApiInput {
        release,
        model,
        messages,
        options,
        entry,
        env,
        strict: &strict_tools,
        body: !build.without_body,
        estimate: &estimate,
    };
    js::take_fault();
    let mut thread = None;
    let mut reuse = Reuse::default();
    let out = if api == Api::AnthropicMessages {
        let memo = resume.as_deref_mut().map(|r| (&mut r.memo, start));
        api::anthropic::assemble_threaded(&input, memo).map(|(out, t, r)| {
            thread = t;
            reuse = r;
            out
        })
    } else {
        api::dispatch(&input)
    };
    // A TypeError pi-ai would have thrown while building (recorded by the builder) comes
    // before anything the builder returned. A request that failed leaves nothing to resume.
    let fault = js::take_fault();
    if fault.is_some() || out.is_err() {
        resume.into_iter().for_each(Resume::forget);
    }
    if let Some(message) = fault {
        return Err(AssembleError::rejected(message));
    }
    let out = out?;
    Ok(Assembled {
        api,
        payload: out.payload,
        // A header value `fetch` refuses: the payload was built, no request left.
        wire: out.wire.and_then(WireRequest::as_fetch_sends),
        thread,
        strict_tools_disabled: disable,
        has_preferred_strict_tools: strict_tools.preferred_sent(),
        reuse,
    })
}

/// Resolves a case's model against `catalog` and assembles its request for the catalog's
/// release. A case that names another release (`"pi"`) is refused: pick the catalog of the
/// case's release ([`Catalog::builtin`]).
pub fn assemble_case(case: &Case, catalog: &Catalog) -> Result<Assembled, AssembleError> {
    if let Some(pi) = case.pi.filter(|pi| *pi != catalog.release()) {
        return Err(AssembleError::ReleaseMismatch {
            case: pi,
            catalog: catalog.release(),
        });
    }
    let model = catalog.resolve(&case.model)?;
    assemble(
        catalog.release(),
        &model,
        &case.context,
        &case.options,
        case.entry,
        &case.env,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// One catalog model per API.
    const MODELS: [(&str, &str); 10] = [
        ("anthropic", "claude-opus-4-8"),
        ("openai", "gpt-5.5"),
        ("azure-openai-responses", "gpt-5.5"),
        ("openai-codex", "gpt-5.5"),
        ("moonshotai", "kimi-k3"),
        ("mistral", "mistral-large-latest"),
        ("google", "gemini-2.5-pro"),
        ("google-vertex", "gemini-2.5-flash"),
        ("amazon-bedrock", "anthropic.claude-opus-4-8"),
        ("radius", "balanced"),
    ];

    fn assemble_on(provider: &str, id: &str, context: &Value, entry: Entry) -> String {
        assemble_as(PiRelease::V0_87_1, provider, id, context, entry)
    }

    fn assemble_as(
        release: PiRelease,
        provider: &str,
        id: &str,
        context: &Value,
        entry: Entry,
    ) -> String {
        let model = Catalog::builtin(release)
            .resolve(&ModelSpec::Catalog {
                provider: provider.into(),
                id: id.into(),
                overrides: None,
            })
            .expect("catalog model");
        let mut env = std::collections::BTreeMap::new();
        env.insert("AZURE_OPENAI_RESOURCE_NAME".into(), "r".into());
        let options = json!({"sessionId": "s", "maxTokens": 1000});
        match assemble(
            release,
            &model,
            context,
            options.as_object().expect("object"),
            entry,
            &Env::new(env),
        ) {
            Ok(_) => "sent".into(),
            Err(e) => e.to_string(),
        }
    }

    /// Malformed contexts are sent or refused on every API and both entries, never a panic;
    /// pi-messages sends them all.
    #[test]
    fn malformed_contexts_never_panic() {
        let a = |content: Value| json!({"role": "assistant", "content": content, "api": "x", "provider": "y", "model": "z", "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2}, "stopReason": "stop", "timestamp": 2});
        let junk = [
            json!(null),
            json!(5),
            json!("s"),
            json!(true),
            json!({}),
            json!([]),
            json!([null, 5, "x", {}, {"type": "text"}, {"type": "image"}, {"type": "toolCall"}, {"type": "thinking", "thinking": 1}]),
        ];
        let mut contexts = Vec::new();
        for j in &junk {
            contexts
                .push(json!({"systemPrompt": "p", "messages": [{"role": "user", "content": j}]}));
            contexts.push(json!({"systemPrompt": "p", "messages": [{"role": "user", "content": "hi"}, a(j.clone()), {"role": "user", "content": "again"}]}));
            contexts.push(json!({"messages": [{"role": "user", "content": "hi"}, a(json!([{"type": "toolCall", "id": "c", "name": "n", "arguments": j}])), {"role": "toolResult", "toolCallId": j, "toolName": j, "content": j}]}));
            contexts.push(json!({"messages": [{"role": "system", "content": j, "sections": j, "toolsAdded": j, "toolsRemoved": j}, {"role": "user", "content": "hi"}]}));
            contexts.push(json!({"tools": j, "systemPrompt": j, "messages": [j, {"role": j, "content": "x"}]}));
            contexts.push(json!({"tools": [j, {"name": j, "parameters": j}], "messages": [{"role": "user", "content": "hi"}]}));
        }
        for (provider, id) in MODELS {
            for context in &contexts {
                for entry in [Entry::StreamSimple, Entry::Stream] {
                    let out = assemble_on(provider, id, context, entry);
                    if provider == "radius"
                        && !context["systemPrompt"].is_null()
                        && !context["tools"].is_null()
                    {
                        assert_eq!(out, "sent", "pi-messages: {context}");
                    }
                }
            }
        }
    }

    #[test]
    fn refusals_carry_v8_texts() {
        let ctx = json!({"systemPrompt": "p", "messages": [{"role": "user", "content": 42}]});
        assert_eq!(
            assemble_on("anthropic", "claude-opus-4-8", &ctx, Entry::StreamSimple),
            "pi-ai rejects this request: content is not iterable"
        );
        assert_eq!(
            assemble_on("mistral", "mistral-large-latest", &ctx, Entry::Stream),
            "pi-ai rejects this request: msg.content.some is not a function"
        );
        assert_eq!(
            assemble_on("radius", "balanced", &ctx, Entry::StreamSimple),
            "sent"
        );
        let ctx = json!({"systemPrompt": null, "messages": []});
        assert_eq!(
            assemble_on("radius", "balanced", &ctx, Entry::StreamSimple),
            "pi-ai rejects this request: Cannot read properties of null (reading 'length')"
        );
        let ctx = json!({"messages": [{"role": "system", "content": "x", "toolsAdded": 1e21}]});
        assert_eq!(
            assemble_on("openai", "gpt-5.5", &ctx, Entry::Stream),
            "pi-ai rejects this request: number 1e+21 is not iterable (cannot read property Symbol(Symbol.iterator))"
        );
    }

    /// A tool call without an id from another model reaches the API's id normalizer, whose first
    /// string method throws (found by the 1.3.0 malformed sweep: 1.3's Azure provider is `azure`,
    /// so a 0.87.1 `azure-openai-responses` response is foreign there). The texts are real
    /// pi-ai's (0.87.1 and 1.3.0 through `tools/pi-oracle`'s `captureCase`).
    #[test]
    fn foreign_tool_call_without_id_throws_in_the_normalizer() {
        let call = |provider: &str, api: &str| {
            json!({"messages": [
                {"role": "user", "content": "hi", "timestamp": 1},
                {"role": "assistant", "content": [{"type": "toolCall", "name": "read", "arguments": {}}],
                 "api": api, "provider": provider, "model": "gpt-5.5", "stopReason": "toolUse",
                 "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                           "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                 "timestamp": 2},
                {"role": "user", "content": "again", "timestamp": 3}]})
        };
        let old = call("azure-openai-responses", "azure-openai-responses");
        // Same model in 0.87.1: no normalizer; the id is split when the call is converted.
        assert_eq!(
            assemble_on(
                "azure-openai-responses",
                "gpt-5.5",
                &old,
                Entry::StreamSimple
            ),
            "pi-ai rejects this request: Cannot read properties of undefined (reading 'split')"
        );
        assert_eq!(
            assemble_as(
                PiRelease::V1_3_0,
                "azure",
                "gpt-5.5",
                &old,
                Entry::StreamSimple
            ),
            "pi-ai rejects this request: Cannot read properties of undefined (reading 'includes')"
        );
        let foreign = call("openai", "openai-responses");
        assert_eq!(
            assemble_on(
                "anthropic",
                "claude-opus-4-8",
                &foreign,
                Entry::StreamSimple
            ),
            "pi-ai rejects this request: Cannot read properties of undefined (reading 'replace')"
        );
        assert_eq!(
            assemble_on("moonshotai", "kimi-k3", &foreign, Entry::StreamSimple),
            "pi-ai rejects this request: Cannot read properties of undefined (reading 'includes')"
        );
        for (provider, id) in [
            ("mistral", "mistral-large-latest"),
            ("amazon-bedrock", "anthropic.claude-opus-4-8"),
        ] {
            assert_eq!(
                assemble_on(provider, id, &foreign, Entry::StreamSimple),
                "pi-ai rejects this request: Cannot read properties of undefined (reading 'replace')",
                "{provider}"
            );
        }
    }

    /// Three 1.3 changes no committed golden exercises, each as real pi-ai 0.87.1 and 1.3.0 sent
    /// it (the same cases through `tools/pi-oracle`'s `gen-wire-cases.mjs --run-case --pi R`).
    #[test]
    fn release_changes_without_a_golden() {
        let run = |release: PiRelease, case: Value| {
            let case = Case::parse(&case.to_string()).expect("case");
            assemble_case(&case, Catalog::builtin(release)).expect("assembles")
        };
        let ctx = json!({"systemPrompt": "p", "messages": [{"role": "user", "content": "hi", "timestamp": 1}]});
        // codex-header-defaults-first: the caller's `originator` wins from 1.3.
        let codex = json!({"model": {"provider": "openai-codex", "id": "gpt-5.5"}, "context": ctx,
            "options": {"sessionId": "s", "transport": "sse", "headers": {"originator": "mine"}}});
        let originator = |r| run(r, codex.clone()).wire.expect("sse").headers["originator"].clone();
        assert_eq!(originator(PiRelease::V0_87_1), "pi");
        assert_eq!(originator(PiRelease::V1_3_0), "mine");
        // completions-sampling-by-effort: the model's and the level's sampling parameters.
        let completions = json!({"model": {"provider": "groq", "id": "openai/gpt-oss-120b",
            "overrides": {"samplingParams": {"temperature": 0.3},
                          "samplingParamsByThinkingLevel": {"high": {"top_p": 0.9}}}},
            "context": ctx, "options": {"sessionId": "s", "reasoningEffort": "high"}, "entry": "stream"});
        let sampling = |r| {
            let p = run(r, completions.clone()).payload;
            (p.get("temperature").cloned(), p.get("top_p").cloned())
        };
        assert_eq!(sampling(PiRelease::V0_87_1), (None, None));
        assert_eq!(
            sampling(PiRelease::V1_3_0),
            (Some(json!(0.3)), Some(json!(0.9)))
        );
        // headers-merged-case-insensitively: a `null` removes every spelling from 1.3.
        let google = json!({"model": {"provider": "google", "id": "gemini-2.5-pro",
            "overrides": {"headers": {"X-A": "1", "X-B": "2"}}},
            "context": ctx, "options": {"sessionId": "s", "headers": {"x-a": null, "X-B": null}}});
        let names = |r| {
            let h = run(r, google.clone()).wire.expect("fetch").headers;
            h.keys()
                .filter(|k| k.starts_with("x-"))
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(names(PiRelease::V0_87_1), ["x-a"]);
        assert!(names(PiRelease::V1_3_0).is_empty());
    }

    /// 1.6 changes no committed golden exercises, each as real pi-ai 1.3.0 and 1.6.0 sent it
    /// (the same cases through `tools/pi-oracle`'s `gen-wire-cases.mjs --run-case --pi R`; the
    /// whole payloads were equal to ours under `WIRE_GOLDENS_DIR`).
    #[test]
    fn release_1_6_changes_without_a_golden() {
        let run = |release: PiRelease, case: &Value| {
            let case = Case::parse(&case.to_string()).expect("case");
            assemble_case(&case, Catalog::builtin(release))
        };
        let tool = |n: &str| {
            json!({"name": n, "description": n, "parameters": {"type": "object",
                "properties": {"x": {"type": "string"}}, "required": ["x"]}})
        };
        // completions-non-null-assistant-content, prompt-cache-key-mode (`enabled` on groq) and
        // completions-tools-with-tool-history-opt-in.
        let usage = json!({"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
        let completions = json!({"model": {"provider": "groq", "id": "openai/gpt-oss-120b",
            "overrides": {"compat": {"requiresNonNullAssistantContent": true, "promptCacheKeyMode": "enabled"}}},
            "context": {"systemPrompt": "p", "messages": [
                {"role": "user", "content": "hi", "timestamp": 1},
                {"role": "assistant", "content": [{"type": "toolCall", "id": "call_1", "name": "bash",
                    "arguments": {"command": "ls"}}], "api": "openai-completions", "provider": "groq",
                    "model": "openai/gpt-oss-120b", "usage": usage, "stopReason": "toolUse", "timestamp": 2},
                {"role": "toolResult", "toolCallId": "call_1", "toolName": "bash",
                    "content": [{"type": "text", "text": "a"}], "isError": false, "timestamp": 3}]},
            "options": {"sessionId": "s"}});
        let facts = |r| {
            let p = run(r, &completions).expect("assembles").payload;
            let assistant = p["messages"]
                .as_array()
                .and_then(|m| m.iter().find(|m| m["role"] == "assistant"))
                .map(|m| m["content"].clone());
            (
                p.get("prompt_cache_key").cloned(),
                assistant,
                p.get("tools").cloned(),
            )
        };
        assert_eq!(
            facts(PiRelease::V1_3_0),
            (None, Some(Value::Null), Some(json!([])))
        );
        assert_eq!(
            facts(PiRelease::V1_6_0),
            (Some(json!("s")), Some(json!("")), None)
        );
        // transcript-tools-fold-at-last-change: tool search folds up to the last removal.
        let system = |content: &str, added: Value, removed: Value, ts: u64| json!({"role": "system", "content": content, "toolsAdded": added, "toolsRemoved": removed, "timestamp": ts});
        let user = |t: &str, ts: u64| json!({"role": "user", "content": t, "timestamp": ts});
        let search = json!({"model": {"provider": "openai", "id": "gpt-5.5", "overrides": {"compat": {
                "supportsToolSearch": true, "supportsAdditionalTools": false, "supportsMidConvoSystemMessages": true}}},
            "context": {"messages": [
                system("base", json!([tool("a"), tool("b")]), json!([]), 0), user("one", 1),
                system("", json!([tool("c")]), json!([]), 2), user("two", 3),
                system("", json!([]), json!([tool("a")]), 4), user("three", 5),
                system("", json!([tool("d")]), json!([]), 6), user("four", 7)]},
            "options": {"sessionId": "s"}});
        let tools = |r| {
            let p = run(r, &search).expect("assembles").payload;
            let names: Vec<String> = p["tools"]
                .as_array()
                .map(|t| {
                    t.iter()
                        .map(|t| t["name"].as_str().unwrap_or("").to_string())
                        .collect()
                })
                .unwrap_or_default();
            let loads = p["input"].as_array().map_or(0, |i| {
                i.iter().filter(|i| i["type"] == "tool_search_call").count()
            });
            (names, loads)
        };
        assert_eq!(
            tools(PiRelease::V1_3_0),
            (vec!["b".into(), "c".into(), "d".into()], 0)
        );
        assert_eq!(tools(PiRelease::V1_6_0), (vec!["b".into(), "c".into()], 1));
        // mistral-strict-mode-opt-in: a `require` tool is refused without `supportsStrictMode`.
        let mut required = tool("a");
        required["constrainedSampling"] = json!({"type": "json_schema", "strict": "require"});
        let mistral = json!({"model": {"provider": "mistral", "id": "mistral-medium-latest"},
            "context": {"messages": [system("base", json!([required.clone()]), json!([]), 0), user("hi", 1)]},
            "options": {"sessionId": "s"}});
        assert!(run(PiRelease::V1_3_0, &mistral).is_ok());
        assert_eq!(
            run(PiRelease::V1_6_0, &mistral).unwrap_err().to_string(),
            "pi-ai rejects this request: Tool \"a\" requires JSON-schema constrained sampling, but strict tools are unsupported."
        );
        // strict-schema-requires-type: a bare `const` property refuses a `require` tool.
        let untyped = json!({"name": "k", "description": "k", "parameters": {"type": "object",
            "properties": {"key": {"const": "mode"}}, "required": ["key"]},
            "constrainedSampling": {"type": "json_schema", "strict": "require"}});
        let completions_strict = json!({"model": {"provider": "openai", "id": "gpt-5.5", "overrides": {
                "api": "openai-completions", "baseUrl": "https://api.openai.com/v1", "compat": {"supportsStrictMode": true}}},
            "context": {"messages": [system("base", json!([untyped]), json!([]), 0), user("hi", 1)]},
            "options": {"sessionId": "s"}});
        assert!(run(PiRelease::V1_3_0, &completions_strict).is_ok());
        assert_eq!(
            run(PiRelease::V1_6_0, &completions_strict).unwrap_err().to_string(),
            "pi-ai rejects this request: Tool \"k\" requires JSON-schema constrained sampling, but schemas without a type are unsupported."
        );
    }

    /// identity-attribution-headers: real pi-ai 1.6.0 (`gen-wire-cases.mjs --run-case`) sent
    /// these headers for an identity with attribution; 1.3.0 sent none of them.
    #[test]
    fn identity_attribution_headers_from_1_6() {
        let ctx = json!({"systemPrompt": "p", "messages": [{"role": "user", "content": "hi", "timestamp": 1}]});
        let identity = json!({"attribution": {"name": "pi", "url": "https://pi.dev", "categories": ["cli-agent", "x"]}});
        let headers = |release: PiRelease, model: Value, extra: Value| {
            let mut options = json!({"sessionId": "s", "identity": identity.clone()});
            if let (Some(o), Some(e)) = (options.as_object_mut(), extra.as_object()) {
                o.extend(e.clone());
            }
            let case = json!({"model": model, "context": ctx.clone(), "options": options});
            let case = Case::parse(&case.to_string()).expect("case");
            let wire = assemble_case(&case, Catalog::builtin(release))
                .expect("assembles")
                .wire
                .expect("fetch");
            wire.headers
                .into_iter()
                .filter(|(k, _)| {
                    k.starts_with("x-o") || k.starts_with("http-") || k.starts_with("x-b")
                })
                .collect::<Vec<_>>()
        };
        let openrouter = json!({"provider": "openrouter", "id": "openai/gpt-5.5"});
        let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
        assert_eq!(
            headers(PiRelease::V1_6_0, openrouter.clone(), json!({})),
            [
                pair("http-referer", "https://pi.dev"),
                pair("x-openrouter-categories", "cli-agent,x"),
                pair("x-openrouter-title", "pi")
            ]
        );
        assert!(headers(PiRelease::V1_3_0, openrouter, json!({})).is_empty());
        let nvidia = json!({"provider": "nvidia", "id": "google/gemma-3-12b-it"});
        assert_eq!(
            headers(PiRelease::V1_6_0, nvidia, json!({})),
            [pair("x-billing-invoke-origin", "Pi")]
        );
        // The caller's headers override the identity's.
        let google_at_nvidia = json!({"provider": "google", "id": "gemini-2.5-pro",
            "overrides": {"baseUrl": "https://integrate.api.nvidia.com/v1"}});
        assert_eq!(
            headers(
                PiRelease::V1_6_0,
                google_at_nvidia,
                json!({"headers": {"x-billing-invoke-origin": "Mine"}})
            ),
            [pair("x-billing-invoke-origin", "Mine")]
        );
    }
}
