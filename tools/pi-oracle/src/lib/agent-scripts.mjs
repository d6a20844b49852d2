// Offline agent scenarios. Each one names the real catalog model(s) it runs on, the scripted model
// replies (in request order; summarization requests are answered separately), and a drive()
// function that operates the real AgentSession the way a user would.
//
// Reply helpers receive pi-ai's faux builders: { msg, text, think, call } where
//   msg(content, opts)  -> fauxAssistantMessage; think(t) -> thinking block with a signature;
//   call(id, name, args) -> tool call with a fixed id.

/** Anthropic Messages, claude-opus-4-8 (mid-conversation system messages and tool changes flagged). */
const anthropicOpus = {
	name: "anthropic-opus-tools",
	about: "anthropic-messages claude-opus-4-8 (flagged): bash + read tool calls, tool loadout change, thinking change, user bash, manual compaction, switch to claude-sonnet-4-6 (unflagged)",
	sessionId: "019c0001-0000-7000-8000-0000000000a1",
	model: ["anthropic", "claude-opus-4-8"],
	extraModels: [["anthropic", "claude-sonnet-4-6"]],
	thinkingLevel: "medium",
	tools: ["read", "bash"],
	replies: ({ msg, text, think, call }) => [
		() => msg([think("List the project first."), text("Listing."), call("toolu_A1", "bash", { command: "ls" })], { stopReason: "toolUse" }),
		() => msg([text("There are README.md and src/.")]),
		() => msg([call("toolu_A2", "read", { path: "README.md" })], { stopReason: "toolUse" }),
		() => msg([think("It is a greeting."), text("README.md says hello.")]),
		() => msg([text("Compacted context received; carrying on.")]),
		() => msg([call("toolu_A3", "read", { path: "src/main.rs" })], { stopReason: "toolUse" }),
		() => msg([text("main.rs prints hello.")]),
	],
	async drive(session, { user }) {
		await session.prompt("List the files.");
		session.setActiveToolsByName(["read"]);
		await session.prompt("Read README.md.");
		await user.bash(session, "cat src/main.rs | wc -l");
		session.setThinkingLevel("high");
		await session.compact();
		await session.prompt("What did we learn?");
		await session.setModel(user.model("anthropic", "claude-sonnet-4-6"));
		await session.prompt("Now read src/main.rs.");
	},
};

/** OpenAI Responses, gpt-5.5 (flagged: system messages, additional tools, tool search). */
const openaiResponses = {
	name: "openai-responses-tools",
	about: "openai-responses gpt-5.5 (flagged): read/bash tool calls, tool removal then re-adding, thinking change, manual compaction",
	sessionId: "019c0002-0000-7000-8000-0000000000b2",
	model: ["openai", "gpt-5.5"],
	extraModels: [],
	// openai-responses replays thinking as a reasoning item parsed from the signature.
	thinkingSignature: (t) =>
		JSON.stringify({ type: "reasoning", id: "rs_oracle_01", summary: [{ type: "summary_text", text: t }], encrypted_content: "gAAAAoracle" }),
	thinkingLevel: "low",
	tools: ["read", "bash"],
	replies: ({ msg, text, think, call }) => [
		() => msg([think("Check the readme."), call("call_B1", "read", { path: "README.md" })], { stopReason: "toolUse" }),
		() => msg([text("It is a demo project.")]),
		() => msg([call("call_B2", "read", { path: "src/main.rs" })], { stopReason: "toolUse" }),
		() => msg([text("main.rs prints hello.")]),
		() => msg([call("call_B3", "bash", { command: "ls src" })], { stopReason: "toolUse" }),
		() => msg([text("Only main.rs.")]),
		() => msg([text("Done after compaction.")]),
	],
	async drive(session) {
		await session.prompt("What is this project?");
		session.setActiveToolsByName(["read"]);
		await session.prompt("Read src/main.rs.");
		session.setThinkingLevel("high");
		session.setActiveToolsByName(["read", "bash"]);
		await session.prompt("List src with bash.");
		await session.compact();
		await session.prompt("Summarize in one line.");
	},
};

