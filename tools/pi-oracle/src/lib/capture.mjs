// Network capture for the offline agent runs: a fetch stub that records the request and fails,
// and redaction of credentials from recorded options.

const SECRET_KEY = /^(authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key|cookie|set-cookie|apikey|api_key|token|access_token|secret)$/i;

async function bodyText(body) {
	if (body == null) return null;
	if (typeof body === "string") return body;
	if (body instanceof Uint8Array || body instanceof ArrayBuffer) return Buffer.from(body).toString("utf8");
	if (typeof body.text === "function") return body.text();
	return String(body);
}

function redactUrl(url) {
	const u = new URL(url);
	for (const k of [...u.searchParams.keys()]) if (SECRET_KEY.test(k) || k === "key") u.searchParams.set(k, "[redacted]");
	return u.toString();
}

/**
 * Replace globalThis.fetch. take() returns the last request since reset() (or null). `answer(rec)`
 * may return a Response for a request (it is then marked `answered`); otherwise the stub throws.
 */
export function captureFetch({ answer } = {}) {
	let last = null;
	let all = [];
	globalThis.fetch = async (input, init = {}) => {
		let url;
		let method = init.method ?? "GET";
		let body = init.body;
		if (typeof input === "object" && input !== null && typeof input.clone === "function" && "url" in input) {
			url = input.url;
			method = init.method ?? input.method;
			if (body === undefined) body = await input.clone().text();
		} else {
			url = String(input);
		}
		const text = await bodyText(body);
		let parsed = text;
		try {
			parsed = text === null ? null : JSON.parse(text);
		} catch {}
		last = { url: redactUrl(url), method, body: parsed, bodyText: text };
		all.push(last);
		const response = answer?.({ url, method, body: parsed, attempt: all.length });
		if (response) {
			last.answered = true;
			last.status = response.status;
			return response;
		}
		throw new Error("ORACLE_NETWORK_BLOCKED");
	};
	return {
		reset: () => {
			last = null;
			all = [];
		},
		take: () => last,
		/** Every request since reset(), in order (a thread fallback resends). */
		takeAll: () => all,
	};
}

/**
 * The options the agent passed to the provider, as plain JSON: functions, abort signals and
 * credentials are dropped (apiKey) or redacted (secret-looking header/env values).
 */
export function redactOptions(options) {
	const walk = (value, key) => {
		if (typeof value === "function") return undefined;
		if (value && typeof value === "object") {
			if (typeof AbortSignal !== "undefined" && value instanceof AbortSignal) return undefined;
			if (Array.isArray(value)) return value.map((v) => walk(v));
			const out = {};
			for (const [k, v] of Object.entries(value)) {
				if (k === "apiKey" || k === "signal") continue;
				if (SECRET_KEY.test(k) && v !== undefined && v !== null) {
					out[k] = "[redacted]";
					continue;
				}
				const w = walk(v, k);
				if (w !== undefined) out[k] = w;
			}
			return out;
		}
		return value;
	};
	return walk(options ?? {}) ?? {};
}
