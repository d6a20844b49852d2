#!/usr/bin/env bash
# Instructions per request of the wire assembly bench, per API, under valgrind's callgrind
# (load-independent, so before/after comparisons hold on a busy machine).
#   scripts/bench-wire-ir.sh [API...]        (default: all ten)
# Counts instructions inside `assemble_case` (assembly plus the body bytes) over 13 calls
# (1 check + 2 warm-up + 10 timed with WIRE_BENCH_ITERS=10) and prints the mean per call.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 2; }
bin=$(cargo bench -p forge-replay-wire --bench assemble --no-run --message-format=json 2>/dev/null \
  | sed -n 's/.*"executable":"\([^"]*assemble[^"]*\)".*/\1/p' | tail -1)
[ -x "$bin" ] || { echo "could not build the assemble bench" >&2; exit 2; }
apis=("$@")
[ ${#apis[@]} -gt 0 ] || apis=(anthropic-messages openai-responses azure-openai-responses
  openai-codex-responses openai-completions mistral-conversations google-generative-ai
  google-vertex bedrock-converse-stream pi-messages)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for api in "${apis[@]}"; do
  WIRE_BENCH_ONLY=$api WIRE_BENCH_ITERS=10 valgrind --tool=callgrind \
    --callgrind-out-file="$tmp/cg.out" --toggle-collect='*assemble_case*' "$bin" >/dev/null 2>"$tmp/log"
  total=$(grep -E '^(summary|totals):' "$tmp/cg.out" | head -1 | awk '{print $2}')
  printf '%-26s %10d instructions/request\n' "$api" $((total / 13))
done
