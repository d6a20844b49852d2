// wire-random: seeded random contexts and option sets for `gen-wire-cases.mjs --random N --seed S`.
//
// Every case is a well-formed pi-ai request as Pi itself would hand it over: a transcript of user
// turns (a string, or text and image blocks), assistant turns (text, thinking signed, unsigned or
// redacted, tool calls, every stopReason, from this model or another one of the same or another
// API), tool results (text and/or images, isError, matching or orphaned ids) and Pi system messages
// (sections patched and removed, toolsAdded / toolsRemoved, in the middle of the conversation too),
// or the plain form (systemPrompt + tools); and the simple options Pi passes (reasoning level,
// maxTokens, temperature, cacheRetention, sessionId, toolChoice). A small share of the text is an
// edge value (empty, whitespace, unicode, lone surrogates). Case `i` depends only on (seed, i), so a
// larger N keeps the cases of a smaller one, and `--only` can pick one out.
//
// The models: each API's representative ones plus models flagged with
// `compat.supportsMidConvoSystemMessages` (from the catalog or an override). Cases go round robin
// over the ten APIs, so N = 300 gives 30 per API.
import { prng } from "./lib/random-session.mjs";
import { IDENTITIES, JPEG, PNG, SESSION, T0, TOOLS, nativeId, nativeThinking, redactedThinking, selfOf, baseLookup } from "./wire-cases.mjs";

const AZ_ENV = { AZURE_OPENAI_RESOURCE_NAME: "wire-cases-res" };

