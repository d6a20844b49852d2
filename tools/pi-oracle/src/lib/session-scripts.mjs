// The scripted sessions. Each entry is either
//   { name, about, id, cwd?, build(sm, pi) -> extraInnerIds? }   driven through a real SessionManager
//   { name, about, text() -> string }                              a hand-written file (legacy/edge)
// `verify(fileText)` optionally asserts something about the bytes Pi wrote.
import {
	MODELS,
	TOOLS,
	assistant,
	bashExecution,
	image,
	leadingSystem,
	system,
	text,
	thinking,
	toolCall,
	toolResult,
	usage,
	user,
} from "./builders.mjs";
import { randomWalk } from "./random-session.mjs";

const CWD = "/home/dev/project";

/** Linear session: the entry types a plain coding session writes, with tool calls and images. */
const linearTools = {
	name: "linear-tools",
	about: "one branch: model/thinking changes, leading system message, tool calls, images, session_info, usage",
	id: "019b0001-0000-7000-8000-000000000001",
	build(sm) {
		sm.appendModelChange("anthropic", "claude-opus-4-8");
		sm.appendThinkingLevelChange("medium");
		sm.appendMessage(leadingSystem(CWD, [TOOLS.read, TOOLS.bash]));
		sm.appendMessage(user("List the files here."));
		sm.appendMessage(
			assistant(
				[
					thinking("The user wants a listing; run ls.", "sig-EqQBCkgIARAB"),
					text("Listing the files."),
					toolCall("toolu_01A", "bash", { command: "ls -la" }),
				],
				{ stopReason: "toolUse", u: usage(1450, 96, 0, 1402), responseId: "msg_01A" },
			),
		);
		sm.appendMessage(
			toolResult("toolu_01A", "bash", [text("README.md\nsrc\nCargo.toml\n")], { details: { exitCode: 0, truncated: false } }),
		);
		sm.appendMessage(assistant([text("There are README.md, src/ and Cargo.toml.")], { u: usage(31, 18, 1402, 60) }));
		sm.appendMessage(user([text("What is in this screenshot?"), image()]));
		sm.appendMessage(
			assistant(
				[
					thinking("", "EuYBCkQIBBgCKkAredactedpayload==", { redacted: true }),
					text("A single white pixel.", { textSignature: "tsig-1" }),
				],
				{ u: usage(120, 12, 1462, 140), providerThinkingLevel: "medium", endTurn: true },
			),
		);
		sm.appendSessionInfo("Linear tools\nsession");
		sm.appendMessage(user("Read README.md, please."));
		sm.appendMessage(
			assistant([toolCall("toolu_01B", "read", { path: "README.md" })], {
				stopReason: "toolUse",
				u: usage(25, 40, 1602, 30, { cacheWrite1h: 30 }),
				rawStopReason: "tool_use",
			}),
		);
		sm.appendMessage(
			toolResult("toolu_01B", "read", [text("# demo\nhello\n"), image()], { details: { path: "README.md", lines: 2 } }),
		);
		sm.appendMessage(assistant([text("README.md says hello.")], { u: usage(40, 9, 1632, 55, { reasoning: 0 }) }));
		sm.appendUsage("cache_warm", "anthropic", "claude-opus-4-8", usage(0, 0, 1700, 0), "keep-alive ping");
		return [];
	},
};