/** Google Generative AI, gemini-2.5-pro (no mid-conversation flags: system messages collapse). */
const googleGemini = {
	name: "google-gemini-tools",
	about: "google-generative-ai gemini-2.5-pro (unflagged): tool calls, tool loadout change, thinking change to off, manual compaction",
	sessionId: "019c0003-0000-7000-8000-0000000000c3",
	model: ["google", "gemini-2.5-pro"],
	extraModels: [],
	thinkingLevel: "high",
	tools: ["read", "bash"],
	replies: ({ msg, text, call }) => [
		() => msg([call("gem_C1", "bash", { command: "ls" })], { stopReason: "toolUse" }),
		() => msg([text("README.md and src/.")]),
		() => msg([call("gem_C2", "read", { path: "README.md" })], { stopReason: "toolUse" }),
		() => msg([text("It says hello.")]),
		() => msg([text("Still here after compaction.")]),
	],
	async drive(session) {
		await session.prompt("List the files.");
		session.setActiveToolsByName(["read"]);
		session.setThinkingLevel("off");
		await session.prompt("Read README.md.");
		await session.compact();
		await session.prompt("Anything else?");
	},
};

/** OpenAI Completions, moonshotai kimi-k3 (flagged for system messages and tool additions). */
const completionsKimi = {
	name: "completions-kimi-tools",
	about: "openai-completions kimi-k3 (flagged): bash tool call, tool loadout change, thinking change, compaction",
	sessionId: "019c0004-0000-7000-8000-0000000000d4",
	model: ["moonshotai", "kimi-k3"],
	extraModels: [],
	thinkingLevel: "medium",
	tools: ["read", "bash"],
	replies: ({ msg, text, think, call }) => [
		() => msg([think("Run ls."), call("call_D1", "bash", { command: "ls" })], { stopReason: "toolUse" }),
		() => msg([text("README.md and src/.")]),
		() => msg([text("No tools needed.")]),
		() => msg([text("After compaction.")]),
	],
	async drive(session) {
		await session.prompt("List the files.");
		session.setActiveToolsByName(["read"]);
		session.setThinkingLevel("low");
		await session.prompt("Say something.");
		await session.compact();
		await session.prompt("Bye.");
	},
};

/** Tree navigation in a real agent: summarized branch, plain navigation to a user message. */
const anthropicTree = {
	name: "anthropic-tree-navigation",
	about: "anthropic-messages claude-opus-4-8: navigateTree with branch summary (summarization request) and label, navigateTree to a user message without summary, tool loadout restored from the transcript",
	sessionId: "019c0005-0000-7000-8000-0000000000e5",
	model: ["anthropic", "claude-opus-4-8"],
	extraModels: [],
	thinkingLevel: "low",
	tools: ["read", "bash"],
	replies: ({ msg, text, call }) => [
		() => msg([call("toolu_T1", "bash", { command: "ls" })], { stopReason: "toolUse" }),
		() => msg([text("README.md and src/.")]),
		() => msg([text("Plan A: rewrite everything.")]),
		() => msg([text("Plan B: small steps.")]),
		() => msg([call("toolu_T2", "read", { path: "README.md" })], { stopReason: "toolUse" }),
		() => msg([text("Fresh start: README says hello.")]),
	],
	async drive(session, { sessionManager }) {
		await session.prompt("List the files.");
		const firstAnswer = sessionManager.getLeafId();
		session.setActiveToolsByName(["read"]);
		await session.prompt("Propose a plan.");
		// Back to the first answer, summarizing the abandoned plan (a summarization request).
		await session.navigateTree(firstAnswer, { summarize: true, label: "plan-b" });
		await session.prompt("Propose a different plan.");
		// Back to the very first user message without summary: the leaf becomes its parent.
		const firstUser = sessionManager
			.getBranch()
			.find((e) => e.type === "message" && e.message.role === "user");
		await session.navigateTree(firstUser.id, { summarize: false });
		await session.prompt("Start over: read README.md.");
	},
};

/**
 * Context-overflow recovery with auto-compaction on: the provider answers one request with
 * Anthropic's "prompt is too long" error. Pi then omits the failed attempt (context_edit null),
 * compacts (summarization request) and retries the turn by itself.
 */