/** Models per API (the first is the API's representative). */
const RANDOM_MODELS = {
	"anthropic-messages": [
		{ provider: "anthropic", id: "claude-opus-4-8" },
		{ provider: "anthropic", id: "claude-sonnet-4-6" },
		{ provider: "anthropic", id: "claude-opus-5" },
		{ provider: "anthropic", id: "claude-haiku-4-5" },
		{ provider: "kimi-coding", id: "k3" },
		{ provider: "fireworks", id: "accounts/fireworks/models/deepseek-v4-pro" },
		{ provider: "minimax", id: "MiniMax-M3" },
		{ provider: "anthropic", id: "claude-fable-5" },
	],
	"openai-responses": [
		{ provider: "openai", id: "gpt-5.5" },
		{ provider: "openai", id: "gpt-5" },
		{ provider: "openai", id: "gpt-4.1" },
		{ provider: "github-copilot", id: "gpt-5.6-sol" },
		{ provider: "xai", id: "grok-4.6" },
		{ provider: "openai", id: "o3-mini" },
	],
	"azure-openai-responses": [
		{ provider: "azure-openai-responses", id: "gpt-5.5" },
		{ provider: "azure-openai-responses", id: "gpt-5.5", overrides: { compat: { supportsMidConvoSystemMessages: true } } },
		{ provider: "azure-openai-responses", id: "gpt-4.1" },
		{ provider: "azure-openai-responses", id: "o3-mini" },
	],
	"openai-codex-responses": [
		{ provider: "openai-codex", id: "gpt-5.6-sol" },
		{ provider: "openai-codex", id: "gpt-6-astra" },
		{ provider: "openai-codex", id: "gpt-6-luna" },
	],
	"openai-completions": [
		{ provider: "moonshotai", id: "kimi-k3" },
		{ provider: "deepseek", id: "deepseek-v4-pro" },
		{ provider: "groq", id: "openai/gpt-oss-120b" },
		{ provider: "openrouter", id: "openai/gpt-5.5" },
		{ provider: "zai", id: "glm-5.3" },
		{ provider: "fireworks", id: "accounts/fireworks/models/kimi-k3" },
		{ provider: "ant-ling", id: "Ling-2.6-1T" },
		{ provider: "together", id: "Qwen/Qwen3.7-Max" },
		{ provider: "openrouter", id: "anthropic/claude-fable-5" },
		{ provider: "xiaomi", id: "mimo-v2.6-pro" },
	],
	"mistral-conversations": [
		{ provider: "mistral", id: "mistral-large-latest" },
		{ provider: "mistral", id: "magistral-medium-latest" },
		{ provider: "mistral", id: "mistral-large-latest", overrides: { compat: { supportsMidConvoSystemMessages: true } } },
		{ provider: "mistral", id: "codestral-latest" },
		{ provider: "mistral", id: "mistral-medium-latest" },
	],
	"google-generative-ai": [
		{ provider: "google", id: "gemini-2.5-pro" },
		{ provider: "google", id: "gemini-3.1-pro-preview" },
		{ provider: "google", id: "gemini-2.5-flash" },
		{ provider: "google", id: "gemini-3-flash-preview" },
		{ provider: "google", id: "gemma-4-26b-a4b-it" },
	],
	"google-vertex": [
		{ provider: "google-vertex", id: "gemini-2.5-flash" },
		{ provider: "google-vertex", id: "gemini-3.1-pro-preview" },
		{ provider: "google-vertex", id: "gemini-3-flash-preview" },
	],
	"bedrock-converse-stream": [
		{ provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" },
		{ provider: "amazon-bedrock", id: "amazon.nova-pro-v1:0" },
		{ provider: "amazon-bedrock", id: "anthropic.claude-haiku-4-5-20251001-v1:0" },
		{ provider: "amazon-bedrock", id: "amazon.nova-micro-v1:0" },
		{ provider: "amazon-bedrock", id: "openai.gpt-oss-120b" },
		{ provider: "amazon-bedrock", id: "amazon.nova-2-lite-v1:0" },
	],
	"pi-messages": [
		{ provider: "radius", id: "balanced" },
		{ provider: "radius", id: "cheap" },
		{ provider: "radius", id: "claude-opus-4-5" },
		{ provider: "radius", id: "claude-sonnet-4-5" },
	],
};
const APIS = Object.keys(RANDOM_MODELS);

/** Identities an assistant message may come from besides the target model. */
const OTHERS = [
	IDENTITIES.opus48,
	IDENTITIES.gpt55,
	IDENTITIES.gemini25pro,
	IDENTITIES.kimik3,
	IDENTITIES.mistralLarge,
	{ api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-6" },
	{ api: "bedrock-converse-stream", provider: "amazon-bedrock", model: "anthropic.claude-opus-4-8" },
	{ api: "openai-codex-responses", provider: "openai-codex", model: "gpt-5.6-sol" },
	{ api: "pi-messages", provider: "radius", model: "balanced" },
];

/** toolChoice values each API's simple options take. */
const TOOL_CHOICES = {
	"anthropic-messages": ["auto", "any", "none", { type: "tool", name: "read" }],
	"openai-responses": ["auto", "none", "required"],
	"azure-openai-responses": ["auto", "none", "required"],
	"openai-codex-responses": ["auto", "none", "required"],
	"openai-completions": ["auto", "none", "required"],
	"mistral-conversations": ["auto", "none", "any", "required"],
	"google-generative-ai": ["auto", "none", "any"],
	"google-vertex": ["auto", "none", "any"],
	"bedrock-converse-stream": ["auto", "any", "none", { type: "tool", name: "read" }],
	"pi-messages": ["auto", "none", "required"],
};

const WORDS = ["read", "the", "file", "naïve", "日本語", "🎉", "résumé", "cargo", "test", "TODO", "src/main.rs", "x", "\"quoted\"", "back\\slash", "tab\there", "line\nbreak"];
const EDGE_TEXT = ["", " ", "\n", "   \n\t", "\ud800", "lone \udc00 low", "😀\ud83d", "e\u0301 \u202eRTL\u202c", "\u2028\u2029", "null", "{\"json\": true}", "😀".repeat(40)];
const LEVELS = [undefined, "off", "minimal", "low", "medium", "high", "xhigh"];
const TOOL_POOL = ["read", "bash", "grep", "edit", "web", "patch"];
/** A grammar-constrained tool (OpenAI custom tools) besides the JSON-schema ones. */
const BASE_TOOLS = {
	...TOOLS,
	patch: {
		name: "apply_patch",
		description: "Apply a patch",
		parameters: { type: "object", properties: { input: { type: "string" } }, required: ["input"] },
		constrainedSampling: { type: "grammar", variants: { openai_lark: 'start: "*** Begin Patch" /.+/s' } },
	},
};

/** A random JSON Schema node of depth at most `depth` (the shapes extension tools declare). */
function randomSchema(r, depth) {
	const desc = () => (r.chance(0.4) ? { description: r.pick(["A value", "Pfad — ü ✓", "", "Line one\nline two"]) } : {});
	const k = r.int(depth > 0 ? 12 : 7);
	switch (k) {
		case 0:
			return { type: "string", ...desc(), ...(r.chance(0.3) ? { format: r.pick(["uri", "date-time", "email", "regex"]) } : {}), ...(r.chance(0.2) ? { minLength: 1, maxLength: 200 } : {}) };
		case 1:
			return { type: "number", ...desc(), ...(r.chance(0.4) ? { minimum: r.pick([0, -1.5, 1e-7]), maximum: r.pick([100, 1e21, 0.5]) } : {}), ...(r.chance(0.2) ? { default: 1.5 } : {}) };
		case 2:
			return { type: "integer", ...desc(), ...(r.chance(0.4) ? { minimum: 1, exclusiveMaximum: 1000 } : {}) };
		case 3:
			return { type: "boolean", ...desc(), ...(r.chance(0.3) ? { default: false } : {}) };
		case 4:
			return { type: "string", enum: r.pick([["a", "b"], ["low", "medium", "high"], ["x"]]), ...desc() };
		case 5:
			return { const: r.pick(["fixed", 3, true]), ...desc() };
		case 6:
			return { type: ["string", "null"], ...desc() };
		case 7:
		case 8:
			return { type: "array", items: randomSchema(r, depth - 1), ...desc(), ...(r.chance(0.2) ? { minItems: 1 } : {}) };
		case 9:
			return { anyOf: [randomSchema(r, depth - 1), randomSchema(r, depth - 1)], ...desc() };
		default:
			return randomObject(r, depth - 1);
	}
}

function randomObject(r, depth) {
	const properties = {};
	const n = r.int(4);
	for (let j = 0; j < n; j++) properties[r.pick(["path", "query", "limit", "mode", "items", "opts", "naïve_key", "x-y", "$weird"])] = randomSchema(r, depth);
	const keys = Object.keys(properties);
	const out = { type: "object", properties };
	if (keys.length && r.chance(0.7)) out.required = keys.filter(() => r.chance(0.6));
	if (r.chance(0.3)) out.additionalProperties = r.chance(0.7) ? false : true;
	return out;
}

/** An extension-like tool with a random schema (and sometimes a strict `prefer` / `none` hint). */
function randomTool(r, k) {
	const tool = { name: `ext_tool_${k}`, description: r.pick(["Does a thing", "Outil — ü ✓", "", "Multi\nline description"]), parameters: randomObject(r, 2) };
	if (r.chance(0.25)) tool.constrainedSampling = { type: "json_schema", strict: r.pick(["prefer", "none"]) };
	return tool;
}

/** Compat flags a models.json override may set on a Chat Completions model. */
function randomCompletionsCompat(r) {
	const compat = {};
	const flag = (name) => {
		if (r.chance(0.35)) compat[name] = r.chance(0.5);
	};
	for (const name of [
		"supportsDeveloperRole",
		"supportsStore",
		"supportsReasoningEffort",
		"supportsUsageInStreaming",
		"supportsStrictMode",
		"supportsMidConvoSystemMessages",
		"requiresToolResultName",
		"requiresAssistantAfterToolResult",
		"requiresThinkingAsText",
		"requiresNonNullAssistantContent",
		"requiresReasoningContentOnAssistantMessages",
		"requiresToolsWithToolHistory",
	])
		flag(name);
	if (r.chance(0.3)) compat.maxTokensField = r.pick(["max_tokens", "max_completion_tokens"]);
	if (r.chance(0.3)) compat.thinkingFormat = r.pick(["openai", "deepseek", "openrouter", "qwen", "zai", "together", "string-thinking", "qwen-chat-template"]);
	if (r.chance(0.2)) compat.promptCacheKeyMode = r.pick(["auto", "enabled", "disabled"]);
	if (r.chance(0.15)) compat.cacheControlFormat = "anthropic";
	return compat;
}

function caseSeed(seed, i) {
	// A 32-bit mix of (seed, i): neighbouring cases get unrelated streams.
	let h = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(i + 1, 0x85ebca6b)) >>> 0;
	h ^= h >>> 16;
	h = Math.imul(h, 0x7feb352d) >>> 0;
	h ^= h >>> 15;
	return h >>> 0 || 1;
}

/** One random case (its name, model, context, options, env) for case number `i`. */
function randomCase(seed, i, lookup) {
	const r = prng(caseSeed(seed, i));
	const api = APIS[i % APIS.length];
	let model = r.pick(RANDOM_MODELS[api]);
	const compatOverride = api === "openai-completions" && r.chance(0.25);
	if (compatOverride) model = { ...model, overrides: { compat: randomCompletionsCompat(r) } };
	const self = selfOf(model, lookup);
	const catalog = lookup(model.provider, model.id);
	const stats = { toolCalls: 0, thinking: 0, redacted: 0, images: 0, systemSections: 0, midSystem: 0, orphanResults: 0, orphanCalls: 0, foreign: 0, errors: 0, edge: 0, plain: 0, randomSchemas: 0, compatOverride: compatOverride ? 1 : 0 };

	const phrase = (n = 4) => {
		if (r.chance(0.06)) {
			stats.edge++;
			return r.pick(EDGE_TEXT);
		}
		return Array.from({ length: 1 + r.int(n) }, () => r.pick(WORDS)).join(" ");
	};
	let t = T0;
	const ts = () => (t += 1000 + r.int(5000));
	const img = () => {
		stats.images++;
		return r.chance(0.7) ? { type: "image", data: PNG, mimeType: "image/png" } : { type: "image", data: JPEG, mimeType: "image/jpeg" };
	};
	const use = () => {
		const window = catalog?.contextWindow ?? 200000;
		const input = r.chance(0.05) ? Math.max(0, window - r.int(60000)) : r.chance(0.1) ? 20000 + r.int(150000) : r.int(3000);
		const output = r.int(400);
		const cacheRead = r.chance(0.5) ? r.int(5000) : 0;
		const cacheWrite = r.chance(0.3) ? r.int(1500) : 0;
		return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
	};

	// Tools: current set (names) and the form the context takes.
	const form = r.chance(0.3) ? "plain" : r.chance(0.85) ? "pi" : "none";
	if (form === "plain") stats.plain++;
	const current = new Set();
	const TOOL_DEFS = { ...BASE_TOOLS };
	const pool = [...TOOL_POOL];
	if (r.chance(0.35)) {
		const k = 1 + r.int(3);
		for (let j = 0; j < k; j++) {
			const tool = randomTool(r, j);
			TOOL_DEFS[tool.name] = tool;
			pool.push(tool.name);
			stats.randomSchemas++;
		}
	}
	const initial = pool.filter(() => r.chance(0.5));
	const messages = [];
	let systemPrompt;
	let tools;
	if (form === "plain") {
		if (r.chance(0.9)) systemPrompt = r.chance(0.1) ? phrase() : "You are a helpful coding assistant.";
		if (initial.length && r.chance(0.85)) {
			tools = initial.map((n) => TOOL_DEFS[n]);
			for (const n of initial) current.add(n);
		}
	} else if (form === "pi") {
		const sections = {};
		if (r.chance(0.8)) sections.preamble = "You are an expert coding assistant.";
		if (r.chance(0.6)) sections.tools = `<tools>\n${initial.map((n) => `- ${n}`).join("\n")}\n</tools>`;
		if (r.chance(0.6)) sections.cwd = "<cwd>\n/home/dev/project\n</cwd>";
		if (r.chance(0.2)) sections.extra = phrase();
		const extra = {};
		if (Object.keys(sections).length) {
			extra.sections = sections;
			stats.systemSections++;
		}
		if (initial.length) {
			extra.toolsAdded = initial.map((n) => TOOL_DEFS[n]);
			for (const n of initial) current.add(n);
		}
		messages.push({ role: "system", content: r.chance(0.7) ? "" : phrase(), ...extra, timestamp: ts() });
	}

	const midSystem = () => {
		stats.midSystem++;
		const extra = {};
		const sections = {};
		if (r.chance(0.5)) sections[r.pick(["skills", "cwd", "mode", "preamble", "tools"])] = r.chance(0.3) ? null : `<${r.pick(["skills", "mode"])}>${phrase()}</>`;
		if (Object.keys(sections).length) {
			extra.sections = sections;
			stats.systemSections++;
		}
		if (form === "pi" && r.chance(0.5)) {
			const add = pool.filter((n) => !current.has(n) && r.chance(0.4));
			if (r.chance(0.15)) add.push("read2");
			if (add.length) {
				extra.toolsAdded = add.map((n) => TOOL_DEFS[n]);
				for (const n of add) current.add(n === "read2" ? "read" : n);
			}
		}
		if (form === "pi" && current.size && r.chance(0.3)) {
			const gone = [...current].filter(() => r.chance(0.4));
			if (gone.length) {
				extra.toolsRemoved = gone.map((n) => ({ name: TOOL_DEFS[n]?.name ?? n }));
				for (const n of gone) current.delete(n);
			}
		}
		messages.push({ role: "system", content: r.chance(0.5) ? "" : phrase(), ...extra, timestamp: ts() });
	};

	const userMessage = () => {
		let content;
		if (r.chance(0.55)) content = phrase(8);
		else {
			content = [];
			const k = 1 + r.int(3);
			for (let j = 0; j < k; j++) content.push(r.chance(0.25) ? img() : { type: "text", text: phrase(6) });
		}
		messages.push({ role: "user", content, timestamp: ts() });
	};

	let callN = 0;
	const argsFor = (name) => {
		switch (name) {
			case "bash":
				return r.chance(0.2) ? { command: phrase(), timeout: r.pick([1, 30, 1.5, 1e21, -0]) } : { command: `echo ${phrase()}` };
			case "grep":
				return { pattern: phrase(2), ...(r.chance(0.5) ? { path: "src" } : {}) };
			case "edit":
				return { path: "README.md", edits: [{ oldText: phrase(2), newText: phrase(2) }] };
			case "web":
				return { url: "https://example.com/ü?q=1" };
			case "patch":
				return { input: `*** Begin Patch\n-${phrase(2)}\n+${phrase(2)}\n*** End Patch` };
			default:
				// Extension tools: arguments of every JSON kind, JS number spellings included.
				return Object.fromEntries(
					Array.from({ length: r.int(4) }, (_, j) => [r.pick(["path", "query", "limit", "mode", "items", "opts"]) + (j ? j : ""), r.pick([1e21, -0, 0.1 + 0.2, 9007199254740993, 1e-7, 12345678901234567890, "s \ud800 x", [1, "two", null], { nested: { deep: true } }, false, null, phrase(2)])]),
				);
			case "read":
				return r.chance(0.1) ? {} : { path: `${phrase(1)}.txt`, ...(r.chance(0.3) ? { offset: r.int(100) } : {}) };
		}
	};
	const toolName = (n) => TOOL_DEFS[n]?.name ?? n;

	/** One assistant step; returns the calls it made ([id, name]). */
	const assistantMessage = (allowCalls) => {
		const foreign = r.chance(0.25);
		const from = foreign ? (r.chance(0.3) ? { ...self, model: `${self.model}-other` } : r.pick(OTHERS)) : self;
		if (foreign) stats.foreign++;
		const content = [];
		if (r.chance(0.45)) {
			stats.thinking++;
			const kind = r.int(10);
			if (kind < 5) content.push(nativeThinking(from.api, phrase(6), ++callN));
			else if (kind < 7) content.push({ type: "thinking", thinking: phrase(6) });
			else if (kind < 8) {
				stats.redacted++;
				content.push(redactedThinking(from.api));
			} else if (kind < 9 && !from.api.endsWith("responses")) content.push({ type: "thinking", thinking: phrase(3), thinkingSignature: "opaque-signature-abc" });
			else content.push({ type: "thinking", thinking: r.pick(["", "   "]) });
		}
		const textSignature = () => {
			if (!r.chance(0.3)) return {};
			if (from.api.endsWith("responses")) {
				const k = r.int(4);
				if (k === 0) return { textSignature: `msg_${callN}abc` };
				if (k === 1) return { textSignature: JSON.stringify({ v: 1, id: r.pick([`msg_${"m".repeat(70)}`, `msg_${"😀".repeat(40)}`, `msg_é${"x".repeat(62)}`, `msg_\ud800${"y".repeat(70)}`]) }) };
				return { textSignature: JSON.stringify({ v: 1, id: `msg_${callN}def`, ...(k === 2 ? { phase: r.pick(["commentary", "final_answer", "other"]) } : {}) }) };
			}
			return { textSignature: r.pick(["dGV4dHNpZw==", "bad sig", ""]) };
		};
		if (r.chance(0.8) || content.length === 0) content.push({ type: "text", text: phrase(10), ...textSignature() });
		if (r.chance(0.05)) content.length = 0;
		if (r.chance(0.1)) content.unshift({ type: "text", text: phrase(3) });
		const calls = [];
		const usable = [...current];
		if (allowCalls && r.chance(0.5)) {
			const k = 1 + (r.chance(0.3) ? r.int(3) : 0);
			for (let j = 0; j < k; j++) {
				const n = usable.length && r.chance(0.9) ? r.pick(usable) : r.pick(pool);
				const n1 = ++callN;
				let id = nativeId(from.api, n1);
				const style = r.int(20);
				if (style === 0) id = `toolu_${n1}A+B/c.d:e`;
				// Kimi-style ids restart per message, so they repeat across turns.
				else if (style === 1) id = `functions.${toolName(n)}:${j}`;
				else if (style === 2) id = `call_${"L".repeat(60)}${n1}|fc_${"x".repeat(400)}${n1}`;
				else if (style === 3) id = `call_${n1}|ctc_${n1}`;
				else if (style === 4) id = `${n1}`;
				// Edge: ids with non-ASCII, astral and lone-surrogate characters, some long.
				else if (style === 5) id = r.pick([`call_é${n1}ü`, `toolu_😀${n1}`, `call_${n1}\ud800x`, `${"😀".repeat(40)}${n1}`, `call_${n1}|fc_é😀${n1}`, `call_${"é".repeat(70)}${n1}|fc_${n1}`]);
				const block = { type: "toolCall", id, name: toolName(n), arguments: argsFor(n) };
				if (r.chance(0.15)) block.thoughtSignature = r.pick(["Y2FsbHNpZw==", "not base64!", JSON.stringify({ type: "reasoning.encrypted", id: `rd_${n1}`, data: "bGVnYWN5", format: "openai-responses-v1", index: 0 })]);
				content.push(block);
				calls.push([id, toolName(n)]);
				stats.toolCalls++;
			}
		}
		let stopReason = calls.length ? "toolUse" : "stop";
		const extra = {};
		const fate = r.int(20);
		if (fate === 0) {
			stopReason = "error";
			extra.errorMessage = "overloaded_error";
			stats.errors++;
		} else if (fate === 1) {
			stopReason = "aborted";
			extra.errorMessage = "Request was aborted";
			stats.errors++;
		} else if (fate === 2 && !calls.length) stopReason = "length";
		if (!foreign && r.chance(0.2)) {
			const level = r.pick(["low", "medium", "high"]);
			extra.thinkingLevel = level;
			if (r.chance(0.5)) extra.providerThinkingLevel = level;
		}
		if (r.chance(0.2)) extra.responseId = `resp_${i}_${callN}`;
		messages.push({ role: "assistant", content, api: from.api, provider: from.provider, model: from.model, usage: use(), stopReason, ...extra, timestamp: ts() });
		return stopReason === "error" || stopReason === "aborted" ? (r.chance(0.5) ? [] : calls) : calls;
	};

	const toolResult = (id, name) => {
		const isError = r.chance(0.15);
		let content;
		const shape = r.int(10);
		if (shape < 6) content = [{ type: "text", text: phrase(12) }];
		else if (shape < 7) content = [img()];
		else if (shape < 8) content = [{ type: "text", text: phrase(3) }, img()];
		else if (shape < 9) content = [];
		else content = [{ type: "text", text: r.pick(["", "  \n "]) }];
		messages.push({ role: "toolResult", toolCallId: id, toolName: r.chance(0.03) ? "other_tool" : name, content, ...(r.chance(0.5) ? { details: { exitCode: isError ? 1 : 0 } } : {}), isError, timestamp: ts() });
	};

	const turns = 1 + r.int(r.chance(0.2) ? 10 : 5);
	for (let turn = 0; turn < turns; turn++) {
		if (turn > 0 && form !== "plain" && r.chance(0.2)) midSystem();
		userMessage();
		if (r.chance(0.08)) userMessage();
		const last = turn === turns - 1;
		const steps = last && r.chance(0.6) ? 0 : 1 + r.int(3);
		for (let s = 0; s < steps; s++) {
			const calls = assistantMessage(true);
			if (calls.length && form !== "plain" && r.chance(0.08)) midSystem();
			for (const [id, name] of calls) {
				if (r.chance(0.08)) {
					stats.orphanCalls++;
					continue;
				}
				toolResult(id, name);
			}
			if (r.chance(0.04)) {
				stats.orphanResults++;
				toolResult(`call_orphan_${++callN}`, "read");
			}
			if (!calls.length) break;
		}
	}
	// How the request ends: a user turn (most), the tool results of the last step, or an assistant
	// message (a continuation).
	const tail = messages[messages.length - 1]?.role;
	if (tail === "assistant" && r.chance(0.7)) userMessage();

	const context = { messages };
	if (systemPrompt !== undefined) context.systemPrompt = systemPrompt;
	if (tools) context.tools = tools;

	const options = {};
	if (r.chance(0.85)) {
		const k = r.int(20);
		options.sessionId =
			k < 16 ? SESSION : k < 18 ? `${SESSION}-${"x".repeat(r.int(80))}` : r.pick([`${"😀".repeat(70)}`, `sess-${"é".repeat(63)}`, `${"😀".repeat(32)}x`, `s-\ud800-${"z".repeat(62)}`, `${"a".repeat(63)}😀b`]);
	}
	const level = r.pick(LEVELS);
	if (level !== undefined) options.reasoning = level;
	if (r.chance(0.2)) options.maxTokens = r.pick([1, 256, 1000, 4096, 32000, 128000, catalog?.maxTokens ?? 8192]);
	if (r.chance(0.15)) options.temperature = r.pick([0, 0.3, 0.7, 1]);
	if (r.chance(0.05)) options.thinkingBudgets = r.pick([{ minimal: 512, low: 2048, medium: 8192, high: 16384 }, { high: 777 }, { medium: 0 }]);
	if (r.chance(0.2)) options.cacheRetention = r.pick(["none", "short", "long"]);
	if (r.chance(0.15)) options.toolChoice = r.pick(TOOL_CHOICES[api]);
	const c = { model, context, options };
	const env = {};
	if (api === "azure-openai-responses") Object.assign(env, AZ_ENV);
	if (r.chance(0.05)) env.PI_CACHE_RETENTION = "long";
	if (Object.keys(env).length) c.env = env;
	const slug = `${model.provider}-${model.id}`.replace(/[^a-zA-Z0-9.-]+/g, "_");
	return { name: `r-${seed}-${String(i).padStart(5, "0")}-${slug}`, case: c, expectError: false, api, stats };
}

/** `n` random cases for `seed` (`--random N --seed S`), with per-case reach counters in `stats`. */
export async function randomCases(n, seed) {
	const lookup = await baseLookup();
	const out = [];
	for (let i = 0; i < n; i++) out.push(randomCase(seed, i, lookup));
	return out;
}

/** Per API: how many cases reached each interesting branch (printed by the --random run). */
export function reachSummary(cases) {
	const per = {};
	for (const c of cases) {
		const row = (per[c.api] ??= { cases: 0 });
		row.cases++;
		for (const [k, v] of Object.entries(c.stats)) if (v) row[k] = (row[k] ?? 0) + 1;
	}
	return per;
}
