// Seeded random walks over the SessionManager API: many branches, compactions (some keeping
// ranges that contain older compactions), context edits, labels, model/thinking changes and system
// messages, in orders no hand-written script would think of. Fully determined by the seed.
import { MODELS, TOOLS, assistant, bashExecution, image, system, text, thinking, toolCall, toolResult, usage, user } from "./builders.mjs";

export function prng(seed) {
	let x = seed >>> 0 || 1;
	const next = () => {
		x ^= x << 13;
		x ^= x >>> 17;
		x ^= x << 5;
		x >>>= 0;
		return x / 0x100000000;
	};
	return {
		float: next,
		int: (n) => Math.floor(next() * n),
		pick: (list) => list[Math.floor(next() * list.length)],
		chance: (p) => next() < p,
	};
}

const WORDS = ["alpha", "beta", "gamma", "delta", "naïve", "日本", "🎉", "résumé", "x", "tool", "cache", "branch"];
const LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"];
const ASSISTANT_MODELS = [MODELS.opus, MODELS.sonnet, MODELS.gpt, MODELS.gemini];

/** Drive `sm` through `steps` random operations. Returns nothing; the file is the result. */
export function randomWalk(sm, { seed, steps }) {
	const r = prng(seed);
	const phrase = (n = 3) => Array.from({ length: 1 + r.int(n) }, () => r.pick(WORDS)).join(" ");
	let call = 0;
	const onBranch = () => sm.getBranch();
	const editable = () =>
		onBranch().filter(
			(e) => e.type === "custom_message" || (e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message.role)),
		);

	sm.appendModelChange("anthropic", "claude-opus-4-8");
	sm.appendMessage(system("", { sections: { preamble: "Random walk.", cwd: "<cwd>\n/r\n</cwd>" }, toolsAdded: [TOOLS.read, TOOLS.bash] }));
	sm.appendMessage(user("start"));
	sm.appendMessage(assistant([text("ok")]));

	const ops = [
		[14, () => sm.appendMessage(user(r.chance(0.3) ? [text(phrase()), ...(r.chance(0.3) ? [image()] : [])] : phrase()))],
		[14, () => sm.appendMessage(assistant([...(r.chance(0.3) ? [thinking(phrase(), "sig")] : []), text(phrase(5))], { model: r.pick(ASSISTANT_MODELS), u: usage(r.int(500), r.int(80), r.int(2000), r.int(300)) }))],
		[8, () => {
			const id = `call_${++call}`;
			sm.appendMessage(assistant([toolCall(id, "read", { path: `${r.pick(WORDS)}.txt` })], { stopReason: "toolUse" }));
			if (r.chance(0.9)) sm.appendMessage(toolResult(id, "read", [text(phrase(6))], { isError: r.chance(0.2), details: r.chance(0.5) ? { n: r.int(9) } : undefined }));
		}],
		[2, () => sm.appendMessage(assistant([text(phrase())], { stopReason: r.pick(["error", "aborted", "length"]), errorMessage: "boom" }))],
		[3, () => sm.appendMessage(bashExecution(`echo ${r.pick(WORDS)}`, phrase(), { exitCode: r.pick([0, 0, 1, null]), excludeFromContext: r.chance(0.3) || undefined }))],
		[3, () => sm.appendCustomMessageEntry("rnd", r.chance(0.5) ? phrase() : [text(phrase())], r.chance(0.5), r.chance(0.5) ? { k: r.int(5) } : undefined)],
		[2, () => sm.appendCustomEntry("rnd-state", { step: r.int(100) })],
		[2, () => sm.appendModelChange(...r.pick([["anthropic", "claude-opus-4-8"], ["openai", "gpt-5.5"], ["google", "gemini-2.5-pro"]]))],
		[2, () => sm.appendThinkingLevelChange(r.pick(LEVELS))],
		[2, () => {
			const patch = r.pick([
				{ sections: { skills: `<skills>\n${phrase()}\n</skills>` } },
				{ sections: { cwd: null } },
				{ toolsAdded: [TOOLS.grep] },
				{ toolsRemoved: [{ name: "bash" }] },
			]);
			sm.appendMessage(system(r.chance(0.5) ? phrase() : "", patch));
		}],
		[3, () => {
			const path = onBranch();
			const keep = r.chance(0.2) ? undefined : path[r.int(path.length)]?.id;
			sm.appendCompaction(`Summary: ${phrase(4)}`, keep, r.int(100000), undefined, r.chance(0.2));
		}],
		[4, () => {
			const targets = editable();
			if (!targets.length) return;
			const t = r.pick(targets);
			const replacement = r.chance(0.3) ? null : { content: r.chance(0.5) ? `edited ${phrase()}` : [text(`edited ${phrase()}`)] };
			sm.appendContextEdit(t.id, replacement);
		}],
		[2, () => {
			const all = sm.getEntries();
			sm.appendLabelChange(r.pick(all).id, r.chance(0.6) ? phrase(1) : undefined);
		}],
		[5, () => sm.branch(r.pick(sm.getEntries()).id)],
		[3, () => {
			const all = sm.getEntries();
			sm.branchWithSummary(r.chance(0.1) ? null : r.pick(all).id, r.chance(0.2) ? "" : `Branch summary: ${phrase(4)}`);
		}],
		[1, () => sm.resetLeaf()],
		[1, () => sm.appendUsage("cache_warm", "anthropic", "claude-opus-4-8", usage(0, 0, r.int(3000), 0))],
		[1, () => sm.appendSessionInfo(phrase())],
	];
	const total = ops.reduce((n, [w]) => n + w, 0);
	for (let i = 0; i < steps; i++) {
		let roll = r.int(total);
		for (const [w, op] of ops) {
			if (roll < w) {
				op();
				break;
			}
			roll -= w;
		}
	}
	// Always end on a message so the default leaf is an ordinary conversation point.
	sm.appendMessage(user("end"));
}
