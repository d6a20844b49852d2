#!/usr/bin/env node
// pricing: pi-ai's own `calculateCost(model, usage)` on generated (model, usage) cases, per Pi
// release. The same case list for every release (so the files line up): models picked from the
// union of the three catalogs, so some are absent from a release (recorded as absent).
//
//   node src/pricing.mjs --pi 1.6.0 --out ../../fixtures/releases/1.6.0/pricing [--check]
//
// Writes <out>/cases.json:
//   {generator, release, function, about, summary, cases: [
//     {name, model: {provider, id}, usage, absent: true}                      (not in this catalog)
//     {name, model, usage, modelCost, cost: {input, output, cacheRead, cacheWrite, total, …}}
//     {name, model, usage, modelCost, error}                                   (calculateCost threw)
//   ]}
// `usage` is exactly the object handed to calculateCost (`cost` starts as all zeros);
// `modelCost` is the catalog model's `cost` (rates in $ per million tokens, `tiers`);
// `cost` is what calculateCost returned, every value as JavaScript prints it (`String(v)`: "1e-7",
// "0.30000000000000004", "NaN"), booleans as booleans (1.6's `totalFromProvider`).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { activateRelease, packageVersions, RELEASES, releaseDir, takeReleaseArg } from "./lib/release.mjs";

const args = process.argv.slice(2);
const release = takeReleaseArg(args);
activateRelease(release);
const opt = (name) => {
	const i = args.indexOf(name);
	return i >= 0 ? args[i + 1] : undefined;
};
const outDir = opt("--out");
const check = args.includes("--check");
if (!outDir) {
	console.error("usage: pricing --out DIR [--pi RELEASE] [--check]");
	process.exit(2);
}

/** Chat models of one release's catalog data: Map "provider/id" → model (provider `azure` for 0.87.1's `azure-openai-responses`). */
function catalogOf(r) {
	const dir = join(releaseDir(r), "node_modules", "@earendil-works", "pi-ai", "dist", "providers", "data");
	const out = new Map();
	for (const f of readdirSync(dir).filter((n) => n.endsWith(".json") && !n.startsWith(".")).sort()) {
		const data = JSON.parse(readFileSync(join(dir, f), "utf8"));
		for (const group of Object.values(data)) {
			for (const m of Object.values(group)) {
				if ((m.type ?? "chat") !== "chat") continue;
				const provider = m.provider === "azure-openai-responses" ? "azure" : m.provider;
				out.set(`${provider}/${m.id}`, m);
			}
		}
	}
	return out;
}

// Models: fixed picks across providers, then tiered models (rate tiers by prompt size) from the
// union of the three catalogs, then models only some releases have.
const PICKS = [
	"anthropic/claude-opus-4-8",
	"anthropic/claude-sonnet-4-6",
	"anthropic/claude-haiku-4-5",
	"anthropic/claude-opus-5",
	"anthropic/claude-sonnet-4-5",
	"openai/gpt-5.5",
	"openai/gpt-5",
	"openai/gpt-4.1",
	"openai/o3-mini",
	"azure/gpt-5.5",
	"openai-codex/gpt-5.5",
	"moonshotai/kimi-k3",
	"deepseek/deepseek-v4-pro",
	"groq/openai/gpt-oss-120b",
	"openrouter/openai/gpt-5.5",
	"openrouter/anthropic/claude-opus-4.5",
	"mistral/mistral-large-latest",
	"mistral/magistral-medium-latest",
	"google/gemini-2.5-pro",
	"google/gemini-2.5-flash",
	"google/gemini-3.1-pro-preview",
	"google-vertex/gemini-2.5-flash",
	"amazon-bedrock/anthropic.claude-opus-4-8",
	"amazon-bedrock/amazon.nova-pro-v1:0",
	"radius/balanced",
	"radius/cheap",
	"xai/grok-4.6",
	"zai/glm-5.3",
	"together/Qwen/Qwen3.7-Max",
	"fireworks/accounts/fireworks/models/kimi-k3",
];