const anthropicOverflow = {
	name: "anthropic-overflow-recovery",
	about: "anthropic-messages claude-opus-4-8, auto-compaction on: overflow error, automatic omission (context_edit null), compaction and retry",
	sessionId: "019c0014-0000-7000-8000-0000000000f4",
	model: ["anthropic", "claude-opus-4-8"],
	extraModels: [],
	thinkingLevel: "medium",
	tools: ["read", "bash"],
	settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
	replies: ({ msg, text, call }) => [
		() => msg([call("toolu_O1", "read", { path: "README.md" })], { stopReason: "toolUse" }),
		() => msg([text("README.md says hello.")]),
		() => msg([], { stopReason: "error", errorMessage: "prompt is too long: 1048577 tokens > 1000000 maximum" }),
		() => msg([text("Recovered after compaction: main.rs prints hello.")]),
		() => msg([text("Nothing else.")]),
	],
	async drive(session) {
		await session.prompt("Read README.md.");
		await session.prompt("Now explain src/main.rs.");
		await session.prompt("Anything else?");
	},
};

/**
 * A short run for one more API: bash tool call, tool loadout change (bash removed), thinking level
 * change, read tool call. Four session requests, no summarization.
 */
function shortRun(name, [provider, id], { about, sessionNo, thinkingLevel = "medium", nextLevel = "high", ...extra }) {
	return {
		name,
		about: `${about}: bash tool call, loadout change (bash removed), thinking ${thinkingLevel} -> ${nextLevel}, read tool call`,
		sessionId: `019c00${String(sessionNo).padStart(2, "0")}-0000-7000-8000-0000000000f${sessionNo % 10}`,
		model: [provider, id],
		extraModels: [],
		thinkingLevel,
		tools: ["read", "bash"],
		replies: ({ msg, text, call }) => [
			() => msg([text("Listing."), call(`${name}-1`, "bash", { command: "ls" })], { stopReason: "toolUse" }),
			() => msg([text("README.md and src/.")]),
			() => msg([call(`${name}-2`, "read", { path: "README.md" })], { stopReason: "toolUse" }),
			() => msg([text("README.md says hello.")]),
		],
		async drive(session) {
			await session.prompt("List the files.");
			session.setActiveToolsByName(["read"]);
			session.setThinkingLevel(nextLevel);
			await session.prompt("Read README.md.");
		},
		...extra,
	};
}

/** JWT-shaped dummy credential: openai-codex-responses reads chatgpt_account_id from it. */
const codexJwt = () => {
	const b64 = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
	return `${b64({ alg: "none", typ: "JWT" })}.${b64({ "https://api.openai.com/auth": { chatgpt_account_id: "acct_oracle" } })}.sig`;
};

const more = [
	shortRun("mistral-large-tools", ["mistral", "mistral-large-latest"], {
		about: "mistral-conversations mistral-large-latest (unflagged)",
		sessionNo: 6,
	}),
	shortRun("completions-groq-unflagged", ["groq", "openai/gpt-oss-120b"], {
		about: "openai-completions groq openai/gpt-oss-120b (unflagged)",
		sessionNo: 7,
		thinkingLevel: "low",
	}),
	shortRun("openai-responses-unflagged-gpt5", ["openai", "gpt-5"], {
		about: "openai-responses gpt-5 (unflagged)",
		sessionNo: 8,
		thinkingLevel: "minimal",
	}),
	shortRun("azure-responses-gpt55", ["azure-openai-responses", "gpt-5.5"], {
		about: "azure-openai-responses gpt-5.5 (catalog unflagged; base URL from auth)",
		sessionNo: 9,
		auth: { baseUrl: "https://oracle.openai.azure.com/openai/v1" },
	}),
	shortRun("codex-gpt55", ["openai-codex", "gpt-5.5"], {
		about: "openai-codex-responses gpt-5.5 (payload only: WebSocket transport, wire null)",
		sessionNo: 10,
		apiKey: codexJwt,
	}),
	shortRun("bedrock-opus", ["amazon-bedrock", "anthropic.claude-opus-4-8"], {
		about: "bedrock-converse-stream anthropic.claude-opus-4-8 (payload only: AWS SDK transport, wire null)",
		sessionNo: 11,
	}),
	shortRun("vertex-gemini-flash", ["google-vertex", "gemini-2.5-flash"], {
		about: "google-vertex gemini-2.5-flash",
		sessionNo: 12,
	}),
	shortRun("pi-messages-radius", ["radius", "balanced"], {
		about: "pi-messages radius/balanced (Radius gateway)",
		sessionNo: 13,
		thinkingLevel: "low",
	}),
];

export const AGENT_SCENARIOS = [
	anthropicOpus,
	openaiResponses,
	googleGemini,
	completionsKimi,
	anthropicTree,
	...more,
	anthropicOverflow,
];

