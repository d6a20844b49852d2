// json-diff: the differing JSON paths of two values, in the path style of forge-replay's
// `diff` (crates/replay/src/diff.rs): `$.messages[3].content[0].text`, `$["anthropic-beta"]`.
// Objects are compared key by key (left key order first, then keys only on the right); arrays are
// aligned on their serialized elements (longest common subsequence), so an inserted message shows
// as one `added` path, and replaced runs are compared element by element. Removed paths use the
// left index, added and changed paths the right index.

function pushKey(path, key) {
	return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function isObject(v) {
	return v !== null && typeof v === "object" && !Array.isArray(v);
}

function walk(a, b, path, out) {
	if (isObject(a) && isObject(b)) {
		for (const k of Object.keys(a)) {
			if (Object.hasOwn(b, k)) walk(a[k], b[k], pushKey(path, k), out);
			else out.push({ op: "removed", path: pushKey(path, k) });
		}
		for (const k of Object.keys(b)) if (!Object.hasOwn(a, k)) out.push({ op: "added", path: pushKey(path, k) });
		return;
	}
	if (Array.isArray(a) && Array.isArray(b)) return walkArray(a, b, path, out);
	if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ op: "changed", path });
}

function walkArray(a, b, path, out) {
	if (a.length === b.length && a.length <= 1) {
		for (let i = 0; i < a.length; i++) walk(a[i], b[i], `${path}[${i}]`, out);
		return;
	}
	const ka = a.map((v) => JSON.stringify(v));
	const kb = b.map((v) => JSON.stringify(v));
	const n = ka.length;
	const m = kb.length;
	// LCS table (arrays in requests are small: messages, blocks, tools).
	const L = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
	for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i][j] = ka[i] === kb[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
	let i = 0;
	let j = 0;
	const flush = (di, dj) => {
		// a[di..i) removed, b[dj..j) added: pair them up as changes first.
		const common = Math.min(i - di, j - dj);
		for (let k = 0; k < common; k++) walk(a[di + k], b[dj + k], `${path}[${dj + k}]`, out);
		for (let k = di + common; k < i; k++) out.push({ op: "removed", path: `${path}[${k}]` });
		for (let k = dj + common; k < j; k++) out.push({ op: "added", path: `${path}[${k}]` });
	};
	let di = 0;
	let dj = 0;
	while (i < n || j < m) {
		if (i < n && j < m && ka[i] === kb[j]) {
			flush(di, dj);
			i++;
			j++;
			di = i;
			dj = j;
		} else if (j < m && (i === n || L[i][j + 1] >= L[i + 1][j])) j++;
		else i++;
	}
	flush(di, dj);
}

/** `[{op: "added"|"removed"|"changed", path}]` from `left` (expected) to `right` (actual). */
export function jsonDiff(left, right) {
	const out = [];
	walk(left, right, "$", out);
	return out;
}
