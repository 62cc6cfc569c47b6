#!/usr/bin/env bash
# Usage: scripts/check-exports.sh path/to/libblosc2.so
# Fails when the shared library exports a symbol outside c-blosc2's public C API
# (blosc2_*, b2nd_*, blosc1_*, blosc_*) and rblosc2's extensions (rblosc2_*, include/blosc2/rblosc2.h): the codecs bundled inside (lz4, zstd, zlib-ng) and the
# Rust runtime must stay hidden so that they never clash with a program's own copies.
set -euo pipefail
lib=${1:?usage: $0 libblosc2.so}
exports=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u)
foreign=$(printf '%s\n' "$exports" | grep -Ev '^(blosc2_|b2nd_|blosc1_|blosc_|rblosc2_)' | grep -v '^$' || true)
count=$(printf '%s\n' "$exports" | grep -c . || true)
if [ -n "$foreign" ]; then
  echo "check-exports: $lib exports symbols outside the public API:" >&2
  printf '%s\n' "$foreign" | head -n 50 >&2
  exit 1
fi
echo "check-exports: $lib exports $count symbols, all public API"
