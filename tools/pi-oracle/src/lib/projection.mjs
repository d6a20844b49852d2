// Pure-read projection of a session file through the real pi-coding-agent 0.87.1 functions.
//
// The file is read as text, split with Pi's own `parseSessionEntries`, and migrated in memory with
// `migrateSessionEntries` (what `SessionManager.open` does before it would rewrite a legacy file).
// Nothing here writes to the input. Every case is
//   buildSessionContext(entries, leafId) -> messages, model, thinkingLevel
//   convertToLlm(messages)               -> llm
import { readFileSync, writeFileSync, renameSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { rewind } from "./determinism.mjs";

export const PI_VERSION = "0.87.1";

let piPromise;
/** The real pi-coding-agent module (needs Node >= 22). */
export function loadPi() {
	piPromise ??= import("@earendil-works/pi-coding-agent");
	return piPromise;
}

/** Parse + migrate a session file without touching it. Returns header and tree entries. */
export async function readSession(file) {
	const pi = await loadPi();
	// v1 files get their ids from crypto.randomUUID during migration. With determinism installed
	// they are "00000001", "00000002", … in line order (header excluded).
	rewind("2026-01-01T00:00:00.000Z");
	const all = pi.parseSessionEntries(readFileSync(file, "utf8"));
	pi.migrateSessionEntries(all);
	const header = all.find((e) => e.type === "session") ?? null;
	const entries = all.filter((e) => e.type !== "session");
	return { header, entries };
}

/** Child lists keyed by parent id (null for roots), in file order. */
export function childrenOf(entries) {
	const children = new Map();
	for (const e of entries) {
		const key = e.parentId ?? null;
		if (!children.has(key)) children.set(key, []);
		children.get(key).push(e.id);
	}
	return children;
}

/** Root-to-entry path in the same way Pi walks it (a missing parent ends the walk). */
export function pathTo(byId, id) {
	const path = [];
	for (let cur = byId.get(id); cur; cur = cur.parentId ? byId.get(cur.parentId) : undefined) path.push(cur);
	return path.reverse();
}

/**
 * Which entries get a case. Leaves (no children), the default leaf (last entry in the file, what
 * Pi selects on load), and inner entries that stress the projection: every compaction, every
 * branch_summary and context_edit, every branch point, and the parent of every assistant message
 * (the context that request was built from; skipped with assistantParents: false, which the large
 * random sessions use to keep their files small). `extraInner` adds ids chosen by a script.
 * Each id appears once; kind precedence is default > leaf > inner; order is file order.
 */
export function selectCases(entries, extraInner = [], { assistantParents = true } = {}) {
	const children = childrenOf(entries);
	const defaultLeafId = entries.length ? entries[entries.length - 1].id : null;
	const wanted = new Set(extraInner);
	const byId = new Map(entries.map((e) => [e.id, e]));
	for (const e of entries) {
		if (e.type === "compaction" || e.type === "branch_summary" || e.type === "context_edit") wanted.add(e.id);
		if ((children.get(e.id)?.length ?? 0) >= 2) wanted.add(e.id);
		if (assistantParents && e.type === "message" && e.message?.role === "assistant" && e.parentId && byId.has(e.parentId)) {
			wanted.add(e.parentId);
		}
	}
	const cases = [];
	const seen = new Set();
	for (const e of entries) {
		// Duplicate ids (a defect Pi tolerates; its index keeps the later entry) get one case.
		if (seen.has(e.id)) continue;
		seen.add(e.id);
		const isLeaf = !children.has(e.id);
		let kind;
		if (e.id === defaultLeafId) kind = "default";
		else if (isLeaf) kind = "leaf";
		else if (wanted.has(e.id)) kind = "inner";
		else continue;
		cases.push({ leafId: e.id, kind });
	}
	return { defaultLeafId, cases };
}

/** Parent of each assistant message on the root→leaf path: the contexts the agent sent. */
export function perRequestCases(entries, leafId) {
	const byId = new Map(entries.map((e) => [e.id, e]));
	const children = childrenOf(entries);
	return pathTo(byId, leafId)
		.filter((e) => e.type === "message" && e.message?.role === "assistant" && e.parentId)
		.map((e) => ({ leafId: e.parentId, kind: children.has(e.parentId) ? "inner" : "leaf" }));
}

/** One projection case, computed by the real Pi functions. */
export async function projectCase(entries, { leafId, kind }, byId) {
	const pi = await loadPi();
	const ctx = pi.buildSessionContext(entries, leafId, byId);
	// Round-trip through JSON so the case holds exactly what JSON.stringify would write.
	const messages = ctx.messages;
	const llm = pi.convertToLlm(messages);
	return JSON.parse(
		JSON.stringify({ leafId, kind, messages, llm, model: ctx.model, thinkingLevel: ctx.thinkingLevel }),
	);
}

/** The full expected.json document for a session file. */
export async function expectedDocument(file, { tool, caseList, extraInner, assistantParents } = {}) {
	const { entries } = await readSession(file);
	const byId = new Map(entries.map((e) => [e.id, e]));
	const selected = selectCases(entries, extraInner, { assistantParents });
	const list = caseList ?? selected.cases;
	const cases = [];
	for (const c of list) cases.push(await projectCase(entries, c, byId));
	return {
		generator: { tool, "pi-coding-agent": PI_VERSION, node: process.versions.node },
		defaultLeafId: selected.defaultLeafId,
		cases,
	};
}

/** JSON text the way every fixture is written. */
export function jsonText(value) {
	return `${JSON.stringify(value, null, 2)}\n`;
}

/** Write a file atomically (temp file in the same directory, then rename). */
export function writeAtomic(file, text) {
	mkdirSync(dirname(file), { recursive: true });
	const tmp = `${file}.tmp-${process.pid}`;
	writeFileSync(tmp, text);
	renameSync(tmp, file);
}