/** Several branches: branch(), branchWithSummary() (with and without summary), resetLeaf() roots, labels. */
const branches = {
	name: "branches",
	about: "branch(), branchWithSummary() non-empty/empty/null parent, resetLeaf() second root, label set and cleared",
	id: "019b0002-0000-7000-8000-000000000002",
	build(sm) {
		const ids = {};
		sm.appendModelChange("anthropic", "claude-opus-4-8");
		sm.appendMessage(leadingSystem(CWD, [TOOLS.read]));
		ids.u1 = sm.appendMessage(user("Pick a name for the crate."));
		ids.a1 = sm.appendMessage(assistant([text("How about `forge-replay`?")]));
		ids.u2 = sm.appendMessage(user("Too long. Shorter?"));
		ids.a2 = sm.appendMessage(assistant([text("`freplay`.")]));
		sm.appendLabelChange(ids.u2, "naming");
		ids.u3 = sm.appendMessage(user("Fine, go with it."));
		ids.a3 = sm.appendMessage(assistant([text("Done.")]));
		// Plain branch from a1: the agent's /tree navigation without a summary.
		sm.branch(ids.a1);
		ids.u2b = sm.appendMessage(user("Keep it, but explain why."));
		ids.a2b = sm.appendMessage(assistant([text("It says what it does.")]));
		sm.appendThinkingLevelChange("high");
		ids.u3b = sm.appendMessage(user("And the binary name?"));
		ids.a3b = sm.appendMessage(assistant([thinking("Same as the crate.", "sig-b"), text("Same: `forge-replay`.")]));
		// Back to u1 with a summary of the abandoned branch (fromId = the leaf we left).
		ids.bs1 = sm.branchWithSummary(ids.u1, "We discussed keeping the long name and its binary name.", {
			readFiles: [],
			modifiedFiles: [],
		}, false, usage(800, 60));
		ids.a1c = sm.appendMessage(assistant([text("Returning to the naming question.")], { model: MODELS.sonnet }));
		ids.u2c = sm.appendMessage(user("Suggest three names."));
		ids.a2c = sm.appendMessage(assistant([text("replayer, pireplay, forge-replay")], { model: MODELS.sonnet }));
		// Empty summary (e.g. the user skipped summarization): the entry projects to nothing.
		ids.bs2 = sm.branchWithSummary(ids.a2, "", undefined, true);
		ids.u3d = sm.appendMessage(user("Actually, any name works."));
		ids.a3d = sm.appendMessage(assistant([text("Noted.")]));
		sm.appendLabelChange(ids.u2, undefined);
		sm.appendLabelChange(ids.a3d, "final");
		sm.appendLabelChange(ids.a3d, "");
		// A second root: the user went back before the first message.
		sm.resetLeaf();
		sm.appendModelChange("openai", "gpt-5.5");
		sm.appendThinkingLevelChange("low");
		ids.u1e = sm.appendMessage(user("Start over: what does this project do?"));
		ids.a1e = sm.appendMessage(assistant([text("It replays Pi sessions.")], { model: MODELS.gpt }));
		// A third root carrying a summary of where we came from.
		ids.bs3 = sm.branchWithSummary(null, "Earlier attempt asked what the project does.");
		ids.u1f = sm.appendMessage(user("Once more, briefly."));
		ids.a1f = sm.appendMessage(assistant([text("Offline replay of Pi sessions.")], { model: MODELS.gpt }));
		// Return to the first branch and keep going; the file's last entry is this leaf.
		sm.branch(ids.a3);
		sm.appendMessage(user("Ship it."));
		sm.appendMessage(assistant([text("Shipped.")]));
		return [ids.u2, ids.a1, ids.bs1];
	},
};

/** Compactions: two in a row, a retain-none one, a legacy one without systemMessage. */
const compactions = {
	name: "compactions",
	about: "three compactions on one path (older one inside the kept range), retain-none, no systemMessage root, system messages in kept range",
	id: "019b0003-0000-7000-8000-000000000003",
	build(sm) {
		const ids = {};
		sm.appendModelChange("anthropic", "claude-opus-4-8");
		sm.appendThinkingLevelChange("high");
		sm.appendMessage(leadingSystem(CWD, [TOOLS.read, TOOLS.bash]));
		ids.u1 = sm.appendMessage(user("Run the tests."));
		ids.a1 = sm.appendMessage(
			assistant([toolCall("toolu_C1", "bash", { command: "cargo test" })], { stopReason: "toolUse", u: usage(900, 30, 0, 880) }),
		);
		ids.t1 = sm.appendMessage(toolResult("toolu_C1", "bash", [text("test result: ok. 12 passed")], { details: { exitCode: 0 } }));
		ids.a1b = sm.appendMessage(assistant([text("All 12 tests pass.")], { u: usage(20, 10, 880, 40) }));
		ids.u2 = sm.appendMessage(user("Now add grep support."));
		ids.a2 = sm.appendMessage(assistant([text("I will need a grep tool.")], { u: usage(30, 12, 920, 50) }));
		// A later system message (section patch, tool added) that sits inside the first kept range.
		ids.sys1 = sm.appendMessage(
			system("Prefer grep over bash for searching.", {
				sections: { skills: "<skills>\n- search\n</skills>", cwd: null },
				toolsAdded: [TOOLS.grep],
			}),
		);
		ids.u3 = sm.appendMessage(user("Search for TODO."));
		ids.a3 = sm.appendMessage(
			assistant([toolCall("toolu_C2", "grep", { pattern: "TODO" })], { stopReason: "toolUse", u: usage(40, 15, 970, 60) }),
		);
		ids.t3 = sm.appendMessage(toolResult("toolu_C2", "grep", [text("src/lib.rs:3: // TODO")]));
		ids.a3b = sm.appendMessage(assistant([text("One TODO in src/lib.rs.")], { u: usage(20, 9, 1030, 30) }));
		ids.c1 = sm.appendCompaction(
			"## Goal\nAdd grep support.\n## Progress\nTests pass; one TODO found.",
			ids.u2,
			2480,
			{ readFiles: ["src/lib.rs"], modifiedFiles: [] },
			false,
			usage(2500, 180),
		);
		sm.appendThinkingLevelChange("low");
		ids.u4 = sm.appendMessage(user("Fix the TODO."));
		ids.a4 = sm.appendMessage(
			assistant([toolCall("toolu_C3", "edit", { path: "src/lib.rs", oldText: "// TODO", newText: "" })], {
				stopReason: "toolUse",
				u: usage(60, 25, 300, 700),
			}),
		);
		ids.t4 = sm.appendMessage(toolResult("toolu_C3", "edit", [text("Edited src/lib.rs")], { details: { diff: "-// TODO" } }));
		ids.a4b = sm.appendMessage(assistant([text("Removed it.")], { u: usage(15, 5, 1000, 20) }));
		ids.u5 = sm.appendMessage(user("Commit."));
		ids.a5 = sm.appendMessage(assistant([text("Committed.")], { u: usage(12, 4, 1020, 16) }));
		// Second compaction keeps from u3 on, so the first compaction lies inside its kept range
		// and must contribute nothing; sys1 lies before u3 and is summarized.
		ids.c2 = sm.appendCompaction("## Goal\nGrep support, TODO fixed and committed.", ids.u3, 3100, undefined, true);
		sm.appendModelChange("anthropic", "claude-sonnet-4-6");
		ids.u6 = sm.appendMessage(user("Anything left?"));
		ids.a6 = sm.appendMessage(assistant([text("Nothing left.")], { model: MODELS.sonnet, u: usage(50, 6, 600, 400) }));
		// Branch at a5: a retain-none compaction (firstKeptEntryId = its own id).
		sm.branch(ids.a5);
		ids.c3 = sm.appendCompaction("Everything so far is done.", undefined, 3300, { readFiles: [], modifiedFiles: ["src/lib.rs"] });
		ids.u7 = sm.appendMessage(user("Start the next task."));
		ids.a7 = sm.appendMessage(assistant([text("Ready.")], { u: usage(30, 3, 0, 500) }));
		// Another root with no system message: its compaction has no systemMessage checkpoint.
		sm.resetLeaf();
		ids.u8 = sm.appendMessage(user("Hello without a system prompt."));
		ids.a8 = sm.appendMessage(assistant([text("Hi.")], { model: MODELS.gpt }));
		ids.u9 = sm.appendMessage(user("Remember 42."));
		ids.a9 = sm.appendMessage(assistant([text("Remembered.")], { model: MODELS.gpt }));
		ids.c4 = sm.appendCompaction("User asked me to remember 42.", ids.u9, 90);
		ids.u10 = sm.appendMessage(user("What number?"));
		ids.a10 = sm.appendMessage(assistant([text("42.")], { model: MODELS.gpt }));
		return [ids.sys1, ids.u4];
	},
};

