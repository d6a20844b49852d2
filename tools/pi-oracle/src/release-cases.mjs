// release-cases: wire cases aimed at what changed after Pi 0.87.1 (see
// /work/shared/notes/pi-releases.md and docs/fixtures.md), for `gen-wire-cases.mjs --pi 1.3.0|1.6.0`.
//
// Two kinds:
//   single cases   `{name, case: {pi, model, context, options, entry?, env?}}`, like fixtures/wire
//   sequences      `{name, case: {pi, model, requests: [{context, options, reply?, reject?}], env?}}`:
//                  several requests run in ONE process, in order, so pi-ai's per-process state
//                  (Anthropic message threads, 1.6; sessions over Claude's strict-tool limits,
//                  1.6) carries from one request to the next (see `captureSequence` in
//                  wire-capture.mjs).
// Every case runs on every release it is built for; a model missing from a release's catalog is
// skipped there (listed in DIFF-vs-0.87.1.json). Deterministic: fixed ids, timestamps and data.
import {
	SESSION,
	T0,
	PNG,
	JPEG,
	TOOLS,
	usage,
	Tx,
	text,
	thinking,
	call,
	image,
	nativeThinking,
	nativeId,
	IDENTITIES,
	selfOf,
	scnAdditive,
	scnRemoval,
	scnRedefinition,
	scnMultiSystem,
	scnCrossModel,
	scnFailures,
	scnClamp,
	scnAllToolsRemoved,
	scnStrictTools,
	scnOptions,
} from "./wire-cases.mjs";
import { atLeast } from "./lib/release.mjs";

const S = { sessionId: SESSION };

// ---------------------------------------------------------------------------------------------
// Scenarios aimed at the release differences

/** Thinking level changes between turns: assistant messages carry 1.3's `thinkingLevel` and
 *  `providerThinkingLevel` (Anthropic managed effort / Responses `configuration_update`). */
function scnEffortChange(self) {
	const x = new Tx(self);
	x.leading();
	x.user("Plan the refactor.");
	x.asst([nativeThinking(self.api, "Plan it."), text("Plan ready.")], { extra: { thinkingLevel: "low", providerThinkingLevel: "low", durationMs: 1200 } });
	x.user("Go deeper.");
	x.asst([nativeThinking(self.api, "Deeper.", 2), text("Reading first."), call(nativeId(self.api, 1), "read", { path: "src/main.rs" })], {
		extra: { thinkingLevel: "high", providerThinkingLevel: "high", durationMs: 3400 },
	});
	x.result(nativeId(self.api, 1), "read", "fn main() {}\n");
	x.asst([text("It is tiny.")], { use: usage(1400, 10, 1200, 0), extra: { thinkingLevel: "high", providerThinkingLevel: "high" } });
	x.user("Now implement it.");
	return x.context();
}

/** An error tool result with images, followed by a normal result of the same turn (1.3
 *  `splitErrorToolResultImages`), then a user turn with an image. */
function scnErrorImages(self) {
	const x = new Tx(self);
	x.leading({ tools: [TOOLS.read, TOOLS.bash] });
	x.user("Take the two screenshots.");
	x.asst([call(nativeId(self.api, 1), "bash", { command: "shot a" }), call(nativeId(self.api, 2), "read", { path: "b.png" })]);
	x.result(nativeId(self.api, 1), "bash", [text("screenshot failed, partial capture attached"), image()], true);
	x.result(nativeId(self.api, 2), "read", [text("Read image b.png"), image(JPEG, "image/jpeg")]);
	x.asst([text("One failed.")], { use: usage(2200, 10, 0, 0) });
	x.user([text("Try again with this reference:"), image()]);
	return x.context();
}

/** Tool output that is empty or only whitespace (1.6 sends `(no tool output)`). */
function scnWhitespaceOutput(self) {
	const x = new Tx(self);
	x.leading({ tools: [TOOLS.bash] });
	x.user("Run the three commands.");
	x.asst([
		call(nativeId(self.api, 1), "bash", { command: "true" }),
		call(nativeId(self.api, 2), "bash", { command: "echo" }),
		call(nativeId(self.api, 3), "bash", { command: "printf '\\t'" }),
	]);
	x.result(nativeId(self.api, 1), "bash", []);
	x.result(nativeId(self.api, 2), "bash", "  \n ");
	x.result(nativeId(self.api, 3), "bash", [text("\t"), text("")]);
	x.user("What did they print?");
	return x.context();
}

/** Tool schemas exercising the strict rules: an untyped node, `const`, `$defs`/`$ref`,
 *  `additionalProperties`, numeric bounds, formats (1.3 Anthropic strict keywords, 1.6 untyped →
 *  non-strict, Google `const` → `enum`, non-strict `input_schema` keeping `$defs`, Mistral and
 *  Bedrock strict rules). */
