// wire-capture: run ONE wire case through the real @earendil-works/pi-ai API module of the active
// Pi release (src/lib/release.mjs; 0.87.1 unless `--pi`) and return what pi-ai produced: the object handed to `onPayload` and the HTTP request that reached
// `fetch` (URL, method, credential-free headers, body text and parsed body). Nothing leaves the
// machine: `fetch` is a recording stub that throws; transports that are not fetch (AWS SDK for
// bedrock-converse-stream, WebSocket for openai-codex-responses) are stopped from `onPayload`.
//
// Run this in a fresh process per case: pi-ai reads process.env (PI_CACHE_RETENTION, AZURE_OPENAI_*,
// AWS_*), and SDK clients are cached per process.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import os from "node:os";
import zlib from "node:zlib";
import { atLeast, currentRelease, packageVersions as releaseVersions } from "./lib/release.mjs";

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

/**
 * pi-ai's own identity `User-Agent` (1.3: `utils/pi-user-agent.js`, 1.6: `utils/identity.js`) with
 * the machine's values replaced by fixed placeholders, so the golden does not depend on the host:
 *   1.3.0  `pi (<platform> <os-release>; <arch>)`   from `pi (${os.platform()} ${os.release()}; ${os.arch()})`
 *   1.6.0  `pi/1.6.0 (<platform>; <runtime>; <arch>)` from `pi/${version} (${process.platform}; node/${process.version}; ${process.arch})`
 * Any other value (an SDK's own agent, a caller's header) is returned unchanged, or null to drop
 * it when it is the SDK's (volatile, as in 0.87.1's goldens).
 */
export function normalizeUserAgent(value) {
	const v = String(value);
	const v13 = `pi (${os.platform()} ${os.release()}; ${os.arch()})`;
	if (v === v13) return "pi (<platform> <os-release>; <arch>)";
	const m = /^(pi\/[^ ]+) \((.*)\)$/.exec(v);
	if (m && m[2] === `${process.platform}; node/${process.version}; ${process.arch}`) return `${m[1]} (<platform>; <runtime>; <arch>)`;
	if (v === "pi" || v.startsWith("pi/") || v.startsWith("pi (")) return v;
	return null;
}

