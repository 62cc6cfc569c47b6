#!/usr/bin/env bash
# Fuzzing: fuzz/run.sh MINUTES [TARGET...]
#          FUZZ_SECONDS=N fuzz/run.sh [TARGET...]    (a smoke run: N seconds a target; .ci/run)
#
# Builds the library as a static archive instrumented for libFuzzer (rustc's sancov pass, on
# the stable toolchain) with panic=abort and overflow checks, so that any internal panic is a
# finding rather than an error code, then each libFuzzer target of fuzz/fuzz_targets.c with
# clang -fsanitize=fuzzer,address, and runs each for MINUTES minutes (default targets: all).
# Corpora start from tests/data and from what the mutation driver writes with this library;
# they grow in fuzz/corpus/TARGET (not committed); crashes land in fuzz/artifacts/TARGET.
# Needs clang with libFuzzer (Debian: apt-get install clang). Ends with one line a target:
# its exec count and whether it found anything.
set -uo pipefail

if [ -n "${FUZZ_SECONDS:-}" ]; then
  TIME=$FUZZ_SECONDS
else
  TIME=$((${1:-1} * 60))
  shift || true
fi
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
ALL=(chunk roundtrip frame sframe b2nd meta)
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL[@]}")
CLANG=${CLANG:-clang}
TARGET_DIR=$REPO/target/fuzz
BIN=$TARGET_DIR/bin
mkdir -p "$BIN"

SANCOV="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4"
SANCOV="$SANCOV -Cllvm-args=-sanitizer-coverage-inline-8bit-counters"
SANCOV="$SANCOV -Cllvm-args=-sanitizer-coverage-pc-table"
SANCOV="$SANCOV -Cllvm-args=-sanitizer-coverage-trace-compares"
# An explicit --target keeps RUSTFLAGS off the build scripts (they run uninstrumented).
HOST=$(rustc -vV | sed -n 's/^host: //p')
# No LTO and line tables only: a shorter build; the fuzzer needs
# coverage and line numbers, not the last few percent of speed.
(cd "$REPO" && RUSTFLAGS="$SANCOV -Cpanic=abort -Coverflow-checks -Cdebug-assertions" \
  CARGO_PROFILE_RELEASE_PANIC=abort CARGO_PROFILE_RELEASE_LTO=off \
  CARGO_PROFILE_RELEASE_DEBUG=line-tables-only cargo build --locked --release --lib \
  --target "$HOST" --target-dir "$TARGET_DIR") || exit 1
LIB=$TARGET_DIR/$HOST/release/libblosc2.a
[ -f "$LIB" ] || { echo "no $LIB"; exit 1; }

number() {
  local i
  for i in "${!ALL[@]}"; do [ "${ALL[$i]}" = "$1" ] && echo $((i + 1)); done
}

summary=()
for t in "${TARGETS[@]}"; do
  n=$(number "$t")
  [ -n "$n" ] || { echo "unknown target $t (one of ${ALL[*]})"; exit 2; }
  $CLANG -g -O1 -fsanitize=fuzzer,address -DFUZZ_TARGET="$n" -I"$REPO/include" \
    -o "$BIN/$t" "$HERE/fuzz_targets.c" "$LIB" -lpthread -ldl -lm -lrt -lutil || exit 1
  corpus=$HERE/corpus/$t
  artifacts=$HERE/artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  if [ -z "$(ls -A "$corpus")" ]; then
    find "$REPO/tests/data" -type f ! -name '*.c' ! -name '*.txt' -size -512k \
      -exec cp {} "$corpus/" \; 2>/dev/null
    seeds=$(mktemp -d)
    # The archive's coverage hooks need a definition: ASan's runtime has no-op ones.
    if $CLANG -O1 -fsanitize=address -o "$seeds/writer" "$REPO/capi-tests/mutate_open.c" \
      -I"$REPO/include" "$LIB" -lpthread -ldl -lm -lrt -lutil -lgcc_s >"$seeds/build.log" 2>&1 &&
      "$seeds/writer" write-seeds "$seeds" >/dev/null; then
      find "$seeds" -type f ! -name writer ! -name build.log -exec sh -c \
        'cp "$1" "$2/seed-$(basename "$(dirname "$1")")-$(basename "$1")"' _ {} "$corpus" \;
    else
      echo "fuzz: no seeds from the mutation driver for $t (tests/data only):"
      tail -n 5 "$seeds/build.log"
    fi
    rm -rf "$seeds"
  fi
  log=$TARGET_DIR/$t.log
  # Limits: a few hundred bytes may rightly declare a 2 GiB special-value chunk or vlmetalayer,
  # which reading allocates, as c-blosc2 does; libFuzzer's timeout is wall-clock time, and the
  # runs share the machine with builds (nice), so it is generous.
  "$BIN/$t" "$corpus" -artifact_prefix="$artifacts/" -max_total_time="$TIME" \
    -timeout=60 -rss_limit_mb=6144 -malloc_limit_mb=4096 -print_final_stats=1 >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  if [ $rc = 0 ]; then
    summary+=("$t: ${execs:-?} execs in $TIME s, no crash")
  else
    summary+=("$t: ${execs:-?} execs, FOUND something (exit $rc, log $log, artifacts $artifacts)")
  fi
done
printf '%s\n' "${summary[@]}"
! printf '%s\n' "${summary[@]}" | grep -q FOUND
