#!/usr/bin/env bash
# Benchmark: `forge-replay usage --corpus` vs `ccusage pi daily --offline --json` vs `cat`, on a
# generated corpus (default 2,000 sessions x 200 lines, about 330 MB), cold (`--no-cache`) and
# warm (the incremental index: unchanged, and after appending one request to 20 sessions), with
# the floors (two `cat` readers, forge-replay on one core), plus a token-total check against
# ccusage on a fork-free corpus and on a corpus with forks.
#
# Usage: scripts/bench-usage.sh [report.md]
# Env:   SESSIONS (2000) ENTRIES (200) SEED (1) FORKS (0.2, for the fork corpus) RUNS (3)
#        BENCH_DIR (/tmp/forge-bench-usage)  CCUSAGE_DIR (/tmp/ccusage, npm scratch dir)
#        CCUSAGE_VERSION (20.0.24: the newest with a linux-x64 native package on the mirror)
#        CARGO_TARGET_DIR (/root/.cache/forge-replay-target)
#        BASELINE (optional): another forge-replay binary, measured in the same run on the same
#        corpus (e.g. a release build of main, to compare before/after a change)
#        APPEND_FILES (20): sessions that gain one request before each warm re-run
#        SCALES (optional, e.g. "1 3 10"): also measure corpora of SESSIONS x k sessions (one
#        run each: forge-replay cold and warm, ccusage) and append a scale table to the report
# Needs: /usr/bin/time, npm (only to install ccusage once), python3 (to read JSON).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPORT=${1:-$ROOT/target/bench-usage.md}
SESSIONS=${SESSIONS:-2000}
ENTRIES=${ENTRIES:-200}
SEED=${SEED:-1}
FORKS=${FORKS:-0.2}
RUNS=${RUNS:-3}
BENCH_DIR=${BENCH_DIR:-/tmp/forge-bench-usage}
CCUSAGE_DIR=${CCUSAGE_DIR:-/tmp/ccusage}
CCUSAGE_VERSION=${CCUSAGE_VERSION:-20.0.24}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/root/.cache/forge-replay-target}

echo "building forge-replay (release)…" >&2
(cd "$ROOT" && cargo build --release -q -p forge-replay)
FR=$CARGO_TARGET_DIR/release/forge-replay

CC=$CCUSAGE_DIR/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage
if [ ! -x "$CC" ]; then
  echo "installing ccusage@$CCUSAGE_VERSION into $CCUSAGE_DIR…" >&2
  mkdir -p "$CCUSAGE_DIR"
  (cd "$CCUSAGE_DIR" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install -s "ccusage@$CCUSAGE_VERSION" >/dev/null)
  chmod +x "$CC" # npm may leave the native binary without its execute bit
fi
export HOME_FOR_CCUSAGE=$BENCH_DIR/fakehome   # keep ccusage away from any real ~/.claude, ~/.codex…
mkdir -p "$HOME_FOR_CCUSAGE"

PLAIN=$BENCH_DIR/plain/sessions
FORKED=$BENCH_DIR/forked/sessions
gen() { # dir forks
  if [ ! -f "$1/.done-$SESSIONS-$ENTRIES-$SEED-$2" ]; then
    rm -rf "$1"
    "$FR" gen-corpus --out "$1" --sessions "$SESSIONS" --entries "$ENTRIES" --seed "$SEED" --forks "$2" >&2
    touch "$1/.done-$SESSIONS-$ENTRIES-$SEED-$2"
  fi
}
gen "$PLAIN" 0
gen "$FORKED" "$FORKS"
BYTES=$(find "$PLAIN" -name '*.jsonl' -print0 | du -cb --files0-from=- | tail -1 | cut -f1)
LINES=$(find "$PLAIN" -name '*.jsonl' -print0 | xargs -0 cat | wc -l)