/** context_edit: replacements of every editable kind, omissions, overrides, and edits a compaction hides. */
const contextEdits = {
	name: "context-edits",
	about: "context_edit replacement (string/array, user/assistant/toolResult/custom), null omission, last edit wins, edits in summarized part ignored",
	id: "019b0004-0000-7000-8000-000000000004",
	build(sm) {
		const ids = {};
		sm.appendModelChange("anthropic", "claude-opus-4-8");
		sm.appendThinkingLevelChange("minimal");
		sm.appendMessage(leadingSystem(CWD, [TOOLS.read, TOOLS.bash]));
		ids.u1 = sm.appendMessage(user("Read the config."));
		ids.a1 = sm.appendMessage(
			assistant([text("Reading."), toolCall("toolu_E1", "read", { path: "config.toml" })], { stopReason: "toolUse" }),
		);
		ids.t1 = sm.appendMessage(
			toolResult("toolu_E1", "read", [text("token = \"s3cr3t\"\nmode = \"fast\"\n")], { details: { lines: 2 } }),
		);
		ids.a1b = sm.appendMessage(assistant([text("The token is s3cr3t and mode is fast.")]));
		// An edit that lies before the later compaction's first kept entry: summarized, ignored.
		ids.eOld = sm.appendContextEdit(ids.u1, { content: "Read the config (edited, then summarized)." });
		ids.cm1 = sm.appendCustomMessageEntry("notes-ext", "Reminder: never print secrets.", true, { source: "notes" });
		ids.u2 = sm.appendMessage(user("Print the token again."));
		ids.a2 = sm.appendMessage(assistant([thinking("It is s3cr3t.", "sig-e2"), text("s3cr3t")]));
		// Redact the secret from the tool result (array content) and the answers (string content:
		// Pi wraps it in one text block for assistant/toolResult targets).
		ids.e1 = sm.appendContextEdit(ids.t1, { content: [text("token = \"[redacted]\"\nmode = \"fast\"\n")] });
		ids.e2 = sm.appendContextEdit(ids.a1b, { content: "The token is [redacted] and mode is fast." });
		ids.e3 = sm.appendContextEdit(ids.a2, { content: "[redacted]" });
		// Later edit overrides an earlier one on the same target.
		ids.e4 = sm.appendContextEdit(ids.u2, { content: "Print the token (first rewrite)." });
		ids.e5 = sm.appendContextEdit(ids.u2, { content: [text("Print the token (second rewrite)."), image()] });
		// Custom message edited (string replacement stays a string for custom targets).
		ids.e6 = sm.appendContextEdit(ids.cm1, { content: "Reminder (edited)." });
		ids.u3 = sm.appendMessage(user("Try a failing command."));
		ids.a3 = sm.appendMessage(
			assistant([toolCall("toolu_E3", "bash", { command: "false" })], { stopReason: "toolUse" }),
		);
		ids.t3 = sm.appendMessage(toolResult("toolu_E3", "bash", [text("exit 1")], { isError: true }));
		ids.a3b = sm.appendMessage(assistant([text("It failed.")]));
		// Omit the failed attempt (what the agent does for failed recovery attempts)…
		ids.e7 = sm.appendContextEdit(ids.a3, null);
		ids.e8 = sm.appendContextEdit(ids.t3, null);
		// …then bring one back: a replacement after a null edit wins.
		ids.e9 = sm.appendContextEdit(ids.t3, { content: "exit 1 (restored)" });
		ids.u4 = sm.appendMessage(user("Summarize."));
		ids.a4 = sm.appendMessage(assistant([text("Config read, secret redacted, a command failed.")]));
		const mainLeaf = ids.a4;
		// Compaction keeping from cm1: eOld is summarized (ignored); e1…e9 are kept and still apply
		// to targets in the kept range; targets before cm1 are gone anyway.
		ids.c1 = sm.appendCompaction("Read config; token redacted.", ids.cm1, 1500);
		ids.u5 = sm.appendMessage(user("Continue after compaction."));
		ids.a5 = sm.appendMessage(assistant([text("Continuing.")]));
		ids.e10 = sm.appendContextEdit(ids.u5, { content: "Continue (edited after compaction)." });
		ids.e11 = sm.appendContextEdit(ids.u2, null);
		ids.u6 = sm.appendMessage(user("Done?"));
		ids.a6 = sm.appendMessage(assistant([text("Done.")]));
		// A sibling branch at a1b: edits on the main branch must not leak here.
		sm.branch(ids.a1b);
		ids.u2x = sm.appendMessage(user("Different question on a branch."));
		ids.a2x = sm.appendMessage(assistant([text("Branch answer; t1 still shows the secret here.")]));
		ids.ex = sm.appendContextEdit(ids.u1, { content: "Branch-local rewrite of u1." });
		ids.u3x = sm.appendMessage(user("ok"));
		ids.a3x = sm.appendMessage(assistant([text("ok")]));
		return [mainLeaf, ids.cm1];
	},
};