/** Usage shapes for every picked model (cost is added before the call). */
const USAGES = [
	["zero", { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 }],
	["typical", { input: 1200, output: 300, cacheRead: 5000, cacheWrite: 800, totalTokens: 7300 }],
	["cache-write-1h", { input: 40, output: 120, cacheRead: 9000, cacheWrite: 1500, cacheWrite1h: 600, totalTokens: 10660 }],
	["cache-write-all-1h", { input: 10, output: 20, cacheRead: 0, cacheWrite: 2048, cacheWrite1h: 2048, totalTokens: 2078 }],
	["cache-write-1h-zero", { input: 10, output: 20, cacheRead: 0, cacheWrite: 100, cacheWrite1h: 0, totalTokens: 130 }],
	["no-cache-read-field", { input: 100, output: 50, cacheWrite: 10, totalTokens: 160 }],
	["no-cache-fields", { input: 100, output: 50, totalTokens: 150 }],
	["output-only", { input: 0, output: 4096, cacheRead: 0, cacheWrite: 0, totalTokens: 4096 }],
	["huge", { input: 5_000_000_000, output: 2_000_000_000, cacheRead: 1_000_000_000_000, cacheWrite: 30_000_000_000, cacheWrite1h: 10_000_000_000, totalTokens: 1_037_000_000_000 }],
	["fractional", { input: 0.5, output: 1.25, cacheRead: 3.75, cacheWrite: 0.1, totalTokens: 5.6 }],
];

function tierThreshold(cost) {
	const t = (cost?.tiers ?? []).map((x) => x.inputTokensAbove).filter((x) => typeof x === "number");
	return t.length ? Math.min(...t) : null;
}

function buildCases() {
	const catalogs = Object.fromEntries(RELEASES.map((r) => [r, catalogOf(r)]));
	const union = new Map();
	for (const r of RELEASES) for (const [k, m] of catalogs[r]) if (!union.has(k)) union.set(k, m);
	const cases = [];
	const add = (key, tag, usage) => {
		const slash = key.indexOf("/");
		cases.push({ name: `${key.replace(/[^a-zA-Z0-9.-]+/g, "_")}--${tag}`, model: { provider: key.slice(0, slash), id: key.slice(slash + 1) }, usage });
	};
	for (const key of PICKS) for (const [tag, u] of USAGES) add(key, tag, u);
	// Tiered models: just under, at, and just above the first threshold (input + cacheRead +
	// cacheWrite > inputTokensAbove picks the tier), with 1h writes above it.
	const tiered = [...union.entries()].filter(([, m]) => tierThreshold(m.cost) !== null).map(([k]) => k).sort();
	const step = Math.max(1, Math.floor(tiered.length / 40));
	const tieredPick = tiered.filter((_, i) => i % step === 0).slice(0, 40);
	// Always include tiered models that change between releases.
	for (const k of tiered) {
		const costs = RELEASES.map((r) => JSON.stringify(catalogs[r].get(k)?.cost ?? null));
		if (new Set(costs).size > 1 && !tieredPick.includes(k) && tieredPick.length < 60) tieredPick.push(k);
	}
	for (const key of tieredPick) {
		const th = tierThreshold(union.get(key).cost);
		add(key, "tier-below", { input: th - 1000, output: 500, cacheRead: 600, cacheWrite: 399, totalTokens: th + 499 });
		add(key, "tier-at", { input: th - 1000, output: 500, cacheRead: 600, cacheWrite: 400, totalTokens: th + 500 });
		add(key, "tier-above", { input: th - 1000, output: 500, cacheRead: 600, cacheWrite: 401, cacheWrite1h: 200, totalTokens: th + 501 });
		add(key, "tier-far-above", { input: th * 3, output: 20000, cacheRead: th, cacheWrite: 5000, cacheWrite1h: 5000, totalTokens: th * 4 + 25000 });
	}
	// Presence differs between releases: 6 models of each kind (deterministic picks).
	const only = (pred) => [...union.keys()].filter(pred).sort();
	const gone13 = only((k) => catalogs["0.87.1"].has(k) && !catalogs["1.3.0"].has(k));
	const gone16 = only((k) => catalogs["1.3.0"].has(k) && !catalogs["1.6.0"].has(k));
	const new16 = only((k) => !catalogs["0.87.1"].has(k) && !catalogs["1.3.0"].has(k) && catalogs["1.6.0"].has(k));
	const pickN = (list, n) => {
		const s = Math.max(1, Math.floor(list.length / n));
		return list.filter((_, i) => i % s === 0).slice(0, n);
	};
	for (const key of [...pickN(gone13, 6), ...pickN(gone16, 6), ...pickN(new16, 6)]) {
		add(key, "typical", USAGES[1][1]);
		add(key, "cache-write-1h", USAGES[2][1]);
	}
	// No `cost` object on the usage: calculateCost writes into usage.cost (TypeError).
	cases.push({ name: "anthropic_claude-opus-4-8--usage-without-cost", model: { provider: "anthropic", id: "claude-opus-4-8" }, usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 }, noCost: true });
	const names = new Set();
	for (const c of cases) {
		if (names.has(c.name)) throw new Error(`duplicate pricing case ${c.name}`);
		names.add(c.name);
	}
	return cases;
}

