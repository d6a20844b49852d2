#!/usr/bin/env node
// bench-wire: how long REAL pi-ai 0.87.1 takes to assemble one provider request, per API, on the
// same 200-message contexts forge-replay's Rust bench uses (fixtures/wire/bench/<api>.case.json,
// written by src/gen-wire-cases.mjs).
//
// Usage (from tools/pi-oracle; Node 22 first on PATH):
//   node bench-wire.mjs [--cases DIR] [--iters N] [--warmup N] [--json]
//                       [--with-rust | --rust-json FILE] [--out FILE]
//
// One request = normalizeContext(context) + the API module's streamSimple() up to the moment pi-ai
// hands the payload to onPayload, + JSON.stringify(payload) (the body serialization the SDK would
// do next). onPayload then throws, so nothing is sent (fetch is also stubbed to throw).
// --with-rust runs `cargo bench -p forge-replay-wire --bench assemble` from the repository root and
// reads its JSON summary line; --rust-json reads such a line from a file. Either way the table gets
// a Rust column and the speed-up (pi-ai median / Rust mean, per request; times are wall-clock µs).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "../..");
const STOP = "PI_ORACLE_BENCH_STOP";

// Ambient provider settings would change the payloads; the bench contexts assume none.
for (const k of Object.keys(process.env)) {
	if (/^(PI_CACHE_RETENTION|AZURE_OPENAI_|AWS_|GOOGLE_|GCLOUD_)/.test(k)) delete process.env[k];
}

const args = process.argv.slice(2);
let casesDir = join(ROOT, "fixtures/wire/bench");
let iters = 300;
let warmup;
let asJson = false;
let withRust = false;
let rustJsonFile;
let outFile;
for (let i = 0; i < args.length; i++) {
	const a = args[i];
	if (a === "--cases") casesDir = resolve(args[++i]);
	else if (a === "--iters") iters = Number(args[++i]);
	else if (a === "--warmup") warmup = Number(args[++i]);
	else if (a === "--json") asJson = true;
	else if (a === "--with-rust") withRust = true;
	else if (a === "--rust-json") rustJsonFile = args[++i];
	else if (a === "--out") outFile = args[++i];
	else {
		console.error(`unexpected argument ${a}`);
		process.exit(2);
	}
}
if (!Number.isFinite(iters) || iters < 1) {
	console.error("--iters must be a positive number");
	process.exit(2);
}
warmup ??= Math.max(20, Math.floor(iters / 5));

globalThis.fetch = async () => {
	throw new Error(STOP);
};

const { resolveModel, dummyKeyFor, packageVersions } = await import("./src/wire-capture.mjs");
const piAi = await import("@earendil-works/pi-ai");

/** Times one request; resolves to microseconds. */
async function oneRequest(apiModule, model, caseJson, key) {
	let t1;
	const t0 = performance.now();
	const context = piAi.normalizeContext(caseJson.context);
	const options = {
		apiKey: key,
		maxRetries: 0,
		...(caseJson.options ?? {}),
		onPayload: (p) => {
			JSON.stringify(p);
			t1 = performance.now();
			throw new Error(STOP);
		},
	};
	const s = apiModule.streamSimple(model, context, options);
	const final = await s.result();
	if (t1 === undefined) throw new Error(`no payload: ${final?.errorMessage ?? "unknown"}`);
	return (t1 - t0) * 1000;
}

function readRust() {
	let text;
	if (rustJsonFile) text = readFileSync(rustJsonFile, "utf8");
	else if (withRust) {
		const r = spawnSync("cargo", ["bench", "-p", "forge-replay-wire", "--bench", "assemble"], {
			cwd: ROOT,
			encoding: "utf8",
			env: { ...process.env, WIRE_BENCH_ITERS: String(iters) },
			maxBuffer: 64 * 1024 * 1024,
		});
		if (r.status !== 0) {
			console.error(`cargo bench failed (exit ${r.status}):\n${r.stderr?.slice(-2000)}`);
			process.exit(1);
		}
		text = r.stdout;
	} else return null;
	const line = text
		.split("\n")
		.reverse()
		.find((l) => l.startsWith("{") && l.includes('"rust"'));
	if (!line) {
		console.error("no Rust summary line ({\"unit\":…,\"rust\":{…}}) found");
		process.exit(1);
	}
	return JSON.parse(line).rust;
}

const files = readdirSync(casesDir)
	.filter((f) => f.endsWith(".case.json"))
	.sort();
if (files.length === 0) {
	console.error(`no *.case.json in ${casesDir} (run src/gen-wire-cases.mjs --out ../../fixtures/wire)`);
	process.exit(2);
}

const results = {};
for (const f of files) {
	const caseJson = JSON.parse(readFileSync(join(casesDir, f), "utf8"));
	const model = await resolveModel(caseJson.model);
	const apiModule = await import(`@earendil-works/pi-ai/api/${model.api}`);
	const key = dummyKeyFor(model.api);
	for (let i = 0; i < warmup; i++) await oneRequest(apiModule, model, caseJson, key);
	const samples = [];
	for (let i = 0; i < iters; i++) samples.push(await oneRequest(apiModule, model, caseJson, key));
	samples.sort((a, b) => a - b);
	const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
	results[model.api] = {
		mean: Math.round(mean * 10) / 10,
		p50: Math.round(samples[Math.floor(samples.length / 2)] * 10) / 10,
		messages: caseJson.context.messages.length,
	};
	if (!asJson) {
		process.stderr.write(`${model.api.padEnd(26)} ${results[model.api].mean.toFixed(1).padStart(9)} µs/request (p50 ${results[model.api].p50.toFixed(1)})\n`);
	}
}

const rust = readRust();
const rows = Object.keys(results).sort();
const report = {
	unit: "us_per_request",
	iterations: iters,
	node: process.version,
	versions: await packageVersions(),
	// Mean and median wall time per request. The speed-up uses pi-ai's median (robust to other
	// processes stealing the CPU; never larger than its mean, so the ratio is conservative).
	piAi: Object.fromEntries(rows.map((api) => [api, results[api].mean])),
	piAiP50: Object.fromEntries(rows.map((api) => [api, results[api].p50])),
	...(rust ? { rust, speedup: {} } : {}),
};
if (rust) {
	for (const api of rows) {
		if (typeof rust[api] === "number" && rust[api] > 0) report.speedup[api] = Math.round((results[api].p50 / rust[api]) * 10) / 10;
	}
}

if (asJson) {
	process.stdout.write(`${JSON.stringify(report)}\n`);
} else {
	const head = `${"api".padEnd(26)} ${"pi-ai mean".padStart(11)} ${"pi-ai p50".padStart(10)}${rust ? ` ${"rust µs".padStart(10)} ${"speed-up".padStart(9)}` : ""}`;
	console.log(head);
	console.log("-".repeat(head.length));
	for (const api of rows) {
		const r = rust?.[api];
		const cols = rust ? ` ${(typeof r === "number" ? r.toFixed(1) : "-").padStart(10)} ${(report.speedup[api] !== undefined ? `${report.speedup[api]}×` : "-").padStart(9)}` : "";
		console.log(`${api.padEnd(26)} ${results[api].mean.toFixed(1).padStart(11)} ${results[api].p50.toFixed(1).padStart(10)}${cols}`);
	}
	console.log(JSON.stringify(report));
}
if (outFile) {
	const tmp = `${outFile}.tmp-${process.pid}`;
	writeFileSync(tmp, `${JSON.stringify(report, null, 2)}\n`);
	renameSync(tmp, outFile);
}
