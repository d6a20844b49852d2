//! Pi releases as data: which published Pi release a session, case or request follows, and every
//! behaviour difference between releases, each written down once.
//!
//! * [`PiRelease`]: the supported releases (0.87.1, 1.3.0), ordered, with [`PiRelease::DEFAULT`].
//!   [`PiRelease::parse`] refuses an unknown release naming the supported ones; [`follow_named`]
//!   picks between an asked-for release and the one an input names.
//! * [`Change`]: one named behaviour difference. [`Change::info`] gives its [`ChangeInfo`]: the
//!   release that introduced it, the layer it lives in, what it does and the pi-ai /
//!   pi-coding-agent function it follows. Code asks `release.has(Change::X)`; nothing else in the
//!   workspace compares versions. `forge-replay releases` and `docs/releases.md` are generated
//!   from [`CHANGES`].
//! * [`Marker`]: what a release writes into a session file that an older one does not, so a
//!   reader can tell which release wrote a session ([`MARKERS`]; detection itself is
//!   `forge_replay_session::release`). Markers name their release as a version string, so markers
//!   of releases this build does not support yet are recognised too.
//!
//! A third release is an addition: a variant of [`PiRelease`] (plus its catalog data under
//! `crates/wire/data/pi-ai-<version>/`) and the changes it introduces appended to [`Change`] and
//! [`CHANGES`]. A change that a later release reverses or replaces is a new change checked before
//! the old one.

use std::fmt;

/// A supported Pi release (the npm packages `@earendil-works/pi-ai`, `pi-agent-core` and
/// `pi-coding-agent` at that version). Ordered by version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PiRelease {
    /// 0.87.1: the release forge-replay was first built against.
    V0_87_1,
    /// 1.3.0: the SDK pi-forge 0.5.9 is developed against.
    V1_3_0,
    /// 1.6.0: the newest release, the one new Pi users install.
    V1_6_0,
}

/// An unknown `--pi` / `"pi"` / `FORGE_REPLAY_PI` value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown Pi release {given:?}; supported releases: {}",
    PiRelease::supported_list()
)]
pub struct UnknownRelease {
    /// What was given.
    pub given: String,
}

impl PiRelease {
    /// Every supported release, oldest first.
    pub const ALL: [PiRelease; 3] = [PiRelease::V0_87_1, PiRelease::V1_3_0, PiRelease::V1_6_0];

    /// The release used when nothing names one and a session shows no markers: 0.87.1, the
    /// release every case file, scenario and golden written before releases existed follows.
    /// Sessions choose their own release from what they contain (see [`MARKERS`]).
    pub const DEFAULT: PiRelease = PiRelease::V0_87_1;

    /// The newest supported release.
    pub const LATEST: PiRelease = PiRelease::V1_6_0;

    /// The version string (`"1.3.0"`).
    pub const fn version(self) -> &'static str {
        match self {
            PiRelease::V0_87_1 => "0.87.1",
            PiRelease::V1_3_0 => "1.3.0",
            PiRelease::V1_6_0 => "1.6.0",
        }
    }

    /// Parses a version string. Exact versions only (`0.87.1`, `1.3.0`).
    pub fn parse(s: &str) -> Result<PiRelease, UnknownRelease> {
        PiRelease::from_version(s.trim()).ok_or_else(|| UnknownRelease {
            given: s.to_string(),
        })
    }

    /// The supported release with this exact version string.
    pub fn from_version(s: &str) -> Option<PiRelease> {
        PiRelease::ALL.into_iter().find(|r| r.version() == s)
    }

    /// `0.87.1, 1.3.0`.
    pub fn supported_list() -> String {
        PiRelease::ALL.map(PiRelease::version).join(", ")
    }

    /// Whether `change` is in effect in this release.
    #[inline]
    pub fn has(self, change: Change) -> bool {
        self >= change.since()
    }

    /// The changes this release introduced (against the release before it), in table order.
    pub fn introduced(self) -> impl Iterator<Item = &'static ChangeInfo> {
        CHANGES.iter().filter(move |c| c.since == self)
    }

    /// The changes in effect in this release that `other` does not have, or the other way round
    /// (what differs between the two, in table order).
    pub fn differences(self, other: PiRelease) -> impl Iterator<Item = &'static ChangeInfo> {
        CHANGES
            .iter()
            .filter(move |c| self.has(c.change) != other.has(c.change))
    }

    /// Ordering of two version strings (`"1.6.0"` vs `"1.3.0"`), numerically per component.
    pub fn compare_versions(a: &str, b: &str) -> std::cmp::Ordering {
        let parts =
            |s: &str| -> Vec<u64> { s.split('.').map(|p| p.parse().unwrap_or(0)).collect() };
        parts(a).cmp(&parts(b))
    }
}

impl fmt::Display for PiRelease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.version())
    }
}

impl std::str::FromStr for PiRelease {
    type Err = UnknownRelease;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PiRelease::parse(s)
    }
}

/// Where a change lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layer {
    /// The model catalog (data files, their format, provider names).
    Catalog,
    /// A request step several APIs share (`utils/estimate.js`, `transform-messages.js`, …).
    Shared,
    /// One or more provider APIs' request builders (see [`ChangeInfo::apis`]).
    Api,
    /// The coding agent and agent loop (what the agent passes to pi-ai, and when).
    Agent,
    /// What a release writes into session files.
    Session,
}

impl Layer {
    /// The layer's name in listings.
    pub const fn name(self) -> &'static str {
        match self {
            Layer::Catalog => "catalog",
            Layer::Shared => "shared request steps",
            Layer::Api => "provider APIs",
            Layer::Agent => "agent loop",
            Layer::Session => "session files",
        }
    }
}

