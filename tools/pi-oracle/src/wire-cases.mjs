// wire-cases: the programmatic inputs of forge-replay's wire goldens (fixtures/wire/).
//
// Each case is `{name, model, context, options?, entry?, env?}`:
//   model   {provider, id, overrides?} (pi-ai catalog lookup; overrides.compat merged) or a full Model
//   context a pi-ai Context: {systemPrompt?, messages, tools?}; messages may include system messages
//   options SimpleStreamOptions (entry "streamSimple", the default) or the API's StreamOptions ("stream")
//   env     process.env entries set for that case only (PI_CACHE_RETENTION, AZURE_OPENAI_*, …)
// Everything is deterministic: fixed timestamps, ids and data; no clocks, no randomness.

// ---------------------------------------------------------------------------------------------
// Building blocks

const SESSION = "019a0000-0000-7000-8000-000000000001";

/**
 * The case inputs are always built against pi-ai 0.87.1's catalog (the package's own dependency,
 * imported by file URL so `--pi` never redirects it): a case's context depends on its model's api,
 * and a case run through another release must be the same input as its 0.87.1 golden.
 */
const BASE_CATALOG = new URL("../node_modules/@earendil-works/pi-ai/dist/providers/all.js", import.meta.url).href;
export async function baseLookup() {
	return (await import(BASE_CATALOG)).getBuiltinModel;
}
const T0 = 1733234400000;

/** A tiny deterministic 1x1 PNG and a 2x1 JPEG-ish payload (content is opaque base64 to pi-ai). */
const PNG =
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const JPEG = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHR8eHR0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AKp//2Q==";

const TOOLS = {
	read: {
		name: "read",
		description: "Read a file",
		parameters: {
			type: "object",
			properties: { path: { type: "string", description: "File path" }, offset: { type: "number" } },
			required: ["path"],
		},
	},
	bash: {
		name: "bash",
		description: "Run a shell command",
		parameters: {
			type: "object",
			properties: { command: { type: "string" }, timeout: { type: "integer", minimum: 1 } },
			required: ["command"],
		},
	},
	grep: {
		name: "grep",
		description: "Search file contents",
		parameters: {
			type: "object",
			properties: { pattern: { type: "string" }, path: { type: "string" } },
			required: ["pattern"],
		},
	},
	edit: {
		name: "edit",
		description: "Replace text in a file",
		parameters: {
			type: "object",
			properties: {
				path: { type: "string" },
				edits: {
					type: "array",
					items: {
						type: "object",
						properties: { oldText: { type: "string" }, newText: { type: "string" } },
						required: ["oldText", "newText"],
					},
				},
			},
			required: ["path", "edits"],
			additionalProperties: false,
		},
		constrainedSampling: { type: "json_schema", strict: "prefer" },
	},
	// `read` redeclared with a different description (a redefinition).
	read2: {
		name: "read",
		description: "Read a file, optionally a line range",
		parameters: {
			type: "object",
			properties: { path: { type: "string" }, limit: { type: "number" } },
			required: ["path"],
		},
	},
	web: {
		name: "web_fetch",
		description: "Fetch a URL and return markdown — unicode ✓",
		parameters: { type: "object", properties: { url: { type: "string", format: "uri" } }, required: ["url"] },
	},
};

const SECTIONS = {
	preamble: "You are an expert coding assistant.",
	tools: "<tools>\n- read: Read file contents\n- bash: Execute bash commands\n</tools>",
	cwd: "<cwd>\n/home/dev/project\n</cwd>",
};

