#!/usr/bin/env node
// js-conformance: the JavaScript semantics forge-replay reproduces (`forge_replay_model::js`),
// as Node 22 (Pi's runtime) computes them.
//
//   node src/js-conformance.mjs [--out FILE]      (default <repo>/fixtures/js/conformance.jsonl)
//
// One JSON object a line. The first line is the header
//   {"generator": {"tool", "node", "tz", "pi-ai"}}
// and every other line is a row {"op", "in"?, "out"}: `in` is the input (absent for `undefined`),
// `out` what JavaScript gives for it. Numbers that may be NaN, ±Infinity or -0 are written as
// strings by `num()` (`"NaN"`, `"-0"`, `"1.5"`); a throw is `null`. Strings keep lone surrogates
// (JSON.stringify writes them as `\udXXX`).
//
// ops:
//   truthy      !!in
//   String      String(in)
//   Number      num(Number(in))
//   trim        in.trim()
//   whitespace  (no `in`) every code point c with /\s/.test(String.fromCodePoint(c))
//   length      in.length
//   sort        [...in].sort()
//   slice       in[0].slice(0, in[1])
//   sanitizeSurrogates  pi-ai 0.87.1's sanitizeSurrogates(in), imported from its dist
//   Math.max / Math.min  num(Math.max(in[0], in[1])) for number strings in[0], in[1]
//   Date.parse  num(Date.parse(in))
//   Date        num(new Date(in).getTime())
//   toISOString new Date(Number(in)).toISOString(), or null when it throws (invalid time)
//   JSON.parse  the message of the error JSON.parse(in) throws, or null when it parses
//
// Dates are read with TZ=UTC: V8 reads a date-time without an offset as local time, and
// forge-replay reads it as UTC. V8's legacy date parser (the fallback for strings outside the
// ISO format) accepts far more than forge-replay models; the Date rows cover the ISO format, the
// legacy forms forge-replay models (docs in crates/model/src/js/date.rs) and strings both reject.
// Not modelled, so not in the table: month names ("Jan 1 2026"), "GMT", a lone number ("5" is
// 2001-05-01), a signed or unsigned year outside the ISO widths ("+2026-01-01", "275760-09-13",
// "-000000-01-01"), trailing or doubled spaces, " Z", an offset of 24 hours.
// The Rust test crates/model/tests/js_conformance.rs asserts every row.
process.env.TZ = "UTC";

import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const TOOL = "tools/pi-oracle/src/js-conformance.mjs";
const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..", "..");
const args = process.argv.slice(2);
const outIndex = args.indexOf("--out");
const out = resolve(outIndex >= 0 ? args[outIndex + 1] : join(repo, "fixtures", "js", "conformance.jsonl"));

if (process.versions.node.split(".")[0] !== "22") {
	console.error(`js-conformance: needs Node 22, Pi's runtime (V8's messages differ between versions); got ${process.versions.node}`);
	process.exit(2);
}
if (new Date(2026, 0, 1).getTimezoneOffset() !== 0) {
	console.error("js-conformance: the local time zone is not UTC");
	process.exit(2);
}

const { sanitizeSurrogates } = await import("@earendil-works/pi-ai/utils/sanitize-unicode");
const piAiEntry = fileURLToPath(import.meta.resolve("@earendil-works/pi-ai"));
const piAi = JSON.parse(readFileSync(`${piAiEntry.slice(0, piAiEntry.lastIndexOf("/dist/"))}/package.json`, "utf8")).version;

const num = (x) => (Object.is(x, -0) ? "-0" : String(x));
const attempt = (f) => {
	try {
		return f();
	} catch {
		return null;
	}
};

const rows = [];
const row = (op, input, output) => rows.push(input === undefined ? { op, out: output } : { op, in: input, out: output });

// JSON values (and undefined) for the value conversions.
const values = [
	undefined,
	null,
	true,
	false,
	0,
	1,
	-1,
	0.5,
	-0.5,
	1.5,
	100,
	1e21,
	1e-7,
	1.5e-7,
	0.000001,
	123456789012345678901234567890,
	9007199254740993,
	5e-324,
	1.7976931348623157e308,
	0.1 + 0.2,
	"",
	" ",
	"0",
	"a",
	"false",
	"undefined",
	"\ud800",
	"😀",
	[],
	[null],
	[null, null],
	[1, null, "a"],
	[[1, 2], [3, [4, null]]],
	[{}],
	[true, false],
	[""],
	[7],
	["8"],
	[[9]],
	[1, 2],
	[1.5e-7],
	{},
	{ a: 1 },
];
for (const v of values) row("truthy", v, !!v);
for (const v of values) row("String", v, String(v));

