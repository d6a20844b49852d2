#!/usr/bin/env bash
# Regenerate the fixtures that come from the real Pi 0.87.1 npm packages (tools/pi-oracle):
#   fixtures/sessions/<name>/{session.jsonl,expected.json}
#   fixtures/agent/<name>/{session.jsonl,requests.json,checks.json,expected.json}
#   fixtures/wire/<name>.{case,expected}.json (+ fixtures/wire/bench/)
#   fixtures/js/conformance.jsonl (the JavaScript semantics forge_replay_model::js reproduces)
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

owned=(sessions agent wire js)

if [ "$check" -eq 1 ]; then
  drift=0
  for d in "${owned[@]}"; do
    if ! diff -r -q "$root/fixtures/$d" "$tmp/$d" >"$tmp/$d.diff" 2>&1; then
      drift=1
      sed "s|$tmp/|<regenerated>/|g; s|$root/||g" "$tmp/$d.diff" >&2
    fi
  done
  if [ "$drift" -eq 1 ]; then
    echo "regen-fixtures: committed fixtures differ from what Pi 0.87.1 and Node 22 produce (run scripts/regen-fixtures.sh)" >&2
    exit 1
  fi
  echo "regen-fixtures: fixtures/{sessions,agent,wire,js} are up to date" >&2
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
