#!/usr/bin/env bash
# Regenerates link/hot-text.ld, the list of functions build.rs lays out together at the start of
# the shared library's code (fewer code pages touched: lower RSS for every process using it).
#
#   bench/hot-text.sh
#
# Runs the small rows of bench/matrix.c and every bench/bench.c workload once on our release
# library under callgrind and lists the functions each one ran, smallest workloads first, so
# each workload's code is few runs of pages.
# Rerun it after large changes (new functions, different inlining): a function missing from the
# list still works, it only lands with the cold code. Takes about 4 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
ref=$(capi-tests/get-reference.sh)
out=target/hot-text
mkdir -p "$out"
${CC:-cc} -O2 -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers -I"$ref/include" bench/bench.c -o "$out/bench" -ldl -lm
lib="$PWD/target/release/libblosc2.so"
# Small chunks first (their few functions end up in the first pages), then the 4 MiB chunks at
# two threads (the thread pool's code next to them) and at one, super-chunks, b2nd, and the Zstd
# ones last: Zstd's ~130 KiB of code of its own would otherwise lie between the compression core
# and the frame and b2nd code, and every super-chunk and b2nd process would touch it.
order=$("$out/bench" --list | awk -F'\t' '
  $2 ~ /schunk/ { print 4, $1; next }
  $2 ~ /b2nd/ { print 5, $1; next }
  $2 ~ /zstd/ { print 6, $1; next }
  $2 ~ /KiB/ { print 0, $1; next }
  $2 ~ /t2$/ { print 1, $1; next }
  { print 2, $1 }' | sort -n -k1,1 -k2,2 -s | cut -d' ' -f2)
profiles=()
# First the smallest workloads of bench/matrix.c (special-value chunks, per-call rows), whose
# few megabytes of RSS our library's code pages are a visible part of.
${CC:-cc} -O2 -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers -I"$ref/include" bench/matrix.c \
  -o "$out/matrix" -L"$ref/lib" -l:libblosc2.so.9 -lm
mkdir -p "$out/ours-lib"
ln -sf "$lib" "$out/ours-lib/libblosc2.so.9"
mapfile -t small < <(LD_LIBRARY_PATH="$out/ours-lib" "$out/matrix" --list |
  grep -E '^(calls f64 t1 |special 4MiB f64 (zeros|uninit|nans) t1 )')
for i in "${!small[@]}"; do
  f="$out/callgrind.matrix.$i"
  LD_LIBRARY_PATH="$out/ours-lib" MATRIX_ITERS=1 valgrind --tool=callgrind --demangle=no \
    --dump-instr=no --callgrind-out-file="$f" "$out/matrix" "${small[$i]}" >/dev/null 2>"$f.log" ||
    { cat "$f.log" >&2; exit 1; }
  profiles+=("$f")
done
for w in $order; do
  f="$out/callgrind.$w"
  TMPDIR="$out" BENCH_SETTLE_MS=300 valgrind --tool=callgrind --demangle=no --dump-instr=no --callgrind-out-file="$f" \
    "$out/bench" --child "$w" 0 "$lib" 1 >/dev/null 2>"$f.log" || { cat "$f.log" >&2; exit 1; }
  profiles+=("$f")
done
python3 bench/hot_text.py "$lib" link/hot-text.ld "${profiles[@]}"
