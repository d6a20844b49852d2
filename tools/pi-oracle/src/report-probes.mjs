// report-probes: run the provider-report probe contexts through the REAL @earendil-works/pi-ai
// 0.87.1 API modules and save the payload each one hands to `onPayload`.
//
// Usage (from tools/pi-oracle):
//   PATH=$PWD/node_modules/.bin:$PATH node src/report-probes.mjs [--out ../../fixtures/report/pi-ai]
//
// Input: crates/report/src/provider/probes/probes.json (the same file forge-replay embeds).
// Variants: for every API, one representative model per distinct set of mid-conversation flags
// in the catalog, plus an "override" variant (all six flags forced on) for APIs without any
// flagged model. The selection rule is the one forge-replay's report uses (see
// crates/report/src/provider/variants.rs); forge-replay's tests fail if the two disagree.
// Output: <out>/<api>/<variant-slug>/<probe>.json = {model:{provider,id,overrides?}, probe, payload}
// Nothing leaves the machine: fetch is a stub that throws and every request is stopped from
// onPayload, before any transport runs.
import { mkdirSync, readFileSync, renameSync, writeFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../..");
const args = process.argv.slice(2);
let out = join(repo, "fixtures/report/pi-ai");
for (let i = 0; i < args.length; i++) {
	if (args[i] === "--out") out = resolve(args[++i]);
	else throw new Error(`unexpected argument ${args[i]}`);
}

const STOP = "REPORT_PROBE_STOP";
globalThis.fetch = async () => {
	throw new Error(STOP);
};

export const MID_FLAGS = [
	"supportsMidConvoSystemMessages",
	"supportsMidConvoToolChanges",
	"supportsMidConvoToolAdditions",
	"supportsAdditionalTools",
	"supportsToolSearch",
	"supportsMidConvoEffort",
];

const probesDoc = JSON.parse(readFileSync(join(repo, "crates/report/src/provider/probes/probes.json"), "utf8"));
// pi-ai reads these from the process environment (Azure needs a base URL).
Object.assign(process.env, probesDoc.env ?? {});
const piAi = await import("@earendil-works/pi-ai");
const all = await import("@earendil-works/pi-ai/providers/all");

function modeOf(model) {
	const c = model.compat ?? {};
	return MID_FLAGS.filter((f) => c[f] === true);
}

const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Representative per (api, flag set): the first `preferredModels` entry in the group, else the
 * provider with the most models in the group (ties: name), then its greatest id.
 */
function variants() {
	const groups = new Map();
	for (const provider of all.getBuiltinProviders()) {
		for (const m of all.getBuiltinModels(provider)) {
			const key = `${m.api}\u0000${modeOf(m).join(",")}`;
			if (!groups.has(key)) groups.set(key, []);
			groups.get(key).push(m);
		}
	}
	const result = [];
	const apisWithFlags = new Set();
	for (const [key, models] of groups) {
		const [api, mode] = key.split("\u0000");
		if (mode !== "") apisWithFlags.add(api);
		const counts = new Map();
		for (const m of models) counts.set(m.provider, (counts.get(m.provider) ?? 0) + 1);
		const preferred = probesDoc.preferredModels.find((ref) => models.some((m) => `${m.provider}/${m.id}` === ref));
		const best = preferred ? models.find((m) => `${m.provider}/${m.id}` === preferred) : [...models].sort(
			(a, b) => (counts.get(b.provider) - counts.get(a.provider)) || cmp(a.provider, b.provider) || cmp(b.id, a.id),
		)[0];
		result.push({ api, mode, model: { provider: best.provider, id: best.id } });
	}
	for (const v of [...result]) {
		if (v.mode === "" && !apisWithFlags.has(v.api)) {
			const overrides = { compat: Object.fromEntries(MID_FLAGS.map((f) => [f, true])) };
			result.push({ api: v.api, mode: "override", model: { ...v.model, overrides } });
		}
	}
	return result.sort((a, b) => cmp(a.api, b.api) || cmp(a.mode, b.mode));
}

function slug(v) {
	const s = `${v.model.provider}__${v.model.id}`.replace(/[^A-Za-z0-9._-]+/g, "_");
	return v.mode === "override" ? `${s}__override` : s;
}

function resolveModel(spec) {
	const found = all.getBuiltinModel(spec.provider, spec.id);
	const model = structuredClone(found);
	if (spec.overrides?.compat) model.compat = { ...(model.compat ?? {}), ...spec.overrides.compat };
	return model;
}

async function capture(spec, messages) {
	const model = resolveModel(spec);
	const apiModule = await import(`@earendil-works/pi-ai/api/${model.api}`);
	let payload = null;
	let error = null;
	const options = {
		apiKey:
			model.api === "openai-codex-responses"
				? `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(JSON.stringify({ "https://api.openai.com/auth": { chatgpt_account_id: "acct_probe" } })).toString("base64url")}.sig`
				: "report-probe-dummy-key",
		maxRetries: 0,
		...probesDoc.options,
		onPayload: (p) => {
			payload = JSON.parse(JSON.stringify(p));
			throw new Error(STOP);
		},
	};
	try {
		const s = apiModule.streamSimple(model, piAi.normalizeContext({ messages: structuredClone(messages) }), options);
		const final = await s.result();
		if (payload === null) error = final?.errorMessage ?? "no payload";
	} catch (e) {
		if (payload === null) error = e instanceof Error ? e.message : String(e);
	}
	if (payload?.config) delete payload.config.abortSignal;
	return { payload, error };
}

function writeAtomic(file, text) {
	mkdirSync(dirname(file), { recursive: true });
	writeFileSync(`${file}.tmp`, text);
	renameSync(`${file}.tmp`, file);
}

rmSync(out, { recursive: true, force: true });
const index = [];
for (const v of variants()) {
	for (const probe of probesDoc.probes) {
		const messages = probe.messages.map((name) => probesDoc.pieces[name]);
		const { payload, error } = await capture(v.model, messages);
		if (error) throw new Error(`${v.api} ${slug(v)} ${probe.name}: ${error}`);
		const file = join(out, v.api, slug(v), `${probe.name}.json`);
		writeAtomic(file, `${JSON.stringify({ model: v.model, probe: probe.name, payload }, null, 1)}\n`);
	}
	index.push({ api: v.api, mode: v.mode, model: v.model, dir: `${v.api}/${slug(v)}` });
}
writeAtomic(join(out, "index.json"), `${JSON.stringify({ piAi: "0.87.1", probesVersion: probesDoc.version, variants: index }, null, 1)}\n`);
console.log(`wrote ${index.length} variants x ${probesDoc.probes.length} probes to ${out}`);