/// One behaviour difference between Pi releases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Change {
    // --- 1.3.0: catalog
    /// Catalog keys `"<type>:<id>"`, models carry `type`; only `chat` models are the catalog.
    CatalogTypedKeys,
    /// Provider `azure-openai-responses` is renamed `azure`.
    AzureProviderRenamed,
    // --- 1.3.0: shared request steps
    /// `CHARS_PER_TOKEN` 4 → 3.5.
    CharsPerToken35,
    /// Thinking from another model is dropped instead of becoming text.
    CrossModelThinkingDropped,
    /// `samplingParamsByThinkingLevel` merged between model and request sampling parameters.
    SamplingByThinkingLevel,
    /// Images of error tool results move after the turn's tool results.
    ErrorToolImagesSplit,
    /// Header records merged case-insensitively, the last spelling winning.
    HeadersMergedCaseInsensitively,
    // --- 1.3.0: provider APIs
    /// Anthropic native tool changes keep `tools` fixed and define later tools inline.
    AnthropicInlineToolDefinitions,
    /// Anthropic beta `inline-tools-2026-09-15` replaces `mid-conversation-tool-changes-2026-07-01`.
    AnthropicInlineToolsBeta,
    /// Anthropic's `hasToolRedefinitions` gate on native tool changes is gone.
    AnthropicNoRedefinitionGate,
    /// Anthropic: disabled thinking wins over managed effort.
    AnthropicThinkingDisabledWins,
    /// Anthropic strict tools: unsupported schema keywords make a "prefer" tool non-strict.
    AnthropicStrictKeywordRules,
    /// Anthropic: a request whose preferred strict tools exceed Claude's limits is resent once
    /// with them non-strict (per request).
    AnthropicStrictToolsFallback,
    /// Responses: `configuration_update` items carry the thinking level.
    ResponsesConfigurationUpdate,
    /// Responses: an OpenAI key not starting with `sk-` is a ChatGPT sign-in.
    ResponsesChatGptSignIn,
    /// Responses: item ids of another model or the wrong prefix are dropped.
    ResponsesItemIdPrefix,
    /// Responses/Azure: `reasoningSummary` alone implies effort `medium`, and sampling parameters
    /// are resolved by the request's thinking level.
    ResponsesSamplingByEffort,
    /// Azure: the tool-call id providers name `azure`.
    AzureToolCallProviderRenamed,
    /// Completions: sampling parameters resolved by the request's reasoning effort.
    CompletionsSamplingByEffort,
    /// Codex: `originator` and `User-Agent` defaults first, so model and caller headers win.
    CodexHeaderDefaultsFirst,
    /// Mistral: `reasoning_effort` whenever the model has a thinking level map, else `prompt_mode`.
    MistralEffortByLevelMap,
    /// Bedrock Claude: `thinking.block_binding` with the `anthropic_beta` feature.
    BedrockBlockBinding,
    /// Bedrock: Claude haiku-5 uses adaptive thinking and managed effort.
    BedrockHaiku5Adaptive,
    /// Bedrock: OpenAI GPT and gpt-oss models get reasoning fields.
    BedrockGptReasoning,
    /// Google: Gemini 4 and later use the `thinkingLevel` control.
    GoogleGemini4ThinkingLevel,
    // --- 1.3.0: agent loop
    /// Requests of a virtual model are routed to a physical model.
    AgentVirtualModelRouting,
    /// Declarations a `prepareLoadout` hook hides are filtered from every request.
    AgentHiddenDeclarations,
    /// Tool results carry the usage of the tool calls a tool made.
    AgentNestedCallUsage,
    // --- 1.3.0: session files
    /// Assistant messages record the requested thinking level.
    SessionAssistantThinkingLevel,
    /// Assistant messages and tool results record `durationMs`.
    SessionDurations,
    /// Tool calls with malformed arguments record `argumentsError`.
    SessionToolCallArgumentsError,
    /// `pi.virtual-model-state` custom entries.
    SessionVirtualModelState,
    /// The session file is created at the first user message (not the first assistant one).
    SessionFileAtFirstUserMessage,
    // --- 1.6.0: anthropic-messages
    /// Anthropic message threads: `thread` create/continue bodies, per-process state by session.
    AnthropicMessageThreads,
    /// Anthropic managed effort sends the fixed top-level `output_config.effort: "low"`.
    AnthropicManagedEffortLow,
    /// Anthropic: pending system messages are flushed only before an assistant message that is sent.
    AnthropicFlushBeforeSentAssistant,
    /// Anthropic: a non-strict `input_schema` keeps `additionalProperties`, `$defs`, `definitions`.
    AnthropicNonStrictSchemaKeywords,
    /// A session whose strict tools exceeded Claude's limits sends preferred strict tools
    /// non-strict from then on (Anthropic and Bedrock, per process).
    StrictToolLimitsPerSession,
    // --- 1.6.0: shared request steps and the APIs other than Anthropic
    /// Google/Vertex: `config.automaticContinuation: false` in the payload (not on the wire).
    GoogleAutomaticContinuationOff,
    /// Google/Vertex: string and number `const` values in tool schemas become one-value `enum`s.
    GoogleConstAsEnum,
    /// Google/Vertex: tool result text that is only whitespace counts as no text.
    GoogleBlankToolResultText,
    /// Tool changes in place fold into the request's tools only up to the last removal or redefinition.
    TranscriptToolsFoldAtLastChange,
    /// Responses: `getResponsesToolSupport` chooses `changes`, `additions` or `none`.
    ResponsesToolSupportModes,
    /// Responses: the OpenAI session affinity header is `session-id` instead of `session_id`.
    ResponsesSessionIdHeader,
    /// `compat.promptCacheKeyMode` decides whether `prompt_cache_key` is sent.
    PromptCacheKeyMode,
    /// Codex: no `instructions`; the system prompt is a leading developer item of `input`.
    CodexSystemPromptInInput,
    /// Codex: `max_output_tokens` is sent.
    CodexMaxOutputTokens,
    /// Codex: thinking off is sent as effort `none`.
    CodexOffAsEffortNone,
    /// Codex: `configuration_update` items carry the thinking level.
    CodexConfigurationUpdate,
    /// Google/Vertex: `@google/genai` 2.32 serializes parts differently.
    GoogleGenai232Parts,
    /// A strict tool schema node without `type`, `anyOf` or `enum` is unsupported.
    StrictSchemaRequiresType,
    /// Tool output that is only whitespace becomes `(no tool output)` (or the image placeholder).
    BlankToolOutputIsNoOutput,
    /// Completions: the developer role is detected for OpenAI only.
    CompletionsDeveloperRoleOpenAiOnly,
    /// Completions: `tools: []` for a tool history only with `compat.requiresToolsWithToolHistory`.
    CompletionsToolsWithToolHistoryOptIn,
    /// Completions: `compat.requiresNonNullAssistantContent` sends `""` instead of `null` assistant content.
    CompletionsNonNullAssistantContent,
    /// Mistral: strict tools only with `compat.supportsStrictMode`.
    MistralStrictModeOptIn,
    /// Bedrock: a request whose preferred strict tools exceed Claude's limits is resent once with
    /// them non-strict.
    BedrockStrictToolsFallback,
    /// `clampMaxTokensToContext` keeps a margin of 15% of the input and a 32,768 output floor.
    ClampRatioMargin,
    /// A request identity with `attribution` adds provider attribution headers.
    IdentityAttributionHeaders,
    // --- 1.6.0: session files, agent loop (upgrade16)
    /// Every usage cost pi-ai computes records `totalFromProvider`.
    SessionCostTotalFromProvider,
    /// Assistant messages record the new diagnostics (thread fallback, input transformations,
    /// Bedrock strict-tools fallback).
    SessionNewDiagnostics,
    /// The agent's thinking level is recorded on the branch tree navigation moved to.
    SessionThinkingLevelOnBranch,
    /// Cache warming defaults to `idle`: idle prompt caches are refreshed before their TTL ends.
    AgentCacheWarmingIdle,
}