const SCHEMA_TOOLS = [
	{
		name: "configure",
		description: "Set a configuration value",
		parameters: {
			type: "object",
			properties: {
				key: { type: "string", const: "mode" },
				value: { description: "any JSON value" },
				level: { type: "integer", minimum: 0, maximum: 9 },
			},
			required: ["key", "value"],
			additionalProperties: false,
		},
		constrainedSampling: { type: "json_schema", strict: "prefer" },
	},
	{
		name: "schedule",
		description: "Schedule a job",
		parameters: {
			type: "object",
			$defs: { when: { type: "string", format: "date-time" } },
			properties: {
				at: { $ref: "#/$defs/when" },
				kind: { type: "string", enum: ["once", "daily"] },
				tags: { type: "array", items: { type: "string" }, minItems: 2, uniqueItems: true },
				contact: { type: "string", format: "email" },
				site: { type: "string", format: "uri-reference" },
			},
			required: ["at", "kind"],
			additionalProperties: false,
		},
		constrainedSampling: { type: "json_schema", strict: "prefer" },
	},
	{
		name: "lookup",
		description: "Look something up",
		parameters: {
			type: "object",
			properties: { query: { type: "string" }, mode: { const: "fast" } },
			required: ["query"],
		},
	},
];

function scnSchemaRules(self) {
	const x = new Tx(self);
	x.leading({ tools: SCHEMA_TOOLS });
	x.user("Set the mode and schedule the nightly job.");
	x.asst([call(nativeId(self.api, 1), "configure", { key: "mode", value: { fast: true }, level: 3 })]);
	x.result(nativeId(self.api, 1), "configure", "ok");
	x.user("Now schedule it.");
	return x.context();
}

/** Mid-conversation system messages next to empty and thinking-only assistant messages (1.6
 *  Anthropic flushes pending system messages only before a non-empty assistant; Completions
 *  `requiresNonNullAssistantContent`). */
function scnFlushOrder(self) {
	const x = new Tx(self);
	x.leading({ tools: [TOOLS.read] });
	x.user("Start.");
	x.sys("Note A: the repository is read-only.");
	x.asst([], { use: usage(800, 0, 0, 0) });
	x.user("Continue.");
	x.sys("Note B: prefer short answers.", { sections: { mode: "<mode>terse</mode>" } });
	x.asst([nativeThinking(self.api, "Only thinking.")], { use: usage(900, 5, 0, 0) });
	x.sys("Note C: grep is available.", { toolsAdded: [TOOLS.grep] });
	x.asst([text("Ready.")], { use: usage(950, 3, 0, 0) });
	x.user("Search for TODO.");
	return x.context();
}

/** History from another model of the same API and provider (1.3 drops its thinking and, for
 *  Responses, item ids of another model), plus a same-model turn. */
function scnSameApiOtherModel(self, other) {
	const x = new Tx(self);
	x.leading();
	x.user("Where is the config loaded?");
	x.asst([nativeThinking(other.api, "Look for loadConfig.", 3), text("Searching."), call(nativeId(other.api, 1), "bash", { command: "grep -rn loadConfig" })], { from: other });
	x.result(nativeId(other.api, 1), "bash", "src/config.rs:12: pub fn loadConfig()");
	x.asst([nativeThinking(other.api, "Found it.", 4), text("In src/config.rs.")], { from: other, use: usage(1500, 20, 1000, 0) });
	x.user("Explain it.");
	x.asst([nativeThinking(self.api, "Explaining.", 5), text("It parses TOML.")], { use: usage(1700, 30, 1500, 0) });
	x.user("Thanks. Anything else?");
	return x.context();
}

/** Fields 1.3/1.6 write into sessions (assistant `thinkingLevel`/`durationMs`, tool call
 *  `argumentsError`, tool result `durationMs`/`nestedCalls`, `usage.cost.totalFromProvider`,
 *  `diagnostics`): pi-messages sends whole messages, the others must ignore them. */
function scnNewFields(self) {
	const x = new Tx(self);
	x.leading({ tools: [TOOLS.read, TOOLS.bash] });
	x.user("Read the README.");
	const use = usage(1200, 40, 0, 1100);
	use.cost.totalFromProvider = 0.0123;
	x.asst([text("Reading."), call(nativeId(self.api, 1), "read", { path: "README.md" }, { argumentsError: "expected object, got string" })], {
		use,
		extra: { thinkingLevel: "medium", durationMs: 2100, diagnostics: [{ type: "anthropic_strict_tools_fallback", timestamp: T0 + 1500, details: { reason: "strict_tool_limits_exceeded" } }] },
	});
	x.result(nativeId(self.api, 1), "read", "# Project");
	const r = x.messages[x.messages.length - 1];
	r.durationMs = 37;
	r.nestedCalls = [{ api: self.api, provider: self.provider, model: self.model, usage: usage(100, 10, 0, 0) }];
	x.user("Summarize.");
	return x.context();
}

/** A long recorded usage so the 1.6 clamp margin (max(4096, 15% of input)) and its 32,768
 *  output floor both matter; `fraction` is how much of the window the history used. */
function scnBigInput(self, contextWindow, fraction) {
	const x = new Tx(self);
	x.leading();
	x.user("Continue the long task.");
	const used = Math.floor(contextWindow * fraction);
	x.asst([text("Working on it.")], { use: usage(used - 1000, 1000, 0, 0) });
	x.user("And now the final step.");
	return x.context();
}

