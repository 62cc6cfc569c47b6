#!/usr/bin/env bash
# Side-by-side benchmark of rblosc2 against the reference c-blosc2 3.3.5.
#
#   bench/run.sh [--quick] [--reps N] [--only SUBSTRING]
#
# Builds our release library, fetches the reference (capi-tests/get-reference.sh), compiles
# bench/bench.c against the reference headers and runs it. A full run takes about 5 minutes,
# --quick under one. Output is a Markdown table (docs/PERFORMANCE.md holds one).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
ref=$(capi-tests/get-reference.sh)
out=target/bench
mkdir -p "$out"
${CC:-cc} -O2 -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers -I"$ref/include" bench/bench.c -o "$out/bench" -ldl -lm
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -n 1)"
exec "$out/bench" "$PWD/target/release/libblosc2.so" "$ref/lib/libblosc2.so.9" "$@"
