// wire-capture: run ONE wire case through the real @earendil-works/pi-ai 0.87.1 API module and
// return what pi-ai produced: the object handed to `onPayload` and the HTTP request that reached
// `fetch` (URL, method, credential-free headers, body text and parsed body). Nothing leaves the
// machine: `fetch` is a recording stub that throws; transports that are not fetch (AWS SDK for
// bedrock-converse-stream, WebSocket for openai-codex-responses) are stopped from `onPayload`.
//
// Run this in a fresh process per case: pi-ai reads process.env (PI_CACHE_RETENTION, AZURE_OPENAI_*,
// AWS_*), and SDK clients are cached per process.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";

export const STOP = "PI_ORACLE_WIRE_STOP";

/** APIs whose transport is not fetch: the golden is the onPayload object only. */
const NON_FETCH_APIS = new Set(["bedrock-converse-stream", "openai-codex-responses"]);

/**
 * Headers that are volatile (SDK/runtime versions, OS) or carry credentials. Everything else
 * (anthropic-beta, anthropic-version, session_id, x-affinity, content-type, …) is kept.
 */
function keepHeader(name) {
	const n = name.toLowerCase();
	if (n === "user-agent" || n.startsWith("x-stainless-") || n === "x-goog-api-client") return false;
	if (n === "authorization" || n === "x-api-key" || n === "api-key" || n === "x-goog-api-key") return false;
	if (n === "chatgpt-account-id" || n === "cookie" || n === "proxy-authorization") return false;
	if (/(key|token|secret|credential|auth)/.test(n)) return false;
	return true;
}

function headerEntries(h) {
	if (!h) return [];
	if (typeof h.forEach === "function" && typeof h.get === "function") {
		const out = [];
		h.forEach((v, k) => {
			out.push([k, v]);
		});
		return out;
	}
	if (Array.isArray(h)) return h;
	return Object.entries(h);
}

