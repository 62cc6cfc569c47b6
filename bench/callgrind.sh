#!/usr/bin/env bash
# Instruction counts (callgrind) of one chunk operation for ours and the reference, side by side.
#
#   bench/callgrind.sh WORKLOAD OP [ITERS]   (see bench/profile.c; e.g. lz4 decompress 3,
#                                             schunk-file decompress-all 1)
#   bench/callgrind.sh b2nd slab|column|box [ITERS]   (bench/profile_b2nd.c: bench.c's slices)
#
# Prints the instructions per call (the warm-up call included in the average) of each library and the ratio reference/ours (higher is
# better for ours). Keeps the callgrind files in target/bench/ for callgrind_annotate.
set -euo pipefail
cd "$(dirname "$0")/.."
w=$1 op=$2 iters=${3:-3}
ref=$(capi-tests/get-reference.sh)
out=target/bench
mkdir -p "$out"
prog=profile args=("$w" "$op")
[ "$w" = b2nd ] && prog=profile_b2nd args=("$op")
${CC:-cc} -O2 -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers -I"$ref/include" "bench/$prog.c" -o "$out/$prog" -ldl -lm
count() {
  local f="$out/callgrind.$1.$w.$op"
  valgrind --tool=callgrind --toggle-collect='run_*' --callgrind-out-file="$f" \
    "$out/$prog" "$2" "${args[@]}" "$iters" >/dev/null 2>"$f.log" || { cat "$f.log" >&2; exit 1; }
  sed -n 's/^summary: *//p' "$f" | awk -v n="$((iters + 1))" '{printf "%.0f\n", $1 / n}'
}
ours=$(count ours "$PWD/target/release/libblosc2.so")
theirs=$(count ref "$ref/lib/libblosc2.so.9")
awk -v o="$ours" -v r="$theirs" -v w="$w" -v op="$op" \
  'BEGIN { printf "%s %s: ours %d, reference %d instructions/call, reference/ours %.3f\n", w, op, o, r, r / o }'