/** Every message role and the variants of stopReason, bashExecution and custom messages. */
const messageVariants = {
	name: "message-variants",
	about: "system content arrays/toolsRemoved, assistant error/aborted/length/deferred, toolResult isError, bashExecution variants, custom/custom_message, usage",
	id: "019b0005-0000-7000-8000-000000000005",
	build(sm) {
		const ids = {};
		sm.appendModelChange("openai", "gpt-5.5");
		sm.appendThinkingLevelChange("xhigh");
		sm.appendMessage(
			system([text("You are terse."), text("Answer in English.")], { toolsAdded: [TOOLS.read, TOOLS.bash, TOOLS.edit] }),
		);
		sm.appendCustomEntry("my-ext", { counter: 1, nested: { list: [1, 2, 3] } });
		ids.u1 = sm.appendMessage(user("Say hi."));
		ids.a1 = sm.appendMessage(
			assistant([], {
				model: MODELS.gpt,
				stopReason: "error",
				errorMessage: "429 Too Many Requests: rate limit exceeded",
				u: usage(0, 0),
			}),
		);
		ids.a1b = sm.appendMessage(
			assistant([text("Hi th")], { model: MODELS.gpt, stopReason: "aborted", errorMessage: "Request was aborted" }),
		);
		ids.a1c = sm.appendMessage(
			assistant([thinking("Greeting…", undefined), text("Hi! I was going to say more but")], {
				model: MODELS.gpt,
				stopReason: "length",
				rawStopReason: "max_output_tokens",
				responseId: "resp_0001",
				responseModel: "gpt-5.5-2026-01-01",
				u: usage(200, 4096, 0, 0, { reasoning: 1024 }),
			}),
		);
		// The user's own shell commands (`!cmd` / `!!cmd`).
		sm.appendMessage(bashExecution("git status --short", " M src/lib.rs\n?? notes.md"));
		sm.appendMessage(bashExecution("cargo build", "error[E0425]: cannot find value `x`", { exitCode: 101 }));
		sm.appendMessage(bashExecution("sleep 100", "", { exitCode: null, cancelled: true }));
		sm.appendMessage(
			bashExecution("cat big.log", "line 1\nline 2", {
				truncated: true,
				fullOutputPath: "/tmp/pi-bash-0001.log",
			}),
		);
		sm.appendMessage(bashExecution("true", ""));
		sm.appendMessage(bashExecution("ls ~/private", "secret.txt", { excludeFromContext: true }));
		sm.appendMessage(bashExecution("make", "partial", { exitCode: 2, truncated: true }));
		sm.appendCustomMessageEntry("notes-ext", "A visible string note.", true, { where: "status bar" });
		sm.appendCustomMessageEntry("notes-ext", [text("A hidden block note."), image()], false);
		sm.appendCustomMessageEntry("notes-ext", [], false);
		ids.u2 = sm.appendMessage(user([text("Edit src/lib.rs."), text("Then run tests.")]));
		ids.a2 = sm.appendMessage(
			assistant(
				[
					thinking(
						"Need to edit.",
						JSON.stringify({ type: "reasoning", id: "rs_0001", summary: [{ type: "summary_text", text: "Need to edit." }], encrypted_content: "gAAAAenc" }),
					),
					toolCall("call_01|fc_01", "edit", { path: "src/lib.rs", oldText: "x", newText: "y" }),
					toolCall("call_02|fc_02", "bash", { command: "cargo test", timeout: 60 }),
				],
				{ model: MODELS.gpt, stopReason: "toolUse", responseId: "resp_0002", u: usage(300, 80, 1200, 0, { reasoning: 40 }) },
			),
		);
		sm.appendMessage(
			toolResult("call_01|fc_01", "edit", [text("Could not find \"x\" in src/lib.rs")], {
				isError: true,
				details: { error: "not found" },
			}),
		);
		sm.appendMessage(
			toolResult("call_02|fc_02", "bash", [text("test result: ok")], {
				details: { exitCode: 0, durationMs: 1234 },
			}),
		);
		// Tool loadout change: bash removed, grep added.
		sm.appendMessage(system("", { toolsRemoved: [{ name: "bash" }], toolsAdded: [TOOLS.grep] }));
		ids.a2b = sm.appendMessage(
			assistant([text("The edit failed; tests pass.", { textSignature: JSON.stringify({ v: 1, id: "msg_01", phase: "final_answer" }) })], {
				model: MODELS.gpt,
				u: usage(40, 12, 1500, 0),
			}),
		);
		sm.appendUsage("cache_warm", "openai", "gpt-5.5", usage(0, 1, 1500, 0));
		sm.appendUsage("compaction", "openai", "gpt-5.5", usage(2000, 300));
		sm.appendMessage(system("Be even more terse.", { sections: { style: "<style>\nterse\n</style>" } }));
		sm.appendModelChange("google", "gemini-2.5-pro");
		ids.u3 = sm.appendMessage(user("Deferred job?"));
		ids.a3 = sm.appendMessage(
			assistant([], {
				model: MODELS.gemini,
				stopReason: "deferred",
				deferred: { provider: "google", modelId: "gemini-2.5-pro", api: "google-generative-ai", id: "batch/1#0" },
			}),
		);
		ids.a3b = sm.appendMessage(
			assistant([text("Job finished.", { textSignature: "gsig" }), toolCall("g1", "read", { path: "a" }, { thoughtSignature: "tsig==" })], {
				model: MODELS.gemini,
				stopReason: "toolUse",
			}),
		);
		sm.appendMessage(toolResult("g1", "read", [image(), text("(binary)")]));
		sm.appendThinkingLevelChange("off");
		sm.appendMessage(assistant([text("Read it.")], { model: MODELS.gemini }));
		return [ids.a1, ids.a1b];
	},
};