function cleanHeaders(entries) {
	const map = new Map();
	for (const [k, v] of entries) if (v != null && keepHeader(k)) map.set(k.toLowerCase(), String(v));
	return Object.fromEntries([...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The body as text; a zstd/gzip content-encoded body (codex SSE) is decoded first. */
async function bodyText(body, encoding) {
	if (body == null) return null;
	if (typeof body === "string") return body;
	let bytes;
	if (body instanceof Uint8Array || body instanceof ArrayBuffer) bytes = Buffer.from(body);
	else if (typeof body.arrayBuffer === "function") bytes = Buffer.from(await body.arrayBuffer());
	else if (typeof body.getReader === "function") bytes = Buffer.from(await new Response(body).arrayBuffer());
	else return String(body);
	if (encoding === "zstd") bytes = zlib.zstdDecompressSync(bytes);
	else if (encoding === "gzip") bytes = zlib.gunzipSync(bytes);
	else if (encoding === "deflate") bytes = zlib.inflateSync(bytes);
	else if (encoding === "br") bytes = zlib.brotliDecompressSync(bytes);
	return bytes.toString("utf8");
}

/** A JWT-shaped dummy: openai-codex-responses reads chatgpt_account_id from the key. */
function fakeCodexJwt() {
	const b64 = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
	return `${b64({ alg: "none", typ: "JWT" })}.${b64({ "https://api.openai.com/auth": { chatgpt_account_id: "acct_oracle" } })}.sig`;
}

/** Dummy credential. Never contains "sk-ant-oat" (that switches Anthropic to its OAuth payload). */
export function dummyKeyFor(api) {
	return api === "openai-codex-responses" ? fakeCodexJwt() : "oracle-dummy-key";
}

export async function packageVersions() {
	const versions = {};
	for (const p of ["@earendil-works/pi-ai", "@earendil-works/pi-agent-core", "@earendil-works/pi-coding-agent"]) {
		try {
			const entryPath = fileURLToPath(import.meta.resolve(p));
			const pkgDir = entryPath.slice(0, entryPath.lastIndexOf("/dist/"));
			versions[p] = JSON.parse(readFileSync(`${pkgDir}/package.json`, "utf8")).version;
		} catch {
			versions[p] = "unknown";
		}
	}
	return versions;
}

/** Resolve `{provider,id,overrides?}` against pi-ai's built-in catalog, or clone a full Model. */
export async function resolveModel(spec) {
	if (!spec || typeof spec !== "object") throw new Error("case.model is required");
	let model;
	if (spec.api && spec.baseUrl) {
		model = structuredClone(spec);
	} else {
		const { getBuiltinModel } = await import("@earendil-works/pi-ai/providers/all");
		const found = getBuiltinModel(spec.provider, spec.id);
		if (!found) throw new Error(`model ${spec.provider}/${spec.id} not in the pi-ai catalog`);
		model = structuredClone(found);
	}
	const overrides = spec.overrides;
	if (overrides) {
		const { compat, ...rest } = overrides;
		Object.assign(model, rest);
		if (compat) model.compat = { ...(model.compat ?? {}), ...compat };
	}
	delete model.overrides;
	return model;
}

const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";

/** pi-ai's google-vertex takes the ADC path (project + location) without a usable API key. */
function usesVertexAdc(apiKey) {
	const k = typeof apiKey === "string" ? apiKey.trim() : "";
	return !k || k === "gcp-vertex-credentials" || /^<[^>]+>$/.test(k);
}

/**
 * Offline Application Default Credentials for google-vertex: a fake authorized-user credentials
 * file (unless the case brings GOOGLE_APPLICATION_CREDENTIALS), and gaxios pointed at the fetch
 * stub. gaxios fetches with `window.fetch` when a `window` exists and with node-fetch (real
 * network) otherwise, so a minimal `window` is defined for this process (one case per process).
 */
function installVertexAdc() {
	if (!process.env.GOOGLE_APPLICATION_CREDENTIALS) {
		const dir = mkdtempSync(join(tmpdir(), "pi-oracle-adc-"));
		const file = join(dir, "adc.json");
		writeFileSync(
			file,
			JSON.stringify({ type: "authorized_user", client_id: "pi-oracle.apps.googleusercontent.com", client_secret: "pi-oracle", refresh_token: "pi-oracle" }),
		);
		process.env.GOOGLE_APPLICATION_CREDENTIALS = file;
	}
	globalThis.window ??= { fetch: (...a) => globalThis.fetch(...a) };
}

/**
 * Run one case `{model, context, options?, entry?, env?}`. `env` must already be applied to
 * process.env by the caller (the parent spawns this process with it).
 */
export async function captureCase(caseJson, { timeoutMs = 15000 } = {}) {
	let wire = null;
	let stoppedBy = null;
	globalThis.fetch = async (input, init = {}) => {
		// Google's token endpoint (Vertex with Application Default Credentials): answer with a
		// fake access token so the request itself is assembled; never recorded.
		const target = typeof input === "object" && input !== null && "url" in input ? input.url : String(input);
		if (target.startsWith(GOOGLE_TOKEN_URL)) {
			return new Response(JSON.stringify({ access_token: "ya29.pi-oracle", expires_in: 3600, token_type: "Bearer" }), {
				status: 200,
				headers: { "content-type": "application/json" },
			});
		}
		let url;
		let method = init.method ?? "GET";
		let entries = headerEntries(init.headers);
		let body = init.body;
		if (typeof input === "object" && input !== null && "url" in input && typeof input.clone === "function") {
			url = input.url;
			method = init.method ?? input.method;
			entries = [...headerEntries(input.headers), ...entries];
			if (body === undefined) body = await input.clone().text();
		} else {
			url = String(input);
		}
		const encoding = entries.find(([k]) => k.toLowerCase() === "content-encoding")?.[1];
		const text = await bodyText(body, encoding);
		let parsed = null;
		if (text != null) {
			try {
				parsed = JSON.parse(text);
			} catch {
				parsed = text;
			}
		}
		wire = { url, method, headers: cleanHeaders(entries), body: parsed, bodyText: text };
		stoppedBy ??= "fetch";
		throw new Error(STOP);
	};

	const piAi = await import("@earendil-works/pi-ai");
	const model = await resolveModel(caseJson.model);
	const stopAtPayload = NON_FETCH_APIS.has(model.api) && caseJson.options?.transport !== "sse";
	const apiModule = await import(`@earendil-works/pi-ai/api/${model.api}`);
	const entry = caseJson.entry ?? "streamSimple";
	if (typeof apiModule[entry] !== "function") throw new Error(`api ${model.api} has no ${entry}()`);

	const abort = new AbortController();
	let payload;
	const userOptions = caseJson.options ?? {};
	const options = {
		apiKey: dummyKeyFor(model.api),
		maxRetries: 0,
		...userOptions,
		fetch: globalThis.fetch,
		signal: abort.signal,
		onPayload: (p) => {
			// JSON round trip: what pi-forge's `/forge payload` would save.
			payload = JSON.parse(JSON.stringify(p));
			if (stopAtPayload) {
				stoppedBy = "onPayload";
				throw new Error(STOP);
			}
			return undefined;
		},
	};

	if (model.api === "google-vertex" && usesVertexAdc(options.apiKey)) installVertexAdc();
	const context = piAi.normalizeContext(caseJson.context ?? { messages: [] });
	const softTimer = setTimeout(() => abort.abort(), Math.max(1000, timeoutMs - 2000));
	softTimer.unref();
	let errorMessage;
	try {
		const s = apiModule[entry](model, context, options);
		const final = await s.result();
		if (final?.stopReason === "error" || final?.stopReason === "aborted") errorMessage = final.errorMessage;
	} catch (e) {
		errorMessage = e instanceof Error ? e.message : String(e);
	}
	clearTimeout(softTimer);
	const stoppedCleanly = errorMessage?.includes(STOP) || stoppedBy !== null;
	return {
		model,
		entry,
		payload: payload ?? null,
		wire,
		stoppedBy,
		error: stoppedCleanly ? null : (errorMessage ?? "no payload captured"),
	};
}
