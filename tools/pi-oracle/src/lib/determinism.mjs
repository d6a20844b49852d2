// Makes Pi's clock and id sources reproducible for fixture generation.
//
// Pi 0.87.1 draws entry ids from `crypto.randomUUID().slice(0, 8)`, session and summarization ids
// from pi-ai's `uuidv7()` (which reads `Date.now()` and `crypto.getRandomValues`), and every
// timestamp from `new Date()` / `Date.now()`. We replace all three with counters that a caller can
// rewind before each scripted session, so one session's output never depends on how many sessions
// were generated before it.
import crypto from "node:crypto";
import { syncBuiltinESMExports } from "node:module";

const NativeDate = Date;

const state = {
	uuidCounter: 0,
	clockMs: NativeDate.parse("2026-01-01T00:00:00.000Z"),
	stepMs: 1000,
	randomSeed: 1,
};

/** Entry ids become "00000001", "00000002", … (the first 8 characters of the fake UUID). */
function fakeRandomUUID() {
	state.uuidCounter += 1;
	const n = state.uuidCounter.toString(16);
	return `${n.padStart(8, "0")}-0000-4000-8000-${n.padStart(12, "0")}`;
}

/**
 * xorshift32 stream; only used where Pi wants random bytes (uuidv7 sequence bits). pi-ai keeps the
 * uuidv7 sequence in module state, so runs that need identical uuidv7 values use a fresh process.
 */
function fakeGetRandomValues(array) {
	const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
	for (let i = 0; i < bytes.length; i++) {
		let x = state.randomSeed;
		x ^= x << 13;
		x ^= x >>> 17;
		x ^= x << 5;
		state.randomSeed = x >>> 0;
		bytes[i] = state.randomSeed & 0xff;
	}
	return array;
}

function tick() {
	state.clockMs += state.stepMs;
	return state.clockMs;
}

class SteppingDate extends NativeDate {
	constructor(...args) {
		if (args.length === 0) super(tick());
		else super(...args);
	}
	static now() {
		return tick();
	}
}

let installed = false;
let perfMs = 0;

/**
 * Patch the globals. Call before Pi does its first id or timestamp draw. `performanceClock`
 * also replaces `performance.now()` by a counter that advances 1 ms per read: pi-agent-core 1.3+
 * times tool executions with it (`durationMs` on tool results), which is real time otherwise.
 * 0.87.1 runs leave it alone (their fixtures predate it and never read it into a file).
 */
export function installDeterminism({ performanceClock = false } = {}) {
	if (installed) return;
	installed = true;
	if (performanceClock) {
		Object.defineProperty(globalThis.performance, "now", { value: () => ++perfMs, configurable: true, writable: true });
	}
	crypto.randomUUID = fakeRandomUUID;
	syncBuiltinESMExports();
	for (const target of [globalThis.crypto, crypto.webcrypto]) {
		Object.defineProperty(target, "randomUUID", { value: fakeRandomUUID, configurable: true, writable: true });
		Object.defineProperty(target, "getRandomValues", { value: fakeGetRandomValues, configurable: true, writable: true });
	}
	globalThis.Date = SteppingDate;
}

/**
 * Rewind ids, clock and random stream. `startIso` is the instant just before the first tick;
 * `stepMs` is how far every clock read advances.
 */
export function rewind(startIso, { stepMs = 1000, seed = 1 } = {}) {
	perfMs = 0;
	state.uuidCounter = 0;
	state.clockMs = NativeDate.parse(startIso);
	state.stepMs = stepMs;
	state.randomSeed = seed >>> 0 || 1;
}

/** Read the clock without advancing it. */
export function peekClock() {
	return state.clockMs;
}
