#!/usr/bin/env bash
# Crash test (issue 25): capi-tests/crash/run.sh PREFIX [--quick|--full] [run.py options]
#
# Builds crashwriter.c against the install in PREFIX and against the reference c-blosc2 3.3.5
# (capi-tests/get-reference.sh), kills the writer right before each write-type system call of
# its operations (strace fault injection) and at random times, and checks the frame in fresh
# processes with ours and with the reference (see run.py). Prints per writer and scenario the
# kill points and how many of them left a frame that does not open or lost an acknowledged
# change, read by each library. Uninterrupted, our writer must leave the same bytes as the
# reference writer (every file of an sframe). Exits 1 when any kill of our writer is not OK read by ours.
#   --quick  4 operations, 10 random kills per scenario, our writer only (for CI: ~1 min)
#   --full   8 operations, 200 random kills, and the reference writer too (the closing figure)
#   --fingerprint (after --quick/--full) our writer writes fingerprints (BLOSC_FINGERPRINT=1) and
#            our checker also requires the fingerprint to hold (docs/FINGERPRINTS.md); the
#            byte comparison with the reference writer is left out (fingerprinted frames differ)
# CRASH_BUILD_DIR: where binaries and frames go (default: a fresh temporary directory).
set -euo pipefail
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 PREFIX [--quick|--full] [run.py options]" >&2
  exit 2
fi
PREFIX=$(cd "$1" && pwd)
shift
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MODE=--quick
if [ $# -gt 0 ] && { [ "$1" = --quick ] || [ "$1" = --full ]; }; then
  MODE=$1
  shift
fi
REF=$(bash "$HERE/../get-reference.sh")
BUILD=${CRASH_BUILD_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/rblosc2-crash.XXXXXX")}
mkdir -p "$BUILD"
CC=${CC:-cc}
while read -r var; do unset "$var"; done < <(env | sed -n 's/^\(BLOSC_[A-Za-z0-9_]*\)=.*/\1/p')

$CC -O1 -g -Wall -o "$BUILD/crash-ours" "$HERE/crashwriter.c" -I"$PREFIX/include" \
  -L"$PREFIX/lib" -lblosc2 -Wl,-rpath,"$PREFIX/lib" -ldl
$CC -O1 -g -Wall -o "$BUILD/crash-ref" "$HERE/crashwriter.c" -I"$REF/include" \
  -L"$REF/lib" -l:libblosc2.so.9 -Wl,-rpath,"$REF/lib" -ldl

args=(--work "$BUILD/work" --checker "ours=$BUILD/crash-ours" --checker "ref=$BUILD/crash-ref"
  --writer "ours=$BUILD/crash-ours")
if [ $# -gt 0 ] && [ "$1" = --fingerprint ]; then
  shift
  export BLOSC_FINGERPRINT=1 CRASH_FINGERPRINT=1
else
  args+=(--same-bytes-as "$BUILD/crash-ref")
fi
if [ "$MODE" = --full ]; then
  args+=(--writer "ref=$BUILD/crash-ref" --ops 8 --random 200)
else
  args+=(--ops 4 --random 10)
fi
exec python3 "$HERE/run.py" "${args[@]}" "$@"