/**
 * A long Anthropic session for 1.6's message threads: several turns with tool calls (each request
 * after the first continues the thread), a thinking-level change (the fixed thinking settings
 * change: a new thread), more turns (continue again), a /tree navigation (a context rewrite: a new
 * thread), and a last turn.
 */
const anthropicThread = {
	name: "anthropic-thread-continue",
	about: "anthropic-messages claude-opus-4-8 on api.anthropic.com with a session id (1.6 message threads): tool-call turns continue the thread, one continue rejected (thread_not_found: anthropic_thread_fallback, resent as create), thinking change and navigateTree start new ones",
	sessionId: "019c0015-0000-7000-8000-0000000000f5",
	model: ["anthropic", "claude-opus-4-8"],
	extraModels: [],
	thinkingLevel: "medium",
	tools: ["read", "bash"],
	// The 4th session request's `continue` is rejected once (thread expired): pi-ai resends it as a
	// new thread and notes `anthropic_thread_fallback` on the reply.
	rejectThread: { 4: { status: 400, errorCode: "thread_not_found", message: "thread not found" } },
	replies: ({ msg, text, think, call }) => [
		() => msg([think("List first."), text("Listing."), call("toolu_H1", "bash", { command: "ls" })], { stopReason: "toolUse" }),
		() => msg([text("README.md and src/.")]),
		() => msg([call("toolu_H2", "read", { path: "README.md" })], { stopReason: "toolUse" }),
		() => msg([text("README.md says hello.")]),
		() => msg([text("Nothing more to read.")]),
		() => msg([think("Deeper look."), call("toolu_H3", "read", { path: "src/main.rs" })], { stopReason: "toolUse" }),
		() => msg([text("main.rs prints hello.")]),
		() => msg([text("Two files in all.")]),
		() => msg([text("Back at the start: the project is tiny.")]),
	],
	async drive(session, { sessionManager }) {
		await session.prompt("List the files.");
		const afterFirst = sessionManager.getLeafId();
		await session.prompt("Read README.md.");
		await session.prompt("Anything else to read?");
		session.setThinkingLevel("high");
		await session.prompt("Read src/main.rs.");
		await session.prompt("How many files in all?");
		await session.navigateTree(afterFirst, { summarize: false });
		await session.prompt("Summarize the project.");
	},
};

/**
 * Claude's strict-tool limits (1.3.0 and later): the agent's `read`, `bash`, `edit` and `write` ask
 * for strict sampling (`strict: "prefer"`). The first request is rejected with `Too many strict
 * tools`, so pi-ai resends it with those tools non-strict and notes
 * `anthropic_strict_tools_fallback` on the reply. 1.3 tries strict again on the next request; 1.6
 * remembers the session, so every later request is non-strict from the start (and, on
 * api.anthropic.com, continues the thread the resend created).
 */
const anthropicStrictFallback = {
	name: "anthropic-strict-fallback",
	about: "anthropic-messages claude-opus-4-8 with the agent's strict-preferring tools: the first request is rejected for Claude's strict-tool limits and resent non-strict (anthropic_strict_tools_fallback); 1.3 sends the later requests strict again, 1.6 non-strict for the rest of the session",
	sessionId: "019c0017-0000-7000-8000-0000000000f7",
	model: ["anthropic", "claude-opus-4-8"],
	extraModels: [],
	thinkingLevel: "medium",
	tools: ["read", "bash", "edit", "write"],
	// Answer Anthropic requests through the fetch stub in 1.3 too (1.6 always does).
	answerAnthropic: true,
	rejectThread: { 1: { status: 400, message: "Too many strict tools (21 > 20)" } },
	replies: ({ msg, text, think, call }) => [
		() => msg([think("List first."), text("Listing."), call("toolu_S1", "bash", { command: "ls" })], { stopReason: "toolUse" }),
		() => msg([text("README.md and src/.")]),
		() => msg([call("toolu_S2", "read", { path: "README.md" })], { stopReason: "toolUse" }),
		() => msg([text("README.md says hello.")]),
		() => msg([text("Nothing else to do.")]),
	],
	async drive(session) {
		await session.prompt("List the files.");
		await session.prompt("Read README.md.");
		await session.prompt("Anything else?");
	},
};

/**
 * The same on Bedrock (1.6.0): the first command is rejected with a `ValidationException` naming
 * a strict-tool limit, resent non-strict (`bedrock_strict_tools_fallback`), and the session's
 * later commands are non-strict from the start. The AWS SDK's `send` is stubbed (no wire request).
 */
