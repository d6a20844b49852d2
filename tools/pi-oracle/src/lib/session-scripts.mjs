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

export const SESSIONS = [linearTools, branches, compactions];
