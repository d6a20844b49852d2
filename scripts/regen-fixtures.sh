#!/usr/bin/env bash
# Regenerate the fixtures that come from the real Pi npm packages (tools/pi-oracle):
#   Pi 0.87.1 (tools/pi-oracle/package.json):
#     fixtures/sessions/<name>/{session.jsonl,expected.json}
#     fixtures/agent/<name>/{session.jsonl,requests.json,checks.json,expected.json}
#     fixtures/wire/<name>.{case,expected}.json (+ fixtures/wire/bench/)
#   Pi 1.3.0 and 1.6.0 (tools/pi-oracle/releases/<release>/package.json):
#     fixtures/releases/<release>/wire/<name>.{case,expected}.json + DIFF-vs-0.87.1.json
#     fixtures/releases/<release>/agent/<name>/{session.jsonl,requests.json,checks.json,expected.json}
#   every release: fixtures/releases/<release>/pricing/cases.json (pi-ai's calculateCost)
#   every release: crates/wire/data/pi-ai-<release>/ = the package's dist/providers/data/ (byte for byte)
#   fixtures/js/conformance.jsonl (the JavaScript semantics forge_replay_model::js reproduces, Node 22)
#
# usage: scripts/regen-fixtures.sh [--check]
#   (no flag)  regenerate into a temp dir, then replace the committed files (each file atomically)
#              and delete committed files the generators no longer produce
#   --check    regenerate into a temp dir and compare; exit 1 and list the drift if anything differs
#
# Needs npm (the package brings its own Node 22 binary); runs `npm ci` when node_modules is missing.
# Offline: nothing is sent over the network. CI does not run this; see docs/fixtures.md.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
oracle="$root/tools/pi-oracle"
check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

if [ ! -x "$oracle/node_modules/.bin/node" ]; then
  echo "regen-fixtures: installing tools/pi-oracle dependencies (npm ci)" >&2
  (cd "$oracle" && npm ci --no-audit --no-fund)
fi
releases=(1.3.0 1.6.0)
for r in "${releases[@]}"; do
  if [ ! -f "$oracle/releases/$r/node_modules/@earendil-works/pi-ai/package.json" ]; then
    echo "regen-fixtures: installing Pi $r (npm ci in tools/pi-oracle/releases/$r)" >&2
    (cd "$oracle/releases/$r" && PATH="$oracle/node_modules/.bin:$PATH" npm ci --no-audit --no-fund --ignore-scripts)
  fi
done
node="$oracle/node_modules/.bin/node"
major=$("$node" -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 22 ]; then
  echo "regen-fixtures: need Node >= 22 in tools/pi-oracle/node_modules/.bin (got $("$node" --version))" >&2
  exit 2
fi
export PATH="$oracle/node_modules/.bin:$PATH"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/regen-fixtures.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$node" "$oracle/src/sessions.mjs" --out "$tmp/sessions"
"$node" "$oracle/src/agent.mjs" --out "$tmp/agent"
"$node" "$oracle/src/gen-wire-cases.mjs" --out "$tmp/wire"
TZ=UTC "$node" "$oracle/src/js-conformance.mjs" --out "$tmp/js/conformance.jsonl"
for r in "${releases[@]}"; do
  "$node" "$oracle/src/gen-wire-cases.mjs" --pi "$r" --out "$tmp/releases/$r/wire"
  "$node" "$oracle/src/agent.mjs" --pi "$r" --out "$tmp/releases/$r/agent"
done
for r in 0.87.1 "${releases[@]}"; do
  "$node" "$oracle/src/pricing.mjs" --pi "$r" --out "$tmp/releases/$r/pricing" >/dev/null
done

# Only these folders belong to this script (others under fixtures/releases/ may belong to others).
owned=(sessions agent wire js)
for r in "${releases[@]}"; do owned+=("releases/$r/wire" "releases/$r/agent"); done
for r in 0.87.1 "${releases[@]}"; do owned+=("releases/$r/pricing"); done

