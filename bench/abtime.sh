#!/usr/bin/env bash
# Time several library builds against each other inside one process (bench/abtime.c) under
# perf's cpu-clock sampling, REPEATS processes, and print each library's summed samples and their
# ratio to the last library given (lower is faster). No hardware counters needed.
#
# The samples counted are those inside each library's own file: time a library spends in libc
# (memcpy, malloc) or in the kernel (page faults) is left out, so the sums suit comparing builds
# of ours with each other; against the reference, which spends more of its time outside its file
# (e.g. shuffle+lz4 4 MiB decompress: 1.10 by these sums, 0.75 by wall time), read the
# milliseconds per call that target/bench/abtime prints itself.
#
#   bench/abtime.sh REPEATS WORKLOAD OP ROUNDS LIB.so...
#   e.g. bench/abtime.sh 8 zstd compress 20 /tmp/a.so /tmp/b.so "$(capi-tests/get-reference.sh)/lib/libblosc2.so.9"
#
# The libraries must have distinct file names (perf reports them by name).
set -euo pipefail
cd "$(dirname "$0")/.."
n=$1 w=$2 op=$3 rounds=$4
shift 4
ref=$(capi-tests/get-reference.sh)
out=target/bench
mkdir -p "$out"
${CC:-cc} -O2 -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers -I"$ref/include" bench/abtime.c -o "$out/abtime" -ldl -lm
declare -A total
for i in $(seq "$n"); do
  perf record -q -e cpu-clock -c 50000 -o "$out/abtime.perf" "$out/abtime" "$w" "$op" "$rounds" 1 "$@" >/dev/null
  line="run $i:"
  while read -r count dso; do
    total[$dso]=$(( ${total[$dso]:-0} + count ))
    for l in "$@"; do [ "$(basename "$l")" = "$dso" ] && line="$line $dso $count"; done
  done < <(perf report -q -n -i "$out/abtime.perf" --sort dso 2>/dev/null | awk 'NF == 3 { print $2, $3 }')
  echo "$line"
done
last=$(basename "${@: -1}")
for l in "$@"; do
  b=$(basename "$l")
  awk -v b="$b" -v a="${total[$b]:-0}" -v r="${total[$last]:-1}" 'BEGIN { printf "%-28s %9d samples  %.3f\n", b, a, a / r }'
done
