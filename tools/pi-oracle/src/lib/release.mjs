// release: which published Pi release (0.87.1, 1.3.0, 1.6.0) the oracle drives.
//
// 0.87.1 is the package's own dependency set (tools/pi-oracle/package.json, node_modules/). Every
// other release is a pinned package.json + package-lock.json under
// tools/pi-oracle/releases/<release>/ with its own node_modules/ (installed by
// scripts/regen-fixtures.sh with `npm ci`). `activateRelease(r)` installs a module resolve hook
// so that every `import("@earendil-works/…")` made by our own code (src/, not node_modules/)
// resolves from that release's folder; imports made inside the packages resolve as usual, so a
// release only ever sees its own dependency tree. Call it before anything imports a Pi package.
import { existsSync, readFileSync } from "node:fs";
import { registerHooks } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const RELEASES = ["0.87.1", "1.3.0", "1.6.0"];
export const DEFAULT_RELEASE = "0.87.1";

const ORACLE = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const PACKAGES = ["@earendil-works/pi-ai", "@earendil-works/pi-agent-core", "@earendil-works/pi-coding-agent"];

let active = null;

/** The folder whose node_modules/ holds the release's packages. */
export function releaseDir(release) {
	return release === DEFAULT_RELEASE ? ORACLE : join(ORACLE, "releases", release);
}

/** Validate a `--pi` value (exit 2 with the supported list otherwise). */
export function checkRelease(release) {
	if (!RELEASES.includes(release)) {
		console.error(`unknown Pi release ${JSON.stringify(release)} (supported: ${RELEASES.join(", ")})`);
		process.exit(2);
	}
	return release;
}

/**
 * Remove `--pi R` / `--pi=R` from `args` (in place) and return R (default 0.87.1). An unknown
 * release exits 2.
 */
export function takeReleaseArg(args) {
	let release = DEFAULT_RELEASE;
	for (let i = 0; i < args.length; i++) {
		if (args[i] === "--pi") {
			release = args[i + 1];
			args.splice(i, 2);
			i--;
		} else if (args[i].startsWith("--pi=")) {
			release = args[i].slice(5);
			args.splice(i, 1);
			i--;
		}
	}
	return checkRelease(release);
}

/** Point our own `@earendil-works/*` imports at `release`. Idempotent for the same release. */
export function activateRelease(release) {
	checkRelease(release);
	if (active !== null) {
		if (active !== release) throw new Error(`release ${active} already active, cannot switch to ${release}`);
		return release;
	}
	active = release;
	const dir = releaseDir(release);
	if (!existsSync(join(dir, "node_modules", "@earendil-works", "pi-ai", "package.json"))) {
		const where = release === DEFAULT_RELEASE ? "tools/pi-oracle" : `tools/pi-oracle/releases/${release}`;
		console.error(`Pi ${release} is not installed: run \`npm ci\` in ${where} (scripts/regen-fixtures.sh does)`);
		process.exit(2);
	}
	if (release !== DEFAULT_RELEASE) {
		const parentURL = pathToFileURL(join(dir, "package.json")).href;
		registerHooks({
			resolve(specifier, context, nextResolve) {
				if (specifier.startsWith("@earendil-works/") && !(context.parentURL ?? "").includes("/node_modules/")) {
					return nextResolve(specifier, { ...context, parentURL });
				}
				return nextResolve(specifier, context);
			},
		});
	}
	return release;
}

/** The active release (activateRelease must have run). */
export function activeRelease() {
	if (active === null) throw new Error("no Pi release activated");
	return active;
}

/** The active release, or 0.87.1 when none was activated (scripts that predate `--pi`). */
export function currentRelease() {
	return active ?? DEFAULT_RELEASE;
}

/** The installed versions of the three packages of the active release (read from disk). */
export function packageVersions(release = currentRelease()) {
	const versions = {};
	for (const p of PACKAGES) {
		try {
			versions[p] = JSON.parse(readFileSync(join(releaseDir(release), "node_modules", p, "package.json"), "utf8")).version;
		} catch {
			versions[p] = "unknown";
		}
	}
	return versions;
}

/** Compare two release strings (`a < b` → negative). */
export function compareReleases(a, b) {
	const pa = a.split(".").map(Number);
	const pb = b.split(".").map(Number);
	for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
	return 0;
}

/** `release >= min`. */
export function atLeast(release, min) {
	return compareReleases(release, min) >= 0;
}