const js = (v) => (typeof v === "number" ? String(v) : v);

const { calculateCost } = await import("@earendil-works/pi-ai");
const { getBuiltinModel } = await import("@earendil-works/pi-ai/providers/all");
const out = [];
let absent = 0;
let errors = 0;
for (const c of buildCases()) {
	const provider = c.model.provider === "azure" && release === "0.87.1" ? "azure-openai-responses" : c.model.provider;
	const model = getBuiltinModel(provider, c.model.id);
	const usage = c.noCost ? structuredClone(c.usage) : { ...structuredClone(c.usage), cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
	const entry = { name: c.name, model: c.model, usage: structuredClone(usage) };
	if (!model) {
		entry.absent = true;
		absent++;
		out.push(entry);
		continue;
	}
	entry.modelCost = model.cost;
	try {
		const cost = calculateCost(model, usage);
		entry.cost = Object.fromEntries(Object.entries(cost).map(([k, v]) => [k, js(v)]));
	} catch (e) {
		entry.error = e instanceof Error ? e.message : String(e);
		errors++;
	}
	out.push(entry);
}

const doc = {
	generator: { tool: "forge-replay tools/pi-oracle pricing", ...packageVersions(), node: process.versions.node },
	release,
	function: "calculateCost(model, usage) from @earendil-works/pi-ai (dist/models.js)",
	about: "usage is the object passed in; cost is the returned usage.cost with numbers as String(v); absent: the model is not in this release's catalog; model.provider \"azure\" is looked up as \"azure-openai-responses\" in 0.87.1",
	summary: { cases: out.length, priced: out.length - absent - errors, absent, errors, tiered: out.filter((e) => e.modelCost?.tiers).length },
	cases: out,
};
const text = `${JSON.stringify(doc, null, 2)}\n`;
const path = join(resolve(outDir), "cases.json");
if (check) {
	const committed = existsSync(path) ? readFileSync(path, "utf8") : null;
	if (committed !== text) {
		console.error(`pricing --check: ${committed === null ? "missing" : "differs"}: ${path}`);
		process.exit(1);
	}
	console.log(`pricing --check ${release}: ${out.length} cases, up to date`);
	process.exit(0);
}
mkdirSync(resolve(outDir), { recursive: true });
writeFileSync(`${path}.tmp-${process.pid}`, text);
renameSync(`${path}.tmp-${process.pid}`, path);
console.log(`pricing ${release}: ${out.length} cases (${absent} absent, ${errors} errors) -> ${path}`);