# measure NAME CMD... → appends "name wall rss" (best wall of RUNS, max RSS of the runs)
RESULTS=$BENCH_DIR/results.txt
: > "$RESULTS"
# The machine's load before and after the timed runs (shared machines: the wall times carry it).
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
measure() {
  local name=$1; shift
  local best="" rss=0 cpu=""
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -v -o "$BENCH_DIR/time.txt" "$@" > "$BENCH_DIR/out-$name.txt" 2>/dev/null
    local wall kb c
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$BENCH_DIR/time.txt" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
    kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$BENCH_DIR/time.txt")
    # CPU seconds (user + system): on a loaded machine the wall time measures the neighbours too.
    c=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$BENCH_DIR/time.txt")
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall; fi
    if [ -z "$cpu" ] || awk "BEGIN{exit !($c < $cpu)}"; then cpu=$c; fi
    if [ "$kb" -gt "$rss" ]; then rss=$kb; fi
  done
  echo "$name $best $rss $cpu" >> "$RESULTS"
  echo "$name: ${best}s, $((rss / 1024)) MB, ${cpu} CPU s" >&2
}

cat_all() { find "$1" -name '*.jsonl' -print0 | xargs -0 cat; }
cat_two() { find "$1" -name '*.jsonl' -print0 | xargs -0 -P2 -n 500 cat; }
export -f cat_all cat_two
measure cat bash -c "cat_all '$PLAIN' > /dev/null"
measure cat2 bash -c "cat_two '$PLAIN' > /dev/null"
measure forge-replay "$FR" usage --corpus "$PLAIN" --format json --no-cache
cp "$BENCH_DIR/out-forge-replay.txt" "$BENCH_DIR/forge-plain.json"
measure forge-1core env RAYON_NUM_THREADS=1 "$FR" usage --corpus "$PLAIN" --format json --no-cache
if [ -n "${BASELINE:-}" ]; then
  measure baseline "$BASELINE" usage --corpus "$PLAIN" --format json --no-cache
fi
measure ccusage env HOME="$HOME_FOR_CCUSAGE" PI_AGENT_DIR="$PLAIN" "$CC" pi daily --offline --json
cp "$BENCH_DIR/out-ccusage.txt" "$BENCH_DIR/ccusage-plain.json"

