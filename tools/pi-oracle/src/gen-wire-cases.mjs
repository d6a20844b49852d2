#!/usr/bin/env node
// gen-wire-cases: forge-replay's wire goldens from the REAL @earendil-works/pi-ai (0.87.1, or the
// release named by --pi).
//
// Usage (from tools/pi-oracle, Node 22 first on PATH):
//   node src/gen-wire-cases.mjs --out ../../fixtures/wire [--check] [--only SUBSTR] [--jobs N]
//   node src/gen-wire-cases.mjs --matrix --out /tmp/wire-matrix   (ad-hoc: scenarios × many models)
//   node src/gen-wire-cases.mjs --malformed --out /tmp/wire-malformed   (ad-hoc: malformed contexts × the ten APIs)
//   node src/gen-wire-cases.mjs --options --out /tmp/wire-options   (ad-hoc: option sets × models × both entries)
//   node src/gen-wire-cases.mjs --random 300 --seed 1 --out /tmp/wire-random   (ad-hoc: seeded random contexts, src/wire-random.mjs)
//   node src/gen-wire-cases.mjs --pi 1.3.0 --out ../../fixtures/releases/1.3.0/wire [--check]
//   node src/gen-wire-cases.mjs --pi 1.6.0 --matrix --out /tmp/wire-matrix-1.6.0   (any mode, any release)
//
// --pi R (default 0.87.1) runs the cases through release R (src/lib/release.mjs). For R other than
// 0.87.1: the same case inputs as 0.87.1's (built against 0.87.1's catalog; provider
// `azure-openai-responses` becomes `azure`; a case whose model R's catalog lacks is skipped and
// listed), every case file gains `"pi": R`, pi-ai's refusal or payload is kept whichever it is, and
// the golden run (no sweep flag) adds src/release-cases.mjs (release-aimed cases, for 1.6.0 the
// Anthropic thread sequences, for 1.3.0 and later the strict-tool limit fallback sequences) and
// writes DIFF-vs-0.87.1.json: per shared case, "equal" or the JSON
// paths of payload / wire body / headers that differ from fixtures/wire's 0.87.1 golden.
//
// For every case in src/wire-cases.mjs it writes
//   <out>/<name>.case.json      {model, context, options, entry?, env?}
//   <out>/<name>.expected.json  {generator, api, provider, modelId, payload, wire, bodyText, error?}
//   <out>/bench/<api>.case.json  200-message benchmark contexts (bench-wire.mjs and the Rust bench)
// where `payload` is the object pi-ai hands to onPayload (JSON round trip), `wire` the request
// that reached fetch ({url, method, headers (credential-free, non-volatile), body (parsed)}) or
// null for non-fetch transports, and `bodyText` the exact body string given to fetch.
// Each case runs in its own child process with a scrubbed environment plus the case's `env`.
// --check regenerates into memory and exits 1 if any committed file differs, is missing or is
// stale (a committed *.case.json / *.expected.json no case produces).
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { jsonDiff } from "./lib/json-diff.mjs";
import { activateRelease, atLeast, DEFAULT_RELEASE, takeReleaseArg } from "./lib/release.mjs";

const SELF = fileURLToPath(import.meta.url);
const REPO = resolve(fileURLToPath(new URL("../../..", import.meta.url)));

function stableText(value) {
	return `${JSON.stringify(value, null, 2)}\n`;
}

function writeAtomic(path, text) {
	const tmp = `${path}.tmp-${process.pid}`;
	writeFileSync(tmp, text);
	renameSync(tmp, path);
}

