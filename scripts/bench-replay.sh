#!/usr/bin/env bash
# Benchmark of replay and verify:
#   1. the full shipped matrix: `forge-replay verify scenarios` (every shipped scenario × the
#      representative model of all ten APIs, every request compared with its golden);
#   2. replay of generated sessions of 250, 500 and 1,000 requests (`replay --all`-free, the
#      recorded model), to show the cost grows with the bytes written (O(output bytes)), not with
#      N re-projections.
# Reports wall time and peak RSS (from /usr/bin/time) as Markdown.
#
# Usage: scripts/bench-replay.sh [report.md]
# Env:   RUNS (3, matrix)  RUNS_LONG (1, generated sessions)  SIZES ("250 500 1000")  BENCH_DIR (/tmp/forge-bench-replay)  CARGO_TARGET_DIR (~/.cache/forge-replay-target)
#        PROFILE (release)
# Needs: /usr/bin/time, python3.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPORT=${1:-$ROOT/target/bench-replay.md}
RUNS=${RUNS:-3}
RUNS_LONG=${RUNS_LONG:-1}
SIZES=${SIZES:-250 500 1000}
BENCH_DIR=${BENCH_DIR:-/tmp/forge-bench-replay}
PROFILE=${PROFILE:-release}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/forge-replay-target}

echo "building forge-replay ($PROFILE)…" >&2
if [ "$PROFILE" = release ]; then
	(cd "$ROOT" && cargo build --release -q -p forge-replay)
else
	(cd "$ROOT" && cargo build -q -p forge-replay)
fi
FR=$CARGO_TARGET_DIR/$PROFILE/forge-replay

rm -rf "$BENCH_DIR" && mkdir -p "$BENCH_DIR"

# best-of-RUNS wall seconds and the peak RSS (KiB) of that run: "secs kib"
measure() {
	local best="" rss=""
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f "%e %M" -o "$BENCH_DIR/time.txt" "$@" >"$BENCH_DIR/out.txt" 2>"$BENCH_DIR/err.txt" || {
			local rc=$?
			[ "$rc" -le 1 ] || { cat "$BENCH_DIR/err.txt" >&2; exit "$rc"; }
		}
		read -r secs kib <"$BENCH_DIR/time.txt"
		if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $secs < $best else 1)"; then
			best=$secs rss=$kib
		fi
	done
	echo "$best $rss"
}

# 1. The shipped matrix.
scenarios=$(find "$ROOT/scenarios" -name '*.toml' | wc -l)
read -r m_secs m_kib < <(cd "$ROOT" && measure "$FR" verify scenarios)
m_line=$(tail -1 "$BENCH_DIR/out.txt")

# 2. Generated sessions: N requests = N/2 turns of (tool call, answer), a capability toggled
#    every 25 turns.
gen() {
	local n=$1 dir=$BENCH_DIR/gen-$1
	mkdir -p "$dir" && cp -r "$ROOT/scenarios/capabilities" "$dir/"
	python3 - "$n" >"$dir/scenario.toml" <<'PY'
import sys
n = int(sys.argv[1])
print('format = "forge-replay-scenario"\nversion = 1')
print('model = "anthropic/claude-opus-4-8"\nthinking = "medium"\ntools = ["read", "bash", "edit"]')
on = False
for t in range(n // 2):
    if t % 25 == 10:
        op = "disable" if on else "enable"
        key = 'target = "no-rm"' if on else 'ref = "no-rm"'
        print(f'\n[[step]]\ncapability = {{ op = "{op}", {key} }}')
        on = not on
    print(f'\n[[step]]\nuser = "Step {t}: read file {t} and summarise it."')
    print(f'\n[[step]]\nassistant.text = "Reading src/file{t}.rs."')
    print(f'assistant.tool_calls = [{{ name = "read", arguments = {{ path = "src/file{t}.rs" }}, result = "fn f{t}() {{ /* {"x" * 200} */ }}\\n" }}]')
    print(f'assistant.usage = {{ input = {1000 + 300 * t}, output = 40, cache_read = {300 * t}, cache_write = 300 }}')
    print(f'\n[[step]]\nassistant.text = "file{t}.rs defines f{t}."')
    print(f'assistant.usage = {{ input = 60, output = 10, cache_read = {1000 + 300 * t}, cache_write = 60 }}')
PY
	"$FR" scenario "$dir/scenario.toml" --out "$dir/out" >/dev/null
}

rows=""
for n in $SIZES; do
	gen "$n"
	read -r secs kib < <(RUNS=$RUNS_LONG measure "$FR" replay "$BENCH_DIR/gen-$n/out/session.jsonl" --format json)
	bytes=$(wc -c <"$BENCH_DIR/out.txt")
	reqs=$(python3 -c "import json,sys; print(len(json.load(open('$BENCH_DIR/out.txt'))['requests']))")
	per=$(python3 -c "print(f'{$bytes / 1e6 / max($secs, 0.001):.0f}')")
	rows+="| $n | $reqs | $(python3 -c "print(f'{$bytes/1e6:.1f}')") | $secs | $((kib / 1024)) | $per |"$'\n'
done

mkdir -p "$(dirname "$REPORT")"
cat >"$REPORT" <<EOF
# bench-replay

Machine: $(nproc) cores, $(uname -sr). Profile: $PROFILE. Best of $RUNS runs (matrix), $RUNS_LONG (replays).

## Full shipped matrix

\`forge-replay verify scenarios\`: $scenarios scenarios × 10 APIs. $m_line

| wall (s) | peak RSS (MiB) |
|---:|---:|
| $m_secs | $((m_kib / 1024)) |

## Replay of generated sessions

\`forge-replay replay SESSION --format json\` (recorded model, anthropic-messages).

| requests (target) | requests | output (MB) | wall (s) | peak RSS (MiB) | MB/s |
|---:|---:|---:|---:|---:|---:|
$rows
Each request carries its whole history, so output grows quadratically with N; a steady MB/s
means the cost is linear in the bytes written (the path is projected incrementally, not once per
request).
EOF
cat "$REPORT"