function cleanHeaders(entries) {
	// From 1.3 pi-ai sets its own identity User-Agent: kept (normalized); 0.87.1 goldens keep none.
	const keepAgent = atLeast(currentRelease(), "1.3.0");
	const map = new Map();
	for (const [k, v] of entries) {
		if (v == null) continue;
		if (keepAgent && k.toLowerCase() === "user-agent") {
			const ua = normalizeUserAgent(v);
			if (ua !== null) map.set("user-agent", ua);
			else map.delete("user-agent");
			continue;
		}
		if (keepHeader(k)) map.set(k.toLowerCase(), String(v));
	}
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

/**
 * Dummy credential. Never contains "sk-ant-oat" (that switches Anthropic to its OAuth payload).
 * From 1.3 an OpenAI Responses key that does not start with `sk-` is taken for a ChatGPT sign-in
 * token (`isChatGPTSignIn`: no max_output_tokens, temperature, prompt_cache_*), so the dummy for
 * that API is an `sk-` key there; 0.87.1 keeps its historical dummy (byte-identical goldens).
 */
export function dummyKeyFor(api, release = currentRelease()) {
	if (api === "openai-codex-responses") return fakeCodexJwt();
	if (api === "openai-responses" && atLeast(release, "1.3.0")) return "sk-oracle-dummy-key";
	return "oracle-dummy-key";
}

export async function packageVersions() {
	return releaseVersions();
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

/** Google's token endpoint (Vertex ADC): a fake access token, never recorded. */
function googleTokenResponse(input) {
	const target = typeof input === "object" && input !== null && "url" in input ? input.url : String(input);
	if (!target.startsWith(GOOGLE_TOKEN_URL)) return null;
	return new Response(JSON.stringify({ access_token: "ya29.pi-oracle", expires_in: 3600, token_type: "Bearer" }), {
		status: 200,
		headers: { "content-type": "application/json" },
	});
}

/** `{url, method, headers (clean), body (parsed), bodyText}` of one fetch call. */
async function recordRequest(input, init = {}) {
	// Real fetch converts plain-object headers to a Headers list first, and so does the stub: each
	// value loses its leading and trailing HTTP whitespace (tab, LF, CR, space), and one that then
	// holds NUL, CR or LF, or any character above U+00FF (not a ByteString), is a TypeError.
	const headers = init.headers != null && !(init.headers instanceof Headers) ? new Headers(init.headers) : init.headers;
	let url;
	let method = init.method ?? "GET";
	let entries = headerEntries(headers);
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
	return { url, method, headers: cleanHeaders(entries), body: parsed, bodyText: text };
}

/**
 * Run one case `{model, context, options?, entry?, env?}`. `env` must already be applied to
 * process.env by the caller (the parent spawns this process with it).
 */
export async function captureCase(caseJson, { timeoutMs = 15000 } = {}) {
	let wire = null;
	let stoppedBy = null;
	globalThis.fetch = async (input, init = {}) => {
		const fake = googleTokenResponse(input);
		if (fake) return fake;
		wire = await recordRequest(input, init);
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

// ---------------------------------------------------------------------------------------------
// Sequences: several requests in one process (Anthropic message threads, pi-ai 1.6).

/** An Anthropic Messages SSE stream answering `body` with the scripted reply `r`. */
function anthropicReplyStream(body, r) {
	const events = [
		["message_start", { type: "message_start", message: { id: r.id, type: "message", role: "assistant", model: body?.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...r.usage, output_tokens: 1 } } }],
		["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
		["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: r.text } }],
		["content_block_stop", { type: "content_block_stop", index: 0 }],
		["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: r.usage.output_tokens } }],
		["message_stop", { type: "message_stop" }],
	];
	const text = events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join("");
	return new Response(text, { status: 200, headers: { "content-type": "text/event-stream", "request-id": `req_${r.id}` } });
}

/** An Anthropic API error response (`{status, errorCode?, message}`): a thread rejection. */
function anthropicErrorResponse(reject) {
	const error = { type: "invalid_request_error", message: reject.message, ...(reject.errorCode ? { details: { error_code: reject.errorCode } } : {}) };
	return new Response(JSON.stringify({ type: "error", error }), { status: reject.status ?? 400, headers: { "content-type": "application/json", "request-id": "req_oracle_rejected" } });
}

/**
 * The AWS SDK client pi-ai's bedrock-converse-stream uses (the same module instance: the package
 * has no `exports`, so pi-ai's `import` loads its CommonJS `main`, as `require` does here), with
 * `send` replaced by a stub: `onSend(command)` returns the response or throws. Nothing leaves
 * the machine.
 */
export async function stubBedrockSend(onSend) {
	const { createRequire } = await import("node:module");
	const { releaseDir } = await import("./lib/release.mjs");
	const require = createRequire(join(releaseDir(currentRelease()), "node_modules", "@earendil-works", "pi-ai", "package.json"));
	const sdk = require("@aws-sdk/client-bedrock-runtime");
	sdk.BedrockRuntimeClient.prototype.send = async function (command) {
		return onSend(command, sdk);
	};
	return sdk;
}

/** A Bedrock ConverseStream response answering with the scripted reply `r` (one text block). */
export function bedrockReplyResponse(r) {
	const events = [
		{ messageStart: { role: "assistant" } },
		{ contentBlockDelta: { contentBlockIndex: 0, delta: { text: r.text } } },
		{ contentBlockStop: { contentBlockIndex: 0 } },
		{ messageStop: { stopReason: "end_turn" } },
		{ metadata: { usage: { inputTokens: r.usage.input_tokens, outputTokens: r.usage.output_tokens, totalTokens: r.usage.input_tokens + r.usage.output_tokens } } },
	];
	return {
		$metadata: { httpStatusCode: 200, requestId: `req_${r.id}` },
		stream: (async function* () {
			yield* events;
		})(),
	};
}

function threadKind(body) {
	const t = body && typeof body === "object" ? body.thread : undefined;
	return t && typeof t === "object" ? (t.type ?? null) : null;
}

/**
 * Run a sequence case `{model, requests: [{context, options?, model?, reply?, reject?}], env?}` in
 * this process, in order. anthropic-messages is answered with `reply` as an SSE stream, or first
 * with `reject` as an HTTP error (which pi-ai's thread or strict-tools fallback resends);
 * bedrock-converse-stream through a stubbed AWS SDK `send` (`reply` as a ConverseStream, or first
 * `reject` as a `ValidationException` with its message; no wire request). pi-ai's
 * per-process thread state carries from one request to the next. Returns, per request, the
 * onPayload object, the HTTP request the stub answered with the reply (`wire`, `bodyText`, the
 * `thread` form it carried), the ones it rejected before (`rejected`), and the reply pi-ai
 * assembled (responseId, stopReason, content, diagnostics).
 */
export async function captureSequence(caseJson) {
	const { installDeterminism, rewind } = await import("./lib/determinism.mjs");
	installDeterminism();
	rewind("2026-03-01T00:00:00.000Z");
	const piAi = await import("@earendil-works/pi-ai");
	const results = [];
	let current = null;
	globalThis.fetch = async (input, init = {}) => {
		const fake = googleTokenResponse(input);
		if (fake) return fake;
		const rec = await recordRequest(input, init);
		const req = current.request;
		let response;
		if (current.model.api !== "anthropic-messages") {
			current.attempts.push({ ...rec, status: null });
			throw new Error(STOP);
		}
		if (req.reject && current.attempts.length === 0) {
			response = anthropicErrorResponse(req.reject);
			current.attempts.push({ ...rec, status: req.reject.status ?? 400 });
		} else {
			response = anthropicReplyStream(rec.body, scriptedReply(req));
			current.attempts.push({ ...rec, status: 200 });
		}
		return response;
	};
	const scriptedReply = (req) => req.reply ?? { id: `msg_oracle_${results.length + 1}`, text: "ok", usage: { input_tokens: 10, output_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } };
	let bedrockStubbed = false;
	for (const request of caseJson.requests) {
		const model = await resolveModel(request.model ?? caseJson.model);
		if (model.api === "bedrock-converse-stream" && !bedrockStubbed) {
			bedrockStubbed = true;
			await stubBedrockSend((command, sdk) => {
				const req = current.request;
				const first = current.sends.length === 0;
				current.sends.push(command.input);
				if (req.reject && first) throw new sdk.ValidationException({ message: req.reject.message, $metadata: { httpStatusCode: req.reject.status ?? 400 } });
				return bedrockReplyResponse(scriptedReply(req));
			});
		}
		const apiModule = await import(`@earendil-works/pi-ai/api/${model.api}`);
		const entry = request.entry ?? caseJson.entry ?? "streamSimple";
		current = { request, model, attempts: [], payloads: [], sends: [] };
		const options = {
			apiKey: dummyKeyFor(model.api),
			maxRetries: 0,
			...(request.options ?? {}),
			fetch: globalThis.fetch,
			onPayload: (p) => {
				current.payloads.push(JSON.parse(JSON.stringify(p)));
				return undefined;
			},
		};
		const context = piAi.normalizeContext(request.context ?? { messages: [] });
		let final = null;
		let error = null;
		try {
			final = await apiModule[entry](model, context, options).result();
			if (final?.stopReason === "error" || final?.stopReason === "aborted") error = final.errorMessage ?? final.stopReason;
		} catch (e) {
			error = e instanceof Error ? e.message : String(e);
		}
		const last = current.attempts[current.attempts.length - 1] ?? null;
		const out = {
			modelId: model.id,
			payload: current.payloads[current.payloads.length - 1] ?? null,
			wire: last ? { url: last.url, method: last.method, headers: last.headers, body: last.body } : null,
			bodyText: last ? last.bodyText : null,
			status: last ? last.status : null,
			thread: last ? threadKind(last.body) : null,
			reply: final
				? {
						responseId: final.responseId ?? null,
						stopReason: final.stopReason,
						content: final.content,
						...(final.diagnostics ? { diagnostics: final.diagnostics } : {}),
					}
				: null,
		};
		// Requests the stub rejected before the one above (a thread fallback resends).
		if (current.attempts.length > 1) {
			out.rejected = current.attempts.slice(0, -1).map((a) => ({ status: a.status, thread: threadKind(a.body), url: a.url, method: a.method, headers: a.headers, body: a.body, bodyText: a.bodyText }));
		}
		if (current.payloads.length > 1) out.payloads = current.payloads;
		if (error && !(error.includes(STOP))) out.error = error;
		results.push(out);
	}
	return results;
}
