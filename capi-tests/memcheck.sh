#!/usr/bin/env bash
# Memory checking of an installed rblosc2 with valgrind memcheck:
#   capi-tests/memcheck.sh PREFIX [PROGRAM...]
#   capi-tests/memcheck.sh --exec BINARY [ARGS...]    (one run, for run.sh's valgrind mode)
#
# Builds each C program (capi-tests/PROGRAM.c, linked to PREFIX's shared library through
# pkg-config, as run.sh builds them) and runs it under memcheck, in a scratch directory: a
# program passes when it passes on its own and memcheck sees no invalid read or write, no use of
# uninitialised memory, no bad free and no definite or indirect leak (--error-exitcode). Then
# the regression mutants of capi-tests/mutants/ (files that once crashed or misread) are read
# under memcheck by the mutation driver (mutate_open.c), for the error paths.
#
# Without PROGRAMs: every program of programs.list but those in SKIP below (MEMCHECK_PROGRAMS
# overrides the list, space-separated): about 90 s of CPU. The skipped ones take minutes under
# memcheck (chunk_roundtrip: every codec, level and filter on 1 MiB buffers; b2nd_array: large
# arrays) and their areas are covered by the others (chunk_side_by_side, global_api,
# thread_contexts; b2nd_*). RBLOSC2_VALGRIND=1 capi-tests/run.sh runs every program under
# memcheck.
# Build products and logs go to $MEMCHECK_BUILD_DIR (default: a fresh temporary directory).
# Closes with "memcheck: N passed, M failed"; exits 1 on any failure.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VALGRIND=(valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect
  --errors-for-leak-kinds=definite,indirect)

if [ "${1:-}" = --exec ]; then
  shift
  command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 1; }
  exec timeout 3600 "${VALGRIND[@]}" "$@"
fi

# Too slow under memcheck for CI (see above).
SKIP="chunk_roundtrip b2nd_array"
DEFAULT_PROGRAMS=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$HERE/programs.list" | grep . |
  grep -v -x -F -f <(tr ' ' '\n' <<<"$SKIP"))

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 PREFIX [PROGRAM...]   (PREFIX: an existing install prefix)" >&2
  exit 2
fi
command -v valgrind >/dev/null || { echo "memcheck: valgrind not installed"; exit 1; }
PREFIX=$(cd "$1" && pwd)
shift
if [ $# -gt 0 ]; then
  PROGRAMS=("$@")
else
  read -r -a PROGRAMS <<<"$(echo ${MEMCHECK_PROGRAMS:-$DEFAULT_PROGRAMS})"
fi
LIBDIR=$PREFIX/lib
BUILD=${MEMCHECK_BUILD_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/rblosc2-memcheck.XXXXXX")}
mkdir -p "$BUILD/bin" "$BUILD/logs" "$BUILD/run"
BUILD=$(cd "$BUILD" && pwd)
export PKG_CONFIG_PATH=$LIBDIR/pkgconfig
unset LD_LIBRARY_PATH
while read -r var; do unset "$var"; done < <(env | sed -n 's/^\(BLOSC_[A-Za-z0-9_]*\)=.*/\1/p')
CC=${CC:-cc}

passed=0
failed=0
# one NAME COMMAND...: a check whose output goes to $BUILD/logs/NAME.log.
# Says its wall-clock and CPU time (user + system, the figure that does not depend on the load).
one() {
  local name=$1 start=$SECONDS rc TIMEFORMAT='%U %S' cpu
  shift
  { time { (cd "$BUILD/run" && "$@") >"$BUILD/logs/$name.log" 2>&1; }; } 2>"$BUILD/logs/$name.time"
  rc=$?
  cpu=$(awk '{printf "%.0f", $1 + $2}' "$BUILD/logs/$name.time")
  if [ $rc = 0 ]; then
    passed=$((passed + 1))
    echo "PASS $name ($((SECONDS - start)) s, CPU $cpu s)"
  else
    failed=$((failed + 1))
    echo "FAIL $name ($((SECONDS - start)) s, CPU $cpu s, log: $BUILD/logs/$name.log)"
    tail -n 25 "$BUILD/logs/$name.log" | sed 's/^/    /'
  fi
}

program() {
  local p=$1
  # shellcheck disable=SC2046
  $CC -O1 -g -Wall -Wextra -o "$BUILD/bin/$p" "$HERE/$p.c" $(pkg-config --cflags --libs blosc2) \
    -Wl,-rpath,"$LIBDIR" || return 1
  timeout 1800 "${VALGRIND[@]}" "$BUILD/bin/$p"
}

regression_mutants() {
  $CC -O1 -g -Wall -Wextra -o "$BUILD/bin/mutate_open" "$HERE/mutate_open.c" \
    -I"$PREFIX/include" -L"$LIBDIR" -l:libblosc2.so.9 -Wl,-rpath,"$LIBDIR" || return 1
  timeout 1800 "${VALGRIND[@]}" "$BUILD/bin/mutate_open" read "$HERE"/mutants/* &&
    echo "$(ls "$HERE/mutants" | wc -l) regression mutants read"
}

echo "memcheck: prefix $PREFIX, programs: ${PROGRAMS[*]}, build dir $BUILD"
for p in "${PROGRAMS[@]}"; do
  one "$p" program "$p"
done
if [ -d "$HERE/mutants" ] && [ -n "$(ls -A "$HERE/mutants")" ]; then
  one regression-mutants regression_mutants
fi
echo "memcheck: $passed passed, $failed failed"
[ "$failed" = 0 ]
