#!/usr/bin/env bash
# Benchmark of work and memory against session size (issues 17 and 20): wall time and peak RSS
# of the commands that read one session, on generated sessions of three shapes
# (scripts/gen-scale-session.py):
#   chain   an alternating user/assistant chain (every request's context is the whole chain)
#   comb    one leaf per node (a chain whose every entry has a second child, a leaf)
#   small   the chain with entries of about 130 bytes (1,000,000 entries: 128 MiB, near the
#           90 MB file of issue 17), for the linear commands
#   compacting  the chain compacted every 400 entries (keeping 20), as Pi compacts when the
#           context fills: every request's context stays bounded, however long the session
#   forest  a wide tree of short conversations (the file grows, the paths do not)
# plus a generated scenario of 20,000 steps through `scenario` and `verify`.
# Commands: check, cache explain, replay --format text, capabilities, usage, context. On chain
# and comb (SIZES) all six; on the large chain (LARGE_CHAIN) the four whose output does not grow
# with the square of the path (replay and cache explain rebuild every request, whose sizes sum to
# N^2 on a chain); on forest (FOREST) all six.
# Every run has a timeout; a run that hits it is reported as "> T s".
#
# Usage: scripts/bench-scale.sh [report.md]   (default docs/bench/bench-scale.md: the one place
#        bench-scale reports are kept)
# Env:   SIZES ("1000 10000 100000": chain and comb)  FOREST ("10000 100000 1000000")
#        LARGE_CHAIN ("1000000": chain, the linear commands)
#        SMALL ("10000 100000 1000000": small-entry chain, the linear commands)
#        COMPACTING ("1000 10000 100000": the compacted chain, check, cache explain, replay)
#        STEPS (20000)  TIMEOUT (300 s per run)  BASELINE (another forge-replay binary: its
#        figures are shown beside, e.g. a build of main before this change)
#        BENCH_DIR (/tmp/forge-bench-scale)  CARGO_TARGET_DIR (~/.cache/forge-replay-target)
# Needs: /usr/bin/time, timeout, python3.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPORT=${1:-$ROOT/docs/bench/bench-scale.md}
SIZES=${SIZES:-1000 10000 100000}
FOREST=${FOREST:-10000 100000 1000000}
LARGE_CHAIN=${LARGE_CHAIN:-1000000}
SMALL=${SMALL:-10000 100000 1000000}
COMPACTING=${COMPACTING:-1000 10000 100000}
STEPS=${STEPS:-20000}
TIMEOUT=${TIMEOUT:-300}
BASELINE=${BASELINE:-}
BENCH_DIR=${BENCH_DIR:-/tmp/forge-bench-scale}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/forge-replay-target}

echo "building forge-replay (release)…" >&2
(cd "$ROOT" && cargo build --release --locked -q -p forge-replay)
FR=$CARGO_TARGET_DIR/release/forge-replay
mkdir -p "$BENCH_DIR"

# "secs MiB" of one run (secs prefixed with ">" when it hit the timeout).
measure() {
	local rc=0
	timeout --signal=KILL "$TIMEOUT" /usr/bin/time -f "%e %M" -o "$BENCH_DIR/time.txt" "$@" \
		>"$BENCH_DIR/out.txt" 2>"$BENCH_DIR/err.txt" || rc=$?
	if [ "$rc" -eq 137 ] || [ ! -s "$BENCH_DIR/time.txt" ] || grep -q "signal" "$BENCH_DIR/time.txt"; then
		echo ">$TIMEOUT -"
		return
	fi
	if [ "$rc" -gt 1 ]; then
		echo "command failed ($rc): $*" >&2
		tail -3 "$BENCH_DIR/err.txt" >&2
		echo "error -"
		return
	fi
	local secs kib
	read -r secs kib < <(tail -1 "$BENCH_DIR/time.txt")
	echo "$secs $((kib / 1024))"
}

gen() { # shape entries -> path
	local f=$BENCH_DIR/$1-$2.jsonl
	[ -s "$f" ] || python3 "$ROOT/scripts/gen-scale-session.py" "$1" "$2" "$f"
	echo "$f"
}

rows=""
row() { # shape entries file command...
	local shape=$1 n=$2 file=$3
	shift 3
	local mib
	mib=$(python3 -c "import os; print(f'{os.path.getsize(\"$file\") / 1048576:.1f}')")
	local cmd="$*"
	local before="" after
	if [ -n "$BASELINE" ]; then
		read -r bs bm < <(measure "$BASELINE" "$@" "$file")
		before="| $bs | $bm "
	fi
	read -r as am < <(measure "$FR" "$@" "$file")
	local ratio="-"
	[[ "$am" =~ ^[0-9]+$ ]] && ratio=$(python3 -c "print(f'{$am / max($mib, 0.1):.2f}')")
	rows+="| $shape | $n | $mib | \`$cmd\` $before| $as | $am | $ratio |"$'\n'
	echo "$shape $n $cmd: ${before}after $as s $am MiB" >&2
}