/// What [`Change::info`] knows about a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChangeInfo {
    /// The change.
    pub change: Change,
    /// Its stable name (kebab case; `forge-replay releases` and `docs/releases.md` print it).
    pub name: &'static str,
    /// The release that introduced it.
    pub since: PiRelease,
    /// Where it lives.
    pub layer: Layer,
    /// The provider APIs it affects (`model.api` names); empty when not API specific.
    pub apis: &'static [&'static str],
    /// What changed, in one sentence.
    pub summary: &'static str,
    /// The package file and function the new behaviour follows.
    pub follows: &'static str,
}

const ANTHROPIC: &[&str] = &["anthropic-messages"];
const RESPONSES: &[&str] = &[
    "openai-responses",
    "azure-openai-responses",
    "openai-codex-responses",
];
const BEDROCK: &[&str] = &["bedrock-converse-stream"];
const GOOGLE: &[&str] = &["google-generative-ai", "google-vertex"];
const NONE: &[&str] = &[];

/// Every change, in [`Change`] order (`CHANGES[c as usize].change == c`).
pub const CHANGES: &[ChangeInfo] = &[
    ChangeInfo {
        change: Change::CatalogTypedKeys,
        name: "catalog-typed-keys",
        since: PiRelease::V1_3_0,
        layer: Layer::Catalog,
        apis: NONE,
        summary: "catalog data keys are \"<type>:<id>\" and every model carries `type` (chat, image, classifier); only chat models are looked up for requests; manifest schema 6",
        follows: "pi-ai dist/model-catalog.js flattenChatModelCatalog",
    },
    ChangeInfo {
        change: Change::AzureProviderRenamed,
        name: "azure-provider-renamed",
        since: PiRelease::V1_3_0,
        layer: Layer::Catalog,
        apis: &["azure-openai-responses"],
        summary: "provider `azure-openai-responses` is renamed `azure` (the API name is unchanged); an older session's `azure-openai-responses/<id>` resolves to `azure/<id>`",
        follows: "pi-ai dist/providers/azure.js azureProvider",
    },
    ChangeInfo {
        change: Change::CharsPerToken35,
        name: "chars-per-token-3.5",
        since: PiRelease::V1_3_0,
        layer: Layer::Shared,
        apis: NONE,
        summary: "token estimates count 3.5 characters per token instead of 4, so `maxTokens` clamped to the context window comes out a few tokens lower",
        follows: "pi-ai dist/utils/estimate.js CHARS_PER_TOKEN",
    },
    ChangeInfo {
        change: Change::CrossModelThinkingDropped,
        name: "cross-model-thinking-dropped",
        since: PiRelease::V1_3_0,
        layer: Layer::Shared,
        apis: NONE,
        summary: "thinking blocks from another model are dropped instead of being sent as text",
        follows: "pi-ai dist/api/transform-messages.js transformMessages",
    },
    ChangeInfo {
        change: Change::SamplingByThinkingLevel,
        name: "sampling-by-thinking-level",
        since: PiRelease::V1_3_0,
        layer: Layer::Shared,
        apis: NONE,
        summary: "`model.samplingParamsByThinkingLevel[clampThinkingLevel(level)]` is merged between the model's and the request's sampling parameters",
        follows: "pi-ai dist/api/simple-options.js resolveSamplingParams",
    },
    ChangeInfo {
        change: Change::ErrorToolImagesSplit,
        name: "error-tool-images-split",
        since: PiRelease::V1_3_0,
        layer: Layer::Shared,
        apis: &["anthropic-messages", "bedrock-converse-stream"],
        summary: "images in an error tool result are replaced by a placeholder and sent, with a caption, after all tool results of the turn (Anthropic; Claude on Bedrock)",
        follows: "pi-ai dist/api/transform-messages.js splitErrorToolResultImages",
    },
    ChangeInfo {
        change: Change::HeadersMergedCaseInsensitively,
        name: "headers-merged-case-insensitively",
        since: PiRelease::V1_3_0,
        layer: Layer::Shared,
        apis: &["google-generative-ai", "google-vertex"],
        summary: "provider header records are merged by lowercased name, the last source winning",
        follows: "pi-ai dist/utils/headers.js providerHeadersToRecord",
    },
    ChangeInfo {
        change: Change::AnthropicInlineToolDefinitions,
        name: "anthropic-inline-tool-definitions",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: ANTHROPIC,
        summary: "with native tool changes `tools` stays the initial tools plus the placeholder; later tools are sent by value in `tool_addition` blocks (`{type:\"tool_definition\", definition}`), and a redefined tool needs no `tool_removal`",
        follows: "pi-ai dist/api/anthropic-messages.js buildParams, convertMessages",
    },
    ChangeInfo {
        change: Change::AnthropicInlineToolsBeta,
        name: "anthropic-inline-tools-beta",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: ANTHROPIC,
        summary: "native tool changes send beta `inline-tools-2026-09-15` instead of `mid-conversation-tool-changes-2026-07-01`",
        follows: "pi-ai dist/api/anthropic-messages.js INLINE_TOOLS_BETA",
    },
    ChangeInfo {
        change: Change::AnthropicNoRedefinitionGate,
        name: "anthropic-no-redefinition-gate",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: ANTHROPIC,
        summary: "a tool declared twice with different definitions no longer turns native tool changes off",
        follows: "pi-ai dist/api/anthropic-messages.js buildParams (hasToolRedefinitions no longer called)",
    },
    ChangeInfo {
        change: Change::AnthropicThinkingDisabledWins,
        name: "anthropic-thinking-disabled-wins",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: ANTHROPIC,
        summary: "thinking level off on a reasoning model sends `thinking:{type:\"disabled\"}` even for managed-effort models, and no effort markers",
        follows: "pi-ai dist/api/anthropic-messages.js buildParams (thinkingDisabled)",
    },
    ChangeInfo {
        change: Change::AnthropicStrictKeywordRules,
        name: "anthropic-strict-keyword-rules",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: ANTHROPIC,
        summary: "strict tool schemas may not use minimum/maximum/multipleOf/maxItems/…, minItems other than 0 or 1, or formats outside Anthropic's list; a \"prefer\" tool with one is sent non-strict",
        follows: "pi-ai dist/api/anthropic-messages.js isAnthropicStrictUnsupportedKeyword",
    },
    ChangeInfo {
        change: Change::AnthropicStrictToolsFallback,
        name: "anthropic-strict-tools-fallback",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: ANTHROPIC,
        summary: "a request with `prefer` tools sent strict that the API rejects (400 `invalid_request_error`: `The compiled grammar is too large`, `Too many strict tools (`, `Schemas contains too many parameters with union types (`) is rebuilt once with every `prefer` tool non-strict (`onPayload` runs again) and resent; the reply records an `anthropic_strict_tools_fallback` diagnostic. Per request only: the next request tries strict again",
        follows: "pi-ai dist/api/anthropic-messages.js streamAnthropic (disablePreferredStrictTools), buildParams (hasPreferredStrictTools), convertTools",
    },
    ChangeInfo {
        change: Change::ResponsesConfigurationUpdate,
        name: "responses-configuration-update",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: &["openai-responses"],
        summary: "models with `compat.supportsMidConvoEffort` send the thinking level in `configuration_update` input items (one per same-model response, one at the end) and `reasoning.effort` fixed at `medium`",
        follows: "pi-ai dist/api/openai-responses.js getConfigurationUpdateEffort; openai-responses-shared.js convertResponsesMessages",
    },
    ChangeInfo {
        change: Change::ResponsesChatGptSignIn,
        name: "responses-chatgpt-sign-in",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: &["openai-responses"],
        summary: "a key not starting with `sk-` for provider openai at api.openai.com is a ChatGPT sign-in: no `max_output_tokens`, `temperature`, `prompt_cache_retention`, `prompt_cache_options` and no configuration updates",
        follows: "pi-ai dist/api/openai-responses.js isChatGPTSignIn",
    },
    ChangeInfo {
        change: Change::ResponsesItemIdPrefix,
        name: "responses-item-id-prefix",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: RESPONSES,
        summary: "a tool call's item id is dropped when the call came from another model or its prefix does not match the item type (`fc_` for function calls, `ctc_` for custom tool calls)",
        follows: "pi-ai dist/api/openai-responses-shared.js convertResponsesMessages",
    },
    ChangeInfo {
        change: Change::ResponsesSamplingByEffort,
        name: "responses-sampling-by-effort",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: &["openai-responses", "azure-openai-responses"],
        summary: "the request's reasoning effort (or `medium` when only a summary is asked for) resolves the sampling parameters, which are applied last",
        follows: "pi-ai dist/api/openai-responses.js, azure-openai-responses.js buildParams (resolveSamplingParams)",
    },
    ChangeInfo {
        change: Change::AzureToolCallProviderRenamed,
        name: "azure-tool-call-provider-renamed",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: &["azure-openai-responses"],
        summary: "tool call ids from provider `azure` (was `azure-openai-responses`) keep their Responses form",
        follows: "pi-ai dist/api/azure-openai-responses.js AZURE_TOOL_CALL_PROVIDERS",
    },
    ChangeInfo {
        change: Change::CompletionsSamplingByEffort,
        name: "completions-sampling-by-effort",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: &["openai-completions"],
        summary: "the request's reasoning effort resolves the sampling parameters, which are applied last",
        follows: "pi-ai dist/api/openai-completions.js buildParams (resolveSamplingParams)",
    },
    ChangeInfo {
        change: Change::CodexHeaderDefaultsFirst,
        name: "codex-header-defaults-first",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: &["openai-codex-responses"],
        summary: "`originator` and `User-Agent` are set before the model's and the caller's headers, which now override them",
        follows: "pi-ai dist/api/openai-codex-responses.js buildHeaders",
    },
    ChangeInfo {
        change: Change::MistralEffortByLevelMap,
        name: "mistral-effort-by-level-map",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: &["mistral-conversations"],
        summary: "a reasoning model with a `thinkingLevelMap` sends `reasoning_effort` (mapped level, `high` when unmapped, the `off` value when off), any other reasoning model `prompt_mode: \"reasoning\"`; the model-id lists are gone",
        follows: "pi-ai dist/api/mistral-conversations.js buildRequestOptions",
    },
    ChangeInfo {
        change: Change::BedrockBlockBinding,
        name: "bedrock-block-binding",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: BEDROCK,
        summary: "adaptive thinking on Claude opus-4-7/opus-4-8/opus-5/sonnet-5/haiku-5/fable-5 sends `block_binding:{prefix_mismatch_behavior:\"drop_block\"}` and `anthropic_beta:[\"thinking-binding-controls-2026-08-01\"]` (not on GovCloud)",
        follows: "pi-ai dist/api/bedrock-converse-stream.js supportsThinkingBlockBinding",
    },
    ChangeInfo {
        change: Change::BedrockHaiku5Adaptive,
        name: "bedrock-haiku-5-adaptive",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: BEDROCK,
        summary: "Claude haiku-5 counts as an adaptive-thinking and managed-effort model",
        follows: "pi-ai dist/api/bedrock-converse-stream.js supportsAdaptiveThinking, mapThinkingLevelToEffort",
    },
    ChangeInfo {
        change: Change::BedrockGptReasoning,
        name: "bedrock-gpt-reasoning",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: BEDROCK,
        summary: "gpt-oss models get `reasoning_effort` (low/medium/high) and other OpenAI GPT models `reasoning.effort` in `additionalModelRequestFields`",
        follows: "pi-ai dist/api/bedrock-converse-stream.js buildAdditionalModelRequestFields",
    },
    ChangeInfo {
        change: Change::GoogleGemini4ThinkingLevel,
        name: "google-gemini-4-thinking-level",
        since: PiRelease::V1_3_0,
        layer: Layer::Api,
        apis: &["google-generative-ai", "google-vertex"],
        summary: "model ids matching `gemini-4` and later use `thinkingConfig.thinkingLevel` instead of a thinking budget",
        follows: "pi-ai dist/api/google-shared.js usesGoogleThinkingLevel",
    },
    ChangeInfo {
        change: Change::AgentVirtualModelRouting,
        name: "agent-virtual-model-routing",
        since: PiRelease::V1_3_0,
        layer: Layer::Agent,
        apis: NONE,
        summary: "a request for a virtual model (api `pi-virtual`) is sent to the physical model and thinking level its router picks; the response names them, so a replay follows the recorded model and thinking level",
        follows: "pi-coding-agent dist/core/agent-session.js prepareRequest, virtual-models.js",
    },
    ChangeInfo {
        change: Change::AgentHiddenDeclarations,
        name: "agent-hidden-declarations",
        since: PiRelease::V1_3_0,
        layer: Layer::Agent,
        apis: NONE,
        summary: "tool declarations a `prepareLoadout` hook hides are filtered out of every system message's `toolsAdded`/`toolsRemoved` before the request (the session does not record which; `replay --hide-declarations` names them)",
        follows: "pi-coding-agent dist/core/agent-session.js _installHiddenDeclarationsProjection",
    },
    ChangeInfo {
        change: Change::AgentNestedCallUsage,
        name: "agent-nested-call-usage",
        since: PiRelease::V1_3_0,
        layer: Layer::Agent,
        apis: NONE,
        summary: "a tool result records the calls its tool made (`nestedCalls`) and carries their usage merged into `usage`",
        follows: "pi-coding-agent dist/core/agent-session.js _nestedToolCalls (message_start)",
    },
    ChangeInfo {
        change: Change::SessionAssistantThinkingLevel,
        name: "session-assistant-thinking-level",
        since: PiRelease::V1_3_0,
        layer: Layer::Session,
        apis: NONE,
        summary: "every assistant message records the thinking level its request asked for (`thinkingLevel`)",
        follows: "pi-agent-core dist/agent-loop.js streamAssistantResponse",
    },
    ChangeInfo {
        change: Change::SessionDurations,
        name: "session-durations",
        since: PiRelease::V1_3_0,
        layer: Layer::Session,
        apis: NONE,
        summary: "assistant messages and tool results record `durationMs`",
        follows: "pi-ai dist/utils/event-stream.js; pi-agent-core dist/agent-loop.js executePreparedToolCall",
    },
    ChangeInfo {
        change: Change::SessionToolCallArgumentsError,
        name: "session-tool-call-arguments-error",
        since: PiRelease::V1_3_0,
        layer: Layer::Session,
        apis: NONE,
        summary: "a tool call whose arguments are not a JSON object records `arguments: {}` and `argumentsError`",
        follows: "pi-ai dist/utils/json-parse.js parseToolCallArguments",
    },
    ChangeInfo {
        change: Change::SessionVirtualModelState,
        name: "session-virtual-model-state",
        since: PiRelease::V1_3_0,
        layer: Layer::Session,
        apis: NONE,
        summary: "virtual-model routers store their state in `custom` entries of type `pi.virtual-model-state` (not part of the projection)",
        follows: "pi-coding-agent dist/core/virtual-models.js VIRTUAL_MODEL_STATE_ENTRY",
    },
    ChangeInfo {
        change: Change::SessionFileAtFirstUserMessage,
        name: "session-file-at-first-user-message",
        since: PiRelease::V1_3_0,
        layer: Layer::Session,
        apis: NONE,
        summary: "the session file is written once it holds a user or assistant message (0.87.1: an assistant message), so a file may end at a user message that never got an answer",
        follows: "pi-coding-agent dist/core/session-manager.js _hasConversation",
    },
    // --- 1.6.0: anthropic-messages
    ChangeInfo {
        change: Change::AnthropicMessageThreads,
        name: "anthropic-message-threads",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: ANTHROPIC,
        summary: "with a sessionId (and cache retention not `none`) on a model with `compat.supportsMessageThreads` (default: base URL on api.anthropic.com) requests send beta `message-threads-2026-08-12` and a `thread`: `{type:\"create\"}`, or, when the request extends the last clean reply of the session in this process with the same settings, `{type:\"continue\", previous_message_id}` with only the new messages and no `system`/`tools` (`onPayload` still sees the full params); a rejected thread is resent once as a new thread or, when the endpoint cannot thread, without `thread` (threads off for the session), recorded as an `anthropic_thread_fallback` diagnostic",
        follows: "pi-ai dist/api/anthropic-messages.js prepareThreadRequest, sendThreadRequest, recordThreadReply, hashThreadPrefix",
    },
    ChangeInfo {
        change: Change::AnthropicManagedEffortLow,
        name: "anthropic-managed-effort-low",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: ANTHROPIC,
        summary: "managed-effort models send the fixed top-level `output_config:{effort:\"low\"}` (was `high`); the per-reply effort markers are unchanged",
        follows: "pi-ai dist/api/anthropic-messages.js buildParams (effortMessages)",
    },
    ChangeInfo {
        change: Change::AnthropicFlushBeforeSentAssistant,
        name: "anthropic-flush-before-sent-assistant",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: ANTHROPIC,
        summary: "held-back system messages are emitted before the next assistant message that converts to at least one block (an empty assistant message no longer flushes them ahead of a user message)",
        follows: "pi-ai dist/api/anthropic-messages.js convertMessages (flushPendingSystemMessages)",
    },
    ChangeInfo {
        change: Change::AnthropicNonStrictSchemaKeywords,
        name: "anthropic-non-strict-schema-keywords",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: ANTHROPIC,
        summary: "a non-strict tool's `input_schema` keeps the root `additionalProperties`, `$defs` and `definitions` after `type`/`properties`/`required`",
        follows: "pi-ai dist/api/anthropic-messages.js convertTools (legacyInputSchema)",
    },
    ChangeInfo {
        change: Change::StrictToolLimitsPerSession,
        name: "strict-tool-limits-per-session",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: &["anthropic-messages", "bedrock-converse-stream"],
        summary: "after a strict-limit fallback the session id is remembered in the process (at most 10,000 sessions, freed when the agent session is disposed), and every later request of that session, Anthropic or Bedrock, sends its `prefer` tools non-strict from the first attempt (no rejection, no diagnostic); a new process tries strict again",
        follows: "pi-ai dist/api/strict-tool-limits.js markStrictToolLimitsExceeded, hasExceededStrictToolLimits; anthropic-messages.js, bedrock-converse-stream.js",
    },
    // --- 1.6.0: shared request steps and the APIs other than Anthropic
    ChangeInfo {
        change: Change::GoogleAutomaticContinuationOff,
        name: "google-automatic-continuation-off",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: GOOGLE,
        summary: "the request config carries `automaticContinuation: false` (after `toolConfig`); the SDK keeps it out of the HTTP body, so only `onPayload` sees it",
        follows: "pi-ai dist/api/google-generative-ai.js, google-vertex.js buildParams",
    },
    ChangeInfo {
        change: Change::GoogleConstAsEnum,
        name: "google-const-as-enum",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: GOOGLE,
        summary: "a string or number `const` in a tool's `parametersJsonSchema` (at schema positions, not property names) is sent as a one-value `enum` unless the node has an `enum`",
        follows: "pi-ai dist/api/google-shared.js rewriteConstAsEnum",
    },
    ChangeInfo {
        change: Change::GoogleBlankToolResultText,
        name: "google-blank-tool-result-text",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: GOOGLE,
        summary: "a tool result whose text is only whitespace counts as having no text: `(see attached image)` with images, else an empty response",
        follows: "pi-ai dist/api/google-shared.js convertMessages (textResult.trim())",
    },
    ChangeInfo {
        change: Change::TranscriptToolsFoldAtLastChange,
        name: "transcript-tools-fold-at-last-change",
        since: PiRelease::V1_6_0,
        layer: Layer::Shared,
        apis: NONE,
        summary: "with tool additions in place, a removal or same-name redeclaration no longer turns anchoring off: the request's tools become the tool state after the last such change and later additions stay anchored (Responses tool search, Completions tool messages)",
        follows: "pi-ai dist/utils/transcript.js resolveTranscriptTools, findLastNonAdditiveToolChange",
    },
    ChangeInfo {
        change: Change::ResponsesToolSupportModes,
        name: "responses-tool-support-modes",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: RESPONSES,
        summary: "tool changes are `changes` (mid-conversation system messages and `additional_tools`: no top-level `tools`, every system message declares its tools in `additional_tools` items, later ones preceded by an incremental-update notice, removals announced in the system text), `additions` (tool search) or `none`",
        follows: "pi-ai dist/api/openai-responses-shared.js getResponsesToolSupport, convertResponsesMessages",
    },
    ChangeInfo {
        change: Change::ResponsesSessionIdHeader,
        name: "responses-session-id-header",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: &["openai-responses"],
        summary: "the OpenAI session-affinity header is spelled `session-id` (was `session_id`)",
        follows: "pi-ai dist/api/openai-responses.js createClient",
    },
    ChangeInfo {
        change: Change::PromptCacheKeyMode,
        name: "prompt-cache-key-mode",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: &["openai-responses", "azure-openai-responses", "openai-completions"],
        summary: "`compat.promptCacheKeyMode` `disabled` drops `prompt_cache_key` (Responses, Azure); Completions sends it with `enabled`, or with `auto` for OpenAI and OpenRouter endpoints",
        follows: "pi-ai dist/api/openai-responses.js buildParams; azure-openai-responses.js buildParams; openai-completions.js buildParams",
    },
    ChangeInfo {
        change: Change::CodexSystemPromptInInput,
        name: "codex-system-prompt-in-input",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: &["openai-codex-responses"],
        summary: "no top-level `instructions`: the system prompt is the leading instruction item of `input`, like any other system message",
        follows: "pi-ai dist/api/openai-codex-responses.js buildRequestBody",
    },
    ChangeInfo {
        change: Change::CodexMaxOutputTokens,
        name: "codex-max-output-tokens",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: &["openai-codex-responses"],
        summary: "`max_output_tokens` = `max(maxTokens, 16)` is sent unless `compat.supportsMaxOutputTokens` is false",
        follows: "pi-ai dist/api/openai-codex-responses.js buildRequestBody",
    },
    ChangeInfo {
        change: Change::CodexOffAsEffortNone,
        name: "codex-off-as-effort-none",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: &["openai-codex-responses"],
        summary: "`streamSimple` with thinking off (or no level) on a reasoning model asks for effort `none` (mapped through `thinkingLevelMap.off`)",
        follows: "pi-ai dist/api/openai-codex-responses.js streamSimple",
    },
    ChangeInfo {
        change: Change::CodexConfigurationUpdate,
        name: "codex-configuration-update",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: &["openai-codex-responses"],
        summary: "models with `compat.supportsMidConvoEffort` send the thinking level in `configuration_update` input items and `reasoning.effort` fixed at `medium`",
        follows: "pi-ai dist/api/openai-codex-responses.js getConfigurationUpdateEffort, buildRequestBody",
    },
    ChangeInfo {
        change: Change::GoogleGenai232Parts,
        name: "google-genai-2.32-parts",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: GOOGLE,
        summary: "pi-ai 1.6 depends on `@google/genai` 2.32: Gemini API bodies keep `inlineData` as pi-ai wrote it (`mimeType` before `data`), Vertex bodies rebuild `functionResponse` as `{id, name, parts, response}`",
        follows: "@google/genai 2.32 dist/node/index.mjs partToMldev, functionResponseToVertex",
    },
    ChangeInfo {
        change: Change::StrictSchemaRequiresType,
        name: "strict-schema-requires-type",
        since: PiRelease::V1_6_0,
        layer: Layer::Shared,
        apis: NONE,
        summary: "a schema node without `type`, `anyOf` or `enum` (a bare `const` included) cannot be made strict: a `prefer` tool is sent non-strict, a `require` tool is refused with `schemas without a type are unsupported`",
        follows: "pi-ai dist/api/constrained-sampling.js makeJsonSchemaNodeStrict",
    },
    ChangeInfo {
        change: Change::BlankToolOutputIsNoOutput,
        name: "blank-tool-output-is-no-output",
        since: PiRelease::V1_6_0,
        layer: Layer::Shared,
        apis: &["openai-responses", "azure-openai-responses", "openai-codex-responses", "openai-completions"],
        summary: "a tool result whose text is only whitespace is sent as `(no tool output)`, or `(see attached image)` when it has images (Responses family, Completions)",
        follows: "pi-ai dist/api/openai-responses-shared.js convertToolResultOutput; openai-completions.js convertMessages (textResult.trim())",
    },
    ChangeInfo {
        change: Change::CompletionsDeveloperRoleOpenAiOnly,
        name: "completions-developer-role-openai-only",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: &["openai-completions"],
        summary: "`supportsDeveloperRole` is detected only for provider `openai` or an `api.openai.com` base URL (was: every standard endpoint and OpenRouter's anthropic/ and openai/ models), so reasoning models elsewhere get `system` instructions",
        follows: "pi-ai dist/api/openai-completions.js detectCompat",
    },
    ChangeInfo {
        change: Change::CompletionsToolsWithToolHistoryOptIn,
        name: "completions-tools-with-tool-history-opt-in",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: &["openai-completions"],
        summary: "a request without tools but with tool calls or results in its history sends `tools: []` only when `compat.requiresToolsWithToolHistory` is set",
        follows: "pi-ai dist/api/openai-completions.js buildParams",
    },
    ChangeInfo {
        change: Change::CompletionsNonNullAssistantContent,
        name: "completions-non-null-assistant-content",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: &["openai-completions"],
        summary: "with `compat.requiresNonNullAssistantContent`, an assistant message's content starts as `\"\"` instead of `null` (as with `requiresAssistantAfterToolResult`)",
        follows: "pi-ai dist/api/openai-completions.js convertMessages",
    },
    ChangeInfo {
        change: Change::MistralStrictModeOptIn,
        name: "mistral-strict-mode-opt-in",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: &["mistral-conversations"],
        summary: "strict tool schemas are sent only when `compat.supportsStrictMode` is set; otherwise `prefer` tools are non-strict and `require` tools are refused",
        follows: "pi-ai dist/api/mistral-conversations.js buildChatPayload, toFunctionTools",
    },
    ChangeInfo {
        change: Change::BedrockStrictToolsFallback,
        name: "bedrock-strict-tools-fallback",
        since: PiRelease::V1_6_0,
        layer: Layer::Api,
        apis: BEDROCK,
        summary: "a command with `prefer` tools sent strict that Bedrock rejects with a `ValidationException` naming a strict-tool limit is rebuilt once with every `prefer` tool non-strict (`onPayload` runs again) and resent; the reply records a `bedrock_strict_tools_fallback` diagnostic",
        follows: "pi-ai dist/api/bedrock-converse-stream.js streamBedrock (disablePreferredStrictTools), convertToolConfig; strict-tool-limits.js isStrictToolLimitErrorMessage",
    },
    ChangeInfo {
        change: Change::ClampRatioMargin,
        name: "clamp-ratio-margin",
        since: PiRelease::V1_6_0,
        layer: Layer::Shared,
        apis: NONE,
        summary: "`maxTokens` clamped to the context window leaves `max(4096, ceil(0.15 * input))` tokens of margin while that leaves at least 32,768 tokens of output; otherwise only the 4,096 margin, with output capped at 32,768",
        follows: "pi-ai dist/api/simple-options.js clampMaxTokensToContext",
    },
    ChangeInfo {
        change: Change::IdentityAttributionHeaders,
        name: "identity-attribution-headers",
        since: PiRelease::V1_6_0,
        layer: Layer::Shared,
        apis: NONE,
        summary: "`options.identity.attribution` adds OpenRouter's `HTTP-Referer`, `X-OpenRouter-Title` and `X-OpenRouter-Categories`, NVIDIA's `X-BILLING-INVOKE-ORIGIN` or OpenCode's `x-opencode-client`, below the model's and the caller's headers; `User-Agent` becomes `pi/<version> (…)` (not compared)",
        follows: "pi-ai dist/utils/identity.js getIdentityHeaders, getAttributionHeaders",
    },
    // --- 1.6.0: session files, agent loop (upgrade16)
    ChangeInfo {
        change: Change::SessionCostTotalFromProvider,
        name: "session-cost-total-from-provider",
        since: PiRelease::V1_6_0,
        layer: Layer::Session,
        apis: NONE,
        summary: "every usage cost pi-ai computes records `totalFromProvider`: `false` when `total` is the catalog estimate, `true` when OpenRouter's billed cost replaced it (assistant messages, compaction and branch-summary usage)",
        follows: "pi-ai dist/models.js calculateCost; dist/utils/openrouter-cost.js applyOpenRouterReportedCost",
    },
    ChangeInfo {
        change: Change::SessionNewDiagnostics,
        name: "session-new-diagnostics",
        since: PiRelease::V1_6_0,
        layer: Layer::Session,
        apis: NONE,
        summary: "assistant messages record the diagnostics `anthropic_thread_fallback`, `openai_input_transformations` and `bedrock_strict_tools_fallback` pi-ai notes on a reply",
        follows: "pi-ai dist/api/anthropic-messages.js, openai-responses-shared.js, bedrock-converse-stream.js (diagnostics)",
    },
    ChangeInfo {
        change: Change::SessionThinkingLevelOnBranch,
        name: "session-thinking-level-on-branch",
        since: PiRelease::V1_6_0,
        layer: Layer::Session,
        apis: NONE,
        summary: "before a prompt, when tree navigation left the latest `thinking_level_change` on another branch and the branch implies another level, the agent's level is appended to the branch (so the path names the level the request runs at)",
        follows: "pi-coding-agent dist/core/agent-session.js _recordSelection, _recordThinkingLevel",
    },
    ChangeInfo {
        change: Change::AgentCacheWarmingIdle,
        name: "agent-cache-warming-idle",
        since: PiRelease::V1_6_0,
        layer: Layer::Agent,
        apis: NONE,
        summary: "the `cacheWarming` setting defaults to `idle` (1.5.1 and later): while the agent is idle, the last request is replayed with `maxTokens: 1` and `disableContinuation` at 90% of the cache TTL, for up to 30 min, when the expected saving is at least $0.05; each warm-up is written to the session as a `usage` entry of kind `cache_warm` (`cache explain` runs the TTL clock from the last one, and names idle warming when a gap past the TTL has none)",
        follows: "pi-ai dist/cache-warming.js evaluateCacheWarming, getCacheWarmingDelayMs; pi-coding-agent dist/core/settings-defaults.js cacheWarming, dist/core/cache-warmer.js refresh",
    },
];