/** Unicode everywhere, including lone UTF-16 surrogates, which JSON.stringify writes as escapes. */
const LONE = "\ud800";
const unicode = {
	name: "unicode",
	about: "non-ASCII text, emoji, combining marks, U+2028/2029, control chars, lone surrogates in every string field",
	id: "019b0006-0000-7000-8000-000000000006",
	build(sm) {
		const ids = {};
		sm.appendModelChange("anthropic", "claude-opus-4-8");
		sm.appendMessage(
			leadingSystem("/home/dév/projet ✓", [TOOLS.read], { extraSections: { notes: "<notes>\nÜmlaut “quotes” — dash\n</notes>" } }),
		);
		ids.u1 = sm.appendMessage(
			user(`héllo wörld — 日本語 עברית العربية 🎉👩‍👩‍👧 e\u0301 \u2028line\u2029para tab\there nul\u0000 bell\u0007 del\u007f lone ${LONE} end`),
		);
		ids.a1 = sm.appendMessage(
			assistant(
				[
					thinking(`Thinking with a low surrogate \udc00 and a reversed pair \udc00\ud800.`, "sig-ü"),
					text(`Reply ends with a dangling high surrogate \ud83d`),
					toolCall("toolu_U1", "read", { path: `dir ${LONE}/fïle 🎉.txt`, "ключ": "значение" }),
				],
				{ stopReason: "toolUse" },
			),
		);
		sm.appendMessage(toolResult("toolu_U1", "read", [text(`contents: ${LONE}${"\udfff"} \\ud800 (escaped text, not a surrogate) "quoted" \\ back\\slash`)]));
		ids.a2 = sm.appendMessage(assistant([text("Готово ✅")]));
		sm.appendCustomMessageEntry("ünï-ext", `custom ${LONE} message`, true, { "ключ": LONE });
		sm.appendSessionInfo(`Session ${LONE} 🎉`);
		sm.appendLabelChange(ids.u1, `label ${LONE}`);
		sm.appendMessage(bashExecution(`echo '${LONE}'`, `${LONE}\n`));
		ids.u2 = sm.appendMessage(user("Zusammenfassen, bitte."));
		ids.a3 = sm.appendMessage(assistant([text("Zusammengefasst.")]));
		ids.c1 = sm.appendCompaction(`Résumé ${LONE} 🎉`, ids.u2, 777);
		ids.u3 = sm.appendMessage(user("Weiter."));
		ids.a4 = sm.appendMessage(assistant([text("Weiter geht's.")]));
		ids.bs = sm.branchWithSummary(ids.a2, `Zweig ${LONE} zusammengefasst`);
		sm.appendContextEdit(ids.u1, { content: `edited ${LONE} content` });
		sm.appendMessage(user("ok ✓"));
		sm.appendMessage(assistant([text(`fin ${LONE}`)]));
		return [];
	},
	verify(fileText) {
		if (!fileText.includes("lone \\ud800 end")) throw new Error("unicode: expected Pi to persist the lone surrogate as \\ud800");
		if (/[\ud800-\udfff]/u.test(fileText.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ""))) {
			throw new Error("unicode: raw lone surrogate in file text");
		}
	},
};