// ------------------------------------------------------------------------------------------
// Child mode: --run-case FILE -> prints the expected JSON on stdout.
async function runChild(caseFile) {
	const { captureCase, captureSequence, packageVersions } = await import("./wire-capture.mjs");
	const hard = setTimeout(() => {
		console.error("gen-wire-cases: hard timeout");
		process.exit(3);
	}, 20000);
	hard.unref();
	const caseJson = JSON.parse(readFileSync(caseFile, "utf8"));
	const expectMode = process.env.PI_ORACLE_EXPECT_ERROR ?? "";
	const expectError = expectMode === "1";
	const acceptAny = expectMode === "any";
	if (Array.isArray(caseJson.requests)) {
		// A sequence: several requests in this one process (see captureSequence).
		const { resolveModel } = await import("./wire-capture.mjs");
		const model = await resolveModel(caseJson.model);
		const requests = await captureSequence(caseJson);
		const expected = {
			generator: { tool: "forge-replay tools/pi-oracle gen-wire-cases", ...(await packageVersions()), entry: caseJson.entry ?? "streamSimple" },
			api: model.api,
			provider: model.provider,
			modelId: model.id,
			requests,
		};
		process.stdout.write(stableText(expected));
		process.exit(0);
	}
	let r;
	try {
		r = await captureCase(caseJson);
	} catch (e) {
		// pi-ai threw before any API code ran (normalizeContext reading `null.length`): a refusal.
		const { resolveModel } = await import("./wire-capture.mjs");
		r = { model: await resolveModel(caseJson.model), entry: caseJson.entry ?? "streamSimple", payload: null, wire: null, error: e instanceof Error ? e.message : String(e) };
	}
	if (r.payload === null && !((expectError || acceptAny) && r.error)) {
		console.error(`gen-wire-cases: ${caseFile}: ${r.error ?? "no payload"}`);
		process.exit(1);
	}
	if (r.payload !== null && expectError) {
		console.error(`gen-wire-cases: ${caseFile}: expected a refusal, pi-ai built a payload`);
		process.exit(1);
	}
	const expected = {
		generator: { tool: "forge-replay tools/pi-oracle gen-wire-cases", ...(await packageVersions()), entry: r.entry },
		api: r.model.api,
		provider: r.model.provider,
		modelId: r.model.id,
		payload: r.payload,
		wire: r.wire ? { url: r.wire.url, method: r.wire.method, headers: r.wire.headers, body: r.wire.body } : null,
		bodyText: r.wire ? r.wire.bodyText : null,
	};
	// payload null: pi-ai refused the request (the message is the golden). payload set but no
	// request: pi-ai (or its SDK) failed after onPayload, before any I/O (e.g. Google's SDK refuses
	// empty `contents`).
	if (r.error) expected.error = r.error;
	process.stdout.write(stableText(expected));
	process.exit(0);
}

// ------------------------------------------------------------------------------------------
// Parent mode

/** Environment for a case: no ambient provider settings, only what the case declares. */
function childEnv(caseEnv, expectError) {
	const env = { PATH: process.env.PATH ?? "", HOME: tmpdir(), TZ: "UTC", LANG: "C.UTF-8", NO_PROXY: "*" };
	if (expectError === "any") env.PI_ORACLE_EXPECT_ERROR = "any";
	else if (expectError) env.PI_ORACLE_EXPECT_ERROR = "1";
	return { ...env, ...(caseEnv ?? {}) };
}

function runCase(caseFile, caseEnv, expectError, release) {
	return new Promise((resolvePromise, reject) => {
		const child = spawn(process.execPath, [SELF, "--run-case", caseFile, "--pi", release], { env: childEnv(caseEnv, expectError), stdio: ["ignore", "pipe", "pipe"] });
		// Decoded once at the end: a character split across two pipe chunks must not become two
		// U+FFFD (which `out += chunk` does).
		const out = [];
		let err = "";
		child.stdout.on("data", (d) => {
			out.push(d);
		});
		child.stderr.on("data", (d) => {
			err += d;
		});
		child.on("close", (code) => {
			if (code === 0) resolvePromise(Buffer.concat(out).toString("utf8"));
			else reject(new Error(`${caseFile}: exit ${code}: ${err.trim()}`));
		});
	});
}

async function mapLimit(items, limit, fn) {
	const results = new Array(items.length);
	let next = 0;
	const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
		while (next < items.length) {
			const i = next++;
			results[i] = await fn(items[i], i);
		}
	});
	await Promise.all(workers);
	return results;
}

/**
 * A 0.87.1 case for release `release`: `"pi"` first, provider `azure-openai-responses` renamed
 * `azure` from 1.3, refusal-or-payload accepted; `{name, absent}` when the release's catalog lacks
 * the model.
 */
function adaptCase(c, release, lookup) {
	const model = structuredClone(c.case.model);
	const catalogModel = !(model.api && model.baseUrl);
	if (atLeast(release, "1.3.0") && model.provider === "azure-openai-responses") model.provider = "azure";
	if (catalogModel && !lookup(model.provider, model.id)) return { name: c.name, absent: `${model.provider}/${model.id}` };
	return { name: c.name, case: { pi: release, ...c.case, model }, expectError: "any" };
}

