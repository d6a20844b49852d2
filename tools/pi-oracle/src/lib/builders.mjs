// Small constructors for the message shapes Pi 0.87.1 stores in `message` entries.
// Every constructor reads the (patched, stepping) clock, as the agent does when it stamps a message.

export const PNG_1x1 =
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

export const MODELS = {
	opus: { api: "anthropic-messages", provider: "anthropic", model: "claude-opus-4-8" },
	sonnet: { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-6" },
	gpt: { api: "openai-responses", provider: "openai", model: "gpt-5.5" },
	gemini: { api: "google-generative-ai", provider: "google", model: "gemini-2.5-pro" },
};

export const TOOLS = {
	read: {
		name: "read",
		description: "Read the contents of a file.",
		parameters: {
			type: "object",
			properties: { path: { type: "string", description: "Path to the file" }, offset: { type: "number" } },
			required: ["path"],
		},
	},
	bash: {
		name: "bash",
		description: "Execute a bash command in the current working directory.",
		parameters: {
			type: "object",
			properties: { command: { type: "string" }, timeout: { type: "number" } },
			required: ["command"],
		},
	},
	grep: {
		name: "grep",
		description: "Search file contents for a pattern.",
		parameters: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] },
	},
	edit: {
		name: "edit",
		description: "Replace text in a file.",
		parameters: {
			type: "object",
			properties: { path: { type: "string" }, oldText: { type: "string" }, newText: { type: "string" } },
			required: ["path", "oldText", "newText"],
		},
	},
};

// USD per token, roughly a frontier model's list prices; only the arithmetic matters.
const PRICE = { input: 5e-6, output: 25e-6, cacheRead: 0.5e-6, cacheWrite: 6.25e-6 };

export function usage(input, output, cacheRead = 0, cacheWrite = 0, extra = {}) {
	const cost = {
		input: input * PRICE.input,
		output: output * PRICE.output,
		cacheRead: cacheRead * PRICE.cacheRead,
		cacheWrite: cacheWrite * PRICE.cacheWrite,
	};
	return {
		input,
		output,
		cacheRead,
		cacheWrite,
		...extra,
		totalTokens: input + output + cacheRead + cacheWrite,
		cost: { ...cost, total: cost.input + cost.output + cost.cacheRead + cost.cacheWrite },
	};
}

export const text = (t, extra = {}) => ({ type: "text", text: t, ...extra });
export const image = (data = PNG_1x1, mimeType = "image/png") => ({ type: "image", data, mimeType });
export const thinking = (t, signature, extra = {}) => ({
	type: "thinking",
	thinking: t,
	...(signature === undefined ? {} : { thinkingSignature: signature }),
	...extra,
});
export const toolCall = (id, name, args, extra = {}) => ({ type: "toolCall", id, name, arguments: args, ...extra });

export function system(content, fields = {}) {
	return { role: "system", content, ...fields, timestamp: Date.now() };
}

export function user(content) {
	return { role: "user", content, timestamp: Date.now() };
}

export function assistant(content, { model = MODELS.opus, stopReason = "stop", u = usage(100, 20), ...extra } = {}) {
	return { role: "assistant", content, ...model, ...extra, usage: u, stopReason, timestamp: Date.now() };
}

export function toolResult(toolCallId, toolName, content, { details, isError = false } = {}) {
	return {
		role: "toolResult",
		toolCallId,
		toolName,
		content,
		...(details === undefined ? {} : { details }),
		isError,
		timestamp: Date.now(),
	};
}

export function bashExecution(command, output, fields = {}) {
	return {
		role: "bashExecution",
		command,
		output,
		exitCode: 0,
		cancelled: false,
		truncated: false,
		...fields,
		timestamp: Date.now(),
	};
}

/** The sections a coding-agent session declares on its first request (abridged texts). */
export function leadingSystem(cwd, tools, { extraSections = {}, content = "" } = {}) {
	return system(content, {
		sections: {
			preamble: "You are an expert coding assistant operating inside pi, a coding agent harness.",
			tools: `<tools>\n${tools.map((t) => `- ${t.name}: ${t.description}`).join("\n")}\n</tools>`,
			...extraSections,
			cwd: `<cwd>\n${cwd}\n</cwd>`,
		},
		toolsAdded: tools,
	});
}
