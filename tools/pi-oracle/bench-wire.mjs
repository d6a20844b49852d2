#!/usr/bin/env node
// bench-wire: how long REAL pi-ai 0.87.1 takes to assemble one provider request, per API, on the
// same 200-message contexts forge-replay's Rust bench uses (fixtures/wire/bench/<api>.case.json,
// written by src/gen-wire-cases.mjs).
//
// Usage (from tools/pi-oracle; Node 22 first on PATH):
//   node bench-wire.mjs [--cases DIR] [--iters N] [--warmup N] [--json]
//                       [--with-rust | --rust-json FILE] [--out FILE]
//
// One request = normalizeContext(context) + the API module's streamSimple() up to the moment the
// request leaves pi-ai: its SDK calling fetch (the body is serialized by then), or, for the
// non-fetch transports (Bedrock's AWS SDK, Codex's WebSocket), onPayload + JSON.stringify(payload).
// The fetch stub and onPayload throw, so nothing is sent.
// --with-rust runs `cargo bench -p forge-replay-wire --bench assemble` from the repository root and
// reads its JSON summary line; --rust-json reads such a line from a file. Either way the table gets
// a Rust column and the speed-up: pi-ai CPU time / Rust CPU time per request (CPU time, because the
// machine may be shared; wall-clock mean and median are reported too). It also gets the Rust
// "write floor" (the least time writing that API's finished body from a value tree takes) and the
// "ceiling": pi-ai CPU / write floor, the greatest speed-up a builder over a value-tree transcript
// could reach, since it must at least write those bytes.
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

// The request "leaves" pi-ai when its SDK calls fetch: stop the clock there.
let stopClock;
globalThis.fetch = async () => {
	stopClock?.();
	throw new Error(STOP);
};
/** APIs whose transport is not fetch: the clock stops at onPayload (+ JSON.stringify). */
const NON_FETCH_APIS = new Set(["bedrock-converse-stream", "openai-codex-responses"]);

const { resolveModel, dummyKeyFor, packageVersions } = await import("./src/wire-capture.mjs");
const piAi = await import("@earendil-works/pi-ai");

/** Times one request; resolves to microseconds. */
async function oneRequest(apiModule, model, caseJson, key) {
	let t1;
	const viaFetch = !NON_FETCH_APIS.has(model.api);
	stopClock = () => {
		t1 ??= performance.now();
	};
	const t0 = performance.now();
	const context = piAi.normalizeContext(caseJson.context);
	const options = {
		apiKey: key,
		maxRetries: 0,
		...(caseJson.options ?? {}),
		onPayload: (p) => {
			if (viaFetch) return undefined; // let the SDK serialize and call fetch
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
	// {"rust": {api: wall µs}, "rust_cpu": {api: CPU µs}} (older: {"rust": {api: {cpu_us, wall_us}}}).
	// Newer lines add "floor_cpu": {api: {write_tree, serde_json, memcpy, body_bytes}}: the least
	// time writing that API's finished body from a value tree takes (best of 20 batches).
	const summary = JSON.parse(line);
	if (summary.rust_cpu) {
		return Object.fromEntries(
			Object.entries(summary.rust_cpu).map(([api, cpu]) => [
				api,
				{ cpu_us: cpu, wall_us: summary.rust?.[api], ...(summary.floor_cpu?.[api] ? { floor: summary.floor_cpu[api] } : {}) },
			]),
		);
	}
	return summary.rust;
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
	const cpu0 = process.cpuUsage();
	for (let i = 0; i < iters; i++) samples.push(await oneRequest(apiModule, model, caseJson, key));
	const cpu = process.cpuUsage(cpu0);
	samples.sort((a, b) => a - b);
	const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
	const round = (x) => Math.round(x * 10) / 10;
	results[model.api] = {
		// Process CPU time per request (user + system, all threads incl. GC), over the timed loop.
		cpu: round((cpu.user + cpu.system) / iters),
		mean: round(mean),
		p50: round(samples[Math.floor(samples.length / 2)]),
		messages: caseJson.context.messages.length,
	};
	if (!asJson) {
		const r = results[model.api];
		process.stderr.write(`${model.api.padEnd(26)} ${r.cpu.toFixed(1).padStart(9)} µs CPU/request, wall mean ${r.mean.toFixed(1)} p50 ${r.p50.toFixed(1)}\n`);
	}
}

/** The Rust bench's CPU µs per request: `{cpu_us, wall_us}` or a bare number (older format). */
function rustCpu(v) {
	if (typeof v === "number") return v;
	if (v && typeof v.cpu_us === "number") return v.cpu_us;
	return undefined;
}

const rust = readRust();
const rows = Object.keys(results).sort();
const report = {
	unit: "us_per_request",
	iterations: iters,
	node: process.version,
	versions: await packageVersions(),
	// Per API: CPU µs per request (the figure compared), and wall-clock mean and median.
	piAi: Object.fromEntries(rows.map((api) => [api, { cpu_us: results[api].cpu, wall_us: results[api].mean, wall_p50_us: results[api].p50 }])),
	...(rust ? { rust, speedup: {}, ceiling: {} } : {}),
};
if (rust) {
	for (const api of rows) {
		const r = rustCpu(rust[api]);
		if (r !== undefined && r > 0) report.speedup[api] = Math.round((results[api].cpu / r) * 10) / 10;
		// The greatest speed-up any builder over a value-tree transcript could show: pi-ai's time
		// over the time just writing the finished body's bytes from a tree takes in Rust.
		const w = rust[api]?.floor?.write_tree;
		if (w > 0) report.ceiling[api] = Math.round((results[api].cpu / w) * 10) / 10;
	}
}

if (asJson) {
	process.stdout.write(`${JSON.stringify(report)}\n`);
} else {
	const head = `${"api (µs per request)".padEnd(26)} ${"pi-ai CPU".padStart(10)} ${"wall p50".padStart(9)}${rust ? ` ${"rust CPU".padStart(10)} ${"speed-up".padStart(9)} ${"write floor".padStart(11)} ${"ceiling".padStart(8)}` : ""}`;
	console.log(head);
	console.log("-".repeat(head.length));
	for (const api of rows) {
		const r = rust ? rustCpu(rust[api]) : undefined;
		const w = rust?.[api]?.floor?.write_tree;
		const cols = rust
			? ` ${(r !== undefined ? r.toFixed(1) : "-").padStart(10)} ${(report.speedup[api] !== undefined ? `${report.speedup[api]}×` : "-").padStart(9)}` +
				` ${(w !== undefined ? w.toFixed(1) : "-").padStart(11)} ${(report.ceiling[api] !== undefined ? `${report.ceiling[api]}×` : "-").padStart(8)}`
			: "";
		console.log(`${api.padEnd(26)} ${results[api].cpu.toFixed(1).padStart(10)} ${results[api].p50.toFixed(1).padStart(9)}${cols}`);
	}
	console.log(JSON.stringify(report));
}
if (outFile) {
	const tmp = `${outFile}.tmp-${process.pid}`;
	writeFileSync(tmp, `${JSON.stringify(report, null, 2)}\n`);
	renameSync(tmp, outFile);
}
