#!/usr/bin/env bash
# Interleaved timing of bench.c's b2nd slices (slab, column, box) on two libraries in one process
# (see bench/slice_ab.c): by default our release build (A) against the reference (B).
#
#   bench/slice_ab.sh [LIB_A [LIB_B [REPS [OPS]]]]
#
# To compare two builds of ours, copy one libblosc2.so aside first (the other is rebuilt here
# when LIB_A is left out or empty).
set -euo pipefail
cd "$(dirname "$0")/.."
ref=$(capi-tests/get-reference.sh)
out=target/bench
mkdir -p "$out"
a=${1:-$PWD/target/release/libblosc2.so} b=${2:-$ref/lib/libblosc2.so.9}
[ -n "${1:-}" ] || cargo build --release --quiet
${CC:-cc} -O2 -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers -I"$ref/include" bench/slice_ab.c -o "$out/slice_ab" -ldl
exec "$out/slice_ab" "$(realpath "$a")" "$(realpath "$b")" "${@:3}"