/** Plain custom entries in the shapes pi-forge writes (capability engineer's detailed cases come later). */
const forgePattern = {
	name: "forge-pattern",
	about: "pi-forge style plain custom entries (tools snapshot, capability event, delivery anchor) and a legacy custom_message carrier",
	id: "019b0007-0000-7000-8000-000000000007",
	build(sm) {
		sm.appendModelChange("anthropic", "claude-opus-4-8");
		sm.appendThinkingLevelChange("medium");
		sm.appendMessage(leadingSystem(CWD, [TOOLS.read, TOOLS.bash, TOOLS.edit]));
		sm.appendMessage(user("Review the diff."));
		sm.appendMessage(assistant([text("Looking.")]));
		const eventId = "5b0c6f43-0d5e-4f0e-9d55-1f2b3c4d5e6f";
		sm.appendCustomEntry("pi-forge-capability-tools", {
			schemaVersion: 1,
			baseline: ["read", "bash", "edit"],
			lastApplied: ["read", "bash", "edit"],
		});
		sm.appendCustomEntry("pi-forge-capability-event", {
			schemaVersion: 1,
			eventId,
			op: "activate",
			actor: "user",
			createdAt: Date.now(),
			snapshot: {
				activationId: "0f4d7c2e-8b1a-4c3d-9e5f-6a7b8c9d0e1f",
				source: { kind: "capability", key: { scope: "project", id: "review" } },
				name: "Review",
				content: "List findings before fixing anything.",
				tools: { add: [], remove: ["bash", "edit"] },
				fingerprint: "sha256:v1:0000000000000000000000000000000000000000000000000000000000000000",
			},
		});
		sm.appendCustomEntry("pi-forge-capability-delivery", { schemaVersion: 1, throughEventId: eventId });
		sm.appendMessage(
			system("", {
				sections: { "forge-capabilities": "<forge-capabilities>\nReview: List findings before fixing anything.\n</forge-capabilities>" },
				toolsRemoved: [{ name: "bash" }, { name: "edit" }],
			}),
		);
		sm.appendMessage(user("Go on."));
		sm.appendMessage(assistant([text("Finding 1: missing test.")]));
		sm.appendCustomMessageEntry("pi-forge-capability-delivery", [], false, { schemaVersion: 1, throughEventId: eventId });
		sm.appendMessage(user("Thanks."));
		sm.appendMessage(assistant([text("You're welcome.")]));
		return [];
	},
};

// ---------------------------------------------------------------------------------------------
// Hand-written files: shapes the 0.87.1 SessionManager no longer writes, or defects Pi tolerates.
const line = (o) => `${JSON.stringify(o)}\n`;
const iso = (s) => `2025-06-01T10:00:${String(s).padStart(2, "0")}.000Z`;
const ms = (s) => Date.parse(iso(s));
const oldUsage = usage(10, 5);
const asst = (t, s, model = MODELS.sonnet) => ({
	role: "assistant",
	content: [{ type: "text", text: t }],
	...model,
	usage: oldUsage,
	stopReason: "stop",
	timestamp: ms(s),
});