# Warm: the incremental index, on a copy of the corpus that grows.
WARM=$BENCH_DIR/warm/sessions
CACHE=$BENCH_DIR/cache
rm -rf "$BENCH_DIR/warm" "$CACHE" && mkdir -p "$WARM" && cp -r "$PLAIN"/. "$WARM"/
measure index-build bash -c "rm -rf '$CACHE' && '$FR' usage --corpus '$WARM' --format json --cache '$CACHE'"
measure warm-unchanged "$FR" usage --corpus "$WARM" --format json --cache "$CACHE"
# One request more in APPEND_FILES sessions (a copy of the last response, under a new id),
# before each timed re-run.
append_some() {
  python3 - "$WARM" "${APPEND_FILES:-20}" "$1" <<'PYA'
import json, os, sys
root, n, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".jsonl"))
for i, p in enumerate(files[:: max(1, len(files) // n)][:n]):
    lines = open(p).read().splitlines()
    last = json.loads(lines[-1])
    asst = next(json.loads(l) for l in reversed(lines) if '"role":"assistant"' in l)
    asst["id"], asst["parentId"] = f"app{tag}x{i}", last.get("id")
    with open(p, "a") as f:
        f.write(json.dumps(asst, separators=(",", ":")) + "\n")
PYA
}
best="" rss=0
for r in $(seq "$RUNS"); do
  append_some "$r"
  /usr/bin/time -v -o "$BENCH_DIR/time.txt" "$FR" usage --corpus "$WARM" --format json --cache "$CACHE" > "$BENCH_DIR/out-warm-append.txt" 2>/dev/null
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$BENCH_DIR/time.txt" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
  kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$BENCH_DIR/time.txt")
  if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall; fi
  if [ "$kb" -gt "$rss" ]; then rss=$kb; fi
done
echo "warm-append $best $rss -1" >> "$RESULTS"
echo "warm-append: ${best}s, $((rss / 1024)) MB" >&2
"$FR" usage --corpus "$WARM" --format json --no-cache > "$BENCH_DIR/forge-warm-nocache.json"
cp "$BENCH_DIR/out-warm-append.txt" "$BENCH_DIR/forge-warm-index.json"
measure ccusage-warm env HOME="$HOME_FOR_CCUSAGE" PI_AGENT_DIR="$WARM" "$CC" pi daily --offline --json

# Fork corpus: one run each for the totals comparison.
"$FR" usage --corpus "$FORKED" --format json --no-cache > "$BENCH_DIR/forge-forked.json"
env HOME="$HOME_FOR_CCUSAGE" PI_AGENT_DIR="$FORKED" "$CC" pi daily --offline --json > "$BENCH_DIR/ccusage-forked.json"
# The same fork corpus moved elsewhere (a synced or restored sessions directory): the headers'
# `parentSession` paths no longer name scanned files.
RELOC=$BENCH_DIR/relocated/sessions
rm -rf "$BENCH_DIR/relocated" && mkdir -p "$RELOC" && cp -r "$FORKED"/. "$RELOC"/
"$FR" usage --corpus "$RELOC" --format json --no-cache > "$BENCH_DIR/forge-relocated.json"
env HOME="$HOME_FOR_CCUSAGE" PI_AGENT_DIR="$RELOC" "$CC" pi daily --offline --json > "$BENCH_DIR/ccusage-relocated.json"

export LOAD_START LOAD_END
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
python3 - "$RESULTS" "$BENCH_DIR" "$BYTES" "$LINES" "$SESSIONS" "$ENTRIES" "$FORKS" "$REPORT" <<'PY'
import json, sys, os
results, d, nbytes, lines, sessions, entries, forks, report = sys.argv[1:]
r = {}
cpu = {}
for line in open(results):
    name, wall, kb, c = line.split()
    r[name] = (float(wall), int(kb))
    cpu[name] = float(c)
def load(n): return json.load(open(os.path.join(d, n)))
def ours(j): t = j["totals"]; return [t["input"], t["output"], t["cacheRead"], t["cacheWrite"]]
def theirs(j): t = j["totals"]; return [t["inputTokens"], t["outputTokens"], t["cacheReadTokens"], t["cacheCreationTokens"]]
fp, cp = load("forge-plain.json"), load("ccusage-plain.json")
ff, cf = load("forge-forked.json"), load("ccusage-forked.json")
fr_, cr_ = load("forge-relocated.json"), load("ccusage-relocated.json")
names = ["input", "output", "cacheRead", "cacheWrite"]
cat, fr, cc = r["cat"], r["forge-replay"], r["ccusage"]
cat2, one = r["cat2"], r["forge-1core"]
build, warm, app, ccw = r["index-build"], r["warm-unchanged"], r["warm-append"], r["ccusage-warm"]
mib = int(nbytes) / 2**20
out = []
out.append(f"Corpus: {sessions} sessions x {entries} lines ({int(lines):,} lines, {int(nbytes)/2**20:.0f} MiB), "
           f"{int(fp['totals']['requests']):,} requests; best of {os.environ.get('RUNS','3')} runs, warm page cache; "
           f"load average {os.environ.get('LOAD_START')} at the start, {os.environ.get('LOAD_END')} at the end "
           f"({os.cpu_count()} CPUs).\n")
out.append("| command | wall (s) | peak RSS (MB) |")
out.append("|---|---:|---:|")
out.append(f"| `cat` of every file | {cat[0]:.2f} | {cat[1]/1024:.0f} |")
out.append(f"| two `cat`s in parallel (`xargs -P2`) | {cat2[0]:.2f} | {cat2[1]/1024:.0f} |")
out.append(f"| `forge-replay usage --corpus DIR --format json --no-cache` (cold) | {fr[0]:.2f} | {fr[1]/1024:.0f} |")
out.append(f"| the same on one core (`RAYON_NUM_THREADS=1`) | {one[0]:.2f} | {one[1]/1024:.0f} |")
out.append(f"| `ccusage pi daily --offline --json` (PI_AGENT_DIR=DIR) | {cc[0]:.2f} | {cc[1]/1024:.0f} |")
out.append(f"| forge-replay `--cache C`, first run (reads all, writes the index) | {build[0]:.2f} | {build[1]/1024:.0f} |")
out.append(f"| forge-replay `--cache C`, nothing changed | {warm[0]:.2f} | {warm[1]/1024:.0f} |")
out.append(f"| forge-replay `--cache C`, after one request more in {os.environ.get('APPEND_FILES', '20')} sessions | {app[0]:.2f} | {app[1]/1024:.0f} |")
out.append(f"| ccusage on that grown corpus | {ccw[0]:.2f} | {ccw[1]/1024:.0f} |")
if "baseline" in r:
    b = r["baseline"]
    out.append(f"| baseline `{os.environ.get('BASELINE')}` | {b[0]:.2f} | {b[1]/1024:.0f} |")
    out.append("")
    out.append(f"Against the baseline: wall {fr[0]/b[0]*100-100:+.1f} %, CPU time (user + system, best run) "
               f"{cpu['forge-replay']:.2f} s vs {cpu['baseline']:.2f} s = {cpu['forge-replay']/cpu['baseline']*100-100:+.1f} %, "
               f"peak RSS {fr[1]/b[1]*100-100:+.1f} %.")
out.append("")
out.append(f"forge-replay is {cc[0]/fr[0]:.1f}x faster than ccusage and takes {fr[0]/max(cat[0],1e-9):.1f}x the `cat` time; "
           f"peak RSS {fr[1]/1024:.0f} MB.\n")
ok = lambda b: "met" if b else "NOT met"
out.append("| target (issue 16) | measured | |")
out.append("|---|---:|---|")
out.append(f"| cold >= 10x faster than ccusage | {cc[0]/fr[0]:.1f}x | {ok(cc[0]/fr[0] >= 10)} |")
out.append(f"| cold <= 1.2x the `cat` time | {fr[0]/max(cat[0],1e-9):.2f}x | {ok(fr[0] <= 1.2*cat[0])} |")
out.append(f"| cold peak RSS <= 64 MB | {fr[1]/1024:.0f} MB | {ok(fr[1] <= 64*1024)} |")
out.append(f"| warm after appends >= 100x faster than ccusage | {ccw[0]/max(app[0],1e-9):.0f}x | {ok(ccw[0] >= 100*app[0])} |")
out.append("")
out.append(f"CPU seconds (user + system, best run): cat {cpu['cat']:.2f}, forge-replay cold {cpu['forge-replay']:.2f}, "
           f"on one core {cpu['forge-1core']:.2f}, warm unchanged {cpu['warm-unchanged']:.2f}, ccusage {cpu['ccusage']:.2f}.\n")
out.append(f"Floors: forge-replay on one core reads and validates {mib/one[0]:.0f} MiB/s "
           f"({mib/cpu['forge-1core']:.0f} MiB per CPU second) "
           f"(both cores: {mib/fr[0]:.0f} MiB/s); `cat` reads {mib/cat[0]:.0f} MiB/s with one reader, "
           f"{mib/cat2[0]:.0f} MiB/s with two.\n")
fw, fn = load("forge-warm-index.json"), load("forge-warm-nocache.json")
same = json.dumps(fw, sort_keys=True) == json.dumps(fn, sort_keys=True)
out.append(f"Warm output (index, after the appends) equal to `--no-cache` on the same files: {'yes' if same else 'NO'}.\n")
out.append("Token totals, fork-free corpus (forge-replay counts every branch, active + abandoned):\n")
out.append("| | " + " | ".join(names) + " |")
out.append("|---|" + "---:|" * 4)
out.append("| forge-replay | " + " | ".join(f"{v:,.0f}" for v in ours(fp)) + " |")
out.append("| ccusage | " + " | ".join(f"{v:,.0f}" for v in theirs(cp)) + " |")
out.append(f"\nEqual: {'yes' if ours(fp) == theirs(cp) else 'NO'}.\n")
fc = ff["forkCopies"]
out.append(f"Corpus with forks (--forks {forks}: {ff['forks']} fork files):\n")
out.append("| | " + " | ".join(names) + " |")
out.append("|---|" + "---:|" * 4)
out.append("| forge-replay (deduplicated) | " + " | ".join(f"{v:,.0f}" for v in ours(ff)) + " |")
out.append("| fork copies removed | " + " | ".join(f"{fc[k]:,.0f}" for k in names) + " |")
out.append("| forge-replay + copies | " + " | ".join(f"{a+fc[k]:,.0f}" for a, k in zip(ours(ff), names)) + " |")
out.append("| ccusage | " + " | ".join(f"{v:,.0f}" for v in theirs(cf)) + " |")
diff = [t - a for t, a in zip(theirs(cf), ours(ff))]
copies = [fc[k] for k in names]
if all(abs(x) < 1e-6 for x in diff):
    verdict = ("equal: ccusage also counts each fork copy once, so both tools drop the "
               "same copied entries (the row above) that a naive sum would count twice")
elif all(abs(x - c) < 1e-6 for x, c in zip(diff, copies)):
    verdict = "the whole difference is the fork copies ccusage counts again and forge-replay deduplicates"
else:
    verdict = "NOT explained by fork copies alone"
out.append(f"\nccusage minus forge-replay: {diff}: {verdict}.\n")
fc2 = fr_["forkCopies"]
diff2 = [t - a for t, a in zip(theirs(cr_), ours(fr_))]
out.append("The same fork corpus copied to another directory (its headers' `parentSession` paths now name "
           "files outside the scanned tree):\n")
out.append("| | " + " | ".join(names) + " |")
out.append("|---|" + "---:|" * 4)
out.append("| forge-replay (deduplicated) | " + " | ".join(f"{v:,.0f}" for v in ours(fr_)) + " |")
out.append("| fork copies removed | " + " | ".join(f"{fc2[k]:,.0f}" for k in names) + " |")
out.append("| ccusage | " + " | ".join(f"{v:,.0f}" for v in theirs(cr_)) + " |")
if all(abs(x - fc2[k]) < 1e-6 for x, k in zip(diff2, names)):
    v2 = ("ccusage now counts every fork copy again (it matches copies through the `parentSession` "
          "path); forge-replay's totals do not depend on where the files are")
elif all(abs(x) < 1e-6 for x in diff2):
    v2 = "equal"
else:
    v2 = "NOT explained by fork copies alone"
out.append(f"\nccusage minus forge-replay: {diff2}: {v2}.")
text = "\n".join(out) + "\n"
os.makedirs(os.path.dirname(report) or ".", exist_ok=True)
open(report, "w").write(text)
print(text)
PY
echo "report: $REPORT" >&2

if [ -n "${SCALES:-}" ]; then
  {
    echo
    echo "Scale (one run each; sessions x $ENTRIES lines):"
    echo
    echo "| scale | sessions | MiB | forge-replay cold (s) | RSS (MB) | warm, nothing changed (s) | RSS (MB) | ccusage (s) | RSS (MB) |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  } >> "$REPORT"
  for k in $SCALES; do
    n=$((SESSIONS * k))
    dir=$BENCH_DIR/scale-$k/sessions
    if [ ! -f "$dir/.done-$n-$ENTRIES-$SEED" ]; then
      rm -rf "$BENCH_DIR/scale-$k"
      "$FR" gen-corpus --out "$dir" --sessions "$n" --entries "$ENTRIES" --seed "$SEED" >&2
      touch "$dir/.done-$n-$ENTRIES-$SEED"
    fi
    mib=$(find "$dir" -name '*.jsonl' -print0 | du -cb --files0-from=- | tail -1 | awk '{printf "%.0f", $1/1048576}')
    one() { # prints "wall rss_mb"
      /usr/bin/time -v -o "$BENCH_DIR/time.txt" "$@" > /dev/null 2>&1
      local w kb
      w=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$BENCH_DIR/time.txt" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
      kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$BENCH_DIR/time.txt")
      echo "$w $((kb / 1024))"
    }
    cold=$(one "$FR" usage --corpus "$dir" --format json --no-cache)
    rm -rf "$BENCH_DIR/scale-cache-$k"
    one "$FR" usage --corpus "$dir" --format json --cache "$BENCH_DIR/scale-cache-$k" > /dev/null
    warm=$(one "$FR" usage --corpus "$dir" --format json --cache "$BENCH_DIR/scale-cache-$k")
    cc=$(one env HOME="$HOME_FOR_CCUSAGE" PI_AGENT_DIR="$dir" "$CC" pi daily --offline --json)
    set -- $cold $warm $cc
    echo "| ${k}x | $n | $mib | $1 | $2 | $3 | $4 | $5 | $6 |" | tee -a "$REPORT"
  done
fi