ALL="check|cache explain|replay --format text|capabilities|usage|context"
LINEAR="check|capabilities|usage|context"
rows_for() { # shape entries commands(|-separated)
	local f cmd
	f=$(gen "$1" "$2")
	IFS='|' read -r -a cmds <<<"$3"
	for cmd in "${cmds[@]}"; do
		# shellcheck disable=SC2086
		row "$1" "$2" "$f" $cmd
	done
}
for n in $SIZES; do
	for shape in chain comb; do
		rows_for "$shape" "$n" "$ALL"
	done
done
for n in $LARGE_CHAIN; do
	rows_for chain "$n" "$LINEAR"
done
for n in $SMALL; do
	rows_for small "$n" "$LINEAR"
done
for n in $COMPACTING; do
	rows_for compacting "$n" "check|cache explain|replay --format text"
done
for n in $FOREST; do
	rows_for forest "$n" "$ALL"
done

# A scenario of STEPS steps (user/assistant turns with tool calls, a capability toggled every 100).
scen=$BENCH_DIR/scenario-$STEPS/long.toml
mkdir -p "$(dirname "$scen")"
python3 - "$STEPS" >"$scen" <<'PY'
import sys
n = int(sys.argv[1])
print('format = "forge-replay-scenario"\nversion = 1\nmodel = "anthropic/claude-opus-4-8"\ntools = ["read", "bash"]')
on = False
for k in range(n):
    print("\n[[step]]")
    if k % 100 == 50:
        print('capability = { op = "disable", target = "manual" }' if on
              else f'capability = {{ op = "add", text = "Rule {k}: keep functions short." }}')
        on = not on
    elif k % 2 == 0:
        print(f'user = "Step {k}: look at file {k}."')
    elif k % 3 == 0:
        print(f'assistant.text = "Reading file {k}."')
        print(f'assistant.tool_calls = [{{ name = "read", arguments = {{ path = "src/f{k}.rs" }}, result = "fn f{k}() {{}}" }}]')
    else:
        print(f'assistant.text = "File {k} is fine."')
PY
scen_rows=""
for tool in "$BASELINE" "$FR"; do
	[ -n "$tool" ] && [ "$STEPS" -gt 0 ] || continue
	rm -rf "$BENCH_DIR/scenario-out"
	read -r cs cm < <(measure "$tool" scenario "$scen" --out "$BENCH_DIR/scenario-out")
	read -r vs vm < <(measure "$tool" verify "$scen" --apis anthropic-messages --golden-dir "$BENCH_DIR/scenario-goldens")
	label=after
	[ "$tool" = "$BASELINE" ] && label=before
	scen_rows+="| $label | $STEPS | $cs | $cm | $vs | $vm |"$'\n'
done

scen_section=""
if [ -n "$scen_rows" ]; then
	scen_section="Scenario of $STEPS steps: \`scenario FILE --out DIR\` (the compiler) and
\`verify FILE --apis anthropic-messages\` (no goldens: every request is built and reported
missing; its cost is the requests' bytes, which grow with the square of the steps).

| build | steps | scenario (s) | peak (MiB) | verify (s) | peak (MiB) |
|---|---:|---:|---:|---:|---:|
$scen_rows"
fi
head_before=""
sep_before=""
if [ -n "$BASELINE" ]; then
	head_before="| before (s) | before peak (MiB) "
	sep_before="|---:|---:"
fi
mkdir -p "$(dirname "$REPORT")"
cat >"$REPORT" <<EOF
# bench-scale

Machine: $(nproc) cores, $(uname -sr), load average at the end $(cut -d' ' -f1-3 /proc/loadavg).
Release build of $(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet HEAD || echo " (with local changes)")${BASELINE:+; "before" is \`$BASELINE\`}.
One run each, timeout $TIMEOUT s (\`>$TIMEOUT\`: killed). SIZES="$SIZES" LARGE_CHAIN="$LARGE_CHAIN"
SMALL="$SMALL" COMPACTING="$COMPACTING" FOREST="$FOREST" STEPS="$STEPS". Peak is the peak resident set (\`/usr/bin/time\` %M); peak/file is
that over the file size.

| shape | entries | file (MiB) | command ${head_before}| wall (s) | peak (MiB) | peak/file |
|---|---:|---:|---${sep_before}|---:|---:|---:|
$rows
$scen_section
EOF
cat "$REPORT"