// Number(): the strings StringToNumber sees.
const numberStrings = [
	"",
	" ",
	"\t\n\r\v\f",
	"\u00a0\ufeff\u2028\u3000",
	"\u0085",
	"0",
	"-0",
	"+0",
	"1",
	"+1",
	"-1",
	"  12  ",
	"1000",
	" 12.5e1\n",
	"1.",
	".5",
	"+.5",
	"-.5e-3",
	"1.e5",
	".",
	"+",
	"-",
	"e5",
	"1e",
	"1e+",
	"1e-",
	"1E3",
	"1e400",
	"-1e400",
	"1e-400",
	"00012",
	"0.0000001",
	"123456789012345678901234567890",
	"9007199254740993",
	"0x1F",
	"0X1f",
	"0x",
	"-0x1",
	"+0x1",
	"0x1.5",
	"0b101",
	"0B2",
	"0o17",
	"0o8",
	"0xFFFFFFFFFFFFFFFFF",
	"Infinity",
	"+Infinity",
	"-Infinity",
	"infinity",
	"inf",
	"NaN",
	"1_000",
	"1,000",
	"12px",
	"1n",
	"1 2",
	"--1",
	"+-1",
	"1e1.5",
	"١",
	"\u00a012\ufeff",
	"1\u0085",
];
for (const s of numberStrings) row("Number", s, num(Number(s)));
for (const v of values) row("Number", v, num(Number(v)));

// trim() and /\s/.
const trimStrings = [
	"",
	"a",
	" a ",
	"\t\n\v\f\r a \r\n",
	"\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeffa\ufeff",
	"\u0085a\u0085",
	"\u180ea\u200b",
	"\u001ca\u001f",
	" \ud800 ",
	" 😀 ",
	"a b",
];
for (const s of trimStrings) row("trim", s, s.trim());
const spaces = [];
for (let c = 0; c <= 0x10ffff; c++) if (/\s/.test(String.fromCodePoint(c))) spaces.push(c);
row("whitespace", undefined, spaces);

// UTF-16 lengths, default sort, slice.
for (const s of ["", "a", "é", "€", "😀", "a😀b", "\ud800", "\udc00x", "👍🏽", "\u0000"]) row("length", s, s.length);
for (const list of [
	["b", "a", "B", "A"],
	["😀", "\uffff", "a", "B"],
	["\ud800", "\uffff", "😀", "\ue000"],
	["ab", "a", "", "abc"],
	["é", "e", "z", "\u00ff"],
	["10", "9", "1"],
]) row("sort", list, [...list].sort());
for (const [s, n] of [
	["abc", 0],
	["abc", 2],
	["abc", 5],
	["a😀b", 1],
	["a😀b", 2],
	["a😀b", 3],
	["😀😀", 3],
	["\ud800x", 1],
]) row("slice", [s, n], s.slice(0, n));
for (const s of ["", "plain", "a\ud800b", "\udc00", "😀", "\ud83d\ude00\ud83d", "\ude00\ud83d", "x\udbff\udfffy", "\ud800\ud800\udc00"]) {
	row("sanitizeSurrogates", s, sanitizeSurrogates(s));
}
for (const [a, b] of [
	["1", "2"],
	["-0", "0"],
	["0", "-0"],
	["NaN", "1"],
	["1", "NaN"],
	["Infinity", "-Infinity"],
]) {
	row("Math.max", [a, b], num(Math.max(Number(a), Number(b))));
	row("Math.min", [a, b], num(Math.min(Number(a), Number(b))));
}