/** A plain text prefix followed by 1,000 short words (estimate: chars per token 4 → 3.5). */
function scnEstimate(self) {
	const x = new Tx(self);
	x.leading({ tools: [TOOLS.read] });
	x.user(`Count these words: ${"abc ".repeat(6000)}`);
	return x.context();
}

// ---------------------------------------------------------------------------------------------
// Models per API: [model spec, tag, reasoning]. Chosen to exist in 1.3.0 and 1.6.0; a model a
// release lacks is skipped there.

const MODELS = [
	// anthropic-messages: native tool changes (opus-4-8), managed effort (opus-5, haiku-5-5), plain
	[{ provider: "anthropic", id: "claude-opus-4-8" }, "anthropic-opus-4-8", "high"],
	[{ provider: "anthropic", id: "claude-opus-5" }, "anthropic-opus-5", "medium"],
	[{ provider: "anthropic", id: "claude-haiku-5-5" }, "anthropic-haiku-5-5", "low"],
	[{ provider: "anthropic", id: "claude-sonnet-4-6" }, "anthropic-sonnet-4-6", "medium"],
	// openai-responses: mid-convo effort (gpt-6-astra), additional tools (gpt-5.5), unflagged gpt-5
	[{ provider: "openai", id: "gpt-6-astra" }, "responses-gpt-6-astra", "high"],
	[{ provider: "openai", id: "gpt-5.5" }, "responses-gpt-5.5", "medium"],
	[{ provider: "openai", id: "gpt-5" }, "responses-gpt-5", "low"],
	// azure-openai-responses (provider `azure` from 1.3)
	[{ provider: "azure", id: "gpt-5.5" }, "azure-gpt-5.5", "medium"],
	// openai-codex-responses
	[{ provider: "openai-codex", id: "gpt-5.6-luna" }, "codex-gpt-5.6-luna", "high"],
	[{ provider: "openai-codex", id: "gpt-6-astra" }, "codex-gpt-6-astra", "medium"],
	// openai-completions: tool additions (kimi-k3), unflagged, OpenRouter, DeepSeek
	[{ provider: "moonshotai", id: "kimi-k3" }, "completions-kimi-k3", "medium"],
	[{ provider: "groq", id: "openai/gpt-oss-120b" }, "completions-groq-gpt-oss", "high"],
	[{ provider: "openrouter", id: "openai/gpt-5.5" }, "completions-openrouter-gpt-5.5", "low"],
	[{ provider: "deepseek", id: "deepseek-v4-pro" }, "completions-deepseek-v4-pro", "medium"],
	// mistral-conversations: with a thinkingLevelMap (reasoning_effort) and without (prompt_mode)
	[{ provider: "mistral", id: "mistral-medium-latest" }, "mistral-medium", "high"],
	[{ provider: "mistral", id: "magistral-medium-latest" }, "mistral-magistral", "medium"],
	[{ provider: "mistral", id: "devstral-medium-latest" }, "mistral-devstral", "off"],
	// google-generative-ai: gemini-4 rule, 2.5
	[{ provider: "google", id: "gemini-4-argon" }, "google-gemini-4-argon", "medium"],
	[{ provider: "google", id: "gemini-2.5-pro" }, "google-gemini-2.5-pro", "high"],
	// google-vertex
	[{ provider: "google-vertex", id: "gemini-2.5-flash" }, "vertex-gemini-2.5-flash", "low"],
	[{ provider: "google-vertex", id: "gemini-4-argon" }, "vertex-gemini-4-argon", "high"],
	// bedrock-converse-stream: Claude (block_binding), adaptive haiku-5, GPT reasoning, Nova
	[{ provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" }, "bedrock-claude-opus-4-8", "medium"],
	[{ provider: "amazon-bedrock", id: "anthropic.claude-haiku-5-5" }, "bedrock-claude-haiku-5-5", "high"],
	[{ provider: "amazon-bedrock", id: "openai.gpt-5.5" }, "bedrock-gpt-5.5", "medium"],
	[{ provider: "amazon-bedrock", id: "amazon.nova-pro-v1:0" }, "bedrock-nova-pro", "off"],
	// pi-messages
	[{ provider: "radius", id: "balanced" }, "pi-messages-balanced", "medium"],
	[{ provider: "radius", id: "cheap" }, "pi-messages-cheap", "high"],
];

const AZURE_ENV = { AZURE_OPENAI_RESOURCE_NAME: "wire-cases-res" };

/** Another model of the same API and provider, for scnSameApiOtherModel. */
const OTHER_SAME_API = {
	"anthropic-messages": { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" },
	"openai-responses": { api: "openai-responses", provider: "openai", model: "gpt-5.4" },
	"azure-openai-responses": { api: "azure-openai-responses", provider: "azure", model: "gpt-5.4" },
	"openai-codex-responses": { api: "openai-codex-responses", provider: "openai-codex", model: "gpt-5.4" },
	"openai-completions": { api: "openai-completions", provider: "moonshotai", model: "kimi-k2.6" },
	"mistral-conversations": { api: "mistral-conversations", provider: "mistral", model: "mistral-small-latest" },
	"google-generative-ai": { api: "google-generative-ai", provider: "google", model: "gemini-2.5-flash" },
	"google-vertex": { api: "google-vertex", provider: "google-vertex", model: "gemini-2.5-pro" },
	"bedrock-converse-stream": { api: "bedrock-converse-stream", provider: "amazon-bedrock", model: "anthropic.claude-sonnet-4-5-20250929-v1:0" },
	"pi-messages": { api: "pi-messages", provider: "radius", model: "claude-opus-4-5" },
};

function table(release) {
	const c = [];
	const add = (name, model, scenario, options = S, extra = {}) => c.push({ name: `rel-${name}`, model, scenario, options, ...extra });
	const envFor = (model) => (model.provider === "azure" ? { env: AZURE_ENV } : {});

	// The generic set: every difference-aimed scenario on every model.
	for (const [model, tag, level] of MODELS) {
		const o = level === "off" ? S : { ...S, reasoning: level };
		const e = envFor(model);
		add(`${tag}-effort-change`, model, scnEffortChange, o, e);
		add(`${tag}-error-images`, model, scnErrorImages, o, e);
		add(`${tag}-whitespace-output`, model, scnWhitespaceOutput, o, e);
		add(`${tag}-schema-rules`, model, scnSchemaRules, o, e);
		add(`${tag}-flush-order`, model, scnFlushOrder, o, e);
		add(`${tag}-same-api-other-model`, model, (self) => scnSameApiOtherModel(self, OTHER_SAME_API[self.api]), o, e);
		add(`${tag}-new-fields`, model, scnNewFields, o, e);
		add(`${tag}-tool-changes`, model, scnRedefinition, o, e);
	}

	// Shared request steps
	for (const [model, tag, window] of [
		[{ provider: "anthropic", id: "claude-sonnet-4-6" }, "anthropic-sonnet-4-6", 1000000],
		[{ provider: "openai", id: "gpt-5.5" }, "responses-gpt-5.5", null],
		[{ provider: "moonshotai", id: "kimi-k3" }, "completions-kimi-k3", null],
		[{ provider: "google", id: "gemini-2.5-pro" }, "google-gemini-2.5-pro", null],
		[{ provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" }, "bedrock-claude-opus-4-8", null],
		[{ provider: "mistral", id: "mistral-medium-latest" }, "mistral-medium", null],
	]) {
		add(`${tag}-clamp-half`, model, (self, m) => scnBigInput(self, window ?? m.contextWindow, 0.5), { ...S, reasoning: "high" });
		add(`${tag}-clamp-85`, model, (self, m) => scnBigInput(self, window ?? m.contextWindow, 0.85), { ...S, reasoning: "medium" });
		add(`${tag}-clamp-near`, model, (self, m) => scnClamp(self, window ?? m.contextWindow), { ...S, reasoning: "low" });
		add(`${tag}-estimate`, model, scnEstimate, { ...S, reasoning: "medium" });
	}
	// samplingParamsByThinkingLevel (1.0.2): a model override, one per API family
	const byLevel = { samplingParamsByThinkingLevel: { low: { temperature: 0.3 }, high: { temperature: 1, top_p: 0.95 } } };
	for (const [model, tag] of [
		[{ provider: "moonshotai", id: "kimi-k3" }, "completions-kimi-k3"],
		[{ provider: "mistral", id: "mistral-medium-latest" }, "mistral-medium"],
		[{ provider: "radius", id: "balanced" }, "pi-messages-balanced"],
		[{ provider: "google", id: "gemini-2.5-pro" }, "google-gemini-2.5-pro"],
	]) {
		add(`${tag}-sampling-by-level-high`, { ...model, overrides: byLevel }, scnOptions, { ...S, reasoning: "high" });
		add(`${tag}-sampling-by-level-low-request-wins`, { ...model, overrides: byLevel }, scnOptions, { ...S, reasoning: "low", samplingParams: { temperature: 0.9 } });
	}

	// anthropic-messages
	const opus48 = { provider: "anthropic", id: "claude-opus-4-8" };
	const opus5 = { provider: "anthropic", id: "claude-opus-5" };
	add("anthropic-opus-4-8-additions", opus48, scnAdditive, { ...S, reasoning: "medium" });
	add("anthropic-opus-4-8-removal", opus48, scnRemoval, { ...S, reasoning: "low" });
	add("anthropic-opus-4-8-multi-system", opus48, scnMultiSystem, { ...S, reasoning: "high" });
	add("anthropic-opus-5-off-managed", opus5, scnEffortChange, S);
	add("anthropic-opus-5-stream-disabled", opus5, scnEffortChange, { ...S, thinkingEnabled: false, effort: "high" }, { entry: "stream" });
	add("anthropic-opus-5-xhigh", opus5, scnFailures, { ...S, reasoning: "xhigh" });
	add("anthropic-haiku-5-5-minimal", { provider: "anthropic", id: "claude-haiku-5-5" }, scnAdditive, { ...S, reasoning: "minimal" });
	add("anthropic-strict-require", opus48, (self) => ({ systemPrompt: "x", tools: [{ ...SCHEMA_TOOLS[1], constrainedSampling: { type: "json_schema", strict: "require" } }], messages: [{ role: "user", content: "hi", timestamp: T0 + 1000 }] }), S);
	add("anthropic-cache-none-no-thread", opus48, scnAdditive, { ...S, cacheRetention: "none", reasoning: "low" });
	add("anthropic-no-session", opus48, scnAdditive, { reasoning: "low" });
	add("anthropic-custom-base-url", { ...opus48, overrides: { baseUrl: "https://anthropic-proxy.example.com" } }, scnAdditive, { ...S, reasoning: "low" });

	// openai-responses / azure / codex
	const gpt55 = { provider: "openai", id: "gpt-5.5" };
	const astra = { provider: "openai", id: "gpt-6-astra" };
	add("responses-signin-key-gpt-5.5", gpt55, scnAdditive, { ...S, reasoning: "medium", apiKey: "oracle-chatgpt-access-token", temperature: 0.5 });
	add("responses-signin-key-custom-base", { ...gpt55, overrides: { baseUrl: "https://gateway.example.com/v1" } }, scnAdditive, { ...S, reasoning: "medium", apiKey: "oracle-chatgpt-access-token" });
	add("responses-gpt-6-astra-off", astra, scnEffortChange, S);
	add("responses-gpt-6-astra-additions", astra, scnAdditive, { ...S, reasoning: "xhigh" });
	add("responses-gpt-5.5-removal", gpt55, scnRemoval, { ...S, reasoning: "high" });
	add("responses-gpt-5.5-multi-system", gpt55, scnMultiSystem, { ...S, reasoning: "low" });
	add("responses-no-additional-tools", { ...gpt55, overrides: { compat: { supportsAdditionalTools: false } } }, scnAdditive, { ...S, reasoning: "medium" });
	add("responses-cache-key-mode-override", { ...gpt55, overrides: { compat: { promptCacheKeyMode: "session" } } }, scnAdditive, { ...S, reasoning: "medium" });
	add("responses-cache-long", gpt55, scnAdditive, { ...S, reasoning: "medium", cacheRetention: "long" });
	add("responses-cross-model-from-gpt-5", gpt55, (self) => scnCrossModel(self, { api: "openai-responses", provider: "openai", model: "gpt-5" }), { ...S, reasoning: "high" });
	add("azure-gpt-5.5-additions", { provider: "azure", id: "gpt-5.5" }, scnAdditive, { ...S, reasoning: "high" }, { env: AZURE_ENV });
	const codex = { provider: "openai-codex", id: "gpt-5.6-sol" };
	add("codex-gpt-5.6-sol-off", codex, scnAdditive, S);
	add("codex-gpt-5.6-sol-system-prompt", codex, (self) => ({ systemPrompt: "You are a careful coder.", tools: [TOOLS.read], messages: [{ role: "user", content: "Fix the bug.", timestamp: T0 + 1000 }] }), { ...S, reasoning: "low" });
	add("codex-gpt-5.6-sol-max-tokens", codex, scnAdditive, { ...S, reasoning: "medium", maxTokens: 12345 });
	add("codex-gpt-5.6-sol-multi-system", codex, scnMultiSystem, { ...S, reasoning: "high" });
	add("codex-sse-gpt-5.6-sol", codex, scnFailures, { ...S, reasoning: "low", transport: "sse" });
	add("codex-sse-gpt-6-astra-effort-change", { provider: "openai-codex", id: "gpt-6-astra" }, scnEffortChange, { ...S, reasoning: "high", transport: "sse" });

	// openai-completions
	const kimi = { provider: "moonshotai", id: "kimi-k3" };
	const openaiCustom = {
		id: "gpt-5.5",
		name: "GPT-5.5 via Completions",
		api: "openai-completions",
		provider: "openai",
		baseUrl: "https://api.openai.com/v1",
		reasoning: true,
		input: ["text", "image"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 400000,
		maxTokens: 128000,
	};
	add("completions-openai-developer-role", openaiCustom, scnAdditive, { ...S, reasoning: "medium" });
	add("completions-other-host-system-role", { ...openaiCustom, provider: "vllm-local", baseUrl: "http://127.0.0.1:8000/v1" }, scnAdditive, { ...S, reasoning: "medium" });
	add("completions-kimi-k3-all-tools-removed", kimi, scnAllToolsRemoved, { ...S, reasoning: "low" });
	add("completions-tools-with-history-override", { ...kimi, overrides: { compat: { requiresToolsWithToolHistory: true } } }, scnAllToolsRemoved, { ...S, reasoning: "low" });
	add("completions-non-null-content-override", { ...kimi, overrides: { compat: { requiresNonNullAssistantContent: true } } }, scnFlushOrder, { ...S, reasoning: "low" });
	add("completions-cache-key-mode-override", { ...kimi, overrides: { compat: { promptCacheKeyMode: "session" } } }, scnAdditive, { ...S, reasoning: "medium" });
	add("completions-kimi-k3-additions", kimi, scnAdditive, { ...S, reasoning: "high" });
	add("completions-kimi-k3-multi-system", kimi, scnMultiSystem, { ...S, reasoning: "medium" });
	add("completions-openrouter-claude", { provider: "openrouter", id: "anthropic/claude-fable-5" }, scnEffortChange, { ...S, reasoning: "high" });

	// mistral-conversations
	add("mistral-strict-mode-on", { provider: "mistral", id: "mistral-medium-latest", overrides: { compat: { supportsStrictMode: true } } }, scnStrictTools, { ...S, reasoning: "medium" });
	add("mistral-strict-mode-off", { provider: "mistral", id: "mistral-medium-latest", overrides: { compat: { supportsStrictMode: false } } }, scnStrictTools, { ...S, reasoning: "medium" });
	add("mistral-no-map-reasoning", { provider: "mistral", id: "devstral-medium-latest", overrides: { reasoning: true } }, scnAdditive, { ...S, reasoning: "high" });
	add("mistral-stream-prompt-mode", { provider: "mistral", id: "magistral-medium-latest" }, scnAdditive, { ...S, promptMode: "reasoning", reasoningEffort: "high" }, { entry: "stream" });

	// google / vertex
	add("google-gemini-4-argon-off", { provider: "google", id: "gemini-4-argon" }, scnAdditive, S);
	add("google-gemini-4-argon-minimal", { provider: "google", id: "gemini-4-argon" }, scnFailures, { ...S, reasoning: "minimal" });
	add("google-gemma-4-31b", { provider: "google", id: "gemma-4-31b-it" }, scnAdditive, { ...S, reasoning: "high" });
	add("google-stream-const-enum", { provider: "google", id: "gemini-2.5-pro" }, scnSchemaRules, { ...S, thinking: { enabled: true, budgetTokens: 1024 } }, { entry: "stream" });
	add("vertex-gemini-4-argon-xhigh", { provider: "google-vertex", id: "gemini-4-argon" }, scnCrossModel, { ...S, reasoning: "xhigh" });

	// bedrock-converse-stream
	add("bedrock-claude-haiku-5-5-effort-off", { provider: "amazon-bedrock", id: "anthropic.claude-haiku-5-5" }, scnEffortChange, S);
	add("bedrock-claude-sonnet-4-6-no-binding", { provider: "amazon-bedrock", id: "anthropic.claude-sonnet-4-6" }, scnAdditive, { ...S, reasoning: "high" });
	add("bedrock-gpt-oss-120b", { provider: "amazon-bedrock", id: "openai.gpt-oss-120b-1:0" }, scnAdditive, { ...S, reasoning: "high" });
	add("bedrock-gpt-5.5-off", { provider: "amazon-bedrock", id: "openai.gpt-5.5" }, scnAdditive, S);
	add("bedrock-stream-strict", { provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" }, scnSchemaRules, { reasoning: "medium" }, { entry: "stream" });

	// pi-messages
	add("pi-messages-effort-off", { provider: "radius", id: "balanced" }, scnEffortChange, S);
	add("pi-messages-claude-new-fields", { provider: "radius", id: "claude-opus-4-5" }, scnNewFields, { ...S, reasoning: "high" });

	return c.filter((x) => !x.minRelease || atLeast(release, x.minRelease));
}

// ---------------------------------------------------------------------------------------------
// Anthropic message threads (1.6): request sequences in one process.

/** A reply the fetch stub streams back (Anthropic SSE): message id, text, usage. */
function reply(n, replyText, extra = {}) {
	return { id: `msg_oracle_${String(n).padStart(4, "0")}`, text: replyText, usage: { input_tokens: 1000 + n, output_tokens: 20 + n, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, ...extra };
}

/** The assistant message as the session records it after `reply` (what the next request sends). */
function replyMessage(self, r, t) {
	const u = r.usage;
	return {
		role: "assistant",
		content: [{ type: "text", text: r.text }],
		api: self.api,
		provider: self.provider,
		model: self.model,
		responseId: r.id,
		usage: { input: u.input_tokens, output: u.output_tokens, cacheRead: 0, cacheWrite: 0, totalTokens: u.input_tokens + u.output_tokens, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
		stopReason: "stop",
		timestamp: t,
	};
}

/**
 * A conversation of `turns` user prompts; each request's context is the previous one plus the
 * recorded reply and the next user message. `edit(i, messages)` may rewrite a context (a context
 * rewrite: compaction, tree navigation). `reject` maps a request index to a thread rejection.
 */
function threadSequence(self, { turns = 3, system = true, tools = [TOOLS.read, TOOLS.bash], options = S, edit, reject = {}, optionsAt = {}, userContent } = {}) {
	const messages = [];
	let t = T0;
	const ts = () => (t += 1000);
	if (system) messages.push({ role: "system", content: "You are a careful coding agent.", ...(tools.length ? { toolsAdded: tools } : {}), timestamp: ts() });
	const requests = [];
	for (let i = 0; i < turns; i++) {
		messages.push({ role: "user", content: userContent?.(i) ?? `Turn ${i + 1}: continue the task.`, timestamp: ts() });
		let ctx = structuredClone(messages);
		if (edit) ctx = edit(i, ctx) ?? ctx;
		const r = reply(i + 1, `Done with turn ${i + 1}.`);
		const req = { context: { messages: ctx }, options: { ...options, ...(optionsAt[i] ?? {}) }, reply: r };
		if (reject[i]) req.reject = reject[i];
		requests.push(req);
		messages.push(replyMessage(self, r, ts()));
	}
	return requests;
}

const THREAD_REJECTIONS = {
	notFound: { status: 400, errorCode: "thread_not_found", message: "thread not found" },
	alreadyContinued: { status: 400, errorCode: "thread_already_continued", message: "thread already continued" },
	fingerprint: { status: 400, errorCode: "thread_fingerprint_mismatch", message: "thread fingerprint mismatch" },
	unsupported: { status: 400, errorCode: "thread_unsupported_request", message: "thread unsupported for this request" },
	noCode: { status: 400, message: "thread: Extra inputs are not permitted" },
};

function threadTable() {
	const c = [];
	const add = (name, model, build, env) => c.push({ name: `thread-${name}`, model, build, env });
	const opus48 = { provider: "anthropic", id: "claude-opus-4-8" };
	const sonnet46 = { provider: "anthropic", id: "claude-sonnet-4-6" };
	const opus5 = { provider: "anthropic", id: "claude-opus-5" };
	add("create-single", opus48, (self) => threadSequence(self, { turns: 1, options: { ...S, reasoning: "medium" } }));
	add("create-then-continue", opus48, (self) => threadSequence(self, { turns: 2, options: { ...S, reasoning: "medium" } }));
	add("continue-chain-4", sonnet46, (self) => threadSequence(self, { turns: 4, options: { ...S, reasoning: "low" } }));
	add("continue-no-system-no-tools", sonnet46, (self) => threadSequence(self, { turns: 3, system: false, tools: [] }));
	add("continue-managed-effort", opus5, (self) => threadSequence(self, { turns: 3, options: { ...S, reasoning: "high" } }));
	add("continue-thinking-change", opus48, (self) => threadSequence(self, { turns: 3, options: { ...S, reasoning: "low" }, optionsAt: { 2: { reasoning: "high" } } }));
	add("continue-tools-added", opus48, (self) =>
		threadSequence(self, {
			turns: 3,
			options: { ...S, reasoning: "medium" },
			edit: (i, ms) => {
				if (i === 2) ms.splice(ms.length - 1, 0, { role: "system", content: "", toolsAdded: [TOOLS.grep], timestamp: T0 + 50000 });
				return ms;
			},
		}),
	);
	add("rewrite-starts-over", sonnet46, (self) =>
		threadSequence(self, {
			turns: 3,
			edit: (i, ms) => (i === 2 ? [ms[0], { role: "user", content: "Summary of turns 1-2: the task is half done.", timestamp: T0 + 500 }, ms[ms.length - 1]] : ms),
		}),
	);
	add("model-switch-starts-over", opus48, (self) => threadSequence(self, { turns: 3, options: { ...S, reasoning: "medium" }, optionsAt: {} }).map((r, i) => (i === 2 ? { ...r, model: { provider: "anthropic", id: "claude-sonnet-4-6" } } : r)));
	add("cache-none-no-thread", opus48, (self) => threadSequence(self, { turns: 2, options: { ...S, cacheRetention: "none" } }));
	add("disable-continuation", opus48, (self) => threadSequence(self, { turns: 2, options: S, optionsAt: { 1: { disableContinuation: true } } }));
	add("fallback-not-found", opus48, (self) => threadSequence(self, { turns: 3, options: { ...S, reasoning: "low" }, reject: { 1: THREAD_REJECTIONS.notFound } }));
	add("fallback-already-continued", sonnet46, (self) => threadSequence(self, { turns: 3, reject: { 2: THREAD_REJECTIONS.alreadyContinued } }));
	add("fallback-fingerprint", opus48, (self) => threadSequence(self, { turns: 2, reject: { 1: THREAD_REJECTIONS.fingerprint } }));
	add("fallback-unsupported-turns-off", opus48, (self) => threadSequence(self, { turns: 3, options: { ...S, reasoning: "medium" }, reject: { 1: THREAD_REJECTIONS.unsupported } }));
	add("fallback-no-code-turns-off", sonnet46, (self) => threadSequence(self, { turns: 3, reject: { 0: THREAD_REJECTIONS.noCode } }));
	add("fallback-then-continue", opus48, (self) => threadSequence(self, { turns: 4, reject: { 1: THREAD_REJECTIONS.notFound } }));
	add("continue-after-image", opus48, (self) => threadSequence(self, { turns: 3, userContent: (i) => (i === 0 ? [text("Look at this:"), image(PNG)] : undefined) }));
	add("compat-off", { ...opus48, overrides: { compat: { supportsMessageThreads: false } } }, (self) => threadSequence(self, { turns: 2 }));
	add("compat-on-custom-base-url", { ...opus48, overrides: { baseUrl: "https://anthropic-proxy.example.com", compat: { supportsMessageThreads: true } } }, (self) => threadSequence(self, { turns: 2 }));
	return c;
}

// ---------------------------------------------------------------------------------------------
// Strict-tool limit fallbacks (1.3 Anthropic per request; 1.6 Anthropic and Bedrock, remembered
// per session): request sequences in one process whose first attempt the endpoint rejects with
// a limit message. Run on 1.3.0 and 1.6.0; one case per process, as the state is per process.

/** `prefer` tools that can be made strict on both APIs, a `require` tool and a plain one. */
const STRICT_TOOLS = [
	{ ...TOOLS.read, constrainedSampling: { type: "json_schema", strict: "prefer" } },
	{ ...TOOLS.grep, constrainedSampling: { type: "json_schema", strict: "require" } },
	TOOLS.edit,
	{ name: "note", description: "Record a note", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
];

/** Limit rejections, as Claude words them (Anthropic: a 400 invalid_request_error; Bedrock: a ValidationException). */
const STRICT_REJECTIONS = {
	tooMany: { status: 400, message: "Too many strict tools (21 > 20)" },
	grammar: { status: 400, message: "The compiled grammar is too large" },
	unions: { status: 400, message: "Schemas contains too many parameters with union types (17 > 16)" },
	other: { status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum" },
};

function strictTable() {
	const c = [];
	const add = (name, model, build) => c.push({ name: `strict-${name}`, model, build });
	const opus48 = { provider: "anthropic", id: "claude-opus-4-8" };
	const sonnet46 = { provider: "anthropic", id: "claude-sonnet-4-6" };
	const bedrock46 = { provider: "amazon-bedrock", id: "anthropic.claude-sonnet-4-6" };
	const seq = (self, o) => threadSequence(self, { tools: STRICT_TOOLS, ...o });
	add("anthropic-first-turn", opus48, (self) => seq(self, { turns: 3, options: { ...S, reasoning: "medium" }, reject: { 0: STRICT_REJECTIONS.tooMany } }));
	add("anthropic-later-turn", sonnet46, (self) => seq(self, { turns: 3, reject: { 1: STRICT_REJECTIONS.grammar } }));
	add("anthropic-unions-other-session", opus48, (self) => seq(self, { turns: 3, reject: { 0: STRICT_REJECTIONS.unions }, optionsAt: { 2: { sessionId: "019a0000-0000-7000-8000-0000000000ff" } } }));
	add("anthropic-cache-none", opus48, (self) => seq(self, { turns: 2, options: { ...S, cacheRetention: "none" }, reject: { 0: STRICT_REJECTIONS.tooMany } }));
	add("anthropic-other-error", opus48, (self) => seq(self, { turns: 2, reject: { 0: STRICT_REJECTIONS.other } }));
	add("anthropic-require-only", opus48, (self) =>
		threadSequence(self, { turns: 2, tools: [STRICT_TOOLS[1], TOOLS.bash], reject: { 0: STRICT_REJECTIONS.tooMany } }),
	);
	add("bedrock-first-turn", bedrock46, (self) => seq(self, { turns: 3, options: { ...S, reasoning: "medium" }, reject: { 0: STRICT_REJECTIONS.tooMany } }));
	add("bedrock-no-session", bedrock46, (self) => seq(self, { turns: 2, options: {}, reject: { 0: STRICT_REJECTIONS.grammar } }));
	// The sessions over the limits are shared by both APIs: Anthropic's fallback makes the
	// session's next Bedrock request non-strict (1.6).
	add("anthropic-then-bedrock", opus48, (self) => seq(self, { turns: 2, reject: { 0: STRICT_REJECTIONS.tooMany } }).map((r, i) => (i === 1 ? { ...r, model: bedrock46 } : r)));
	return c;
}

/** The release's own single cases, built against its catalog (`lookup`). */
export function releaseCases(release, lookup) {
	const out = [];
	for (const { name, model, scenario, options, entry, env } of table(release)) {
		const found = model.api && model.baseUrl ? model : lookup(model.provider, model.id);
		if (!found) {
			out.push({ name, absent: `${model.provider}/${model.id}` });
			continue;
		}
		const self = selfOf(model, lookup);
		const context = typeof scenario === "function" ? scenario(self, found) : scenario;
		const c = { pi: release, model, context, options };
		if (entry) c.entry = entry;
		if (env) c.env = env;
		out.push({ name, case: c, expectError: "any" });
	}
	return out;
}

/** Anthropic thread sequences (1.6.0 and later). */
export function threadCases(release, lookup) {
	if (!atLeast(release, "1.6.0")) return [];
	const out = [];
	for (const { name, model, build, env } of threadTable()) {
		if (!lookup(model.provider, model.id)) {
			out.push({ name, absent: `${model.provider}/${model.id}` });
			continue;
		}
		const self = selfOf(model, lookup);
		const requests = build(self);
		const c = { pi: release, model, requests };
		if (env) c.env = env;
		out.push({ name, case: c, expectError: "any", sequence: true });
	}
	return out;
}

/** Strict-tool limit fallback sequences (1.3.0 and later). */
export function strictCases(release, lookup) {
	if (!atLeast(release, "1.3.0")) return [];
	const out = [];
	for (const { name, model, build } of strictTable()) {
		if (!lookup(model.provider, model.id)) {
			out.push({ name, absent: `${model.provider}/${model.id}` });
			continue;
		}
		const self = selfOf(model, lookup);
		out.push({ name, case: { pi: release, model, requests: build(self) }, expectError: "any", sequence: true });
	}
	return out;
}
