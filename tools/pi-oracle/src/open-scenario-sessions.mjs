// Opens every compiled forge-replay scenario session with the real pi-coding-agent 0.87.1
// SessionManager and records what Pi sees, so the Rust tests (which never need Node) can check
// that the scenario compiler writes sessions Pi loads unchanged.
//
// Usage (from tools/pi-oracle, Node 22):
//   PATH=$PWD/node_modules/.bin:$PATH node src/open-scenario-sessions.mjs COMPILED_DIR OUT.json
// COMPILED_DIR holds one directory per scenario (from `forge-replay scenario --out`), each with
// session.jsonl and scenario.json. For each session the output records:
//   - sessionSha256 (of the bytes Pi opened; the Rust test compares it with a fresh compile),
//   - whether SessionManager.open() kept the file byte-identical and returned the same header
//     and entries as the JSON lines,
//   - the default leaf and, for every assistant entry on any path, the number of messages and the
//     SHA-256 of JSON.stringify(normalizeContext({messages: convertToLlm(buildSessionContext(
//     entries, assistant.parentId).messages)}).messages): the transcript Pi's agent would send.
// Never writes to COMPILED_DIR's session files (each is copied to a temp dir before opening).
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [compiledDir, outFile] = process.argv.slice(2);
if (!compiledDir || !outFile) {
	console.error("usage: open-scenario-sessions.mjs COMPILED_DIR OUT.json");
	process.exit(2);
}

const pi = await import("@earendil-works/pi-coding-agent");
const { normalizeContext } = await import("@earendil-works/pi-ai");
const sha256 = (text) => createHash("sha256").update(text).digest("hex");

const results = [];
for (const name of readdirSync(compiledDir).sort()) {
	const dir = join(compiledDir, name);
	let bytes;
	try {
		bytes = readFileSync(join(dir, "session.jsonl"), "utf8");
	} catch {
		continue;
	}
	const lines = bytes.split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l));
	const tmp = mkdtempSync(join(tmpdir(), "forge-replay-open-"));
	const file = join(tmp, "session.jsonl");
	copyFileSync(join(dir, "session.jsonl"), file);
	const sm = pi.SessionManager.open(file, tmp);
	const header = sm.getHeader();
	const entries = sm.getEntries();
	const headerEqual = JSON.stringify(header) === JSON.stringify(lines[0]);
	const entriesEqual = JSON.stringify(entries) === JSON.stringify(lines.slice(1));
	const unchangedOnDisk = readFileSync(file, "utf8") === bytes;
	const requests = [];
	for (const e of entries) {
		if (e.type !== "message" || e.message.role !== "assistant") continue;
		const ctx = pi.buildSessionContext(entries, e.parentId);
		const llm = normalizeContext({ messages: pi.convertToLlm(ctx.messages) }).messages;
		requests.push({
			entryId: e.id,
			parentId: e.parentId,
			model: ctx.model ? `${ctx.model.provider}/${ctx.model.modelId}` : null,
			thinkingLevel: ctx.thinkingLevel,
			messages: llm.length,
			llmSha256: sha256(JSON.stringify(llm)),
		});
	}
	results.push({
		name,
		sessionSha256: sha256(bytes),
		entries: entries.length,
		sessionId: sm.getSessionId(),
		leafId: sm.getLeafId(),
		headerEqual,
		entriesEqual,
		unchangedOnDisk,
		requests,
	});
	rmSync(tmp, { recursive: true, force: true });
}

const doc = { generator: "tools/pi-oracle/src/open-scenario-sessions.mjs", pi: "0.87.1", scenarios: results };
const tmpOut = `${outFile}.tmp`;
writeFileSync(tmpOut, JSON.stringify(doc, null, 2) + "\n");
renameSync(tmpOut, outFile);
const bad = results.filter((r) => !r.headerEqual || !r.entriesEqual || !r.unchangedOnDisk);
console.log(`${results.length} sessions opened, ${bad.length} differ${bad.length ? ": " + bad.map((b) => b.name).join(", ") : ""}`);
process.exit(bad.length ? 1 : 0);