// Dates.
const dateStrings = [
	// What Pi writes (toISOString) and the rest of the ISO date-time string format.
	"2026-01-01T00:00:01.000Z",
	"1970-01-01T00:00:00Z",
	"1970-01-01T00:00:00.000+00:00",
	"1970-01-01",
	"1970",
	"2026-01",
	"1970-01-01T01:00:00+01:00",
	"2026-01-01T10:00:00.000-08:00",
	"2026-01-01T10:00:00+23:59",
	"2000-02-29T12:34:56.7891Z",
	"2026-01-01T23:59:59.9999Z",
	"2026-01-01T10:00:00.1Z",
	"2026-01-01T10:00:00.123456Z",
	"+002000-01-01T00:00:00.000Z",
	"-000001-01-01T00:00:00Z",
	"+275760-09-13T00:00:00.000Z",
	"-271821-04-20T00:00:00.000Z",
	"2026-01-01T24:00:00Z",
	"2026-01-01T10:00Z",
	"2026-01-01T10:00",
	"2026-01-01T10:00:00",
	"2026-01-01T10:00:00z",
	"2026-01-01t10:00:00Z",
	// Days past the end of a short month roll over, as V8's day composer allows 1..31.
	"2026-02-29",
	"2026-02-31",
	"2026-02-30T10:00:00Z",
	"2026-04-31T00:00:00Z",
	// Legacy forms forge-replay models: a space for `T`, `/` separators, one-digit month and
	// day, `±HHMM` offsets.
	"2026-01-01 10:00:00",
	"2026-01-01 10:00:00Z",
	"2026-01-01 10:00:00.123Z",
	"2026-01-01 10:00",
	"2026-01-01T10:00:00+0100",
	"2026-01-01 10:00:00+0100",
	"2026-1-1",
	"2026-1-01",
	"2026-01-1",
	"2026/01/01",
	"2026/1/1 10:00",
	"2026/01/01 10:00:00Z",
	"2026/1/1 10:00:00+0100",
	"2026-01-01 10:00:00.5",
	"2026-01-01 10:00:00.123+01:00",
	"2026-01-01 10:00:00z",
	"2026-01-01 24:00",
	"2026-02-31 10:00",
	"2026-01-01T10:00:00.5+0100",
	"2026-01-01t10:00+0100",
	"2026-01-01T10:00:00-0130",
	// Rejected by both.
	"",
	"nope",
	" 2026-01-01T10:00:00Z",
	"2026-01-01T10:00:00Z ",
	"2026-01-01T10Z",
	"2026-01-01T10",
	"2026-01-01T10:0",
	"2026-01-01T",
	"2026-13-01",
	"2026-00-01",
	"2026-13-45 10:00",
	"2026-01-32",
	"2026-01-01T25:00Z",
	"2026-01-01T24:00:01Z",
	"2026-01-01T10:60Z",
	"2026-01-01T10:00:60Z",
	"2026-01-01T10:00:00.Z",
	"2026-01-01T10:00:00,5Z",
	"2026-01-01T10:00:00+24:00",
	"2026-01-01T10:00:00+01",
	"2026-01-01T10:00:00 +0100",
	"2026-1-1T10:00",
	"2026-1-01T10:00:00Z",
	"2026-01-01 10",
	"2026-01-01 10:00:00,5",
	"2026-01-01T10:00:00+01:00:00",
	"2026/01/01T10:00:00Z",
	"20260101",
	"1767261600000",
	"+275760-09-13T00:00:00.001Z",
	"-271821-04-19T23:59:59.999Z",
];
for (const s of dateStrings) row("Date.parse", s, num(Date.parse(s)));
for (const v of [
	undefined,
	null,
	true,
	false,
	0,
	5,
	5.7,
	-1.5,
	8.64e15,
	8.64e15 + 2,
	-8.64e15,
	1e16,
	"",
	"2026-01-01T00:00:01.000Z",
	"nope",
	[],
	["2026-01-01"],
	[[]],
	{},
]) {
	row("Date", v, num(new Date(v).getTime()));
}
for (const ms of [
	"0",
	"-1",
	"1",
	"1.5",
	"-0.5",
	"1767225601000",
	"951827696789",
	"-62198755200000",
	"-62167219200000",
	"-62167219200001",
	"253402300799999",
	"253402300800000",
	"8640000000000000",
	"-8640000000000000",
	"8640000000000001",
	"NaN",
	"Infinity",
]) {
	row("toISOString", ms, attempt(() => new Date(Number(ms)).toISOString()));
}

