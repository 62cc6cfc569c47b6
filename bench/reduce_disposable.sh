#!/usr/bin/env bash
# bench/reduce_disposable.c against several libraries in separate processes, PAIRS rounds
# alternating between them; prints each library's median over the rounds of its per-process
# medians (wall time and process CPU time), and their ratios to the last library given.
#
#   bench/reduce_disposable.sh PAIRS CODEC CLEVEL NTHREADS REPEATS LIBDIR...
#   e.g. bench/reduce_disposable.sh 5 lz4 5 2 10 _install/lib "$(capi-tests/get-reference.sh)/lib"
#
# Each LIBDIR holds a libblosc2.so.9.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=$1 codec=$2 clevel=$3 nt=$4 repeats=$5
shift 5
ref=$(capi-tests/get-reference.sh)
out=target/bench
mkdir -p "$out"
${CC:-cc} -O2 -Wall -Wextra -I"$ref/include" bench/reduce_disposable.c -o "$out/reduce_disposable" \
  -L"$ref/lib" -l:libblosc2.so.9
declare -A times cpus
for _ in $(seq "$pairs"); do
  for d in "$@"; do
    line=$(LD_LIBRARY_PATH=$d "$out/reduce_disposable" "$codec" "$clevel" "$nt" "$repeats")
    echo "$d: $line"
    times[$d]="${times[$d]:-} $(echo "$line" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')"
    cpus[$d]="${cpus[$d]:-} $(echo "$line" | sed -n 's/.*cpu \([0-9.]*\) ms.*/\1/p')"
  done
done
last=${*: -1}
med() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
base=$(echo "${times[$last]}" | med)
cbase=$(echo "${cpus[$last]}" | med)
for d in "$@"; do
  m=$(echo "${times[$d]}" | med)
  c=$(echo "${cpus[$d]}" | med)
  awk -v d="$d" -v m="$m" -v b="$base" -v c="$c" -v cb="$cbase" 'BEGIN {
    printf "%-45s wall %8.3f ms  ratio %.3f   cpu %8.3f ms  ratio %.3f\n", d, m, m / b, c, c / cb }'
done