function usage(input, output, cacheRead = 0, cacheWrite = 0, totalTokens) {
	return {
		input,
		output,
		cacheRead,
		cacheWrite,
		totalTokens: totalTokens ?? input + output + cacheRead + cacheWrite,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
}

/**
 * A transcript builder with deterministic timestamps. `self` is the identity of the target model
 * ({api, provider, model}); `other` a different model, for cross-model content.
 */
class Tx {
	constructor(self) {
		this.self = self;
		this.t = T0;
		this.messages = [];
	}
	ts() {
		this.t += 1000;
		return this.t;
	}
	sys(content, extra = {}) {
		this.messages.push({ role: "system", content, ...extra, timestamp: this.ts() });
		return this;
	}
	user(content) {
		this.messages.push({ role: "user", content, timestamp: this.ts() });
		return this;
	}
	asst(content, { from = this.self, stopReason, use = usage(1200, 80, 0, 1100), extra = {} } = {}) {
		const hasTool = content.some((b) => b.type === "toolCall");
		this.messages.push({
			role: "assistant",
			content,
			api: from.api,
			provider: from.provider,
			model: from.model,
			usage: use,
			stopReason: stopReason ?? (hasTool ? "toolUse" : "stop"),
			...extra,
			timestamp: this.ts(),
		});
		return this;
	}
	result(toolCallId, toolName, content, isError = false) {
		const blocks = typeof content === "string" ? [{ type: "text", text: content }] : content;
		this.messages.push({
			role: "toolResult",
			toolCallId,
			toolName,
			content: blocks,
			details: { exitCode: isError ? 1 : 0 },
			isError,
			timestamp: this.ts(),
		});
		return this;
	}
	leading({ content = "", sections = SECTIONS, tools = [TOOLS.read, TOOLS.bash] } = {}) {
		const extra = {};
		if (sections) extra.sections = sections;
		if (tools && tools.length) extra.toolsAdded = tools;
		return this.sys(content, extra);
	}
	context() {
		return { messages: this.messages };
	}
}

const text = (t, extra = {}) => ({ type: "text", text: t, ...extra });
const thinking = (t, sig, extra = {}) => ({ type: "thinking", thinking: t, ...(sig !== undefined ? { thinkingSignature: sig } : {}), ...extra });
const call = (id, name, args, extra = {}) => ({ type: "toolCall", id, name, arguments: args, ...extra });
const image = (data = PNG, mimeType = "image/png") => ({ type: "image", data, mimeType });

/** Provider-native "same model" thinking for each API (signatures in the shape pi-ai stores). */
function nativeThinking(api, t, n = 1) {
	switch (api) {
		case "openai-responses":
		case "azure-openai-responses":
		case "openai-codex-responses":
			return thinking(
				t,
				JSON.stringify({
					type: "reasoning",
					id: `rs_00${n}`,
					summary: [{ type: "summary_text", text: t }],
					encrypted_content: `gAAAAB-enc-${n}`,
				}),
			);
		case "openai-completions":
			return thinking(t, "reasoning_content");
		case "google-generative-ai":
		case "google-vertex":
			return thinking(t, `c2lnbmF0dXJlLSR7bn0tZ29vZ2xl${n}A==`.replace(/[^A-Za-z0-9+/=]/g, ""));
		case "mistral-conversations":
			return thinking(t);
		case "pi-messages":
			return thinking(t, `pi-sig-${n}`);
		default:
			// anthropic-messages, bedrock-converse-stream
			return thinking(t, `EqQBCkYIBxgCKkDsig${n}/abc+def==`);
	}
}

/** Redacted thinking as each API stores it (Responses: an encrypted reasoning item). */
function redactedThinking(api) {
	if (api.endsWith("responses")) {
		return thinking("", JSON.stringify({ type: "reasoning", id: "rs_redacted", summary: [], encrypted_content: "gAAAAB-redacted" }), { redacted: true });
	}
	return thinking("", "b3BhcXVlLXJlZGFjdGVkLXBheWxvYWQ=", { redacted: true });
}

/** Provider-native tool call ids per API. */
function nativeId(api, n) {
	switch (api) {
		case "openai-responses":
		case "azure-openai-responses":
		case "openai-codex-responses":
			return `call_${n}abc|fc_${n}def`;
		case "openai-completions":
			return `call_0${n}`;
		case "mistral-conversations":
			return `aB3dE5gH${n}`;
		case "google-generative-ai":
		case "google-vertex":
			return `gemini-call-${n}`;
		case "bedrock-converse-stream":
			return `tooluse_0${n}AbC`;
		default:
			return `toolu_0${n}`;
	}
}

const IDENTITIES = {
	opus48: { api: "anthropic-messages", provider: "anthropic", model: "claude-opus-4-8" },
	gpt55: { api: "openai-responses", provider: "openai", model: "gpt-5.5" },
	gemini25pro: { api: "google-generative-ai", provider: "google", model: "gemini-2.5-pro" },
	kimik3: { api: "openai-completions", provider: "moonshotai", model: "kimi-k3" },
	mistralLarge: { api: "mistral-conversations", provider: "mistral", model: "mistral-large-latest" },
};

// ---------------------------------------------------------------------------------------------
// Scenarios: functions of the target identity returning a Context.

/** Leading sections + tools, signed thinking, a tool round trip, a mid system message that patches
 *  and removes sections and adds `grep` (additive only), then a user turn. */
function scnAdditive(self) {
	const x = new Tx(self);
	x.leading();
	x.user("List the files here.");
	x.asst([nativeThinking(self.api, "I should run ls."), text("Listing files."), call(nativeId(self.api, 1), "bash", { command: "ls" })]);
	x.result(nativeId(self.api, 1), "bash", "README.md\nsrc\n");
	x.asst([text("There is README.md and src/.")], { use: usage(40, 30, 1300, 120) });
	x.sys("Prefer grep for searching.", {
		sections: { skills: "<skills>\n- search: use grep\n</skills>", cwd: null },
		toolsAdded: [TOOLS.grep],
	});
	x.user("Now find TODOs.");
	return x.context();
}

/** Like scnAdditive but the mid system message removes `bash` and adds `grep`. */
function scnRemoval(self) {
	const x = new Tx(self);
	x.leading();
	x.user("List the files here.");
	x.asst([nativeThinking(self.api, "I should run ls."), text("Listing files."), call(nativeId(self.api, 1), "bash", { command: "ls" })]);
	x.result(nativeId(self.api, 1), "bash", "README.md\nsrc\n");
	x.asst([text("There is README.md and src/.")], { use: usage(40, 30, 1300, 120) });
	x.sys("Shell access has been withdrawn.", {
		sections: { tools: "<tools>\n- read: Read file contents\n- grep: Search file contents\n</tools>" },
		toolsRemoved: [{ name: "bash" }],
		toolsAdded: [TOOLS.grep],
	});
	x.user("Find TODOs without the shell.");
	return x.context();
}

/** A tool redeclared with a different definition (non-additive, and not native-tool-change safe). */
function scnRedefinition(self) {
	const x = new Tx(self);
	x.leading();
	x.user("Read the README.");
	x.asst([call(nativeId(self.api, 1), "read", { path: "README.md" })]);
	x.result(nativeId(self.api, 1), "read", "# Project\n\nHello.");
	x.asst([text("It says hello.")], { use: usage(900, 10, 0, 0) });
	x.sys("", { toolsAdded: [TOOLS.read2] });
	x.user("Read lines 1-2 of README.md.");
	return x.context();
}

/** Several mid-conversation system messages: section patch, removal, re-add (moves to end),
 *  content-only, two additive tool additions, and one right before the last user message. */
function scnMultiSystem(self) {
	const x = new Tx(self);
	x.leading({ content: "Base instructions.", tools: [TOOLS.read] });
	x.user("Hi.");
	x.asst([text("Hello! How can I help?")], { use: usage(500, 8) });
	x.sys("Switching to review mode.", { sections: { mode: "<mode>review</mode>" } });
	x.user("Review src/main.rs.");
	x.asst([call(nativeId(self.api, 1), "read", { path: "src/main.rs" })]);
	x.result(nativeId(self.api, 1), "read", "fn main() {}\n");
	x.sys("", { sections: { cwd: null, preamble: "You are a meticulous reviewer." }, toolsAdded: [TOOLS.grep] });
	x.asst([text("The file only has an empty main.")], { use: usage(700, 12, 400, 0) });
	x.sys("Remember: be concise.", { sections: { mode: null } });
	x.sys("", { sections: { cwd: "<cwd>\n/home/dev/other\n</cwd>" }, toolsAdded: [TOOLS.bash] });
	x.user("Now run the tests.");
	return x.context();
}

/** Images in user content and tool results; block user content with a blank text block. */
function scnImages(self) {
	const x = new Tx(self);
	x.leading({ tools: [TOOLS.read] });
	x.user([text("What is in this screenshot?"), image(), text("   "), image(JPEG, "image/jpeg")]);
	x.asst([text("A single pixel. Let me read the other image.")], { use: usage(2000, 20) });
	x.user([text("Please check it.")]);
	x.asst([call(nativeId(self.api, 1), "read", { path: "pic.png" }), call(nativeId(self.api, 2), "read", { path: "pic2.png" })]);
	x.result(nativeId(self.api, 1), "read", [text("Read image pic.png"), image()]);
	x.result(nativeId(self.api, 2), "read", [image(JPEG, "image/jpeg")]);
	x.user([image()]);
	return x.context();
}

/** Cross-model history: thinking from another model (becomes text), a foreign tool-call id with
 *  characters other APIs reject, a thoughtSignature; then same-model redacted and unsigned thinking. */
function scnCrossModel(self, other = IDENTITIES.opus48) {
	const x = new Tx(self);
	x.leading();
	x.user("Where is the config loaded?");
	const foreignId = other.api === "openai-responses" ? "call_Xy9|fc_0123456789abcdef" : "toolu_01A+B/c.d:e";
	x.asst(
		[
			thinking("The user wants the config loader.", "foreign-signature-abc"),
			thinking("   "),
			text("Let me look."),
			call(foreignId, "grep", { pattern: "loadConfig" }, { thoughtSignature: "Zm9yZWlnbg==" }),
		],
		{ from: other },
	);
	x.result(foreignId, "grep", "src/config.rs:12: pub fn loadConfig()");
	x.asst([text("It is in src/config.rs.")], { from: other, use: usage(1500, 20, 1000, 0) });
	x.user("Explain it.");
	x.asst(
		[
			redactedThinking(self.api),
			thinking("Unsigned same-model thought."),
			nativeThinking(self.api, "Signed same-model thought.", 2),
			text("It parses TOML."),
		],
		{ use: usage(1800, 40, 1500, 100) },
	);
	x.user("Thanks. Anything else?");
	return x.context();
}

/** Errored and aborted assistants (dropped), an orphan tool call, an isError result, a system
 *  message between a tool call and its result (held back), and a final user turn. */
function scnFailures(self, flaggedSystem = true) {
	const x = new Tx(self);
	x.leading();
	x.user("Build the project.");
	x.asst([text("Partial answ")], { stopReason: "aborted", use: usage(0, 0, 0, 0), extra: { errorMessage: "Request was aborted" } });
	x.user("Build the project, please.");
	x.asst([text("")], { stopReason: "error", use: usage(0, 0, 0, 0), extra: { errorMessage: "overloaded_error" } });
	x.user("Retry.");
	x.asst([text("Running two commands."), call(nativeId(self.api, 1), "bash", { command: "cargo build" }), call(nativeId(self.api, 2), "bash", { command: "cargo test" })]);
	if (flaggedSystem) x.sys("Note: the build cache is cold.");
	x.result(nativeId(self.api, 1), "bash", "error[E0425]: cannot find value `x`\n", true);
	// nativeId(2) has no result: orphan.
	x.user("What failed?");
	x.asst([call(nativeId(self.api, 3), "read", { path: "src/lib.rs" })], { use: usage(2100, 15, 1800, 0) });
	// trailing orphan at the very end of the transcript
	return x.context();
}

/** Unicode, a lone surrogate, JS number formatting in tool-call arguments, and long strings. */
function scnUnicode(self) {
	const x = new Tx(self);
	const long = "lorem ipsum dolor sit amet ".repeat(800); // ~21600 chars
	x.leading({ content: "Répondez en français. 日本語も可。", sections: { ...SECTIONS, emoji: "<emoji>🦀 ✓ \u00e9\u0301 \u202eRTL\u202c</emoji>" } });
	x.user("Unicode: 你好, мир, 🎉, e\u0301, lone \ud800 surrogate, tab\tand \"quotes\" \\ backslash \u2028 sep.");
	x.asst([
		text("Calling with odd numbers 🧮"),
		call(nativeId(self.api, 1), "bash", {
			command: "echo \ud83d\ude00 \udc00 lone",
			big: 1e21,
			small: 1e-7,
			neg: -0,
			frac: 0.1 + 0.2,
			int: 9007199254740993,
			exp: 12345678901234567890,
			nested: { arr: [1.5, 2e-10, 1e300, "x"], empty: {}, none: null, yes: true },
		}),
	]);
	x.result(nativeId(self.api, 1), "bash", `😀 ${long}`);
	x.asst([text(`Output was long: ${long.slice(0, 100)}… \ud800`)], { use: usage(9000, 50, 0, 0) });
	x.user(`Summarise this: ${long}`);
	return x.context();
}

/** Recorded usage near the context window: max tokens gets clamped. */
function scnClamp(self, contextWindow) {
	const x = new Tx(self);
	x.leading();
	x.user("Continue the long task.");
	const used = contextWindow - 20000;
	x.asst([text("Working on it.")], { use: usage(used - 1000, 1000, 0, 0) });
	x.user("And now the final step, with a few more words to estimate.");
	return x.context();
}

/** The plain Context form: systemPrompt + tools (normalizeContext builds the leading message). */
function scnPlain(self, withTools = true) {
	return {
		systemPrompt: "You are a helpful assistant.",
		messages: [
			{ role: "user", content: "Say hi.", timestamp: T0 + 1000 },
		],
		...(withTools ? { tools: [TOOLS.read, TOOLS.web] } : {}),
	};
}

/** No system message at all, no tools; block user content with an empty text block. */
function scnBare() {
	return {
		messages: [
			{ role: "user", content: [text(""), text("Just text blocks."), text("Second block.")], timestamp: T0 + 1000 },
			{ role: "user", content: "   ", timestamp: T0 + 2000 },
			{ role: "user", content: "Answer in one word.", timestamp: T0 + 3000 },
		],
	};
}

/** Strict-capable tool (constrainedSampling json_schema) + a tool result with empty content. */
function scnStrictTools(self) {
	const x = new Tx(self);
	x.leading({ tools: [TOOLS.read, TOOLS.edit] });
	x.user("Fix the typo in README.md.");
	x.asst([call(nativeId(self.api, 1), "edit", { path: "README.md", edits: [{ oldText: "teh", newText: "the" }] })]);
	x.result(nativeId(self.api, 1), "edit", []);
	x.asst([text("Done.")], { use: usage(1000, 5) });
	x.user("Thanks!");
	return x.context();
}

/** History had tool calls but the current tool list is empty (all removed). */
function scnAllToolsRemoved(self) {
	const x = new Tx(self);
	x.leading({ tools: [TOOLS.bash] });
	x.user("Run ls.");
	x.asst([call(nativeId(self.api, 1), "bash", { command: "ls" })]);
	x.result(nativeId(self.api, 1), "bash", "a\nb\n");
	x.asst([text("a and b.")], { use: usage(800, 5) });
	x.sys("Tools are disabled from now on.", { toolsRemoved: [{ name: "bash" }] });
	x.user("Now just talk.");
	return x.context();
}

/** Same-model signatures in the shapes several APIs store: OpenRouter-style reasoning_details
 *  JSON, a legacy encrypted detail on a tool call, Gemini base64 thought signatures (one invalid),
 *  and a text signature. */
function scnSignatures(self) {
	const x = new Tx(self);
	x.leading({ tools: [TOOLS.read, TOOLS.bash] });
	x.user("Check the README and the license.");
	x.asst([
		thinking(
			"Look at both files.",
			JSON.stringify([
				{ type: "reasoning.text", text: "Look at both files.", signature: "sig-rt", format: "anthropic-claude-v1", index: 0 },
				{ type: "reasoning.encrypted", data: "ZW5jcnlwdGVk", id: "rd_1", format: "openai-responses-v1", index: 1 },
			]),
		),
		text("Reading.", { textSignature: "dGV4dHNpZw==" }),
		call(nativeId(self.api, 1), "read", { path: "README.md" }, { thoughtSignature: "Y2FsbHNpZw==" }),
		call(nativeId(self.api, 2), "read", { path: "LICENSE" }, {
			thoughtSignature: JSON.stringify({ type: "reasoning.encrypted", id: "rd_2", data: "bGVnYWN5", format: "openai-responses-v1", index: 0 }),
		}),
	]);
	x.result(nativeId(self.api, 1), "read", "# Readme");
	x.result(nativeId(self.api, 2), "read", "MIT");
	x.asst([thinking("Both done.", "not base64!"), thinking("Second thought.", "QUJDRA=="), text("README and MIT license.", { textSignature: "bad sig" })], {
		use: usage(1500, 30, 1200, 0),
	});
	x.user("Good. Now run the tests.");
	x.asst([thinking("Running.", "reasoning"), call(nativeId(self.api, 3), "bash", { command: "npm test" })], { use: usage(1600, 20, 1400, 0) });
	x.result(nativeId(self.api, 3), "bash", "", false);
	x.user("And?");
	return x.context();
}

/** Only a system prompt: no conversation at all. */
function scnOnlySystem() {
	return { systemPrompt: "You are terse.", tools: [TOOLS.read], messages: [] };
}

/** A grammar-constrained tool (OpenAI custom tools) with a call in history. */
function scnGrammar(self) {
	const x = new Tx(self);
	const patch = {
		name: "apply_patch",
		description: "Apply a patch",
		parameters: { type: "object", properties: { input: { type: "string" } }, required: ["input"] },
		constrainedSampling: { type: "grammar", variants: { openai_lark: 'start: "*** Begin Patch" /.+/s' } },
	};
	x.leading({ tools: [TOOLS.read, patch] });
	x.user("Fix the typo.");
	x.asst([call(nativeId(self.api, 1), "apply_patch", { input: "*** Begin Patch\n-teh\n+the\n*** End Patch" })]);
	x.result(nativeId(self.api, 1), "apply_patch", "Done");
	x.user("Thanks.");
	return x.context();
}

/** Tool results with images after the last user turn on a model whose function responses
 *  cannot carry images (Gemini < 3), plus a tool result with only whitespace text. */
function scnToolImages(self) {
	const x = new Tx(self);
	x.leading({ tools: [TOOLS.read] });
	x.user("Show me the two screenshots.");
	x.asst([call(nativeId(self.api, 1), "read", { path: "a.png" }), call(nativeId(self.api, 2), "read", { path: "b.gif" })]);
	x.result(nativeId(self.api, 1), "read", [image()]);
	x.result(nativeId(self.api, 2), "read", [text("  \n "), image("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "image/gif")], true);
	return x.context();
}

/**
 * Malformed contexts (hand-built histories, untyped callers). pi-ai validates nothing: it either
 * sends them (an untyped block becomes an image, a `tools` object is ignored, undefined keys
 * vanish) or throws a TypeError somewhere in its code, whose text is the golden.
 */
function scnMalformed(kind) {
	return (self) => {
		const use = usage(900, 40, 0, 0);
		const u = (content, t = 1000) => ({ role: "user", content, timestamp: T0 + t });
		const a = (content, extra = {}) => ({ role: "assistant", content, api: self.api, provider: self.provider, model: self.model, usage: use, stopReason: "stop", ...extra, timestamp: T0 + 2000 });
		const call = (block = { type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.txt" } }) => a([block], { stopReason: "toolUse" });
		const result = (content, extra = {}) => ({ role: "toolResult", toolCallId: "call_1", toolName: "read", content, isError: false, ...extra, timestamp: T0 + 3000 });
		const mid = (extra) => ({ role: "system", content: "More tools.", ...extra, timestamp: T0 + 1500 });
		const nameless = { description: "nameless", parameters: { type: "object", properties: {} } };
		const sp = "Be brief.";
		switch (kind) {
			case "tools-object":
				return { systemPrompt: sp, tools: { read: TOOLS.read }, messages: [u("Read a.txt.")] };
			case "tools-object-no-prompt":
				return { tools: { read: TOOLS.read }, messages: [u("Read a.txt.")] };
			case "tool-without-name":
				return { systemPrompt: sp, tools: [TOOLS.read, nameless], messages: [u("hi")] };
			case "tools-added-no-name":
				return { systemPrompt: sp, tools: [TOOLS.read], messages: [u("hi"), mid({ toolsAdded: [nameless] }), u("again", 3000)] };
			case "tools-added-object":
				return { systemPrompt: sp, tools: [TOOLS.read], messages: [u("hi"), mid({ toolsAdded: { grep: TOOLS.grep } }), u("again", 3000)] };
			case "tool-no-parameters":
				return { systemPrompt: sp, tools: [{ name: "ping", description: "Ping" }], messages: [u("hi")] };
			case "user-block-no-type":
				return { systemPrompt: sp, messages: [u([text("Look:"), { text: "untyped text" }])] };
			case "user-block-no-type-image":
				return { systemPrompt: sp, messages: [u([text("Look:"), { data: PNG, mimeType: "image/png" }])] };
			case "user-block-unknown-type":
				return { systemPrompt: sp, messages: [u([text("Listen:"), { type: "audio", data: "AAAA", mimeType: "audio/wav" }])] };
			case "user-block-number":
				return { systemPrompt: sp, messages: [u([text("a"), 5])] };
			case "assistant-block-no-type":
				return { systemPrompt: sp, messages: [u("hi"), a([{ text: "untyped" }, text("Hello.")]), u("again", 3000)] };
			case "tool-result-block-no-type":
				return { systemPrompt: sp, tools: [TOOLS.read], messages: [u("Read a.txt."), call(), result([{ text: "file body" }])] };
			case "tool-result-text-number":
				return { systemPrompt: sp, tools: [TOOLS.read], messages: [u("Read a.txt."), call(), result([{ type: "text", text: 9 }])] };
			case "tool-result-content-string":
				return { systemPrompt: sp, tools: [TOOLS.read], messages: [u("Read a.txt."), call(), result("file body")] };
			case "tool-call-no-id-name":
				return { systemPrompt: sp, tools: [TOOLS.read], messages: [u("Read a.txt."), call({ type: "toolCall", arguments: { path: "a.txt" } }), u("again", 3000)] };
			case "text-number":
				return { systemPrompt: sp, messages: [u([{ type: "text", text: 5 }])] };
			case "system-prompt-number":
				return { systemPrompt: 7, messages: [u("hi")] };
			case "system-prompt-null":
				return { systemPrompt: null, messages: [u("hi")] };
			case "sections-string":
				return { systemPrompt: sp, messages: [u("hi"), { role: "system", content: "Note.", sections: "ab", timestamp: T0 + 1500 }, u("again", 3000)] };
			case "system-no-content":
				return { systemPrompt: sp, messages: [u("hi"), { role: "system", sections: { x: "X" }, timestamp: T0 + 1500 }, u("again", 3000)] };
			case "null-message":
				return { systemPrompt: sp, messages: [u("hi"), null] };
			case "unknown-role":
				return { systemPrompt: sp, messages: [u("hi"), { role: "developer", content: "Be terse.", timestamp: T0 + 1500 }, u("again", 3000)] };
			case "user-content-number":
				return { systemPrompt: sp, messages: [u(42)] };
			case "assistant-content-string":
				return { systemPrompt: sp, messages: [u("hi"), a("Hello there."), u("again", 3000)] };
			case "assistant-text-number":
				return { systemPrompt: sp, messages: [u("hi"), a([{ type: "text", text: 5 }, text("Hello.")]), u("again", 3000)] };
			case "thinking-number":
				return { systemPrompt: sp, messages: [u("hi"), a([{ type: "thinking", thinking: 7 }, text("Hello.")]), u("again", 3000)] };
			// The rest of the --malformed matrix.
			case "tools-string":
				return { systemPrompt: sp, tools: "read", messages: [u("hi")] };
			case "tools-null":
				return { systemPrompt: sp, tools: null, messages: [u("hi")] };
			case "tools-added-number":
				return { systemPrompt: sp, tools: [TOOLS.read], messages: [u("hi"), mid({ toolsAdded: 5 }), u("again", 3000)] };
			case "user-content-object":
				return { systemPrompt: sp, messages: [u(text("obj"))] };
			case "user-text-missing":
				return { systemPrompt: sp, messages: [u([{ type: "text" }, text("hi")])] };
			case "user-block-null":
				return { systemPrompt: sp, messages: [u([text("a"), null])] };
			case "image-no-data":
				return { systemPrompt: sp, messages: [u([text("Look:"), { type: "image" }])] };
			case "assistant-block-unknown-type":
				return { systemPrompt: sp, messages: [u("hi"), a([image(), text("Hello.")]), u("again", 3000)] };
			case "assistant-content-object":
				return { systemPrompt: sp, messages: [u("hi"), a(text("x")), u("again", 3000)] };
			case "assistant-text-missing":
				return { systemPrompt: sp, messages: [u("hi"), a([{ type: "text" }, text("Hello.")]), u("again", 3000)] };
			case "tool-result-content-number":
				return { systemPrompt: sp, tools: [TOOLS.read], messages: [u("Read a.txt."), call(), result(5)] };
			case "tool-result-no-call-id":
				return { systemPrompt: sp, tools: [TOOLS.read], messages: [u("Read a.txt."), call(), { role: "toolResult", toolName: "read", content: [text("body")], isError: false, timestamp: T0 + 3000 }] };
			case "tool-call-args-string":
				return { systemPrompt: sp, tools: [TOOLS.read], messages: [u("Read a.txt."), call({ type: "toolCall", id: "call_1", name: "read", arguments: '{"path":"a.txt"}' }), result([text("body")])] };
			case "system-content-number":
				return { systemPrompt: sp, messages: [u("hi"), { role: "system", content: 5, timestamp: T0 + 1500 }, u("again", 3000)] };
			case "no-role":
				return { systemPrompt: sp, messages: [u("hi"), { content: "orphan", timestamp: T0 + 1500 }, u("again", 3000)] };
			case "role-number":
				return { systemPrompt: sp, messages: [u("hi"), { role: 5, content: "x", timestamp: T0 + 1500 }, u("again", 3000)] };
			case "message-number":
				return { systemPrompt: sp, messages: [u("hi"), 5] };
			case "sections-number-value":
				return { systemPrompt: sp, messages: [u("hi"), { role: "system", content: "Note.", sections: { x: 5, y: "Y" }, timestamp: T0 + 1500 }, u("again", 3000)] };
			case "sections-number":
				return { systemPrompt: sp, messages: [u("hi"), { role: "system", content: "Note.", sections: 5, timestamp: T0 + 1500 }, u("again", 3000)] };
			case "system-text-number":
				return { systemPrompt: sp, messages: [u("hi"), { role: "system", content: [{ type: "text", text: 5 }, text("t")], timestamp: T0 + 1500 }, u("again", 3000)] };
			case "tool-redeclared-no-parameters":
				return { systemPrompt: sp, tools: [TOOLS.read, { name: "ping", description: "Ping" }], messages: [u("hi"), mid({ toolsAdded: [{ name: "ping", description: "Ping again" }] }), u("again", 3000)] };
			case "leading-sections-object-value":
				return { messages: [{ role: "system", content: "Base.", sections: { a: { k: 1 }, b: "B" }, timestamp: 0 }, u("hi")] };
			default:
				throw new Error(`unknown malformation ${kind}`);
		}
	};
}

// ---------------------------------------------------------------------------------------------
// Case table

function id(provider, api, model) {
	return { api, provider, model };
}

const API_OF = {
	"github-copilot": "openai-completions",
	baseten: "openai-completions",
	"ant-ling": "openai-completions",
	"opencode-go": "openai-completions",
	"cloudflare-workers-ai": "openai-completions",
	"zai-coding-cn": "openai-completions",
	anthropic: "anthropic-messages",
	"kimi-coding": "anthropic-messages",
	openai: "openai-responses",
	xai: "openai-responses",
	"azure-openai-responses": "azure-openai-responses",
	"openai-codex": "openai-codex-responses",
	moonshotai: "openai-completions",
	deepseek: "openai-completions",
	groq: "openai-completions",
	zai: "openai-completions",
	openrouter: "openai-completions",
	together: "openai-completions",
	cerebras: "openai-completions",
	fireworks: "openai-completions",
	mistral: "mistral-conversations",
	google: "google-generative-ai",
	"google-vertex": "google-vertex",
	"amazon-bedrock": "bedrock-converse-stream",
	radius: "pi-messages",
};

function selfOf(model, lookup) {
	const found = model.api ? model : lookup(model.provider, model.id);
	const api = model.overrides?.api ?? found?.api ?? API_OF[model.provider];
	if (!api) throw new Error(`no api for ${model.provider}/${model.id}`);
	return id(model.provider, api, model.id);
}

const S = { sessionId: SESSION };
const AZURE_URL = { baseUrl: "https://wire-cases.openai.azure.com/openai/v1" };

/** [name, model, scenario(self) | context, options, extra {entry, env}] */
function table() {
	const c = [];
	const add = (name, model, scenario, options = S, extra = {}) => c.push({ name, model, scenario, options, ...extra });

	// anthropic-messages
	add("anthropic-flagged-opus-4-8-additive", { provider: "anthropic", id: "claude-opus-4-8" }, scnAdditive, { ...S, reasoning: "high" });
	add("anthropic-flagged-opus-4-8-removal", { provider: "anthropic", id: "claude-opus-4-8" }, scnRemoval, { ...S, reasoning: "medium" });
	add("anthropic-flagged-opus-4-8-redefinition", { provider: "anthropic", id: "claude-opus-4-8" }, scnRedefinition, { ...S, reasoning: "low" });
	add("anthropic-flagged-opus-4-8-multi-system", { provider: "anthropic", id: "claude-opus-4-8" }, scnMultiSystem, { ...S, reasoning: "medium" });
	add("anthropic-flagged-opus-4-8-failures", { provider: "anthropic", id: "claude-opus-4-8" }, scnFailures, S);
	add("anthropic-effort-opus-5-xhigh", { provider: "anthropic", id: "claude-opus-5" }, scnAdditive, { ...S, reasoning: "xhigh" });
	add("anthropic-effort-opus-5-off", { provider: "anthropic", id: "claude-opus-5" }, scnMultiSystem, S);
	add("anthropic-unflagged-sonnet-4-6-medium", { provider: "anthropic", id: "claude-sonnet-4-6" }, scnAdditive, { ...S, reasoning: "medium" });
	add("anthropic-unflagged-sonnet-4-6-off", { provider: "anthropic", id: "claude-sonnet-4-6" }, scnRemoval, S);
	add("anthropic-haiku-images", { provider: "anthropic", id: "claude-haiku-4-5" }, scnImages, { ...S, reasoning: "minimal" });
	add("anthropic-cross-model-from-gpt", { provider: "anthropic", id: "claude-opus-4-8" }, (s) => scnCrossModel(s, IDENTITIES.gpt55), { ...S, reasoning: "high" });
	add("anthropic-unicode-long", { provider: "anthropic", id: "claude-sonnet-4-6" }, scnUnicode, { ...S, reasoning: "low" });
	add("anthropic-cache-long-env", { provider: "anthropic", id: "claude-opus-4-8" }, scnAdditive, { ...S, reasoning: "medium" }, { env: { PI_CACHE_RETENTION: "long" } });
	add("anthropic-cache-none", { provider: "anthropic", id: "claude-sonnet-4-6" }, scnAdditive, { ...S, cacheRetention: "none" });
	add("anthropic-clamp-max-tokens", { provider: "anthropic", id: "claude-sonnet-4-6" }, (s) => scnClamp(s, 1000000), { ...S, reasoning: "high" });
	add("anthropic-stream-entry", { provider: "anthropic", id: "claude-opus-4-8" }, scnAdditive, { ...S, thinkingEnabled: true, thinkingBudgetTokens: 4096, maxTokens: 20000 }, { entry: "stream" });
	add("anthropic-plain-context", { provider: "anthropic", id: "claude-haiku-4-5" }, (s) => scnPlain(s), S);
	add("anthropic-kimi-coding-k3", { provider: "kimi-coding", id: "k3" }, scnFailures, { ...S, reasoning: "medium" });

	// openai-responses
	add("openai-responses-flagged-gpt-5.5-additional-tools", { provider: "openai", id: "gpt-5.5" }, scnAdditive, { ...S, reasoning: "medium" });
	add("openai-responses-flagged-gpt-5.5-removal", { provider: "openai", id: "gpt-5.5" }, scnRemoval, { ...S, reasoning: "high" });
	add("openai-responses-flagged-gpt-5.5-multi-system", { provider: "openai", id: "gpt-5.5" }, scnMultiSystem, { ...S, reasoning: "low" });
	add("openai-responses-toolsearch-override", { provider: "openai", id: "gpt-5.5", overrides: { compat: { supportsAdditionalTools: false } } }, scnMultiSystem, { ...S, reasoning: "medium" });
	add("openai-responses-unflagged-gpt-5-off", { provider: "openai", id: "gpt-5" }, scnAdditive, S);
	add("openai-responses-gpt-5.4-mini-images", { provider: "openai", id: "gpt-5.4-mini" }, scnImages, { ...S, reasoning: "minimal" });
	add("openai-responses-cross-model-from-claude", { provider: "openai", id: "gpt-5.5" }, (s) => scnCrossModel(s, IDENTITIES.opus48), { ...S, reasoning: "xhigh" });
	add("openai-responses-failures", { provider: "openai", id: "gpt-5.5" }, scnFailures, { ...S, reasoning: "medium" });
	add("openai-responses-cache-long-env", { provider: "openai", id: "gpt-5.5" }, scnStrictTools, { sessionId: `${SESSION}-with-a-very-long-suffix-that-exceeds-sixty-four-chars`, reasoning: "medium" }, { env: { PI_CACHE_RETENTION: "long" } });
	add("openai-responses-unicode", { provider: "openai", id: "gpt-5.4" }, scnUnicode, { ...S, reasoning: "low", cacheRetention: "none" });
	add("openai-responses-stream-entry", { provider: "openai", id: "gpt-5.5" }, scnRedefinition, { ...S, reasoningEffort: "high", reasoningSummary: "detailed", maxTokens: 8000 }, { entry: "stream" });
	add("openai-responses-xai-grok", { provider: "xai", id: "grok-4.6" }, scnAdditive, { ...S, reasoning: "high" });

	// azure-openai-responses
	add("azure-unflagged-gpt-5.5-resource-env", { provider: "azure-openai-responses", id: "gpt-5.5" }, scnAdditive, { ...S, reasoning: "medium" }, { env: { AZURE_OPENAI_RESOURCE_NAME: "wire-cases-res" } });
	add("azure-flagged-override-deployment-map", { provider: "azure-openai-responses", id: "gpt-5.5", overrides: { ...AZURE_URL, compat: { supportsMidConvoSystemMessages: true, supportsAdditionalTools: true } } }, scnMultiSystem, { ...S, reasoning: "high" }, { env: { AZURE_OPENAI_DEPLOYMENT_NAME_MAP: "gpt-5.5=prod-gpt55,gpt-4.1=legacy", AZURE_OPENAI_API_VERSION: "2025-04-01-preview" } });
	add("azure-base-url-env-off", { provider: "azure-openai-responses", id: "gpt-5.4" }, scnFailures, S, { env: { AZURE_OPENAI_BASE_URL: "https://wire-env.openai.azure.com/openai/v1" } });
	add("azure-gpt-4.1-images-no-reasoning", { provider: "azure-openai-responses", id: "gpt-4.1", overrides: AZURE_URL }, scnImages, S);

	// openai-codex-responses
	add("codex-additional-gpt-5.6-sol", { provider: "openai-codex", id: "gpt-5.6-sol" }, scnAdditive, { ...S, reasoning: "medium" });
	add("codex-toolsearch-gpt-5.5", { provider: "openai-codex", id: "gpt-5.5" }, scnMultiSystem, { ...S, reasoning: "high" });
	add("codex-removal-gpt-5.5", { provider: "openai-codex", id: "gpt-5.5" }, scnRemoval, { ...S, reasoning: "low" });
	add("codex-unflagged-spark-empty-system", { provider: "openai-codex", id: "gpt-5.3-codex-spark" }, scnBare, S);
	add("codex-sse-transport-gpt-5.6-sol", { provider: "openai-codex", id: "gpt-5.6-sol" }, scnFailures, { ...S, reasoning: "xhigh", transport: "sse" });

	// openai-completions
	add("completions-flagged-kimi-k3-additions", { provider: "moonshotai", id: "kimi-k3" }, scnAdditive, { ...S, reasoning: "medium" });
	add("completions-flagged-kimi-k3-multi-system", { provider: "moonshotai", id: "kimi-k3" }, scnMultiSystem, { ...S, reasoning: "high" });
	add("completions-flagged-kimi-k3-removal", { provider: "moonshotai", id: "kimi-k3" }, scnRemoval, S);
	add("completions-flagged-kimi-k3-redefinition", { provider: "moonshotai", id: "kimi-k3" }, scnRedefinition, { ...S, reasoning: "low" });
	add("completions-sysonly-deepseek-v4-pro", { provider: "deepseek", id: "deepseek-v4-pro" }, scnMultiSystem, { ...S, reasoning: "medium" });
	add("completions-deepseek-v4-pro-failures", { provider: "deepseek", id: "deepseek-v4-pro" }, scnFailures, S);
	add("completions-unflagged-groq-gpt-oss-120b", { provider: "groq", id: "openai/gpt-oss-120b" }, scnAdditive, { ...S, reasoning: "medium" });
	add("completions-zai-glm-5.3-cross-model", { provider: "zai", id: "glm-5.3" }, (s) => scnCrossModel(s, IDENTITIES.opus48), { ...S, reasoning: "high" });
	add("completions-openrouter-images", { provider: "openrouter", id: "openai/gpt-5.5" }, scnImages, { ...S, reasoning: "low" });
	add("completions-together-unicode", { provider: "together", id: "Qwen/Qwen3.7-Max" }, scnUnicode, S);
	add("completions-kimi-k2.6-cache-long", { provider: "moonshotai", id: "kimi-k2.6" }, scnStrictTools, { ...S, reasoning: "minimal" }, { env: { PI_CACHE_RETENTION: "long" } });
	add("completions-cerebras-all-tools-removed", { provider: "cerebras", id: "gpt-oss-120b" }, scnAllToolsRemoved, { ...S, reasoning: "low" });
	add("completions-fireworks-kimi-k3-clamp", { provider: "fireworks", id: "accounts/fireworks/models/kimi-k3" }, (s) => scnClamp(s, 262144), { ...S, reasoning: "medium" });
	add("completions-stream-entry-kimi-k3", { provider: "moonshotai", id: "kimi-k3" }, scnAdditive, { ...S, reasoningEffort: "high", maxTokens: 4096, toolChoice: "auto" }, { entry: "stream" });

	// mistral-conversations
	add("mistral-unflagged-large", { provider: "mistral", id: "mistral-large-latest" }, scnAdditive, { ...S, reasoning: "medium" });
	add("mistral-flagged-override-multi-system", { provider: "mistral", id: "mistral-large-latest", overrides: { compat: { supportsMidConvoSystemMessages: true } } }, scnMultiSystem, S);
	add("mistral-magistral-cross-model", { provider: "mistral", id: "magistral-medium-latest" }, (s) => scnCrossModel(s, IDENTITIES.gpt55), { ...S, reasoning: "high" });
	add("mistral-failures-ids", { provider: "mistral", id: "devstral-medium-latest" }, scnFailures, S);
	add("mistral-images", { provider: "mistral", id: "mistral-medium-latest" }, scnImages, S);
	add("mistral-unicode-cache-none", { provider: "mistral", id: "mistral-large-latest" }, scnUnicode, { ...S, cacheRetention: "none" });
	add("mistral-stream-entry", { provider: "mistral", id: "mistral-large-latest" }, scnRemoval, { ...S, maxTokens: 2048, temperature: 0.3 }, { entry: "stream" });

	// google-generative-ai
	add("google-gemini-2.5-pro-high", { provider: "google", id: "gemini-2.5-pro" }, scnAdditive, { ...S, reasoning: "high" });
	add("google-flag-ignored-gemini-3.1-pro", { provider: "google", id: "gemini-3.1-pro-preview", overrides: { compat: { supportsMidConvoSystemMessages: true } } }, scnMultiSystem, { ...S, reasoning: "medium" });
	add("google-gemini-3.1-pro-images", { provider: "google", id: "gemini-3.1-pro-preview" }, scnImages, { ...S, reasoning: "low" });
	add("google-gemini-2.5-flash-off-cross-model", { provider: "google", id: "gemini-2.5-flash" }, (s) => scnCrossModel(s, IDENTITIES.opus48), S);
	add("google-flash-lite-failures", { provider: "google", id: "gemini-2.5-flash-lite" }, scnFailures, { ...S, reasoning: "minimal" });
	add("google-unicode-strict", { provider: "google", id: "gemini-3.1-pro-preview" }, scnUnicode, { ...S, reasoning: "high" });
	add("google-stream-entry", { provider: "google", id: "gemini-2.5-pro" }, scnStrictTools, { ...S, thinking: { enabled: true, budgetTokens: 1234 }, maxTokens: 9000, toolChoice: "any" }, { entry: "stream" });

	// google-vertex
	add("vertex-gemini-2.5-flash", { provider: "google-vertex", id: "gemini-2.5-flash" }, scnAdditive, { ...S, reasoning: "medium" });
	add("vertex-gemini-3.1-pro-cross-model", { provider: "google-vertex", id: "gemini-3.1-pro-preview" }, (s) => scnCrossModel(s, IDENTITIES.gemini25pro), { ...S, reasoning: "xhigh" });
	add("vertex-failures-off", { provider: "google-vertex", id: "gemini-2.5-pro" }, scnFailures, S);
	add("vertex-stream-entry", { provider: "google-vertex", id: "gemini-2.5-flash" }, scnImages, { ...S, maxTokens: 1000, temperature: 0 }, { entry: "stream" });

	// bedrock-converse-stream
	add("bedrock-claude-opus-4-8-adaptive", { provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" }, scnAdditive, { ...S, reasoning: "medium" });
	add("bedrock-flag-ignored-nova-pro", { provider: "amazon-bedrock", id: "amazon.nova-pro-v1:0", overrides: { compat: { supportsMidConvoSystemMessages: true } } }, scnMultiSystem, { ...S, reasoning: "medium" });
	add("bedrock-claude-cross-model-redacted", { provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" }, (s) => scnCrossModel(s, IDENTITIES.opus48), { ...S, reasoning: "high" });
	add("bedrock-images-cache-long", { provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" }, scnImages, { ...S, reasoning: "low" }, { env: { PI_CACHE_RETENTION: "long" } });
	add("bedrock-failures", { provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" }, scnFailures, S);
	add("bedrock-unicode-cache-none", { provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" }, scnUnicode, { ...S, cacheRetention: "none" });
	add("bedrock-stream-entry", { provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" }, scnRemoval, { ...S, maxTokens: 3000 }, { entry: "stream" });

	// pi-messages
	add("pi-messages-radius-balanced", { provider: "radius", id: "balanced" }, scnAdditive, { ...S, reasoning: "medium" });
	add("pi-messages-multi-system-cache-long", { provider: "radius", id: "claude-opus-4-5" }, scnMultiSystem, { ...S, reasoning: "high" }, { env: { PI_CACHE_RETENTION: "long" } });
	add("pi-messages-failures-off", { provider: "radius", id: "balanced" }, scnFailures, S);
	add("pi-messages-unicode", { provider: "radius", id: "cheap" }, scnUnicode, { ...S, cacheRetention: "none" });
	add("pi-messages-stream-entry", { provider: "radius", id: "balanced" }, scnImages, { ...S, maxTokens: 512, toolChoice: "none" }, { entry: "stream" });

	// --- second batch: branch coverage for the completions/mistral/google/bedrock/pi-messages builders
	const VLLM = {
		id: "local-reasoner",
		name: "Local reasoner (vLLM)",
		api: "openai-completions",
		provider: "vllm-local",
		baseUrl: "http://127.0.0.1:8000/v1/",
		reasoning: true,
		input: ["text", "image"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 32768,
		maxTokens: 8192,
		samplingParams: { top_k: 20 },
		compat: {
			thinkingFormat: "chat-template",
			chatTemplateKwargs: {
				enable_thinking: { $var: "thinking.enabled" },
				thinking_budget: { $var: "thinking.budget" },
				effort: { omitWhenOff: true },
				fixed: "yes",
			},
			supportsThinkingTokenBudget: true,
			requiresAssistantAfterToolResult: true,
			requiresToolResultName: true,
			supportsDeveloperRole: false,
			supportsStore: false,
			vllmPriority: 5,
		},
		thinkingLevelMap: { off: "none", minimal: "low", low: "low", medium: "medium", high: "high" },
	};
	add("completions-openrouter-anthropic-cache-control", { provider: "openrouter", id: "anthropic/claude-fable-5" }, scnAdditive, { ...S, reasoning: "high" });
	add("completions-openrouter-anthropic-cache-long-off", { provider: "openrouter", id: "anthropic/claude-fable-5" }, scnImages, S, { env: { PI_CACHE_RETENTION: "long" } });
	add("completions-baseten-kimi-chat-template-args", { provider: "baseten", id: "moonshotai/Kimi-K2.6" }, scnSignatures, { ...S, reasoning: "medium" });
	add("completions-baseten-kimi-off", { provider: "baseten", id: "moonshotai/Kimi-K2.6" }, scnFailures, S);
	add("completions-ant-ling-high", { provider: "ant-ling", id: "Ring-2.6-1T" }, scnAdditive, { ...S, reasoning: "high" });
	add("completions-opencode-go-qwen-signatures", { provider: "opencode-go", id: "qwen3.6-plus" }, scnSignatures, { ...S, reasoning: "low" });
	add("completions-together-reasoning", { provider: "together", id: "MiniMaxAI/MiniMax-M3" }, scnCrossModel, { ...S, reasoning: "xhigh" });
	add("completions-copilot-kimi-k3-images", { provider: "github-copilot", id: "kimi-k3" }, scnImages, { ...S, reasoning: "medium" });
	add("completions-copilot-gemini-tool-turn", { provider: "github-copilot", id: "gemini-3.5-flash" }, scnToolImages, S);
	add("completions-cloudflare-deepseek-reasoning-content", { provider: "cloudflare-workers-ai", id: "@cf/deepseek-ai/deepseek-v4-pro-0813" }, scnSignatures, { ...S, reasoning: "high" });
	add("completions-zai-coding-off-tool-stream", { provider: "zai-coding-cn", id: "glm-5.3" }, scnRemoval, S);
	add("completions-custom-vllm-chat-template", VLLM, scnToolImages, { ...S, reasoning: "medium", samplingParams: { temperature: 0.6, prompt_cache_key: "from-sampling" } });
	add("completions-custom-vllm-off-thinking-as-text", { ...VLLM, compat: { ...VLLM.compat, thinkingFormat: "string-thinking", requiresThinkingAsText: true, thinkingTokenBudgetField: "thinking_budget", maxTokensField: "max_tokens", openRouterRouting: { order: ["a", "b"] }, vercelGatewayRouting: { only: ["x"] } } }, scnSignatures, { ...S, temperature: 0.2 });
	add("completions-custom-openai-base-url", { ...VLLM, provider: "openai", baseUrl: "https://api.openai.com/v1", compat: { supportsOpenAIGrammarTools: true, supportsStrictMode: true } }, (s) => scnCrossModel(s, IDENTITIES.gpt55), { ...S, reasoning: "minimal", thinkingBudgets: { minimal: 512 } }, { env: { PI_CACHE_RETENTION: "long" } });
	add("completions-custom-grammar-tools", { ...VLLM, compat: { supportsOpenAIGrammarTools: true, thinkingFormat: "qwen", supportsReasoningEffort: true } }, scnGrammar, { ...S, reasoning: "high", toolChoice: "required" });
	add("completions-only-system", { provider: "groq", id: "openai/gpt-oss-120b" }, scnOnlySystem, S);
	add("completions-stream-entry-tool-choice-object", { provider: "deepseek", id: "deepseek-flash" }, scnStrictTools, { sessionId: SESSION, reasoningEffort: "high", toolChoice: { type: "function", function: { name: "edit" } }, cacheRetention: "none" }, { entry: "stream" });

	add("mistral-medium-reasoning-effort", { provider: "mistral", id: "mistral-medium-latest" }, scnSignatures, { ...S, reasoning: "high", toolChoice: "any" });
	add("mistral-small-minimal-tool-images", { provider: "mistral", id: "mistral-small-latest" }, scnToolImages, { ...S, reasoning: "minimal" });
	add("mistral-magistral-off-headers", { provider: "mistral", id: "magistral-small", overrides: { headers: { "X-Affinity": "pinned" } } }, scnAdditive, S);
	add("mistral-stream-tool-choice-object", { provider: "mistral", id: "devstral-medium-latest" }, scnStrictTools, { sessionId: SESSION, toolChoice: { type: "function", function: { name: "edit" } }, promptMode: "reasoning", maxTokens: 100 }, { entry: "stream" });
	add("mistral-only-system", { provider: "mistral", id: "codestral-latest" }, scnOnlySystem, S);

	add("google-gemini-2.5-tool-images", { provider: "google", id: "gemini-2.5-flash" }, scnToolImages, { ...S, reasoning: "high", thinkingBudgets: { high: 5000 } });
	add("google-gemini-3-signatures-tool-none", { provider: "google", id: "gemini-3.1-pro-preview" }, scnSignatures, { ...S, reasoning: "low", toolChoice: "none", temperature: 0.4 });
	add("google-gemini-3-off-thinking-level", { provider: "google", id: "gemini-3-flash-preview" }, scnAdditive, S);
	add("google-gemma-4-uppercase-map", { provider: "google", id: "gemma-4-31b-it" }, scnCrossModel, { ...S, reasoning: "medium" });
	add("google-opencode-gemini-3-flash", { provider: "opencode", id: "gemini-3-flash" }, scnAdditive, { ...S, reasoning: "high", toolChoice: "any" });
	add("google-only-system-no-contents", { provider: "google", id: "gemini-2.5-pro" }, scnOnlySystem, { ...S, reasoning: "low" });
	add("vertex-flash-lite-budget", { provider: "google-vertex", id: "gemini-2.5-flash-lite" }, scnToolImages, { ...S, reasoning: "minimal" });
	add("vertex-custom-base-url", { provider: "google-vertex", id: "gemini-3.1-pro-preview", overrides: { baseUrl: "https://vertex-proxy.example.com/v1beta1" } }, scnSignatures, { ...S, reasoning: "high" });

	add("bedrock-sonnet-4-5-budget-interleaved", { provider: "amazon-bedrock", id: "anthropic.claude-sonnet-4-5-20250929-v1:0" }, scnAdditive, { ...S, reasoning: "high" });
	add("bedrock-sonnet-4-5-xhigh-budgets", { provider: "amazon-bedrock", id: "us.anthropic.claude-sonnet-4-5-20250929-v1:0" }, scnSignatures, { ...S, reasoning: "xhigh", thinkingBudgets: { high: 3000 } });
	add("bedrock-haiku-gov-region", { provider: "amazon-bedrock", id: "anthropic.claude-haiku-4-5-20251001-v1:0" }, scnToolImages, { ...S, reasoning: "low" }, { env: { AWS_REGION: "us-gov-west-1" } });
	add("bedrock-deepseek-reasoning-no-signature", { provider: "amazon-bedrock", id: "deepseek.v3.2" }, scnCrossModel, { ...S, reasoning: "medium" });
	add("bedrock-nova-force-cache", { provider: "amazon-bedrock", id: "amazon.nova-pro-v1:0" }, scnImages, S, { env: { AWS_BEDROCK_FORCE_CACHE: "1", PI_CACHE_RETENTION: "long" } });
	add("bedrock-opus-4-8-xhigh-tool-choice-any", { provider: "amazon-bedrock", id: "global.anthropic.claude-opus-4-8" }, scnRedefinition, { ...S, reasoning: "xhigh", toolChoice: "any" });
	add("bedrock-stream-tool-choice-tool", { provider: "amazon-bedrock", id: "anthropic.claude-opus-4-1-20250805-v1:0" }, scnStrictTools, { reasoning: "medium", toolChoice: { type: "tool", name: "edit" }, interleavedThinking: false, thinkingDisplay: "omitted", requestMetadata: { team: "wire" } }, { entry: "stream" });
	add("bedrock-only-system", { provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" }, scnOnlySystem, S);

	add("pi-messages-debug-headers", { provider: "radius", id: "balanced" }, scnSignatures, { ...S, reasoning: "low", temperature: 0.1, debug: true, headers: { "x-extra": "1" } });
	add("google-stream-lowercase-level-ignored", { provider: "google", id: "gemini-3.1-pro-preview" }, scnAdditive, { ...S, thinking: { enabled: true, level: "high" }, temperature: null }, { entry: "stream" });
	add("vertex-stream-level-disabled", { provider: "google-vertex", id: "gemini-3.1-pro-preview" }, scnAdditive, { ...S, thinking: { enabled: false, level: "HIGH" }, toolChoice: "auto" }, { entry: "stream" });
	add("google-stream-level-upper", { provider: "google", id: "gemini-3-flash-preview" }, scnBare, { thinking: { enabled: true, level: "MINIMAL" }, maxTokens: 0 }, { entry: "stream" });
	add("completions-stream-non-reasoning-effort", { provider: "groq", id: "llama-3.3-70b-versatile" }, scnAdditive, { ...S, reasoningEffort: "high", maxTokens: 0, temperature: 0 }, { entry: "stream" });
	add("bedrock-stream-max-budgets", { provider: "amazon-bedrock", id: "anthropic.claude-sonnet-4-5-20250929-v1:0" }, scnBare, { reasoning: "max", thinkingBudgets: { high: 7777 }, maxTokens: 20000, temperature: 1 }, { entry: "stream" });
	// refusals: pi-ai throws before building a payload; the message is the golden
	add("refusal-completions-empty-api-key", { provider: "groq", id: "openai/gpt-oss-120b" }, scnAdditive, { ...S, apiKey: "" }, { expectError: true });
	add("refusal-mistral-empty-api-key", { provider: "mistral", id: "mistral-large-latest" }, scnAdditive, { ...S, apiKey: "" }, { expectError: true });
	add("refusal-bedrock-unknown-image-type", { provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" }, (s) => ({ messages: [{ role: "user", content: [text("What is this?"), image(PNG, "image/bmp")], timestamp: T0 + 1000 }] }), S, { expectError: true });
	// Application Default Credentials (no API key): project and location from the environment or
	// from options; the oracle answers Google's token endpoint offline.
	add("vertex-adc-env-project-location", { provider: "google-vertex", id: "gemini-2.5-flash" }, scnAdditive, { ...S, apiKey: "gcp-vertex-credentials", reasoning: "medium" }, { env: { GOOGLE_CLOUD_PROJECT: "wire-cases-project", GOOGLE_CLOUD_LOCATION: "europe-west4" } });
	add("vertex-adc-options-global", { provider: "google-vertex", id: "gemini-3.1-pro-preview" }, scnToolImages, { ...S, project: "wire-cases-options", location: "global", reasoning: "high" });
	// Untyped callers (hand-built histories, old files) may leave `content` out. streamSimple's
	// token estimate iterates it (TypeError "content is not iterable") for every API but
	// pi-messages; `stream` lets transformMessages turn it into []; Completions' hasToolHistory
	// reads `msg.content.some` of the untransformed assistant messages.
	const noContent = (role) => () => {
		const ms = [{ role: "user", content: "Read the file.", timestamp: T0 + 1000 }];
		const use = usage(900, 40, 0, 0);
		if (role === "user") return { systemPrompt: "Be brief.", messages: [{ role: "user", timestamp: T0 + 1000 }] };
		if (role === "assistant") {
			ms.push({ role: "assistant", api: "anthropic-messages", provider: "anthropic", model: "claude-opus-4-8", usage: use, stopReason: "stop", timestamp: T0 + 2000 });
			ms.push({ role: "user", content: "Again.", timestamp: T0 + 3000 });
			return { systemPrompt: "Be brief.", messages: ms };
		}
		ms.push({ role: "assistant", content: [{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.txt" } }], api: "anthropic-messages", provider: "anthropic", model: "claude-opus-4-8", usage: use, stopReason: "toolUse", timestamp: T0 + 2000 });
		ms.push({ role: "toolResult", toolCallId: "call_1", toolName: "read", isError: false, timestamp: T0 + 3000 });
		return { systemPrompt: "Be brief.", messages: ms };
	};
	add("refusal-no-content-user", { provider: "anthropic", id: "claude-opus-4-8" }, noContent("user"), S, { expectError: true });
	add("refusal-no-content-tool-result", { provider: "google", id: "gemini-2.5-pro" }, noContent("toolResult"), S, { expectError: true });
	add("refusal-completions-no-content-assistant", { provider: "moonshotai", id: "kimi-k2.6" }, noContent("assistant"), S, { expectError: true });
	add("no-content-assistant-dropped", { provider: "openai", id: "gpt-5.5" }, noContent("assistant"), { ...S, reasoning: "low" });
	add("no-content-tool-result-stream-entry", { provider: "anthropic", id: "claude-opus-4-8" }, noContent("toolResult"), { ...S, maxTokens: 1000 }, { entry: "stream" });
	add("pi-messages-no-content-user", { provider: "radius", id: "claude-opus-4-5" }, noContent("user"), { reasoning: "off" });
	add("refusal-vertex-no-project", { provider: "google-vertex", id: "gemini-2.5-pro" }, scnPlain, { ...S, apiKey: "gcp-vertex-credentials" }, { expectError: true });
	add("refusal-google-unsupported-level-mapping", { provider: "google", id: "gemini-3-flash-preview", overrides: { thinkingLevelMap: { high: "ultra" } } }, scnPlain, { ...S, reasoning: "high" }, { expectError: true });
	add("refusal-completions-require-strict-unsupported", { provider: "moonshotai", id: "kimi-k2.6" }, (s) => ({ systemPrompt: "x", tools: [{ ...TOOLS.edit, constrainedSampling: { type: "json_schema", strict: "require" } }], messages: [{ role: "user", content: "hi", timestamp: T0 + 1000 }] }), S, { expectError: true });
	add("pi-messages-plain-context", { provider: "radius", id: "claude-opus-4-5" }, scnPlain, { reasoning: "off" });
	// Malformed contexts pi-ai sends anyway (see scnMalformed).
	const M = scnMalformed;
	add("malformed-anthropic-tools-object", { provider: "anthropic", id: "claude-opus-4-8" }, M("tools-object"), S);
	add("malformed-completions-tools-object-no-prompt", { provider: "moonshotai", id: "kimi-k3" }, M("tools-object-no-prompt"), S);
	add("malformed-anthropic-tool-without-name", { provider: "anthropic", id: "claude-opus-4-8" }, M("tool-without-name"), S);
	add("malformed-anthropic-tools-added-no-name", { provider: "anthropic", id: "claude-opus-4-8" }, M("tools-added-no-name"), S);
	add("malformed-mistral-tool-no-parameters", { provider: "mistral", id: "mistral-large-latest" }, M("tool-no-parameters"), S);
	add("malformed-google-user-block-no-type", { provider: "google", id: "gemini-2.5-pro" }, M("user-block-no-type"), S);
	add("malformed-responses-user-block-no-type-image", { provider: "openai", id: "gpt-5.5" }, M("user-block-no-type-image"), S);
	add("malformed-bedrock-user-block-unknown-type", { provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" }, M("user-block-unknown-type"), S);
	add("malformed-completions-user-block-number", { provider: "moonshotai", id: "kimi-k3" }, M("user-block-number"), S);
	add("malformed-mistral-assistant-block-no-type", { provider: "mistral", id: "mistral-large-latest" }, M("assistant-block-no-type"), S);
	add("malformed-bedrock-tool-result-block-no-type", { provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" }, M("tool-result-block-no-type"), S);
	add("malformed-google-tool-result-text-number-nan-max", { provider: "google", id: "gemini-2.5-pro" }, M("tool-result-text-number"), S);
	add("malformed-anthropic-no-images-tool-result-string", { provider: "fireworks", id: "accounts/fireworks/models/deepseek-v4-pro" }, M("tool-result-content-string"), S);
	add("malformed-vertex-tool-call-no-id-name", { provider: "google-vertex", id: "gemini-2.5-flash" }, M("tool-call-no-id-name"), S);
	add("malformed-completions-text-number", { provider: "moonshotai", id: "kimi-k3" }, M("text-number"), S);
	add("malformed-codex-system-prompt-number", { provider: "openai-codex", id: "gpt-5.5" }, M("system-prompt-number"), S);
	add("malformed-azure-sections-string", { provider: "azure-openai-responses", id: "gpt-5.5" }, M("sections-string"), S, { env: { AZURE_OPENAI_RESOURCE_NAME: "wire-cases-res" } });
	add("malformed-pi-messages-null-message", { provider: "radius", id: "balanced" }, M("null-message"), S);
	add("malformed-google-sections-number-value", { provider: "google", id: "gemini-2.5-pro" }, M("sections-number-value"), S);
	add("malformed-completions-leading-sections-object-value", { provider: "moonshotai", id: "kimi-k3" }, M("leading-sections-object-value"), S);
	add("malformed-responses-tools-string", { provider: "openai", id: "gpt-5.5" }, M("tools-string"), S);
	add("malformed-bedrock-tools-string", { provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" }, M("tools-string"), S);
	add("refusal-malformed-anthropic-tools-string", { provider: "anthropic", id: "claude-opus-4-8" }, M("tools-string"), S, { expectError: true });
	add("refusal-malformed-anthropic-tool-redeclared-no-parameters", { provider: "anthropic", id: "claude-opus-4-8" }, M("tool-redeclared-no-parameters"), S, { expectError: true });
	// Malformed contexts pi-ai refuses: V8's TypeError text from wherever pi-ai's code trips.
	add("refusal-malformed-anthropic-user-content-number", { provider: "anthropic", id: "claude-opus-4-8" }, M("user-content-number"), S, { expectError: true });
	add("refusal-malformed-mistral-user-content-number-stream", { provider: "mistral", id: "mistral-large-latest" }, M("user-content-number"), { ...S, maxTokens: 1000 }, { entry: "stream", expectError: true });
	add("refusal-malformed-responses-null-message", { provider: "openai", id: "gpt-5.5" }, M("null-message"), S, { expectError: true });
	add("refusal-malformed-google-unknown-role", { provider: "google", id: "gemini-2.5-pro" }, M("unknown-role"), S, { expectError: true });
	add("refusal-malformed-bedrock-assistant-content-string", { provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" }, M("assistant-content-string"), S, { expectError: true });
	add("refusal-malformed-mistral-text-number", { provider: "mistral", id: "mistral-large-latest" }, M("text-number"), S, { expectError: true });
	add("refusal-malformed-anthropic-assistant-text-number", { provider: "anthropic", id: "claude-opus-4-8" }, M("assistant-text-number"), S, { expectError: true });
	add("refusal-malformed-completions-thinking-number", { provider: "moonshotai", id: "kimi-k3" }, M("thinking-number"), S, { expectError: true });
	add("refusal-malformed-vertex-tools-added-object", { provider: "google-vertex", id: "gemini-2.5-flash" }, M("tools-added-object"), S, { expectError: true });
	add("refusal-malformed-azure-system-no-content", { provider: "azure-openai-responses", id: "gpt-5.5" }, M("system-no-content"), S, { expectError: true, env: { AZURE_OPENAI_RESOURCE_NAME: "wire-cases-res" } });
	add("refusal-malformed-completions-tool-result-string-stream", { provider: "moonshotai", id: "kimi-k3" }, M("tool-result-content-string"), { ...S, maxTokens: 1000 }, { entry: "stream", expectError: true });
	add("refusal-malformed-anthropic-tool-no-parameters", { provider: "anthropic", id: "claude-opus-4-8" }, M("tool-no-parameters"), S, { expectError: true });
	add("refusal-malformed-codex-tool-call-no-id", { provider: "openai-codex", id: "gpt-5.5" }, M("tool-call-no-id-name"), S, { expectError: true });
	add("refusal-malformed-pi-messages-system-prompt-null", { provider: "radius", id: "balanced" }, M("system-prompt-null"), S, { expectError: true });

	// Options (from the `--options` sweep): one short agent turn, the option space of both entries.
	const opt = (name, model, options, extra = {}) => add(`options-${name}`, model, (self) => scnOptions(self), options, extra);
	const ST = { entry: "stream" };
	const AZ = { env: { AZURE_OPENAI_RESOURCE_NAME: "wire-cases-res" } };
	const sonnet45 = { provider: "anthropic", id: "claude-sonnet-4-5" };
	const bedrockHaiku = { provider: "amazon-bedrock", id: "anthropic.claude-haiku-4-5-20251001-v1:0" };
	opt("anthropic-budget-custom-budgets", sonnet45, { ...S, reasoning: "medium", thinkingBudgets: { minimal: 10, low: 100, medium: 3000, high: 50000 } });
	opt("anthropic-budget-reasoning-off", sonnet45, { ...S, reasoning: "off" });
	opt("anthropic-budget-string-budget", sonnet45, { ...S, reasoning: "medium", thinkingBudgets: { medium: "500" } });
	opt("anthropic-flagged-tool-choice-tool", { provider: "anthropic", id: "claude-opus-4-8" }, { ...S, toolChoice: { type: "tool", name: "read" } });
	opt("anthropic-flagged-oauth-key", { provider: "anthropic", id: "claude-opus-4-8" }, { ...S, apiKey: "sk-ant-oat01-opts", reasoning: "medium" });
	opt("anthropic-model-max-tokens-null", { provider: "anthropic", id: "claude-opus-4-8", overrides: { maxTokens: null } }, { ...S, reasoning: "low" });
	opt("anthropic-stream-budget-display", sonnet45, { thinkingEnabled: true, thinkingBudgetTokens: 2048, thinkingDisplay: "summarized" }, ST);
	opt("anthropic-stream-effort-max", { provider: "anthropic", id: "claude-opus-4-8" }, { thinkingEnabled: true, effort: "max" }, ST);
	opt("responses-max-tokens-negative", { provider: "openai", id: "gpt-5.5" }, { ...S, maxTokens: -5 });
	opt("responses-session-number", { provider: "openai", id: "gpt-5.5" }, { sessionId: 12345 });
	opt("responses-session-null", { provider: "openai", id: "gpt-5.5" }, { sessionId: null }, { expectError: true });
	opt("responses-stream-summary-service-tier", { provider: "openai", id: "gpt-5.5" }, { reasoningEffort: "high", reasoningSummary: "detailed", serviceTier: "priority" }, ST);
	opt("responses-stream-max-tokens-string", { provider: "openai", id: "gpt-5.5" }, { maxTokens: "1000", temperature: "0.5" }, ST);
	opt("azure-stream-deployment", { provider: "azure-openai-responses", id: "gpt-5.5" }, { azureDeploymentName: "my-deploy", azureApiVersion: "2025-01-01-preview" }, { ...ST, ...AZ });
	opt("codex-stream-summary-off", { provider: "openai-codex", id: "gpt-5.5" }, { reasoningEffort: "medium", reasoningSummary: "off", textVerbosity: "high" }, ST);
	opt("completions-kimi-stream-effort-budgets", { provider: "moonshotai", id: "kimi-k3" }, { reasoningEffort: "medium", thinkingBudgets: { medium: 1234 } }, ST);
	opt("completions-zai-high", { provider: "zai", id: "glm-4.7" }, { ...S, reasoning: "high" });
	opt("completions-openrouter-cache-long", { provider: "openrouter", id: "anthropic/claude-opus-4.1:batch" }, { ...S, cacheRetention: "long", reasoning: "low" });
	opt("completions-max-tokens-string", { provider: "moonshotai", id: "kimi-k3" }, { ...S, maxTokens: "3000", reasoning: "high" });
	opt("mistral-stream-prompt-mode", { provider: "mistral", id: "magistral-medium-latest" }, { promptMode: "reasoning" }, ST);
	opt("mistral-small-xhigh", { provider: "mistral", id: "mistral-small-latest" }, { ...S, reasoning: "xhigh" });
	opt("google-custom-budgets", { provider: "google", id: "gemini-2.5-pro" }, { ...S, reasoning: "medium", thinkingBudgets: { minimal: 10, low: 100, medium: 3000, high: 50000 } });
	opt("google-3-flash-minimal", { provider: "google", id: "gemini-3-flash-preview" }, { ...S, reasoning: "minimal" });
	opt("google-stream-budget-negative", { provider: "google", id: "gemini-2.5-pro" }, { thinking: { enabled: true, budgetTokens: -1 } }, ST);
	opt("vertex-stream-project-location", { provider: "google-vertex", id: "gemini-2.5-flash" }, { project: "opts-proj", location: "europe-west4" }, ST);
	opt("bedrock-budget-reasoning-off", bedrockHaiku, { ...S, reasoning: "off" });
	opt("bedrock-stream-tool-choice-tool", bedrockHaiku, { toolChoice: { type: "tool", name: "read" }, maxTokens: 777 }, ST);
	add("options-bedrock-budget-near-window", bedrockHaiku, (self) => scnClamp(self, 200000), { ...S, reasoning: "high" });
	opt("pi-messages-stream-debug", { provider: "radius", id: "balanced" }, { debug: true, reasoning: "high", toolChoice: "required" }, ST);
	opt("pi-messages-cheap-xhigh-cache-none", { provider: "radius", id: "cheap" }, { ...S, reasoning: "xhigh", cacheRetention: "none" });

	// Found by `--random`: fetch converts header values to ByteStrings and throws for a character
	// above U+00FF, after onPayload; the golden has a payload, no request and the TypeError. The
	// session id rides in a header on xAI/OpenAI Responses and Mistral (there unsanitized, so a
	// lone surrogate fails too); Latin-1 passes. The stub validates plain-object headers likewise.
	add("responses-xai-session-id-emoji-no-request", { provider: "xai", id: "grok-4.6" }, scnPlain, { sessionId: "\u{1F600}-session" });
	add("mistral-session-id-lone-surrogate-no-request", { provider: "mistral", id: "mistral-large-latest" }, scnPlain, { sessionId: "s-\ud800" });
	add("responses-session-id-latin1-sent", { provider: "openai", id: "gpt-5.5" }, scnPlain, { sessionId: "caf\u00e9-session" });
	add("pi-messages-header-emoji-no-request", { provider: "radius", id: "balanced" }, scnPlain, { ...S, headers: { "x-note": "\u{1F600}" } });
	// fetch strips a value's leading and trailing HTTP whitespace (a token read from a file with
	// its newline is sent without it) and refuses one that still holds NUL, CR or LF.
	add("pi-messages-header-padded-sent", { provider: "radius", id: "balanced" }, scnPlain, { ...S, headers: { "x-note": " \tpadded note\r\n" } });
	add("pi-messages-header-inner-newline-no-request", { provider: "radius", id: "balanced" }, scnPlain, { ...S, headers: { "x-note": "first\nsecond" } });
	add("responses-session-id-nul-no-request", { provider: "openai", id: "gpt-5.5" }, scnPlain, { sessionId: "s\u0000id" });

	return c;
}

/** The list of cases, each `{name, model, context, options, entry?, env?}`. */
export async function buildCases() {
	const getBuiltinModel = await baseLookup();
	return table().map(({ name, model, scenario, options, entry, env, expectError }) => {
		const self = selfOf(model, getBuiltinModel);
		const context = typeof scenario === "function" ? scenario(self) : scenario;
		const out = { model, context, options };
		if (entry) out.entry = entry;
		if (env) out.env = env;
		return { name, case: out, expectError: expectError === true };
	});
}

// ---------------------------------------------------------------------------------------------
// Benchmark contexts (fixtures/wire/bench/<api>.case.json): one 200-message transcript per API,
// shared by tools/pi-oracle/bench-wire.mjs (pi-ai) and crates/wire/benches/assemble.rs (Rust).
// This is the same deterministic generator as the Rust bench's `context()`.

const BENCH_MODELS = [
	["anthropic-messages", "anthropic", "claude-opus-4-8"],
	["openai-responses", "openai", "gpt-5.5"],
	["azure-openai-responses", "azure-openai-responses", "gpt-5.5"],
	["openai-codex-responses", "openai-codex", "gpt-5.5"],
	["openai-completions", "moonshotai", "kimi-k3"],
	["mistral-conversations", "mistral", "mistral-large-latest"],
	["google-generative-ai", "google", "gemini-2.5-pro"],
	["google-vertex", "google-vertex", "gemini-2.5-flash"],
	["bedrock-converse-stream", "amazon-bedrock", "global.anthropic.claude-opus-4-8"],
	["pi-messages", "radius", "balanced"],
];

function benchTool(name, description) {
	return {
		name,
		description,
		parameters: {
			type: "object",
			properties: { path: { type: "string", description: "File path" }, limit: { type: "number" } },
			required: ["path"],
		},
	};
}

function benchContext(api, provider, id) {
	const messages = [
		{
			role: "system",
			content: "",
			sections: {
				preamble: "You are an expert coding assistant operating inside pi.",
				tools: "<tools>\n- read: Read file contents\n- bash: Execute bash commands\n</tools>",
				cwd: "<cwd>\n/home/dev/project\n</cwd>",
			},
			toolsAdded: [benchTool("read", "Read a file"), benchTool("bash", "Run a shell command")],
			timestamp: 1733234400000,
		},
	];
	let t = 1733234400000;
	let turn = 0;
	while (messages.length < 200) {
		t += 1000;
		turn += 1;
		if (turn === 20 || turn === 40) {
			messages.push({
				role: "system",
				content: `Update ${turn}: prefer grep.`,
				sections: { skills: `<skills>\n- search ${turn}\n</skills>`, cwd: null },
				toolsAdded: [benchTool(`grep${turn}`, "Search file contents")],
				timestamp: t,
			});
			continue;
		}
		messages.push({
			role: "user",
			content: [{ type: "text", text: `Step ${turn}: look at src/module_${turn}.rs and explain what changes — ünïcødé ✓.` }],
			timestamp: t,
		});
		const pad = String(turn).padStart(4, "0");
		const callId = `toolu_${pad}`;
		const signature = api.includes("responses")
			? JSON.stringify({ type: "reasoning", id: `rs_${pad}`, summary: [], encrypted_content: `gAAAA${"e".repeat(120)}` })
			: `sig-${turn}`;
		messages.push({
			role: "assistant",
			content: [
				{ type: "thinking", thinking: `I should read module ${turn}.`, thinkingSignature: signature },
				{ type: "text", text: `Reading module ${turn}.` },
				{ type: "toolCall", id: callId, name: "read", arguments: { path: `src/module_${turn}.rs`, limit: 200 } },
			],
			api,
			provider,
			model: id,
			usage: {
				input: 1000 + turn * 50,
				output: 80,
				cacheRead: 900,
				cacheWrite: 100,
				totalTokens: 2080 + turn * 50,
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
			},
			stopReason: "toolUse",
			timestamp: t + 1,
		});
		messages.push({
			role: "toolResult",
			toolCallId: callId,
			toolName: "read",
			content: [{ type: "text", text: `fn f${turn}() {\n    // ${"x".repeat(400)}\n}\n` }],
			isError: false,
			timestamp: t + 2,
		});
	}
	messages.length = 200;
	return { messages };
}

/** The benchmark cases, `{api, case}` each (oracle case format). */
export function benchCases() {
	return BENCH_MODELS.map(([api, provider, id]) => {
		const model = { provider, id };
		if (api === "azure-openai-responses") model.overrides = { baseUrl: "https://bench.openai.azure.com/openai/v1" };
		return {
			api,
			case: {
				model,
				context: benchContext(api, provider, id),
				options: { sessionId: SESSION, reasoning: "medium" },
			},
		};
	});
}

// ---------------------------------------------------------------------------------------------
// Matrix (not committed): every scenario × a broad model list × several reasoning levels, for
// ad-hoc runs: `node src/gen-wire-cases.mjs --matrix --out /tmp/wire-matrix`, then
// `WIRE_GOLDENS_DIR=/tmp/wire-matrix cargo test -p forge-replay-wire --test wire`.

const MATRIX_MODELS = [
	{ provider: "anthropic", id: "claude-opus-4-8" },
	{ provider: "anthropic", id: "claude-opus-5" },
	{ provider: "anthropic", id: "claude-sonnet-4-6" },
	{ provider: "anthropic", id: "claude-haiku-4-5" },
	{ provider: "openrouter", id: "anthropic/claude-opus-4.5", api: "anthropic-messages" },
	{ provider: "minimax", id: "MiniMax-M3" },
	{ provider: "openai", id: "gpt-5.5" },
	{ provider: "openai", id: "gpt-5" },
	{ provider: "openai", id: "gpt-4.1" },
	{ provider: "xai", id: "grok-4.7" },
	{ provider: "github-copilot", id: "gpt-5.5", api: "openai-responses" },
	{ provider: "azure-openai-responses", id: "gpt-5.5", overrides: { baseUrl: "https://m.openai.azure.com/openai/v1" } },
	{ provider: "azure-openai-responses", id: "gpt-4o", overrides: { baseUrl: "https://m.openai.azure.com/openai/v1" } },
	{ provider: "openai-codex", id: "gpt-5.5" },
	{ provider: "openai-codex", id: "gpt-6-astra" },
	{ provider: "moonshotai", id: "kimi-k3" },
	{ provider: "moonshotai", id: "kimi-k2.7-code" },
	{ provider: "deepseek", id: "deepseek-v4-pro" },
	{ provider: "groq", id: "llama-3.3-70b-versatile" },
	{ provider: "openrouter", id: "anthropic/claude-fable-5" },
	{ provider: "openrouter", id: "openai/gpt-5.5" },
	{ provider: "zai", id: "glm-5.3" },
	{ provider: "qwen-token-plan", id: "deepseek-v4-pro", api: "openai-completions" },
	{ provider: "together", id: "Qwen/Qwen3.7-Max" },
	{ provider: "nvidia", id: "meta/llama-3.2-90b-vision-instruct" },
	{ provider: "xiaomi", id: "mimo-v2.6-pro" },
	{ provider: "fireworks", id: "accounts/fireworks/models/kimi-k3", api: "openai-completions" },
	{ provider: "mistral", id: "mistral-large-latest" },
	{ provider: "mistral", id: "magistral-medium-latest" },
	{ provider: "mistral", id: "mistral-medium-latest" },
	{ provider: "google", id: "gemini-2.5-pro" },
	{ provider: "google", id: "gemini-3.1-pro-preview" },
	{ provider: "google", id: "gemini-2.5-flash-lite" },
	{ provider: "google", id: "gemma-4-26b-a4b-it" },
	{ provider: "google-vertex", id: "gemini-2.5-flash" },
	{ provider: "google-vertex", id: "gemini-3-flash-preview" },
	{ provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" },
	{ provider: "amazon-bedrock", id: "anthropic.claude-sonnet-4-5-20250929-v1:0" },
	{ provider: "amazon-bedrock", id: "amazon.nova-2-lite-v1:0" },
	{ provider: "amazon-bedrock", id: "openai.gpt-oss-120b" },
	{ provider: "radius", id: "balanced" },
];

/** `variant` (`WIRE_MATRIX_VARIANT`): "" (default), or "alt" (reasoning levels shifted by one,
 *  `cacheRetention: "long"`, temperature 0.5). */
/**
 * The malformed-context matrix (`gen-wire-cases.mjs --malformed`): every malformation of
 * scnMalformed on one model per API with `streamSimple`, the converter-level ones with
 * `stream` too, and the image-downgrade ones on models without image input. Expected to be all
 * equal in forge-replay (582 on 2026-11-30).
 */
export async function malformedCases() {
	const getBuiltinModel = await baseLookup();
	const vision = [
		{ provider: "anthropic", id: "claude-opus-4-8" },
		{ provider: "openai", id: "gpt-5.5" },
		{ provider: "azure-openai-responses", id: "gpt-5.5" },
		{ provider: "openai-codex", id: "gpt-5.5" },
		{ provider: "moonshotai", id: "kimi-k3" },
		{ provider: "mistral", id: "mistral-large-latest" },
		{ provider: "google", id: "gemini-2.5-pro" },
		{ provider: "google-vertex", id: "gemini-2.5-flash" },
		{ provider: "amazon-bedrock", id: "anthropic.claude-opus-4-8" },
		{ provider: "radius", id: "balanced" },
	];
	const textOnly = [
		{ provider: "fireworks", id: "accounts/fireworks/models/deepseek-v4-pro" },
		{ provider: "openai", id: "o3-mini" },
		{ provider: "azure-openai-responses", id: "o3-mini" },
		{ provider: "openai-codex", id: "gpt-5.3-codex-spark" },
		{ provider: "ant-ling", id: "Ling-2.6-1T" },
		{ provider: "mistral", id: "codestral-latest" },
		{ provider: "amazon-bedrock", id: "amazon.nova-micro-v1:0" },
		{ provider: "radius", id: "cheap" },
	];
	const simple = [
		"tools-object", "tools-object-no-prompt", "tools-string", "tools-null", "tool-without-name", "tools-added-no-name",
		"tools-added-object", "tools-added-number", "tool-no-parameters", "system-prompt-number", "system-prompt-null",
		"user-block-no-type", "user-block-no-type-image", "user-block-unknown-type", "user-block-number", "user-block-null",
		"user-text-missing", "image-no-data", "user-content-number", "user-content-object", "text-number",
		"assistant-block-no-type", "assistant-block-unknown-type", "assistant-content-string", "assistant-content-object",
		"assistant-text-number", "assistant-text-missing", "thinking-number", "tool-result-block-no-type",
		"tool-result-text-number", "tool-result-content-string", "tool-result-no-call-id", "tool-call-no-id-name",
		"tool-call-args-string", "system-content-number", "system-no-content", "sections-string", "unknown-role", "no-role",
		"role-number", "null-message", "message-number", "sections-number-value", "sections-number", "system-text-number",
		"leading-sections-object-value", "tool-redeclared-no-parameters",
	];
	const stream = ["user-content-number", "unknown-role", "null-message", "user-block-no-type", "user-block-null", "message-number", "tool-result-content-number", "tool-result-content-string"];
	const noImages = ["tool-result-content-string", "user-block-no-type-image", "image-no-data", "tool-result-block-no-type"];
	const out = [];
	const push = (prefix, models, kinds, entry) => {
		for (const kind of kinds) {
			for (const model of models) {
				const self = selfOf(model, getBuiltinModel);
				const slug = `${model.provider}-${model.id}`.replace(/[^a-zA-Z0-9.-]+/g, "_");
				const c = { model, context: scnMalformed(kind)(self), options: entry ? { ...S, maxTokens: 1000 } : S };
				if (entry) c.entry = entry;
				if (model.provider === "azure-openai-responses") c.env = { AZURE_OPENAI_RESOURCE_NAME: "wire-cases-res" };
				out.push({ name: `x-${prefix}${kind}--${slug}`, case: c, expectError: false });
			}
		}
	};
	push("", vision, simple);
	push("stream-", vision, stream, "stream");
	push("no-images-", textOnly, noImages);
	return out;
}

export async function matrixCases(variant = process.env.WIRE_MATRIX_VARIANT ?? "") {
	const getBuiltinModel = await baseLookup();
	const scenarios = {
		additive: scnAdditive,
		removal: scnRemoval,
		redefinition: scnRedefinition,
		multisys: scnMultiSystem,
		images: scnImages,
		cross: (s) => scnCrossModel(s, s.api === "anthropic-messages" ? IDENTITIES.gpt55 : IDENTITIES.opus48),
		failures: scnFailures,
		unicode: scnUnicode,
		plain: scnPlain,
		bare: scnBare,
		strict: scnStrictTools,
		alltoolsremoved: scnAllToolsRemoved,
		signatures: scnSignatures,
		toolimages: scnToolImages,
	};
	const levels = [undefined, "minimal", "high", "xhigh"];
	if (variant === "alt") levels.push(levels.shift(), "low");
	const only = process.env.WIRE_MATRIX_APIS?.split(",").filter(Boolean);
	const out = [];
	for (const m of MATRIX_MODELS) {
		const { api, ...model } = m;
		const self = selfOf({ ...model, ...(api ? { api } : {}) }, getBuiltinModel);
		if (!getBuiltinModel(model.provider, model.id)) continue;
		if (only && !only.includes(self.api)) continue;
		const slug = `${model.provider}-${model.id}`.replace(/[^a-zA-Z0-9.-]+/g, "_");
		let k = 0;
		for (const [sname, scn] of Object.entries(scenarios)) {
			const level = levels[k++ % levels.length];
			const options = { sessionId: SESSION, ...(level ? { reasoning: level } : {}) };
			if (variant === "alt") Object.assign(options, { cacheRetention: "long", temperature: 0.5 });
			const tag = variant ? `${variant}-` : "";
			out.push({ name: `m-${tag}${slug}-${sname}-${level ?? "off"}`, case: { model, context: scn(self), options }, expectError: false });
		}
	}
	return out;
}

// ---------------------------------------------------------------------------------------------
// Options sweep (`gen-wire-cases.mjs --options`): the option space of both entries over the ten
// APIs. Every option set runs on the same small context (systemPrompt, two tools, a signed
// thinking block, a tool round trip); pi-ai's output (payload or refusal) is the golden.

/** A short agent turn: system prompt + tools, native thinking, one tool round trip. */
function scnOptions(self) {
	const x = new Tx(self);
	x.user("Read the README.");
	x.asst([nativeThinking(self.api, "I should read it."), call(nativeId(self.api, 1), "read", { path: "README.md" })]);
	x.result(nativeId(self.api, 1), "read", "# Project\nHello.");
	x.user("Summarize it in one line.");
	return { systemPrompt: "You are a helpful assistant.", tools: [TOOLS.read, TOOLS.web], messages: x.messages };
}

/** Models for the sweep: the first of each API gets every option set, the others the core sets. */
const OPTIONS_MODELS = {
	"anthropic-messages": [
		{ provider: "anthropic", id: "claude-opus-4-8" },
		{ provider: "anthropic", id: "claude-sonnet-4-5" },
		{ provider: "anthropic", id: "claude-opus-5" },
		{ provider: "anthropic", id: "claude-sonnet-4-6" },
		{ provider: "kimi-coding", id: "kimi-for-coding" },
		{ provider: "openrouter", id: "anthropic/claude-3-haiku" },
		{ provider: "anthropic", id: "claude-haiku-4-5" },
		{ provider: "anthropic", id: "claude-opus-4-7" },
		{ provider: "anthropic", id: "claude-fable-5" },
		{ provider: "vercel-ai-gateway", id: "openai/gpt-5.2" },
	],
	"openai-responses": [
		{ provider: "openai", id: "gpt-5.5" },
		{ provider: "openai", id: "o3-mini" },
		{ provider: "openai", id: "gpt-4.1" },
		{ provider: "openai", id: "gpt-5-chat-latest" },
		{ provider: "openai", id: "gpt-5-mini" },
		{ provider: "github-copilot", id: "gpt-5.5" },
		{ provider: "xai", id: "grok-4.7" },
	],
	"azure-openai-responses": [
		{ provider: "azure-openai-responses", id: "gpt-5.5" },
		{ provider: "azure-openai-responses", id: "gpt-4.1" },
		{ provider: "azure-openai-responses", id: "o1" },
		{ provider: "azure-openai-responses", id: "gpt-5-mini" },
	],
	"openai-codex-responses": [
		{ provider: "openai-codex", id: "gpt-5.5" },
		{ provider: "openai-codex", id: "gpt-5.3-codex-spark" },
		{ provider: "openai-codex", id: "gpt-5.6-luna" },
	],
	"openai-completions": [
		{ provider: "moonshotai", id: "kimi-k3" },
		{ provider: "deepseek", id: "deepseek-v4-pro" },
		{ provider: "zai", id: "glm-4.7" },
		{ provider: "openrouter", id: "anthropic/claude-opus-4.1:batch" },
		{ provider: "qwen-token-plan-cn", id: "deepseek-v3.2" },
		{ provider: "together", id: "Qwen/Qwen3.5-9B" },
		{ provider: "ant-ling", id: "Ring-2.6-1T" },
		{ provider: "baseten", id: "moonshotai/Kimi-K2.5" },
		{ provider: "cerebras", id: "gpt-oss-120b" },
		{ provider: "groq", id: "openai/gpt-oss-120b" },
		{ provider: "cloudflare-workers-ai", id: "@cf/meta/llama-3.3-70b-instruct-fp8-fast" },
		{ provider: "github-copilot", id: "kimi-k3" },
		{ provider: "openrouter", id: "openai/gpt-5.4" },
		{ provider: "together", id: "MiniMaxAI/MiniMax-M3" },
		{ provider: "deepseek", id: "deepseek-flash" },
		{ provider: "xiaomi-token-plan-ams", id: "mimo-v2.5" },
		{ provider: "opencode-go", id: "qwen3.6-plus" },
		{ provider: "zai-coding-cn", id: "glm-5.3" },
		{ provider: "baseten", id: "deepseek-ai/DeepSeek-V4-Pro" },
		{ provider: "cloudflare-workers-ai", id: "@cf/google/gemma-4-26b-a4b-it" },
		{ provider: "ant-ling", id: "Ling-2.6-1T" },
	],
	"mistral-conversations": [
		{ provider: "mistral", id: "magistral-medium-latest" },
		{ provider: "mistral", id: "mistral-small-latest" },
		{ provider: "mistral", id: "mistral-large-latest" },
		{ provider: "mistral", id: "codestral-latest" },
		{ provider: "mistral", id: "magistral-small" },
		{ provider: "mistral", id: "mistral-medium-2604" },
	],
	"google-generative-ai": [
		{ provider: "google", id: "gemini-2.5-pro" },
		{ provider: "google", id: "gemini-2.5-flash" },
		{ provider: "google", id: "gemini-3-flash-preview" },
		{ provider: "google", id: "gemini-3.1-pro-preview" },
		{ provider: "google", id: "gemini-3.1-flash-lite" },
	],
	"google-vertex": [
		{ provider: "google-vertex", id: "gemini-2.5-flash" },
		{ provider: "google-vertex", id: "gemini-3-flash-preview" },
		{ provider: "google-vertex", id: "gemini-3.1-pro-preview" },
	],
	"bedrock-converse-stream": [
		{ provider: "amazon-bedrock", id: "global.anthropic.claude-opus-4-8" },
		{ provider: "amazon-bedrock", id: "anthropic.claude-haiku-4-5-20251001-v1:0" },
		{ provider: "amazon-bedrock", id: "amazon.nova-micro-v1:0" },
		{ provider: "amazon-bedrock", id: "amazon.nova-2-lite-v1:0" },
		{ provider: "amazon-bedrock", id: "anthropic.claude-opus-4-6-v1" },
		{ provider: "amazon-bedrock", id: "meta.llama3-3-70b-instruct-v1:0" },
	],
	"pi-messages": [
		{ provider: "radius", id: "balanced" },
		{ provider: "radius", id: "cheap" },
		{ provider: "radius", id: "claude-sonnet-4-5" },
		{ provider: "radius", id: "claude-opus-4-5" },
	],
};

/** streamSimple option sets every sweep model gets: [tag, options]. */
const SIMPLE_CORE = [
	["none", {}],
	["minimal", { reasoning: "minimal" }],
	["low", { reasoning: "low" }],
	["medium", { reasoning: "medium" }],
	["high", { reasoning: "high" }],
	["xhigh", { reasoning: "xhigh" }],
	["max", { reasoning: "max" }],
	["off", { reasoning: "off" }],
	["max-tokens-100", { maxTokens: 100 }],
	["high-max-tokens-3000", { reasoning: "high", maxTokens: 3000 }],
	["huge-max-tokens-medium", { reasoning: "medium", maxTokens: 5000000 }],
];

/** streamSimple option sets for the first model of each API. */
const SIMPLE_EXTENDED = [
	["bogus-level", { reasoning: "turbo" }],
	["empty-level", { reasoning: "" }],
	["null-level", { reasoning: null }],
	["max-tokens-0", { maxTokens: 0 }],
	["max-tokens-0-high", { maxTokens: 0, reasoning: "high" }],
	["max-tokens-neg", { maxTokens: -5 }],
	["max-tokens-1", { maxTokens: 1, reasoning: "low" }],
	["max-tokens-frac", { maxTokens: 1234.5 }],
	["max-tokens-null", { maxTokens: null }],
	["max-tokens-huge", { maxTokens: 1e12 }],
	["budgets-medium", { reasoning: "medium", thinkingBudgets: { minimal: 10, low: 100, medium: 3000, high: 50000 } }],
	["budgets-xhigh", { reasoning: "xhigh", thinkingBudgets: { high: 777 } }],
	["budgets-zero", { reasoning: "low", thinkingBudgets: { low: 0 } }],
	["budgets-max-tokens", { reasoning: "high", maxTokens: 2000, thinkingBudgets: { high: 100000 } }],
	["temp-0", { temperature: 0 }],
	["temp-frac", { temperature: 0.37 }],
	["temp-high", { temperature: 1.7, reasoning: "medium" }],
	["temp-null", { temperature: null }],
	["cache-none", { cacheRetention: "none" }],
	["cache-short", { cacheRetention: "short" }],
	["cache-long", { cacheRetention: "long", reasoning: "low" }],
	["cache-bogus", { cacheRetention: "forever" }],
	["no-session", { sessionId: undefined }],
	["empty-session", { sessionId: "" }],
	["long-session", { sessionId: "s".repeat(80) + "-é" }],
	["metadata", { metadata: { user_id: "user-123", other: 5 } }],
	["metadata-no-user", { metadata: { team: "x" } }],
	["headers", { headers: { "X-Custom": "a", "anthropic-beta": "extra-beta-1" } }],
	["sampling", { samplingParams: { top_p: 0.9, top_k: 40, presence_penalty: 0.1 } }],
	["tool-choice-auto", { toolChoice: "auto" }],
	["tool-choice-none", { toolChoice: "none" }],
	["tool-choice-any", { toolChoice: "any" }],
	["tool-choice-required", { toolChoice: "required" }],
	["tool-choice-tool", { toolChoice: { type: "tool", name: "read" } }],
	["tool-choice-function", { toolChoice: { type: "function", function: { name: "read" } } }],
	["transport-sse", { transport: "sse", reasoning: "medium" }],
	["env-cache-long", { env: { PI_CACHE_RETENTION: "long" } }],
	["timeouts", { timeoutMs: 1234, maxRetries: 2, maxRetryDelayMs: 10, websocketConnectTimeoutMs: 50 }],
];

/** `stream` option sets per API (their own StreamOptions). */
const STREAM_SETS = {
	"anthropic-messages": [
		["plain", {}],
		["thinking-enabled", { thinkingEnabled: true }],
		["thinking-budget", { thinkingEnabled: true, thinkingBudgetTokens: 5000 }],
		["thinking-budget-0", { thinkingEnabled: true, thinkingBudgetTokens: 0 }],
		["thinking-budget-only", { thinkingBudgetTokens: 5000 }],
		["effort-low", { thinkingEnabled: true, effort: "low" }],
		["effort-max", { thinkingEnabled: true, effort: "max" }],
		["effort-bogus", { thinkingEnabled: true, effort: "bogus" }],
		["effort-no-thinking", { effort: "high" }],
		["display-omitted", { thinkingEnabled: true, thinkingDisplay: "omitted" }],
		["display-summarized", { thinkingEnabled: true, thinkingBudgetTokens: 2048, thinkingDisplay: "summarized" }],
		["interleaved-off", { thinkingEnabled: true, thinkingBudgetTokens: 2048, interleavedThinking: false }],
		["tool-choice-any", { toolChoice: "any" }],
		["tool-choice-tool", { toolChoice: { type: "tool", name: "read" } }],
		["tool-choice-none", { toolChoice: "none" }],
		["max-tokens", { maxTokens: 777, temperature: 0.2 }],
		["thinking-disabled-false", { thinkingEnabled: false, temperature: 0.3 }],
		["cache-none", { cacheRetention: "none" }],
		["cache-long", { cacheRetention: "long" }],
		["metadata", { metadata: { user_id: "u-1" } }],
	],
	"openai-responses": [
		["plain", {}],
		["effort-low", { reasoningEffort: "low" }],
		["effort-xhigh", { reasoningEffort: "xhigh" }],
		["effort-minimal", { reasoningEffort: "minimal" }],
		["effort-bogus", { reasoningEffort: "bogus" }],
		["summary-detailed", { reasoningEffort: "medium", reasoningSummary: "detailed" }],
		["summary-null", { reasoningEffort: "medium", reasoningSummary: null }],
		["summary-only", { reasoningSummary: "concise" }],
		["service-flex", { serviceTier: "flex" }],
		["service-priority", { serviceTier: "priority", reasoningEffort: "high" }],
		["tool-choice-required", { toolChoice: "required" }],
		["tool-choice-function", { toolChoice: { type: "function", name: "read" } }],
		["max-tokens", { maxTokens: 777, temperature: 0.2 }],
		["cache-none", { cacheRetention: "none" }],
		["cache-long", { cacheRetention: "long", sessionId: SESSION }],
		["sampling", { samplingParams: { top_p: 0.5 } }],
	],
	"azure-openai-responses": [
		["plain", {}],
		["effort-high", { reasoningEffort: "high" }],
		["summary-detailed", { reasoningEffort: "low", reasoningSummary: "detailed" }],
		["summary-null", { reasoningEffort: "low", reasoningSummary: null }],
		["tool-choice-none", { toolChoice: "none" }],
		["max-tokens", { maxTokens: 777, temperature: 0.2 }],
		["deployment", { azureDeploymentName: "my-deploy", azureApiVersion: "2025-01-01-preview" }],
		["base-url", { azureBaseUrl: "https://opts.openai.azure.com/openai/v1/" }],
		["resource", { azureResourceName: "opts-res" }],
		["cache-long", { cacheRetention: "long", sessionId: SESSION }],
	],
	"openai-codex-responses": [
		["plain", {}],
		["effort-none", { reasoningEffort: "none" }],
		["effort-minimal", { reasoningEffort: "minimal" }],
		["effort-xhigh", { reasoningEffort: "xhigh" }],
		["summary-off", { reasoningEffort: "medium", reasoningSummary: "off" }],
		["summary-on", { reasoningEffort: "medium", reasoningSummary: "on" }],
		["summary-null", { reasoningEffort: "medium", reasoningSummary: null }],
		["verbosity", { textVerbosity: "high" }],
		["service-priority", { serviceTier: "priority" }],
		["tool-choice-required", { toolChoice: "required" }],
		["temperature", { temperature: 0.4, maxTokens: 500 }],
		["cache-none", { cacheRetention: "none" }],
		["sse", { transport: "sse", reasoningEffort: "low" }],
	],
	"openai-completions": [
		["plain", {}],
		["effort-low", { reasoningEffort: "low" }],
		["effort-high", { reasoningEffort: "high" }],
		["effort-minimal", { reasoningEffort: "minimal" }],
		["effort-max", { reasoningEffort: "max" }],
		["effort-budgets", { reasoningEffort: "medium", thinkingBudgets: { medium: 1234 } }],
		["tool-choice-required", { toolChoice: "required" }],
		["tool-choice-function", { toolChoice: { type: "function", function: { name: "read" } } }],
		["max-tokens", { maxTokens: 777, temperature: 0.2 }],
		["cache-none", { cacheRetention: "none" }],
		["cache-long", { cacheRetention: "long", sessionId: SESSION }],
		["sampling", { samplingParams: { top_k: 20, min_p: 0.05 } }],
	],
	"mistral-conversations": [
		["plain", {}],
		["prompt-mode", { promptMode: "reasoning" }],
		["effort-high", { reasoningEffort: "high" }],
		["effort-none", { reasoningEffort: "none" }],
		["tool-choice-any", { toolChoice: "any" }],
		["tool-choice-function", { toolChoice: { type: "function", function: { name: "read" } } }],
		["max-tokens", { maxTokens: 777, temperature: 0.2 }],
		["session", { sessionId: SESSION, cacheRetention: "none" }],
	],
	"google-generative-ai": [
		["plain", {}],
		["thinking-off", { thinking: { enabled: false } }],
		["thinking-budget", { thinking: { enabled: true, budgetTokens: 2048 } }],
		["thinking-budget-0", { thinking: { enabled: true, budgetTokens: 0 } }],
		["thinking-budget-neg", { thinking: { enabled: true, budgetTokens: -1 } }],
		["thinking-level", { thinking: { enabled: true, level: "LOW" } }],
		["thinking-enabled-only", { thinking: { enabled: true } }],
		["tool-choice-any", { toolChoice: "any" }],
		["tool-choice-none", { toolChoice: "none" }],
		["max-tokens", { maxTokens: 777, temperature: 0.2 }],
	],
	"google-vertex": [
		["plain", {}],
		["thinking-budget", { thinking: { enabled: true, budgetTokens: 2048 } }],
		["thinking-level", { thinking: { enabled: true, level: "HIGH" } }],
		["tool-choice-any", { toolChoice: "any" }],
		["project-location", { project: "opts-proj", location: "europe-west4" }],
		["max-tokens", { maxTokens: 777, temperature: 0.2 }],
	],
	"bedrock-converse-stream": [
		["plain", {}],
		["reasoning-high", { reasoning: "high" }],
		["reasoning-budgets", { reasoning: "medium", thinkingBudgets: { medium: 3000 } }],
		["reasoning-xhigh", { reasoning: "xhigh" }],
		["interleaved-off", { reasoning: "low", interleavedThinking: false }],
		["display", { reasoning: "low", thinkingDisplay: "omitted" }],
		["tool-choice-any", { toolChoice: "any" }],
		["tool-choice-tool", { toolChoice: { type: "tool", name: "read" } }],
		["tool-choice-none", { toolChoice: "none" }],
		["region", { region: "eu-west-1", profile: "opts" }],
		["request-metadata", { requestMetadata: { team: "x" } }],
		["max-tokens", { maxTokens: 777, temperature: 0.2 }],
		["cache-none", { cacheRetention: "none" }],
		["cache-long", { cacheRetention: "long" }],
	],
	"pi-messages": [
		["plain", {}],
		["reasoning-high", { reasoning: "high" }],
		["reasoning-bogus", { reasoning: "bogus" }],
		["tool-choice-required", { toolChoice: "required" }],
		["tool-choice-function", { toolChoice: { type: "function", function: { name: "read" } } }],
		["debug", { debug: true }],
		["max-tokens", { maxTokens: 777, temperature: 0.2 }],
		["cache-none", { cacheRetention: "none", sessionId: SESSION }],
	],
};

/** Options of the wrong type or shape (untyped callers), on the first model of each API. */
const SIMPLE_ODD = [
	["max-tokens-string", { maxTokens: "1000" }],
	["max-tokens-string-high", { maxTokens: "3000", reasoning: "high" }],
	["max-tokens-bool", { maxTokens: true }],
	["temp-string", { temperature: "0.5" }],
	["reasoning-true", { reasoning: true }],
	["reasoning-number", { reasoning: 3 }],
	["reasoning-upper", { reasoning: "HIGH" }],
	["budgets-null", { reasoning: "medium", thinkingBudgets: null }],
	["budgets-string", { reasoning: "medium", thinkingBudgets: { medium: "500" } }],
	["budgets-neg", { reasoning: "high", thinkingBudgets: { high: -100 } }],
	["cache-null", { cacheRetention: null }],
	["cache-empty", { cacheRetention: "" }],
	["session-number", { sessionId: 12345 }],
	["session-null", { sessionId: null }],
	["metadata-null", { metadata: null }],
	["metadata-user-number", { metadata: { user_id: 5 } }],
	["headers-null", { headers: null }],
	["tool-choice-bogus", { toolChoice: "bogus" }],
	["tool-choice-null", { toolChoice: null }],
	["tool-choice-tool-no-name", { toolChoice: { type: "tool" } }],
	["tool-choice-unknown-tool", { toolChoice: { type: "tool", name: "nope" } }],
	["sampling-null", { samplingParams: null }],
	["sampling-temperature", { samplingParams: { temperature: 0.1, max_tokens: 5 }, temperature: 0.9 }],
	["transport-websocket", { transport: "websocket" }],
	["oat-key", { apiKey: "sk-ant-oat01-opts", reasoning: "medium" }],
	["env-null", { env: null }],
	["env-cache-short", { env: { PI_CACHE_RETENTION: "short" } }],
];

/** `stream` options of the wrong type, on the first two models of each API. */
const STREAM_ODD = [
	["max-tokens-string", { maxTokens: "1000", temperature: "0.5" }],
	["max-tokens-0", { maxTokens: 0 }],
	["max-tokens-null", { maxTokens: null, temperature: null }],
	["max-tokens-neg", { maxTokens: -3, temperature: -1 }],
	["session-number", { sessionId: 7, cacheRetention: "long" }],
	["cache-bogus", { cacheRetention: "forever", sessionId: SESSION }],
	["tool-choice-null", { toolChoice: null }],
	["tool-choice-bogus", { toolChoice: "bogus" }],
	["reasoning-level", { reasoning: "high", reasoningEffort: "low" }],
];

/** Model overrides that move the option arithmetic: [tag, overrides, options]. */
const MODEL_ODD = [
	["cw-0", { contextWindow: 0 }, { reasoning: "high" }],
	["cw-0-max-0", { contextWindow: 0, maxTokens: 0 }, {}],
	["cw-small", { contextWindow: 6000 }, { reasoning: "medium" }],
	["no-max", { maxTokens: undefined }, { reasoning: "low" }],
	["reasoning-flip", { reasoning: true }, { reasoning: "high" }],
	["no-reasoning", { reasoning: false }, { reasoning: "high" }],
	["level-map", { thinkingLevelMap: { low: "minimal", high: null, xhigh: "max" } }, { reasoning: "high" }],
];

/** streamSimple option sets for the other models of each API. */
const SIMPLE_MORE = [
	["temp-frac", { temperature: 0.37 }],
	["cache-none", { cacheRetention: "none", reasoning: "high" }],
	["cache-long", { cacheRetention: "long", reasoning: "low" }],
	["tool-choice-required", { toolChoice: "required" }],
	["tool-choice-any", { toolChoice: "any" }],
	["budgets-medium", { reasoning: "medium", thinkingBudgets: { minimal: 10, low: 100, medium: 3000, high: 50000 } }],
	["budgets-high-small-max", { reasoning: "high", maxTokens: 1500 }],
	["max-tokens-0", { maxTokens: 0, reasoning: "minimal" }],
	["empty-session", { sessionId: "" }],
	["metadata", { metadata: { user_id: "user-123" }, reasoning: "xhigh" }],
];

/** The cases of the options sweep. `WIRE_OPTIONS_APIS=a,b` keeps some APIs. */
export async function optionsCases() {
	const getBuiltinModel = await baseLookup();
	const only = process.env.WIRE_OPTIONS_APIS?.split(",").filter(Boolean);
	const out = [];
	for (const [api, models] of Object.entries(OPTIONS_MODELS)) {
		if (only && !only.includes(api)) continue;
		models.forEach((model, index) => {
			if (!getBuiltinModel(model.provider, model.id)) throw new Error(`options sweep: no model ${model.provider}/${model.id}`);
			const self = selfOf(model, getBuiltinModel);
			const slug = `${model.provider}-${model.id}`.replace(/[^a-zA-Z0-9.-]+/g, "_");
			const env = api === "azure-openai-responses" ? { AZURE_OPENAI_RESOURCE_NAME: "wire-cases-res" } : undefined;
			const push = (tag, options, entry) => {
				const c = { model, context: scnOptions(self), options: JSON.parse(JSON.stringify(options)) };
				if (entry) c.entry = entry;
				if (env) c.env = env;
				out.push({ name: `o-${entry ? "stream-" : ""}${slug}-${tag}`, case: c, expectError: false });
			};
			const sets = index === 0 ? [...SIMPLE_CORE, ...SIMPLE_EXTENDED] : SIMPLE_CORE;
			for (const [tag, o] of sets) push(tag, "sessionId" in o ? o : { sessionId: SESSION, ...o });
			if (index < 2) for (const [tag, o] of STREAM_SETS[api]) push(tag, o, "stream");
			else for (const [tag, o] of STREAM_SETS[api]) push(`y-${tag}`, o, "stream");
			if (index > 0) for (const [tag, o] of SIMPLE_MORE) push(`y-${tag}`, { sessionId: SESSION, ...o });
			// Near the context window: the clamp meets the thinking budget.
			const window = getBuiltinModel(model.provider, model.id).contextWindow;
			for (const [tag, o] of [["y-clamp-high", { reasoning: "high" }], ["y-clamp-max-tokens", { maxTokens: 50000, reasoning: "medium" }]]) {
				const c = { model, context: scnClamp(self, window), options: { sessionId: SESSION, ...o } };
				if (env) c.env = env;
				out.push({ name: `o-${slug}-${tag}`, case: c, expectError: false });
			}
			if (index < 2) {
				for (const [tag, o] of SIMPLE_ODD) push(`x-${tag}`, { sessionId: SESSION, ...o });
				for (const [tag, overrides, o] of MODEL_ODD) {
					const c = { model: { ...model, overrides: JSON.parse(JSON.stringify(overrides)) }, context: scnOptions(self), options: { sessionId: SESSION, ...o } };
					if (tag === "no-max") c.model.overrides = { maxTokens: null };
					if (env) c.env = env;
					out.push({ name: `o-${slug}-x-model-${tag}`, case: c, expectError: false });
				}
				const c = { model, context: scnOptions(self), options: { sessionId: SESSION, cacheRetention: "short", reasoning: "low" }, env: { ...(env ?? {}), PI_CACHE_RETENTION: "long" } };
				out.push({ name: `o-${slug}-x-process-env-long`, case: c, expectError: false });
				for (const [tag, o] of STREAM_ODD) push(`x-${tag}`, o, "stream");
			}
		});
	}
	return out;
}

// Building blocks for the per-release cases (src/release-cases.mjs).
export {
	SESSION,
	T0,
	PNG,
	JPEG,
	TOOLS,
	SECTIONS,
	usage,
	Tx,
	text,
	thinking,
	call,
	image,
	nativeThinking,
	redactedThinking,
	nativeId,
	IDENTITIES,
	selfOf,
	scnAdditive,
	scnRemoval,
	scnRedefinition,
	scnMultiSystem,
	scnImages,
	scnCrossModel,
	scnFailures,
	scnUnicode,
	scnClamp,
	scnPlain,
	scnBare,
	scnStrictTools,
	scnAllToolsRemoved,
	scnSignatures,
	scnOnlySystem,
	scnGrammar,
	scnToolImages,
	scnOptions,
};