impl Change {
    /// What is known about this change.
    #[inline]
    pub fn info(self) -> &'static ChangeInfo {
        &CHANGES[self as usize]
    }

    /// The release that introduced it.
    #[inline]
    pub fn since(self) -> PiRelease {
        self.info().since
    }

    /// The change with this name.
    pub fn from_name(name: &str) -> Option<Change> {
        CHANGES.iter().find(|c| c.name == name).map(|c| c.change)
    }
}

/// Something a release writes into session files that older releases never write. Detection
/// reports the newest release whose markers a session holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker {
    /// Stable name (`assistant-thinking-level`).
    pub name: &'static str,
    /// The first release that writes it, as a version string (markers of releases this build does
    /// not support are recognised too: `PiRelease::from_version(since)` is `None` for them).
    pub since: &'static str,
    /// What it is, for messages (`an assistant message with thinkingLevel`).
    pub what: &'static str,
    /// The change it belongs to, when the release is supported.
    pub change: Option<Change>,
}

/// Every session marker, oldest release first.
pub const MARKERS: &[Marker] = &[
    Marker {
        name: "assistant-thinking-level",
        since: "1.3.0",
        what: "an assistant message with `thinkingLevel`",
        change: Some(Change::SessionAssistantThinkingLevel),
    },
    Marker {
        name: "assistant-duration",
        since: "1.3.0",
        what: "an assistant message with `durationMs`",
        change: Some(Change::SessionDurations),
    },
    Marker {
        name: "tool-result-duration",
        since: "1.3.0",
        what: "a tool result with `durationMs`",
        change: Some(Change::SessionDurations),
    },
    Marker {
        name: "tool-result-nested-calls",
        since: "1.3.0",
        what: "a tool result with `nestedCalls`",
        change: Some(Change::AgentNestedCallUsage),
    },
    Marker {
        name: "tool-call-arguments-error",
        since: "1.3.0",
        what: "a tool call with `argumentsError`",
        change: Some(Change::SessionToolCallArgumentsError),
    },
    Marker {
        name: "virtual-model-state",
        since: "1.3.0",
        what: "a `pi.virtual-model-state` custom entry",
        change: Some(Change::SessionVirtualModelState),
    },
    Marker {
        name: "anthropic-strict-tools-fallback",
        since: "1.3.0",
        what: "an `anthropic_strict_tools_fallback` diagnostic",
        change: Some(Change::AnthropicStrictToolsFallback),
    },
    Marker {
        name: "cost-total-from-provider",
        since: "1.6.0",
        what: "a usage cost with `totalFromProvider`",
        change: Some(Change::SessionCostTotalFromProvider),
    },
    Marker {
        name: "anthropic-thread-fallback",
        since: "1.6.0",
        what: "an `anthropic_thread_fallback` diagnostic",
        change: Some(Change::SessionNewDiagnostics),
    },
    Marker {
        name: "openai-input-transformations",
        since: "1.6.0",
        what: "an `openai_input_transformations` diagnostic",
        change: Some(Change::SessionNewDiagnostics),
    },
    Marker {
        name: "bedrock-strict-tools-fallback",
        since: "1.6.0",
        what: "a `bedrock_strict_tools_fallback` diagnostic",
        change: Some(Change::BedrockStrictToolsFallback),
    },
    Marker {
        name: "thinking-level-on-branch",
        since: "1.6.0",
        what: "a `thinking_level_change` re-recording the agent's level after tree navigation",
        change: Some(Change::SessionThinkingLevelOnBranch),
    },
];