/** Version 1: no ids; compaction points at a line by index (header = index 0). */
const legacyV1 = {
	name: "legacy-v1",
	about: "hand-written v1 file (no header version, no ids, firstKeptEntryIndex, hookMessage); ids come from migration",
	text: () =>
		[
			line({ type: "session", id: "legacy-v1", timestamp: iso(0), cwd: "/home/dev/old" }),
			line({ type: "model_change", timestamp: iso(1), provider: "anthropic", modelId: "claude-sonnet-4-6" }),
			line({ type: "thinking_level_change", timestamp: iso(2), thinkingLevel: "low" }),
			line({ type: "message", timestamp: iso(3), message: { role: "user", content: "First question.", timestamp: ms(3) } }),
			line({ type: "message", timestamp: iso(4), message: asst("First answer.", 4) }),
			line({ type: "message", timestamp: iso(5), message: { role: "user", content: "Second question.", timestamp: ms(5) } }),
			line({ type: "message", timestamp: iso(6), message: asst("Second answer.", 6) }),
			line({
				type: "message",
				timestamp: iso(7),
				message: { role: "hookMessage", customType: "old-hook", content: "Injected by a v1 hook.", display: true, timestamp: ms(7) },
			}),
			line({ type: "compaction", timestamp: iso(8), summary: "Two questions answered.", firstKeptEntryIndex: 5, tokensBefore: 400 }),
			line({ type: "message", timestamp: iso(9), message: { role: "user", content: "Third question.", timestamp: ms(9) } }),
			line({ type: "message", timestamp: iso(10), message: asst("Third answer.", 10) }),
		].join(""),
};