# The catalogs: crates/wire/data/pi-ai-<release>/ is the package's dist/providers/data/ byte for
# byte (PROVENANCE.md beside them is hand-written and not compared).
catalog_src() {
  if [ "$1" = 0.87.1 ]; then echo "$oracle/node_modules/@earendil-works/pi-ai/dist/providers/data"
  else echo "$oracle/releases/$1/node_modules/@earendil-works/pi-ai/dist/providers/data"; fi
}
catalog_drift=0
for r in 0.87.1 "${releases[@]}"; do
  src=$(catalog_src "$r")
  dest="$root/crates/wire/data/pi-ai-$r"
  if [ "$check" -eq 1 ]; then
    if ! diff -r -q -x PROVENANCE.md "$dest" "$src" >"$tmp/catalog-$r.diff" 2>&1; then
      catalog_drift=1
      sed "s|$oracle/|tools/pi-oracle/|g; s|$root/||g" "$tmp/catalog-$r.diff" >&2
    fi
  else
    mkdir -p "$dest"
    for f in "$src"/*.json "$src"/.manifest.json; do
      b=$(basename "$f")
      if [ -f "$dest/$b" ] && cmp -s "$f" "$dest/$b"; then continue; fi
      cp "$f" "$dest/$b.regen-tmp" && mv -f "$dest/$b.regen-tmp" "$dest/$b"
      echo "updated crates/wire/data/pi-ai-$r/$b" >&2
    done
    for f in "$dest"/*.json "$dest"/.manifest.json; do
      [ -e "$src/$(basename "$f")" ] || { rm -f "$f"; echo "removed crates/wire/data/pi-ai-$r/$(basename "$f")" >&2; }
    done
  fi
done

if [ "$check" -eq 1 ]; then
  drift=0
  for d in "${owned[@]}"; do
    if ! diff -r -q "$root/fixtures/$d" "$tmp/$d" >"$tmp/$d.diff" 2>&1; then
      drift=1
      sed "s|$tmp/|<regenerated>/|g; s|$root/||g" "$tmp/$d.diff" >&2
    fi
  done
  if [ "$drift" -eq 1 ] || [ "$catalog_drift" -eq 1 ]; then
    echo "regen-fixtures: committed fixtures differ from what Pi 0.87.1/${releases[*]} produce (run scripts/regen-fixtures.sh)" >&2
    exit 1
  fi
  echo "regen-fixtures: fixtures/{sessions,agent,wire,js,releases} and crates/wire/data/pi-ai-* are up to date" >&2
  exit 0
fi

changed=0
for d in "${owned[@]}"; do
  # Replace or add each file atomically (copy beside it, then rename).
  while IFS= read -r -d '' f; do
    rel=${f#"$tmp/"}
    dest="$root/fixtures/$rel"
    if [ -f "$dest" ] && cmp -s "$f" "$dest"; then continue; fi
    mkdir -p "$(dirname "$dest")"
    cp "$f" "$dest.regen-tmp"
    mv -f "$dest.regen-tmp" "$dest"
    echo "updated fixtures/$rel" >&2
    changed=$((changed + 1))
  done < <(find "$tmp/$d" -type f -print0 | sort -z)
  # Remove files the generators no longer produce.
  if [ -d "$root/fixtures/$d" ]; then
    while IFS= read -r -d '' f; do
      rel=${f#"$root/fixtures/"}
      if [ ! -e "$tmp/$rel" ]; then
        rm -f "$f"
        echo "removed fixtures/$rel" >&2
        changed=$((changed + 1))
      fi
    done < <(find "$root/fixtures/$d" -type f -print0 | sort -z)
    find "$root/fixtures/$d" -mindepth 1 -type d -empty -delete
  fi
done
echo "regen-fixtures: $changed file(s) changed" >&2