impl Marker {
    /// The marker with this name.
    pub fn named(name: &str) -> Option<&'static Marker> {
        MARKERS.iter().find(|m| m.name == name)
    }

    /// The supported release that writes it, if any.
    pub fn release(&self) -> Option<PiRelease> {
        PiRelease::from_version(self.since)
    }
}

/// A `models --changes` range that is not `FROM..TO` of two supported releases.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    #[error("--changes {0:?}: expected FROM..TO, e.g. 0.87.1..1.3.0")]
    Shape(String),
    #[error(transparent)]
    Release(#[from] UnknownRelease),
}

impl PiRelease {
    /// The two releases of `FROM..TO` (`0.87.1..1.3.0`).
    pub fn parse_range(range: &str) -> Result<(PiRelease, PiRelease), RangeError> {
        let Some((from, to)) = range.split_once("..") else {
            return Err(RangeError::Shape(range.to_string()));
        };
        Ok((PiRelease::parse(from)?, PiRelease::parse(to)?))
    }
}

/// A release asked for that is not supported, named by how it was asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestedError {
    /// Given with the flag (`--pi`).
    #[error(transparent)]
    Flag(#[from] UnknownRelease),
    /// Given in the environment variable `var` (`FORGE_REPLAY_PI`).
    #[error("{var}: {cause}")]
    Env {
        var: &'static str,
        cause: UnknownRelease,
    },
}