/** Version 2: tree ids already present; hookMessage role renamed to custom by migration. */
const legacyV2 = {
	name: "legacy-v2",
	about: "hand-written v2 file (tree ids, hookMessage role, a branch, compaction with firstKeptEntryId)",
	text: () => {
		const e = (id, parentId, s, rest) => line({ type: rest.type, id, parentId, timestamp: iso(s), ...rest, type: rest.type });
		return [
			line({ type: "session", version: 2, id: "legacy-v2", timestamp: iso(0), cwd: "/home/dev/old" }),
			e("a0000001", null, 1, { type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-6" }),
			e("a0000002", "a0000001", 2, { type: "message", message: { role: "user", content: [{ type: "text", text: "Hello v2." }], timestamp: ms(2) } }),
			e("a0000003", "a0000002", 3, { type: "message", message: asst("Hi from v2.", 3) }),
			e("a0000004", "a0000003", 4, {
				type: "message",
				message: { role: "hookMessage", customType: "v2-hook", content: [{ type: "text", text: "Hook block." }], display: false, details: { k: 1 }, timestamp: ms(4) },
			}),
			e("a0000005", "a0000004", 5, { type: "message", message: { role: "user", content: "Continue.", timestamp: ms(5) } }),
			e("a0000006", "a0000005", 6, { type: "message", message: asst("Continued.", 6) }),
			e("a0000007", "a0000003", 7, { type: "message", message: { role: "user", content: "Branch question.", timestamp: ms(7) } }),
			e("a0000008", "a0000007", 8, { type: "message", message: asst("Branch answer.", 8) }),
			e("a0000009", "a0000006", 9, { type: "compaction", summary: "v2 summary.", firstKeptEntryId: "a0000004", tokensBefore: 300 }),
			e("a000000a", "a0000009", 10, { type: "message", message: { role: "user", content: "After v2 compaction.", timestamp: ms(10) } }),
			e("a000000b", "a000000a", 11, { type: "message", message: asst("Answer after compaction.", 11) }),
		].join("");
	},
};

/** A v3 file with shapes only hand edits, forks or older writers produce; Pi loads it as is. */
const edgeCases = {
	name: "edge-cases",
	about: "hand-written v3: null/missing content, unknown entry type and fields, orphan subtree, compaction firstKeptEntryId off-path, edit outside the kept range targeting a kept entry",
	text: () => {
		const e = (id, parentId, s, rest) => line({ type: rest.type, id, parentId, timestamp: iso(s), ...rest });
		const u = (t, s) => ({ type: "message", message: { role: "user", content: t, timestamp: ms(s) } });
		return [
			line({ type: "session", version: 3, id: "edge-cases", timestamp: iso(0), cwd: "/home/dev/edge", futureHeaderField: { x: 1 } }),
			e("e0000001", null, 1, { type: "model_change", provider: "anthropic", modelId: "claude-opus-4-8" }),
			e("e0000002", "e0000001", 2, { type: "message", message: { role: "system", content: null, sections: { preamble: "Edge preamble." }, timestamp: ms(2) } }),
			e("e0000003", "e0000002", 3, { type: "message", message: { role: "user", content: null, timestamp: ms(3) } }),
			e("e0000004", "e0000003", 4, { type: "message", message: { role: "assistant", ...MODELS.opus, usage: oldUsage, stopReason: "stop", timestamp: ms(4) } }),
			e("e0000005", "e0000004", 5, { type: "message", message: { role: "toolResult", toolCallId: "x", toolName: "read", content: null, isError: false, timestamp: ms(5) } }),
			e("e0000006", "e0000005", 6, { type: "custom_message", customType: "no-content", display: true }),
			e("e0000007", "e0000006", 7, { type: "future_entry_type", payload: { anything: [1, "two", null] } }),
			e("e0000008", "e0000007", 8, { type: "message", message: { role: "user", content: "Has unknown fields.", timestamp: ms(8), futureField: true }, futureEnvelope: "kept" }),
			// An edit written before its target (only a hand edit can do that). It lies before the
			// compaction's first kept entry, so Pi ignores it even though its target is kept.
			e("e0000009", "e0000008", 9, { type: "context_edit", targetId: "e000000b", replacement: { content: "MUST BE IGNORED" } }),
			e("e000000a", "e0000009", 10, { type: "message", message: asst("Answer one.", 10, MODELS.opus) }),
			e("e000000b", "e000000a", 11, u("Kept question.", 11)),
			e("e000000c", "e000000b", 12, { type: "message", message: asst("Kept answer.", 12, MODELS.opus) }),
			e("e000000d", "e000000c", 13, { type: "context_edit", targetId: "e000000c", replacement: { content: [{ type: "text", text: "Kept answer (edited in kept range)." }] } }),
			e("e000000e", "e000000d", 14, { type: "compaction", summary: "Edge summary.", firstKeptEntryId: "e000000b", tokensBefore: 50 }),
			e("e000000f", "e000000e", 15, u("After compaction.", 15)),
			e("e0000010", "e000000f", 16, { type: "message", message: asst("Fine.", 16, MODELS.opus) }),
			// A compaction whose firstKeptEntryId is not on the path: nothing before it is kept.
			e("e0000011", "e0000010", 17, { type: "compaction", summary: "Off-path keep.", firstKeptEntryId: "zzzzzzzz", tokensBefore: 60, details: { readFiles: [], modifiedFiles: [] } }),
			e("e0000012", "e0000011", 18, u("After off-path compaction.", 18)),
			e("e0000013", "e0000012", 19, { type: "message", message: asst("Still fine.", 19, MODELS.opus) }),
			// Orphans: parents that do not exist. The walk stops there (Pi treats them as roots).
			e("e0000014", "missing1", 20, u("Orphan question.", 20)),
			e("e0000015", "e0000014", 21, { type: "message", message: asst("Orphan answer.", 21, MODELS.gpt) }),
			e("e0000016", "e0000013", 22, { type: "branch_summary", fromId: "e0000015", summary: "" }),
			e("e0000017", "e0000016", 23, { type: "session_info" }),
			e("e0000018", "e0000017", 24, { type: "label", targetId: "e0000013" }),
		].join("");
	},
};

/** Defects Pi tolerates while loading: blank lines, a malformed line, CRLF, a duplicate id, and a truncated last line. */
const toleratedDefects = {
	name: "tolerated-defects",
	about: "hand-written: blank and whitespace lines, non-JSON line, CRLF line ending, duplicate id (later wins), truncated final line without newline",
	text: () => {
		const e = (id, parentId, s, rest) => JSON.stringify({ type: rest.type, id, parentId, timestamp: iso(s), ...rest });
		const u = (t, s) => ({ type: "message", message: { role: "user", content: t, timestamp: ms(s) } });
		return [
			JSON.stringify({ type: "session", version: 3, id: "tolerated-defects", timestamp: iso(0), cwd: "/home/dev/defects" }),
			"",
			e("d0000001", null, 1, u("First.", 1)),
			"   ",
			e("d0000002", "d0000001", 2, { type: "message", message: asst("One.", 2) }),
			"{this is not json",
			`${e("d0000003", "d0000002", 3, u("CRLF line.", 3))}\r`,
			e("d0000004", "d0000003", 4, { type: "message", message: asst("Two.", 4) }),
			// Same id again: Pi's id index keeps the later entry.
			e("d0000004", "d0000003", 5, { type: "message", message: asst("Two, rewritten (duplicate id).", 5) }),
			e("d0000005", "d0000004", 6, u("Last complete line.", 6)),
			e("d0000006", "d0000005", 7, { type: "message", message: asst("Three.", 7) }),
			// Pi crashed mid-write: no newline, cut JSON. Skipped.
			'{"type":"message","id":"d0000007","parentId":"d0000006","timestamp":"2025-06-01T10:00:08.000Z","message":{"role":"user","cont',
		].join("\n");
	},
};

/** Seeded random walks; cases: every leaf plus the structural inner entries (see selectCases). */
const randomWalkSession = (n, seed, steps) => ({
	name: `random-walk-${n}`,
	about: `seeded random walk over the SessionManager API (seed ${seed}, ${steps} operations): branches, compactions, edits, labels, system patches`,
	id: `019b00${String(20 + n)}-0000-7000-8000-0000000000${String(20 + n)}`,
	selection: "structural",
	build(sm) {
		randomWalk(sm, { seed, steps });
		return [];
	},
});

export const SESSIONS = [
	linearTools,
	branches,
	compactions,
	contextEdits,
	messageVariants,
	unicode,
	forgePattern,
	legacyV1,
	legacyV2,
	edgeCases,
	toleratedDefects,
	randomWalkSession(1, 0x5eed0001, 220),
	randomWalkSession(2, 0x5eed0002, 220),
	randomWalkSession(3, 0x5eed0003, 400),
];