/** DIFF-vs-0.87.1.json: each shared case equal to its 0.87.1 golden, or the paths that differ. */
function diffDocument(release, shared, absent, produced, baseDir) {
	const cases = {};
	let equal = 0;
	let differ = 0;
	let requestDiffers = 0;
	for (const name of [...shared].sort()) {
		const basePath = join(baseDir, `${name}.expected.json`);
		if (!existsSync(basePath)) throw new Error(`DIFF: no 0.87.1 golden ${basePath}`);
		const base = JSON.parse(readFileSync(basePath, "utf8"));
		const mine = JSON.parse(produced.get(`${name}.expected.json`));
		const entry = {};
		const part = (key, a, b) => {
			const d = jsonDiff(a ?? null, b ?? null);
			if (d.length) entry[key] = d;
		};
		part("payload", base.payload, mine.payload);
		part("body", base.wire?.body, mine.wire?.body);
		part("headers", base.wire?.headers, mine.wire?.headers);
		if ((base.wire?.url ?? null) !== (mine.wire?.url ?? null)) entry.url = { from: base.wire?.url ?? null, to: mine.wire?.url ?? null };
		if ((base.wire?.method ?? null) !== (mine.wire?.method ?? null)) entry.method = { from: base.wire?.method ?? null, to: mine.wire?.method ?? null };
		if (!entry.body && (base.bodyText ?? null) !== (mine.bodyText ?? null)) entry.bodyText = "differs (same parsed body: key order or number spelling)";
		if ((base.error ?? null) !== (mine.error ?? null)) entry.error = { from: base.error ?? null, to: mine.error ?? null };
		if ((base.provider ?? null) !== (mine.provider ?? null)) entry.provider = { from: base.provider, to: mine.provider };
		if (entry.payload || entry.body || entry.url || entry.method || entry.bodyText || entry.error) requestDiffers++;
		if (Object.keys(entry).length === 0) {
			cases[name] = "equal";
			equal++;
		} else {
			cases[name] = entry;
			differ++;
		}
	}
	const absentSorted = Object.fromEntries([...absent.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
	return {
		release,
		base: "0.87.1",
		about: "each case of fixtures/wire (pi-ai 0.87.1) run through this release: \"equal\" (payload, wire body, headers, url, bodyText, error all equal) or the JSON paths that differ (op added/removed/changed, paths as forge-replay diff prints them); absent: the model is not in this release's catalog, so the case is skipped",
		summary: { cases: shared.size + absent.size, equal, differ, absent: absent.size, differBeyondHeaders: requestDiffers },
		absent: absentSorted,
		cases,
	};
}

async function main() {
	const args = process.argv.slice(2);
	const release = takeReleaseArg(args);
	activateRelease(release);
	if (args[0] === "--run-case") return runChild(args[1]);
	let outDir;
	let check = false;
	let matrix = false;
	let malformed = false;
	let optionsSweep = false;
	let random = 0;
	let seed = 1;
	let only;
	let jobs = 2;
	for (let i = 0; i < args.length; i++) {
		const a = args[i];
		if (a === "--out") outDir = args[++i];
		else if (a === "--check") check = true;
		else if (a === "--matrix") matrix = true;
		else if (a === "--malformed") malformed = true;
		else if (a === "--options") optionsSweep = true;
		else if (a === "--random") random = Number(args[++i]);
		else if (a === "--seed") seed = Number(args[++i]);
		else if (a === "--only") only = args[++i];
		else if (a === "--jobs") jobs = Number(args[++i]);
		else {
			console.error(`unexpected argument ${a}`);
			process.exit(2);
		}
	}
	if (!outDir) {
		console.error("usage: gen-wire-cases --out DIR [--pi RELEASE] [--check] [--matrix|--malformed|--options|--random N [--seed S]] [--only SUBSTR] [--jobs N]");
		process.exit(2);
	}
	if (!Number.isInteger(random) || random < 0 || !Number.isInteger(seed) || seed < 0) {
		console.error("--random N and --seed S take non-negative integers");
		process.exit(2);
	}
	outDir = resolve(outDir);
	const { buildCases, matrixCases, malformedCases, optionsCases } = await import("./wire-cases.mjs");
	const { randomCases, reachSummary } = await import("./wire-random.mjs");
	let cases = random
		? await randomCases(random, seed)
		: matrix
		? await matrixCases()
		: malformed
			? await malformedCases()
			: optionsSweep
				? await optionsCases()
				: await buildCases();
	// The random cases before adaptCase (it keeps only the case): their reach counters.
	const generated = random ? new Map(cases.map((c) => [c.name, c])) : null;
	const sweep = matrix || malformed || optionsSweep || random > 0;
	// Ad-hoc runs keep whatever pi-ai does: a payload, or its refusal as the golden.
	matrix ||= malformed || optionsSweep || random > 0;
	const other = release !== DEFAULT_RELEASE;
	const shared = new Set();
	const absent = new Map();
	if (other) {
		const { getBuiltinModel } = await import("@earendil-works/pi-ai/providers/all");
		const adapted = [];
		for (const c of cases) {
			const a = adaptCase(c, release, getBuiltinModel);
			if (a.absent) absent.set(a.name, a.absent);
			else {
				adapted.push(a);
				shared.add(a.name);
			}
		}
		cases = adapted;
		if (!sweep) {
			const { releaseCases, threadCases, strictCases } = await import("./release-cases.mjs");
			for (const c of [...releaseCases(release, getBuiltinModel), ...threadCases(release, getBuiltinModel), ...strictCases(release, getBuiltinModel)]) {
				if (c.absent) console.error(`gen-wire-cases: ${release}: skip ${c.name} (${c.absent} not in the catalog)`);
				else cases.push(c);
			}
		}
		if (absent.size) {
			const names = [...absent.keys()];
			const shown = names.length > 20 ? `${names.slice(0, 20).join(", ")}, … (${names.length - 20} more)` : names.join(", ");
			console.error(`gen-wire-cases: ${release}: ${absent.size} case(s) skipped, model not in the catalog: ${shown}`);
		}
	}
	const names = new Set();
	for (const c of cases) {
		if (names.has(c.name)) throw new Error(`duplicate case name ${c.name}`);
		names.add(c.name);
	}
	if (only) cases = cases.filter((c) => c.name.includes(only));
	const reach = random ? reachSummary(cases.map((c) => generated.get(c.name))) : null;

	const scratch = mkdtempSync(join(tmpdir(), "wire-cases-"));
	let failures = 0;
	const produced = new Map();
	try {
		await mapLimit(cases, jobs, async (c) => {
			const caseText = stableText(c.case);
			const caseFile = join(scratch, `${c.name}.case.json`);
			writeFileSync(caseFile, caseText);
			try {
				const expectedText = await runCase(caseFile, c.case.env, c.expectError, release);
				produced.set(`${c.name}.case.json`, caseText);
				produced.set(`${c.name}.expected.json`, expectedText);
			} catch (e) {
				// In a matrix run, a case pi-ai refuses is kept as a refusal golden.
				if (matrix) {
					try {
						const expectedText = await runCase(caseFile, c.case.env, true, release);
						produced.set(`${c.name}.case.json`, caseText);
						produced.set(`${c.name}.expected.json`, expectedText);
						return;
					} catch {}
				}
				failures++;
				console.error(`FAIL ${c.name}: ${e.message}`);
			}
		});
	} finally {
		rmSync(scratch, { recursive: true, force: true });
	}
	// Benchmark contexts: plain case files, no pi-ai run needed (0.87.1 only).
	if (!only && !matrix && !other) {
		const { benchCases } = await import("./wire-cases.mjs");
		for (const b of benchCases()) produced.set(`bench/${b.api}.case.json`, stableText(b.case));
	}
	if (reach) {
		// What the generator reached, per API: how many cases had at least one of each.
		produced.set("RANDOM-REACH.json", stableText({ release, seed, cases: cases.length, perApi: reach }));
		console.error(`gen-wire-cases: random seed ${seed}: ${cases.length} cases (reach per API in RANDOM-REACH.json)`);
	}
	if (failures) {
		console.error(`gen-wire-cases: ${failures} case(s) failed`);
		process.exit(1);
	}
	if (other && !sweep && !only) {
		const doc = diffDocument(release, shared, absent, produced, join(REPO, "fixtures", "wire"));
		produced.set("DIFF-vs-0.87.1.json", stableText(doc));
		console.error(`gen-wire-cases: ${release} vs 0.87.1: ${doc.summary.equal} equal, ${doc.summary.differ} differ, ${doc.summary.absent} absent`);
	}

	if (check) {
		let drift = 0;
		for (const [file, text] of [...produced.entries()].sort()) {
			const path = join(outDir, file);
			const committed = existsSync(path) ? readFileSync(path, "utf8") : null;
			if (committed !== text) {
				drift++;
				console.error(`${committed === null ? "missing" : "differs"}: ${file}`);
			}
		}
		if (!only && existsSync(outDir)) {
			for (const sub of ["", "bench/"]) {
				if (!existsSync(join(outDir, sub))) continue;
				for (const f of readdirSync(join(outDir, sub))) {
					const rel = `${sub}${f}`;
					if ((f.endsWith(".case.json") || f.endsWith(".expected.json") || f === "DIFF-vs-0.87.1.json") && !produced.has(rel)) {
						drift++;
						console.error(`stale: ${rel}`);
					}
				}
			}
		}
		console.log(`gen-wire-cases --check: ${cases.length} cases, ${drift} drifted file(s)`);
		process.exit(drift ? 1 : 0);
	}

	mkdirSync(outDir, { recursive: true });
	if (!other) mkdirSync(join(outDir, "bench"), { recursive: true });
	for (const [file, text] of [...produced.entries()].sort()) writeAtomic(join(outDir, file), text);
	console.log(`gen-wire-cases: wrote ${cases.length} cases to ${outDir}`);
}

await main();
