#!/usr/bin/env node
// Project a Pi session file through the real pi-coding-agent 0.87.1 functions, read-only.
//
//   node src/project.mjs FILE.jsonl [--all | --leaves | --per-request] [--leaf ID ...] [--out FILE]
//
//   --all          (default) the fixture selection: every leaf, the default leaf, and inner entries
//                  (compactions, branch summaries, context edits, branch points, assistant parents)
//   --leaves       every leaf and the default leaf only
//   --leaf ID      only these entries (repeatable); with --per-request, the leaf whose path is used
//   --per-request  the parent of every assistant entry on the root→leaf path (default leaf unless
//                  --leaf): the context each recorded request was built from
//   --out FILE     write atomically to FILE instead of stdout
//
// Prints {"generator", "defaultLeafId", "cases": [{"leafId","kind","messages","llm","model","thinkingLevel"}]},
// the same shape as fixtures/sessions/*/expected.json. The input is parsed and migrated in memory
// (parseSessionEntries + migrateSessionEntries), never rewritten. v1 files get migration ids
// "00000001", "00000002", … because the id source is made deterministic.
import { installDeterminism } from "./lib/determinism.mjs";

installDeterminism();

const { childrenOf, expectedDocument, jsonText, perRequestCases, readSession, selectCases, writeAtomic } = await import(
	"./lib/projection.mjs"
);

const TOOL = "tools/pi-oracle/src/project.mjs";

function usage(message) {
	if (message) process.stderr.write(`project: ${message}\n`);
	process.stderr.write("usage: project.mjs FILE.jsonl [--all | --leaves | --per-request] [--leaf ID ...] [--out FILE]\n");
	process.exit(2);
}

const args = process.argv.slice(2);
let file;
let mode = "all";
let out;
const leafIds = [];
for (let i = 0; i < args.length; i++) {
	const a = args[i];
	if (a === "--all" || a === "--leaves" || a === "--per-request") mode = a.slice(2);
	else if (a === "--leaf") leafIds.push(args[++i] ?? usage("--leaf needs an id"));
	else if (a === "--out") out = args[++i] ?? usage("--out needs a path");
	else if (a === "-h" || a === "--help") usage();
	else if (a.startsWith("--")) usage(`unknown option ${a}`);
	else if (!file) file = a;
	else usage(`unexpected argument ${a}`);
}
if (!file) usage("missing session file");

const { entries } = await readSession(file);
const byId = new Map(entries.map((e) => [e.id, e]));
for (const id of leafIds) if (!byId.has(id)) usage(`no entry ${id} in ${file}`);
const selected = selectCases(entries);
const children = childrenOf(entries);
const kindOf = (id) => (id === selected.defaultLeafId ? "default" : children.has(id) ? "inner" : "leaf");

let caseList;
if (mode === "per-request") {
	caseList = perRequestCases(entries, leafIds[0] ?? selected.defaultLeafId);
	if (leafIds.length > 1) usage("--per-request takes at most one --leaf");
} else if (leafIds.length) {
	caseList = leafIds.map((id) => ({ leafId: id, kind: kindOf(id) }));
} else if (mode === "leaves") {
	caseList = selected.cases.filter((c) => c.kind !== "inner");
} else {
	caseList = selected.cases;
}
caseList = caseList.map((c) => ({ leafId: c.leafId, kind: kindOf(c.leafId) }));

const doc = await expectedDocument(file, { tool: TOOL, caseList });
if (out) writeAtomic(out, jsonText(doc));
else process.stdout.write(jsonText(doc));