const bedrockStrictFallback = {
	name: "bedrock-strict-fallback",
	about: "bedrock-converse-stream anthropic.claude-sonnet-4-6 with the agent's strict-preferring tools: the first command is rejected for Claude's strict-tool limits (ValidationException) and resent non-strict (bedrock_strict_tools_fallback); the later commands of the session are non-strict from the start (payload only: AWS SDK transport, wire null)",
	sessionId: "019c0018-0000-7000-8000-0000000000f8",
	model: ["amazon-bedrock", "anthropic.claude-sonnet-4-6"],
	extraModels: [],
	thinkingLevel: "medium",
	tools: ["read", "bash", "edit", "write"],
	rejectBedrock: { 1: { message: "Schemas contains too many parameters with union types (17 > 16)" } },
	replies: anthropicStrictFallback.replies,
	drive: anthropicStrictFallback.drive,
};

/**
 * /tree navigation after a thinking-level change (1.3.0 and later): the agent keeps its current
 * level (and model) after navigateTree, so the requests after navigation use `high` although the
 * path's last thinking_level_change says `low`; 1.6 also appends a thinking_level_change on the
 * new branch when the branch implies another level (`_recordThinkingLevel`).
 */
const responsesTreeThinking = {
	name: "responses-tree-thinking",
	about: "openai-responses gpt-5.5: thinking low -> high, then navigateTree back before the change (without and with summary): the level stays high; 1.6 records it on the branch",
	sessionId: "019c0016-0000-7000-8000-0000000000f6",
	// 1.3 keeps `high` after navigation without recording it: the last two requests are not
	// replayable from the path (checks.json says which); 1.6 records the level on the branch.
	expectReplayable: (release) => release !== "1.3.0",
	model: ["openai", "gpt-5.5"],
	extraModels: [],
	thinkingSignature: (t) => JSON.stringify({ type: "reasoning", id: "rs_oracle_16", summary: [{ type: "summary_text", text: t }], encrypted_content: "gAAAAoracle16" }),
	thinkingLevel: "low",
	tools: ["read", "bash"],
	replies: ({ msg, text, think, call }) => [
		() => msg([think("Read it."), call("call_R1", "read", { path: "README.md" })], { stopReason: "toolUse" }),
		() => msg([text("A demo project.")]),
		() => msg([text("Thinking harder: it greets.")]),
		() => msg([text("After navigation: still a demo.")]),
		() => msg([text("Second branch answer.")]),
	],
	async drive(session, { sessionManager }) {
		await session.prompt("What is this project?");
		const beforeChange = sessionManager.getLeafId();
		session.setThinkingLevel("high");
		await session.prompt("Think harder about it.");
		await session.navigateTree(beforeChange, { summarize: false });
		await session.prompt("Describe it again.");
		await session.navigateTree(beforeChange, { summarize: false });
		await session.prompt("And once more.");
	},
};

/**
 * The scenarios for a release: the 0.87.1 set with the models renamed or replaced where the
 * release's catalog differs (provider `azure` from 1.3; openai-codex gpt-5.5 is gone in 1.6), plus
 * the tree-navigation-after-thinking-change run, and the message-thread session from 1.6.
 */
export function scenariosFor(release) {
	if (release === "0.87.1") return AGENT_SCENARIOS;
	const [major, minor] = release.split(".").map(Number);
	const atLeast16 = major > 1 || (major === 1 && minor >= 6);
	const out = [];
	for (const s of AGENT_SCENARIOS) {
		let spec = s;
		if (s.model[0] === "azure-openai-responses") spec = { ...s, model: ["azure", s.model[1]], about: s.about.replace("azure-openai-responses gpt-5.5", "azure-openai-responses (provider azure) gpt-5.5") };
		if (atLeast16 && s.name === "codex-gpt55") {
			spec = { ...s, name: "codex-gpt56-sol", model: ["openai-codex", "gpt-5.6-sol"], about: s.about.replace("gpt-5.5", "gpt-5.6-sol (gpt-5.5 is not in the 1.6 catalog)") };
		}
		out.push(spec);
	}
	out.push(responsesTreeThinking);
	if (atLeast16) out.push(anthropicThread);
	out.push(anthropicStrictFallback);
	if (atLeast16) out.push(bedrockStrictFallback);
	return out;
}