/// The release asked for and how: the flag's value (`flag`, `--pi`), else the environment
/// variable's (`env`: its name and value) when set and not blank, else none.
pub fn requested(
    (flag, given): (&'static str, Option<&str>),
    (var, value): (&'static str, Option<&str>),
) -> Result<Option<(PiRelease, &'static str)>, RequestedError> {
    if let Some(v) = given {
        return Ok(Some((PiRelease::parse(v)?, flag)));
    }
    match value {
        Some(v) if !v.trim().is_empty() => {
            let release =
                PiRelease::parse(v).map_err(|cause| RequestedError::Env { var, cause })?;
            Ok(Some((release, var)))
        }
        _ => Ok(None),
    }
}

/// The release for an input that may name its own (the `"pi"` of a case or scenario at `path`),
/// and a warning when the two differ: `asked` (a release and how it was asked for, `--pi` or
/// `FORGE_REPLAY_PI`), else the one `named`, else [`PiRelease::DEFAULT`].
pub fn follow_named(
    asked: Option<(PiRelease, &str)>,
    named: Option<PiRelease>,
    path: &std::path::Path,
) -> (PiRelease, Option<String>) {
    match (asked, named) {
        (Some((r, by)), Some(n)) if r != n => (
            r,
            Some(format!(
                "forge-replay: warning: {}: it names Pi {n} (\"pi\"); following {by} {r} as asked",
                path.display()
            )),
        ),
        (Some((r, _)), _) => (r, None),
        (None, Some(n)) => (n, None),
        (None, None) => (PiRelease::DEFAULT, None),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_range_is_two_supported_releases() {
        let range = PiRelease::parse_range("0.87.1..1.3.0");
        assert_eq!(range, Ok((PiRelease::V0_87_1, PiRelease::V1_3_0)));
        let err = PiRelease::parse_range("0.87.1").unwrap_err().to_string();
        assert_eq!(
            err,
            "--changes \"0.87.1\": expected FROM..TO, e.g. 0.87.1..1.3.0"
        );
        assert!(matches!(
            PiRelease::parse_range("0.87.1..9"),
            Err(RangeError::Release(_))
        ));
    }

    #[test]
    fn the_flag_wins_over_the_environment_and_a_blank_one_is_unset() {
        let (flag, env) = ("--pi", "FORGE_REPLAY_PI");
        let asked = |f, e| requested((flag, f), (env, e));
        assert_eq!(
            asked(Some("1.3.0"), Some("bad")),
            Ok(Some((PiRelease::V1_3_0, flag)))
        );
        assert_eq!(
            asked(None, Some(" 1.6.0 ")),
            Ok(Some((PiRelease::V1_6_0, env)))
        );
        assert_eq!(asked(None, Some("  ")), Ok(None));
        assert!(matches!(
            asked(Some("9"), None),
            Err(RequestedError::Flag(_))
        ));
        let err = asked(None, Some("9")).unwrap_err().to_string();
        assert!(
            err.starts_with("FORGE_REPLAY_PI: unknown Pi release \"9\""),
            "{err}"
        );
    }

    #[test]
    fn follow_named_prefers_the_asked_release_and_warns_on_a_difference() {
        let p = std::path::Path::new("c.case.json");
        let (v0, v1) = (PiRelease::V0_87_1, PiRelease::V1_3_0);
        assert_eq!(follow_named(None, None, p), (PiRelease::DEFAULT, None));
        assert_eq!(follow_named(None, Some(v1), p), (v1, None));
        assert_eq!(follow_named(Some((v1, "--pi")), Some(v1), p), (v1, None));
        let (r, w) = follow_named(Some((v0, "--pi")), Some(v1), p);
        assert_eq!(r, v0);
        assert_eq!(
            w.as_deref(),
            Some("forge-replay: warning: c.case.json: it names Pi 1.3.0 (\"pi\"); following --pi 0.87.1 as asked")
        );
    }

    use super::*;

    #[test]
    fn table_is_in_enum_order_with_unique_names() {
        for (i, c) in CHANGES.iter().enumerate() {
            assert_eq!(c.change as usize, i, "{} out of order", c.name);
            assert_eq!(Change::from_name(c.name), Some(c.change));
            assert!(!c.summary.is_empty() && !c.follows.is_empty(), "{}", c.name);
            assert!(
                c.name
                    .chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || "-.".contains(ch)),
                "{}",
                c.name
            );
            assert!(
                c.since > PiRelease::V0_87_1,
                "{}: nothing differs from itself",
                c.name
            );
        }
        for m in MARKERS {
            assert_eq!(Marker::named(m.name), Some(m));
            if let Some(c) = m.change {
                assert_eq!(Some(c.since()), m.release(), "{}", m.name);
            }
        }
    }

    #[test]
    fn releases_parse_order_and_answer_has() {
        assert_eq!(PiRelease::parse("1.3.0"), Ok(PiRelease::V1_3_0));
        assert_eq!(PiRelease::parse(" 0.87.1 "), Ok(PiRelease::V0_87_1));
        assert_eq!(PiRelease::parse("1.6.0"), Ok(PiRelease::V1_6_0));
        let e = PiRelease::parse("1.5.2").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown Pi release \"1.5.2\"; supported releases: 0.87.1, 1.3.0, 1.6.0"
        );
        assert!(PiRelease::V0_87_1 < PiRelease::V1_3_0);
        assert!(PiRelease::V1_3_0.has(Change::CharsPerToken35));
        assert!(!PiRelease::V0_87_1.has(Change::CharsPerToken35));
        assert_eq!(
            PiRelease::V1_3_0.differences(PiRelease::V0_87_1).count(),
            PiRelease::V1_3_0.introduced().count()
        );
        assert_eq!(PiRelease::V1_3_0.differences(PiRelease::V1_3_0).count(), 0);
        assert_eq!(PiRelease::ALL.last(), Some(&PiRelease::LATEST));
        assert_eq!(
            PiRelease::compare_versions("1.6.0", "1.3.0"),
            std::cmp::Ordering::Greater
        );
        assert_eq!(
            PiRelease::compare_versions("0.87.1", "1.3.0"),
            std::cmp::Ordering::Less
        );
    }
}