// JSON.parse errors (V8's wording, positions in UTF-16 units, source context).
const long = `{"content":"${"x".repeat(30)}","a":tru,"${"z".repeat(51)}":1}`;
const jsonTexts = [
	// accepted
	"{}",
	"[]",
	" 1 ",
	"-0.5e+3",
	"1e400",
	'"\\u00e9\\n"',
	'"\\ud800"',
	'{"a":"\\uD800"}',
	'"\ud800"',
	'{"a":[true,false,null]}',
	'{"type":"reasoning","summary":[],"n":-1.5e-7}',
	' [1, true, null, "\\u00e9"] ',
	"[".repeat(5000) + "]".repeat(5000),
	// end of input
	"",
	"   ",
	"\t\n",
	"[",
	"[1,",
	'{"a":',
	'{"a":1,"b":',
	"tru",
	"nul",
	"n",
	"f",
	'"\\',
	"[".repeat(100000),
	// positioned messages
	"{",
	"{not json",
	"{,}",
	'{"a":1,',
	'{"a":1,}',
	'{"a":1, }',
	'{"a" : 1 ,',
	'{"a":"b"\n,\n x}',
	'{"a" 1}',
	'{"a"',
	'{"a":1,"a"}',
	'{"a":1,"b"',
	"{\r\n\"a\" 1}",
	"{\n\r\"a\" 1}",
	"{\r\"a\" 1}",
	'{"a":1',
	'{"a":1 "b":2}',
	"[1,2",
	"[1",
	"[1 2]",
	'"abc',
	'"\\u',
	'"\\u12',
	'"\\u00"',
	'"\\u12g4"',
	'["\\u00zz"]',
	'"\\x"',
	'{"a":"\u0001"}',
	'"a\u0001"',
	'"a\u0000"',
	'["a\nb"]',
	'"a\nb"',
	'"\r\n"',
	"-",
	"-a",
	'{"a":-}',
	"-Infinity",
	"01",
	"-01",
	"01.5",
	'{"a":01}',
	"1.",
	"-0.",
	"1.e5",
	"1e",
	"1e+",
	"1.5e",
	"{}x",
	'{"a":1}}',
	"1 2",
	"true false",
	"truex",
	"0x10",
	"1E+2x",
	'{"a":1}\n\n  x',
	'"\u2028" x',
	'"\u2029"\n x',
	'{"a":1}\u2028x',
	// unexpected tokens, with source context
	"x",
	"nan",
	".5",
	"+1",
	"tRue",
	"[,]",
	"[1,]",
	"[1,2,]",
	'{"a":tru}',
	'{"a":[1,}',
	' {"k":nulx}',
	"\ufeff{}",
	"\u00a0{}",
	'{"😀":x}',
	"😀",
	"x😀",
	"\ud800",
	"[\ud800]",
	'["\u2028",\r\n x]',
	"not base64!",
	"xxxxxxxxxxxxxxxxxxxx",
	"xxxxxxxxxxxxxxxxxxxxx",
	"[1,1,1,1,1,1,1,x,1,1,1,1,1,1,1,1,1,1,1]",
	"[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,x]",
	"[1,1,1,1,1,😀,1,1,1,1,1,1,1,1]",
	"[1,1,1,1,1,1,1,1,1,x😀1,1,1,1,1,1,1,1]",
	"[1,1,1,1,1,1,1,1,1,1😀x,1,1,1,1,1,1,1,1]",
	"aaaaaaaaaaaaaaaaaaaaaaaaa😀bbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
	long,
	`[${"1,".repeat(5)}x${",1".repeat(40)}]`,
	`[${"1,".repeat(40)}x]`,
	// whole-text messages
	"NaN",
	"Infinity",
	"undefined",
	"[object Object]",
	" NaN",
	"NaN ",
];
for (const t of jsonTexts) {
	let message = null;
	try {
		JSON.parse(t);
	} catch (e) {
		message = e.message;
	}
	row("JSON.parse", t, message);
}

const header = { generator: { tool: TOOL, node: process.versions.node, tz: "UTC", "pi-ai": piAi } };
const text = `${[header, ...rows].map((r) => JSON.stringify(r)).join("\n")}\n`;
mkdirSync(dirname(out), { recursive: true });
const tmp = `${out}.tmp-${process.pid}`;
writeFileSync(tmp, text);
renameSync(tmp, out);
process.stderr.write(`js-conformance: ${rows.length} rows\n`);
