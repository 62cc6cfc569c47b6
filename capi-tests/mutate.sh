#!/usr/bin/env bash
# Mutation suite through the C API: capi-tests/mutate.sh PREFIX
#
# Builds capi-tests/mutate_open.c against the install at PREFIX, replays the regression cases
# of capi-tests/mutants/ (each must be read without dying), then runs deterministic mutants of
# every seed: the files under tests/data and the sparse-frame directories there. Each mutant is
# read completely in its own forked child (see mutate_open.c); the suite fails on any crash,
# abort, hang or inconsistent size.
#
#   MUTATE_PER_SEED   mutants per seed file or directory (default 400: about 24 000 in all,
#                     a few minutes on 2 idle cores); raise it for a longer run
#   MUTATE_B2ND_PER_SEED  b2nd-targeted mutants per .b2nd seed file (default 1500: 7 500 in
#                     all, about 30 s on 2 busy cores), most mutations in the b2nd metalayer,
#                     each mutant opened as an array only (b2nd_open/from_cframe, to_cbuffer,
#                     a slice)
#   MUTATE_JOBS       seeds run in parallel (default 2)
#   MUTATE_OUT        where failing mutants are kept (default: a fresh temporary directory)
#   MUTATE_FIRST      index of the first mutant (default 0), to explore further mutants
#   RBLOSC2_VALGRIND=1  replay the regression cases under valgrind memcheck as well
set -uo pipefail

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 PREFIX   (an existing install prefix)" >&2
  exit 2
fi
PREFIX=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
PER_SEED=${MUTATE_PER_SEED:-400}
B2ND_PER_SEED=${MUTATE_B2ND_PER_SEED:-1500}
JOBS=${MUTATE_JOBS:-2}
FIRST=${MUTATE_FIRST:-0}
OUT=${MUTATE_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/rblosc2-mutate.XXXXXX")}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export MUTATE_OUT=$OUT
while read -r var; do unset "$var"; done < <(env | sed -n 's/^\(BLOSC_[A-Za-z0-9_]*\)=.*/\1/p')

DRIVER=$OUT/mutate_open
${CC:-cc} -O1 -g -Wall -Wextra -o "$DRIVER" "$HERE/mutate_open.c" -I"$PREFIX/include" \
  -L"$PREFIX/lib" -l:libblosc2.so.9 -Wl,-rpath,"$PREFIX/lib" || exit 1

status=0
if [ -d "$HERE/mutants" ] && [ -n "$(ls -A "$HERE/mutants")" ]; then
  if "$DRIVER" read "$HERE"/mutants/* >"$OUT/regressions.log" 2>&1; then
    echo "regression mutants: $(grep -c '^read ' "$OUT/regressions.log") read cleanly"
  else
    echo "FAIL regression mutants (log: $OUT/regressions.log)"
    tail -n 20 "$OUT/regressions.log"
    status=1
  fi
  if [ "${RBLOSC2_VALGRIND:-0}" = 1 ]; then
    if valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
      "$DRIVER" read "$HERE"/mutants/* >"$OUT/regressions-valgrind.log" 2>&1; then
      echo "regression mutants under valgrind: clean"
    else
      echo "FAIL regression mutants under valgrind (log: $OUT/regressions-valgrind.log)"
      status=1
    fi
  fi
fi

# Seeds: the data files (not the C sources and notes next to them) and sparse-frame directories,
# and what the driver writes with this library (chunks of each codec and filter, frames with
# metalayers, vlmetalayers and special chunks, a b2nd array, a sparse frame).
rm -rf "$OUT/seeds" && mkdir -p "$OUT/seeds" && "$DRIVER" write-seeds "$OUT/seeds" || exit 1
mapfile -t SEED_FILES < <(find "$REPO/tests/data" "$OUT/seeds" -type f ! -name '*.c' \
  ! -name '*.txt' ! -path '*.b2frame/*' -size -512k | sort)
mapfile -t SEED_DIRS < <(find "$REPO/tests/data" "$OUT/seeds" -type d -name '*.b2frame' | sort)

echo "mutation suite: ${#SEED_FILES[@]} seed files, ${#SEED_DIRS[@]} sparse frames," \
  "$PER_SEED mutants each from #$FIRST, $JOBS jobs, output in $OUT"
start=$(date +%s)
{
  for f in "${SEED_FILES[@]}"; do printf 'mutate\0%s\0' "$f"; done
  for d in "${SEED_DIRS[@]}"; do printf 'mutate-dir\0%s\0' "$d"; done
} | xargs -0 -n 2 -P "$JOBS" sh -c 'exec "$0" "$1" "$2" '"$PER_SEED $FIRST" "$DRIVER" \
  >"$OUT/mutate.log" 2>&1
rc=$?
elapsed=$(($(date +%s) - start))
total=$(awk '/ mutants, / {n += $2} END {print n + 0}' "$OUT/mutate.log")
failures=$(grep -c '^FAIL' "$OUT/mutate.log")
grep '^FAIL' "$OUT/mutate.log" | head -n 40
echo "mutation suite: $total mutants in ${elapsed}s, $failures failures"
if [ "$rc" != 0 ] || [ "$failures" != 0 ]; then
  status=1
fi

# The b2nd arrays again, with mutations aimed at their metalayer (shape, chunk and block shapes,
# dtype), each mutant read as an array only.
# (one copy of each: tests/data/frames/ repeats the two examples byte for byte, and mutants
# depend only on the bytes and the file name)
mapfile -t B2ND_SEEDS < <(find "$REPO/tests/data" "$OUT/seeds" -type f -name '*.b2nd' \
  ! -path '*/frames/*' | sort)
start=$(date +%s)
for f in "${B2ND_SEEDS[@]}"; do printf '%s\0' "$f"; done |
  xargs -0 -n 1 -P "$JOBS" sh -c 'exec "$0" mutate-b2nd "$1" '"$B2ND_PER_SEED $FIRST" "$DRIVER" \
    >"$OUT/mutate-b2nd.log" 2>&1
rc=$?
elapsed=$(($(date +%s) - start))
total=$(awk '/ mutants, / {n += $2} END {print n + 0}' "$OUT/mutate-b2nd.log")
failures=$(grep -c '^FAIL' "$OUT/mutate-b2nd.log")
grep '^FAIL' "$OUT/mutate-b2nd.log" | head -n 40
echo "b2nd mutation suite: ${#B2ND_SEEDS[@]} arrays, $total mutants in ${elapsed}s, $failures failures"
if [ "$rc" != 0 ] || [ "$failures" != 0 ]; then
  status=1
fi
exit $status
