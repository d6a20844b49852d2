#!/usr/bin/env node
// Scripted sessions written by the REAL pi-coding-agent 0.87.1 SessionManager, plus a few
// hand-written legacy/edge files, each with the projections real Pi computes for it.
//
//   node src/sessions.mjs [--out DIR] [--only NAME[,NAME…]] [--list]
//
// For every session NAME this writes DIR/NAME/session.jsonl and DIR/NAME/expected.json
// (DIR defaults to <repo>/fixtures/sessions). Projections are computed from the file as read
// back from disk (parse + migrate in memory; the file is never rewritten).
// Ids, timestamps and random bytes are deterministic: see lib/determinism.mjs.
import { installDeterminism, rewind } from "./lib/determinism.mjs";

installDeterminism();

const { mkdtempSync, readFileSync, rmSync } = await import("node:fs");
const { tmpdir } = await import("node:os");
const { dirname, join, resolve } = await import("node:path");
const { fileURLToPath } = await import("node:url");
const { expectedDocument, jsonText, loadPi, writeAtomic } = await import("./lib/projection.mjs");
const { SESSIONS } = await import("./lib/session-scripts.mjs");

const TOOL = "tools/pi-oracle/src/sessions.mjs";
const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..", "..");

const args = process.argv.slice(2);
const opt = (name) => {
	const i = args.indexOf(name);
	return i >= 0 ? args[i + 1] : undefined;
};
if (args.includes("--list")) {
	for (const s of SESSIONS) process.stdout.write(`${s.name}\t${s.about}\n`);
	process.exit(0);
}
const outDir = resolve(opt("--out") ?? join(repo, "fixtures", "sessions"));
const only = opt("--only")?.split(",");
const pi = await loadPi();
const scratch = mkdtempSync(join(tmpdir(), "pi-oracle-sessions-"));

try {
	for (const [index, spec] of SESSIONS.entries()) {
		if (only && !only.includes(spec.name)) continue;
		// Each session starts from its own fixed instant and id counter.
		rewind(`2026-01-${String(index + 1).padStart(2, "0")}T09:00:00.000Z`);
		const target = join(outDir, spec.name, "session.jsonl");
		let extraInner = [];
		if (spec.build) {
			const dir = join(scratch, spec.name);
			const sm = pi.SessionManager.create(spec.cwd ?? "/home/dev/project", dir, { id: spec.id });
			extraInner = (await spec.build(sm, pi)) ?? [];
			writeAtomic(target, readFileSync(sm.getSessionFile(), "utf8"));
		} else {
			writeAtomic(target, spec.text());
		}
		spec.verify?.(readFileSync(target, "utf8"));
		const doc = await expectedDocument(target, {
			tool: TOOL,
			extraInner,
			assistantParents: spec.selection !== "structural",
		});
		writeAtomic(join(outDir, spec.name, "expected.json"), jsonText(doc));
		process.stderr.write(`${spec.name}: ${doc.cases.length} cases\n`);
	}
} finally {
	rmSync(scratch, { recursive: true, force: true });
}
