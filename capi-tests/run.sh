#!/usr/bin/env bash
# C-level tests of an installed rblosc2: capi-tests/run.sh PREFIX
#
# PREFIX is where `make install PREFIX=...` put the library. Everything is built here the way a
# user would build it: against PREFIX through pkg-config and through CMake's find_package, and
# also against the reference c-blosc2 3.3.5 (fetched by get-reference.sh) for the side-by-side
# diffs and the binary drop-in test. The C programs run are those in programs.list (or in
# $CAPI_PROGRAMS, space-separated). Build products and logs go to $CAPI_BUILD_DIR (default: a
# fresh temporary directory). Closes with "capi-tests: N passed, M failed"; exits 1 on failure.
#
# Also run: the mutation suite (mutate.sh; MUTATE_PER_SEED scales it, RBLOSC2_MUTATE=0 skips it),
# the header audit against the reference's headers (header_audit.py), the error-code parity table
# (parity.sh) and the quick crash test (crash/run.sh --quick: a writer
# killed before each of its writes must leave every acknowledged change readable;
# RBLOSC2_CRASH=0 skips it). With RBLOSC2_VALGRIND=1, every C program also
# runs under valgrind memcheck against ours (fails on any invalid access or definite/indirect
# leak), as do the regression mutants.
set -uo pipefail

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 PREFIX   (an existing install prefix)" >&2
  exit 2
fi
PREFIX=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
LIBDIR=$PREFIX/lib
BUILD=${CAPI_BUILD_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/rblosc2-capi.XXXXXX")}
mkdir -p "$BUILD/logs" "$BUILD/bin" "$BUILD/out"
CC=${CC:-cc}
CXX=${CXX:-c++}
CFLAGS="-O1 -g -Wall -Wextra"
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$REPO/Cargo.toml" | head -n 1)

if [ -n "${CAPI_PROGRAMS:-}" ]; then
  read -r -a PROGRAMS <<<"$CAPI_PROGRAMS"
else
  mapfile -t PROGRAMS < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$HERE/programs.list" | grep .)
fi

# The libraries read BLOSC_* variables (BLOSC_NTHREADS, BLOSC_CLEVEL, ...): results must not
# depend on the caller's environment.
while read -r var; do unset "$var"; done < <(env | sed -n 's/^\(BLOSC_[A-Za-z0-9_]*\)=.*/\1/p')
export PKG_CONFIG_PATH=$LIBDIR/pkgconfig
unset LD_LIBRARY_PATH

passed=0
failed=0
failed_names=()

# run_test NAME COMMAND...: one test; its output goes to $BUILD/logs/NAME.log.
run_test() {
  local name=$1
  shift
  local log=$BUILD/logs/$name.log
  if ("$@") >"$log" 2>&1; then
    passed=$((passed + 1))
    echo "PASS $name"
  else
    failed=$((failed + 1))
    failed_names+=("$name")
    echo "FAIL $name (log: $log)"
    tail -n 25 "$log" | sed 's/^/    /'
  fi
}

# Bundled codec versions are allowed to differ between the two libraries.
mask() { sed -E 's/^(complib_version\(.*\) = ).*/\1<masked>/' "$1"; }

# needs_lib BINARY LIBDIR: the dynamic loader resolves libblosc2.so.9 to LIBDIR's copy.
loads_from() {
  local binary=$1 dir=$2 resolved
  resolved=$(LD_LIBRARY_PATH=$dir ldd "$binary" | awk '$1 == "libblosc2.so.9" {print $3}')
  echo "libblosc2.so.9 => $resolved"
  [ -n "$resolved" ] && [ "$(readlink -f "$resolved")" = "$(readlink -f "$dir/libblosc2.so.9")" ]
}

not_needed() {
  if readelf -d "$1" | grep -q 'NEEDED.*libblosc2'; then
    echo "$1 needs a shared libblosc2 although it was linked statically"
    return 1
  fi
}

# ---------------------------------------------------------------------------------------------
test_install_layout() {
  local missing=0 f
  for f in lib/libblosc2.so."$VERSION" lib/libblosc2.a include/blosc2.h include/b2nd.h \
    include/blosc2/blosc2-common.h include/blosc2/blosc2-export.h include/blosc2/blosc2-stdio.h \
    include/blosc2/codecs-registry.h include/blosc2/filters-registry.h \
    include/blosc2/tuners-registry.h lib/pkgconfig/blosc2.pc \
    lib/cmake/Blosc2/Blosc2Config.cmake lib/cmake/Blosc2/Blosc2ConfigVersion.cmake \
    bin/b2inspect; do
    if [ -f "$PREFIX/$f" ]; then echo "ok $f"; else echo "missing $f"; missing=1; fi
  done
  [ "$(readlink "$LIBDIR/libblosc2.so.9")" = "libblosc2.so.$VERSION" ] || { echo "bad libblosc2.so.9 link"; missing=1; }
  [ "$(readlink "$LIBDIR/libblosc2.so")" = "libblosc2.so.9" ] || { echo "bad libblosc2.so link"; missing=1; }
  local soname
  soname=$(readelf -d "$LIBDIR/libblosc2.so.$VERSION" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
  echo "SONAME $soname"
  [ "$soname" = "libblosc2.so.9" ] || missing=1
  local pcversion
  pcversion=$(pkg-config --modversion blosc2)
  echo "pkg-config version $pcversion"
  [ "$pcversion" = "$VERSION" ] || missing=1
  [ "$missing" = 0 ]
}

test_exports() {
  "$REPO/scripts/check-exports.sh" "$LIBDIR/libblosc2.so.$VERSION"
}

# The reference's public functions that ours does not export yet (informational, not a test).
report_export_coverage() {
  [ -n "${REF:-}" ] || return 0
  local want have missing
  want=$(nm -D --defined-only "$REF/lib/libblosc2.so.9" | awk '{print $NF}' |
    grep -E '^(blosc2_|b2nd_|blosc1_|blosc_)' | sort -u)
  have=$(nm -D --defined-only "$LIBDIR/libblosc2.so.$VERSION" | awk '{print $NF}' | sort -u)
  missing=$(comm -23 <(echo "$want") <(echo "$have") | grep -c . || true)
  echo "exports: $(($(echo "$want" | grep -c .) - missing)) of $(echo "$want" | grep -c .) reference API functions present"
}

# The installed headers against the reference's as a compiler sees them, in C and C++, with and
# without c-blosc 1.x's blosc.h included first and BLOSC1_COMPAT: macros, declarations, that
# they compile, and the version lines build scripts read (header_audit.py; needs castxml).
header_audit() {
  [ -n "${REF:-}" ] || { echo "reference library unavailable (get-reference.sh failed)"; return 1; }
  CC=$CC CXX=$CXX python3 "$HERE/header_audit.py" "$REF/include" "$PREFIX/include"
}

build_pkgconfig_shared() {
  local p=$1
  # shellcheck disable=SC2046
  $CC $CFLAGS -o "$BUILD/bin/$p.pc-shared" "$HERE/$p.c" $(pkg-config --cflags --libs blosc2) \
    -Wl,-rpath,"$LIBDIR"
}

build_pkgconfig_static() {
  local p=$1 libs
  libs=$(pkg-config --static --libs blosc2 | sed 's/-lblosc2\b/-l:libblosc2.a/')
  # shellcheck disable=SC2086
  $CC $CFLAGS -o "$BUILD/bin/$p.pc-static" "$HERE/$p.c" $(pkg-config --cflags blosc2) $libs &&
    not_needed "$BUILD/bin/$p.pc-static"
}

run_ours_shared() {
  local p=$1
  loads_from "$BUILD/bin/$p.pc-shared" "$LIBDIR" &&
    timeout 600 "$BUILD/bin/$p.pc-shared" >"$BUILD/out/$p.ours"
  local rc=$?
  tail -n 1 "$BUILD/out/$p.ours"
  return $rc
}

run_ours_static() {
  local p=$1
  timeout 600 "$BUILD/bin/$p.pc-static" >"$BUILD/out/$p.ours-static"
  local rc=$?
  tail -n 1 "$BUILD/out/$p.ours-static"
  return $rc
}

build_and_run_reference() {
  local p=$1
  [ -n "${REF:-}" ] || { echo "reference library unavailable (get-reference.sh failed)"; return 1; }
  $CC $CFLAGS -o "$BUILD/bin/$p.ref" "$HERE/$p.c" -I"$REF/include" -L"$REF/lib" -l:libblosc2.so.9 &&
    loads_from "$BUILD/bin/$p.ref" "$REF/lib" &&
    LD_LIBRARY_PATH=$REF/lib timeout 600 "$BUILD/bin/$p.ref" >"$BUILD/out/$p.ref"
  local rc=$?
  tail -n 1 "$BUILD/out/$p.ref"
  return $rc
}

side_by_side() {
  local p=$1
  [ -f "$BUILD/out/$p.ref" ] && [ -f "$BUILD/out/$p.ours" ] || { echo "missing outputs"; return 1; }
  diff -u <(mask "$BUILD/out/$p.ref") <(mask "$BUILD/out/$p.ours") | head -n 200
  [ "${PIPESTATUS[0]}" = 0 ]
}

# A binary built against the reference c-blosc2 (its headers, its libblosc2.so.9) runs on ours.
drop_in() {
  local p=$1
  [ -x "$BUILD/bin/$p.ref" ] && [ -f "$BUILD/out/$p.ref" ] || { echo "no reference build"; return 1; }
  loads_from "$BUILD/bin/$p.ref" "$LIBDIR" || return 1
  LD_LIBRARY_PATH=$LIBDIR timeout 600 "$BUILD/bin/$p.ref" >"$BUILD/out/$p.drop-in"
  local rc=$?
  tail -n 1 "$BUILD/out/$p.drop-in"
  [ $rc = 0 ] || return 1
  diff -u <(mask "$BUILD/out/$p.ref") <(mask "$BUILD/out/$p.drop-in") | head -n 200
  [ "${PIPESTATUS[0]}" = 0 ]
}

# The interop programs: one binary, built against the reference's headers and library, runs
# as several processes, each pointed at either library with LD_LIBRARY_PATH.
# build_against_ref NAME [LIBS...]: builds capi-tests/NAME.c so.
build_against_ref() {
  local name=$1
  shift
  [ -n "${REF:-}" ] || { echo "reference library unavailable (get-reference.sh failed)"; return 1; }
  $CC $CFLAGS -o "$BUILD/bin/$name" "$HERE/$name.c" -I"$REF/include" -L"$REF/lib" \
    -l:libblosc2.so.9 "$@"
}

# write_then_read NAME WRITER_LIBDIR READER_LIBDIR DIR [READ_ARGS...]: `NAME write DIR` on the
# writer library, then `NAME read DIR READ_ARGS...` on the reader library (a fresh DIR).
write_then_read() {
  local bin=$BUILD/bin/$1 writer=$2 reader=$3 dir=$4
  shift 4
  [ -x "$bin" ] || { echo "not built"; return 1; }
  loads_from "$bin" "$writer" && loads_from "$bin" "$reader" || return 1
  rm -rf "$dir" && mkdir -p "$dir" || return 1
  LD_LIBRARY_PATH=$writer timeout 600 "$bin" write "$dir" | tail -n 5 &&
    LD_LIBRARY_PATH=$reader timeout 600 "$bin" read "$dir" "$@" | tail -n 5
  [ "${PIPESTATUS[0]}" = 0 ]
}

# chunk_interop: each library reads the chunks the other wrote.
build_interop() { build_against_ref chunk_interop -lm; }

# interop WRITER_LIBDIR READER_LIBDIR NAME [--ref]: --ref when the reader is c-blosc2 (skips
# its known getitem defect on DELTA chunks).
interop() { write_then_read chunk_interop "$1" "$2" "$BUILD/interop-$3" "${@:4}"; }

# How many of the chunks the two libraries wrote are byte-identical (informational).
report_interop_identity() {
  local a=$BUILD/interop-ours-to-ref b=$BUILD/interop-ref-to-ours same=0 total=0 f
  [ -d "$a" ] && [ -d "$b" ] || return 0
  for f in "$a"/*.chunk; do
    total=$((total + 1))
    cmp -s "$f" "$b/$(basename "$f")" && same=$((same + 1))
  done
  echo "chunk_interop: $same of $total chunks byte-identical between the two libraries"
}

# schunk_interop: each library reads the frames (cframe file, buffer, sframe directory, frame
# appended at an offset, special chunks) the other wrote; same two-process scheme as
# chunk_interop.
build_schunk_interop() { build_against_ref schunk_interop; }

# schunk_interop_run WRITER_LIBDIR READER_LIBDIR NAME
schunk_interop_run() { write_then_read schunk_interop "$1" "$2" "$BUILD/schunk-interop-$3"; }

# The two libraries write the same frame bytes for the same operations.
schunk_interop_identical() {
  local a=$BUILD/schunk-interop-ours-to-ref b=$BUILD/schunk-interop-ref-to-ours
  [ -d "$a" ] && [ -d "$b" ] || { echo "missing interop outputs"; return 1; }
  diff -r "$a" "$b" && echo "frames byte-identical"
}

# fingerprint_interop: ours makes fingerprinted frames (docs/FINGERPRINTS.md), c-blosc2 reads
# and changes them every way it can, and ours must find each intact or without fingerprint,
# never damaged, holding what c-blosc2 read; three processes of one binary.
build_fingerprint_interop() { build_against_ref fingerprint_interop -ldl; }

fingerprint_interop_run() {
  local dir=$BUILD/fingerprint-interop bin=$BUILD/bin/fingerprint_interop
  [ -x "$bin" ] || { echo "not built"; return 1; }
  loads_from "$bin" "$LIBDIR" && loads_from "$bin" "$REF/lib" || return 1
  rm -rf "$dir" && mkdir -p "$dir" || return 1
  LD_LIBRARY_PATH=$LIBDIR timeout 600 "$bin" make "$dir" | tail -n 3 &&
    LD_LIBRARY_PATH=$REF/lib timeout 600 "$bin" modify "$dir" | tail -n 3 &&
    LD_LIBRARY_PATH=$LIBDIR timeout 600 "$bin" check "$dir" | tail -n 4
  [ "${PIPESTATUS[0]}" = 0 ]
}

# swmr_interop: frame locking between the libraries. One library appends to a locked frame
# while the other, in another process at the same time, refreshes and reads every chunk; one
# holds blosc2_schunk_lock while the other's append must wait for it.
build_swmr_interop() { build_against_ref swmr_interop; }

# swmr_interop_run WRITER_LIBDIR READER_LIBDIR NAME
swmr_interop_run() {
  local writer=$1 reader=$2 dir=$BUILD/swmr-interop-$3 bin=$BUILD/bin/swmr_interop wpid rc
  [ -x "$bin" ] || { echo "not built"; return 1; }
  rm -rf "$dir" && mkdir -p "$dir" || return 1
  LD_LIBRARY_PATH=$writer "$bin" create "$dir" || return 1
  LD_LIBRARY_PATH=$writer timeout 600 "$bin" write "$dir" 60 &
  wpid=$!
  LD_LIBRARY_PATH=$reader timeout 600 "$bin" read "$dir" 60
  rc=$?
  wait "$wpid" || rc=1
  return $rc
}

# swmr_lock_run HOLDER_LIBDIR APPENDER_LIBDIR NAME
swmr_lock_run() {
  local holder=$1 appender=$2 dir=$BUILD/swmr-lock-$3 bin=$BUILD/bin/swmr_interop hpid rc
  [ -x "$bin" ] || { echo "not built"; return 1; }
  rm -rf "$dir" && mkdir -p "$dir" || return 1
  LD_LIBRARY_PATH=$holder "$bin" create "$dir" || return 1
  LD_LIBRARY_PATH=$holder timeout 60 "$bin" hold "$dir" 1500 >"$dir/hold.out" &
  hpid=$!
  # Appending once the holder has the lock: it must wait (at least 500 ms of the 1.5 s).
  for _ in $(seq 100); do grep -q locked "$dir/hold.out" 2>/dev/null && break; sleep 0.05; done
  LD_LIBRARY_PATH=$appender timeout 60 "$bin" append-one "$dir" 500
  rc=$?
  wait "$hpid" || rc=1
  return $rc
}

# b2nd_swmr: a b2nd writer and reader in two processes with BLOSC_LOCKING never see a torn
# write. Ours only: c-blosc2 3.3.5's reader does (see the program's header).
b2nd_swmr_ours() {
  # shellcheck disable=SC2046
  $CC $CFLAGS -o "$BUILD/bin/b2nd_swmr" "$HERE/b2nd_swmr.c" $(pkg-config --cflags --libs blosc2) \
    -Wl,-rpath,"$LIBDIR" &&
    loads_from "$BUILD/bin/b2nd_swmr" "$LIBDIR" &&
    timeout 600 "$BUILD/bin/b2nd_swmr" 60
}

# b2nd_interop: each library opens the arrays (saved, created on disk, appended at an offset)
# the other wrote; both open the example .b2nd files of tests/data alike. Same two-process
# scheme as schunk_interop.
build_b2nd_interop() { build_against_ref b2nd_interop; }

# b2nd_interop_run WRITER_LIBDIR READER_LIBDIR NAME
b2nd_interop_run() { write_then_read b2nd_interop "$1" "$2" "$BUILD/b2nd-interop-$3"; }

# plugin_interop: arrays compressed with the plugins c-blosc2 registers at init (ndcell,
# ndmean, ...), written by each library and read by the other; the files must be
# byte-identical, the refusals the same, and ours must survive mutated chunks and metalayers.
build_plugin_interop() { build_against_ref plugin_interop; }

# plugin_interop_run WRITER_LIBDIR READER_LIBDIR NAME
plugin_interop_run() { write_then_read plugin_interop "$1" "$2" "$BUILD/plugin-interop-$3"; }

plugin_interop_identical() {
  local a=$BUILD/plugin-interop-ours-to-ref b=$BUILD/plugin-interop-ref-to-ours
  [ -d "$a" ] && [ -d "$b" ] || { echo "missing plugin interop outputs"; return 1; }
  # ndlz arrays are left out: our NDLZ encoder is not the reference's (both decode either).
  diff -r -x 'ndlz-*.b2nd' "$a" "$b" && echo "plugin arrays byte-identical (ndlz excepted)"
}

plugin_refusals() {
  [ -x "$BUILD/bin/plugin_interop" ] || { echo "not built"; return 1; }
  LD_LIBRARY_PATH=$LIBDIR "$BUILD/bin/plugin_interop" refusals >"$BUILD/out/plugin_refusals.ours" &&
    LD_LIBRARY_PATH=$REF/lib "$BUILD/bin/plugin_interop" refusals >"$BUILD/out/plugin_refusals.ref" &&
    diff "$BUILD/out/plugin_refusals.ref" "$BUILD/out/plugin_refusals.ours" && echo "same codes"
}

plugin_mutate() {
  local d
  for d in ours-to-ref ref-to-ours; do
    LD_LIBRARY_PATH=$LIBDIR timeout 900 "$BUILD/bin/plugin_interop" mutate \
      "$BUILD/plugin-interop-$d" | tail -n 3 || return 1
  done
}

# dynamic_plugins: codecs and filters registered without functions, loaded by each library from
# the tiny plugins in dynplugins/ (libblosc2_<name>.so, found through LD_LIBRARY_PATH as a C user
# installs them) or through the path a Python package prints (as pip installs them): same sizes,
# bytes and error codes, and each library reads the other's chunks.
build_dynamic_plugins() {
  [ -n "${REF:-}" ] || { echo "reference library unavailable (get-reference.sh failed)"; return 1; }
  local d=$BUILD/dynplugins
  mkdir -p "$d" &&
    $CC $CFLAGS -shared -fPIC -o "$d/libblosc2_rbtest_codec.so" "$HERE/dynplugins/codec.c" &&
    $CC $CFLAGS -shared -fPIC -o "$d/libblosc2_grok.so" "$HERE/dynplugins/codec.c" &&
    $CC $CFLAGS -shared -fPIC -DBROKEN_INFO -o "$d/libblosc2_rbtest_broken.so" "$HERE/dynplugins/codec.c" &&
    $CC $CFLAGS -shared -fPIC -DNO_INFO -o "$d/libblosc2_rbtest_noinfo.so" "$HERE/dynplugins/codec.c" &&
    $CC $CFLAGS -shared -fPIC -o "$d/libblosc2_rbtest_filter.so" "$HERE/dynplugins/filter.c" &&
    mkdir -p "$d/python" &&
    $CC $CFLAGS -shared -fPIC -o "$d/python/libblosc2_rbtest_py.so" "$HERE/dynplugins/codec.c" &&
    printf 'def print_libpath():\n    print("%s", end="")\n' "$d/python/libblosc2_rbtest_py.so" \
      >"$d/python/blosc2_rbtest_py.py" &&
    $CC $CFLAGS -o "$BUILD/bin/dynamic_plugins" "$HERE/dynamic_plugins.c" -I"$REF/include" \
      -L"$REF/lib" -l:libblosc2.so.9
}

# dynamic_plugins_run MODE LIBDIR NAME [CHUNKDIR]: one run, output in $BUILD/out/dynamic_plugins.NAME.
dynamic_plugins_run() {
  local mode=$1 lib=$2 name=$3 dir=${4:-$BUILD/dynplugins-$3}
  [ -x "$BUILD/bin/dynamic_plugins" ] || { echo "not built"; return 1; }
  mkdir -p "$dir"
  PYTHONPATH=$BUILD/dynplugins/python LD_LIBRARY_PATH=$lib:$BUILD/dynplugins \
    timeout 600 "$BUILD/bin/dynamic_plugins" "$mode" "$dir" \
    >"$BUILD/out/dynamic_plugins.$name" 2>/dev/null
  local rc=$?
  tail -n 1 "$BUILD/out/dynamic_plugins.$name"
  return $rc
}

dynamic_plugins_same() {
  local a=$BUILD/out/dynamic_plugins.$1 b=$BUILD/out/dynamic_plugins.$2
  [ -f "$a" ] && [ -f "$b" ] || { echo "missing outputs"; return 1; }
  diff -u "$a" "$b" && echo "same output"
}

dynamic_plugins_broken() {
  dynamic_plugins_run broken "$LIBDIR" broken >/dev/null
  grep -x "broken-info: compress -7, again -7" "$BUILD/out/dynamic_plugins.broken"
}

# tuner_plugins: tuners registered without functions, loaded by each library from the plugin
# dynplugins/tuner.c builds (found through LD_LIBRARY_PATH); and c-blosc2's btune entry (id 32)
# with the blosc2-btune 1.2.1 wheel installed in a venv here (skipped when pip cannot get it).
build_tuner_plugins() {
  [ -n "${REF:-}" ] || { echo "reference library unavailable (get-reference.sh failed)"; return 1; }
  local d=$BUILD/tunerplugins
  mkdir -p "$d" &&
    $CC $CFLAGS -shared -fPIC -o "$d/libblosc2_rbtest_tuner.so" "$HERE/dynplugins/tuner.c" &&
    $CC $CFLAGS -shared -fPIC -DBROKEN_INFO -o "$d/libblosc2_rbtest_tuner_broken.so" \
      "$HERE/dynplugins/tuner.c" &&
    $CC $CFLAGS -o "$BUILD/bin/tuner_plugins" "$HERE/tuner_plugins.c" -I"$REF/include" \
      -L"$REF/lib" -l:libblosc2.so.9
}

# tuner_plugins_run MODE LIBDIR NAME [PATH]: one run, output in $BUILD/out/tuner_plugins.NAME.
tuner_plugins_run() {
  local mode=$1 lib=$2 name=$3 path=${4:-$PATH}
  [ -x "$BUILD/bin/tuner_plugins" ] || { echo "not built"; return 1; }
  env -u BTUNE_TRADEOFF -u BTUNE_PERF_MODE -u BTUNE_TRACE -u BTUNE_MODELS_DIR \
    -u BTUNE_USE_INFERENCE PATH="$path" LD_LIBRARY_PATH="$lib:$BUILD/tunerplugins" \
    timeout 600 "$BUILD/bin/tuner_plugins" "$mode" >"$BUILD/out/tuner_plugins.$name" 2>/dev/null
  local rc=$?
  tail -n 1 "$BUILD/out/tuner_plugins.$name"
  return $rc
}

tuner_plugins_same() {
  local a=$BUILD/out/tuner_plugins.$1 b=$BUILD/out/tuner_plugins.$2
  [ -f "$a" ] && [ -f "$b" ] || { echo "missing outputs"; return 1; }
  diff -u "$a" "$b" && echo "same output"
}

# btune with both libraries, through a venv holding blosc2-btune 1.2.1 (its `python` is the one
# the libraries run to find the plugin's library). Skipped, saying so, when it cannot be had.
btune_side_by_side() {
  local v=$BUILD/btune-venv
  if ! "$v/bin/python" -c 'import blosc2_btune' 2>/dev/null; then
    { python3 -m venv "$v" && "$v/bin/pip" install -q --no-deps 'blosc2-btune==1.2.1' numpy; } \
      >"$BUILD/logs/btune-venv.log" 2>&1
    if ! "$v/bin/python" -c 'import blosc2_btune' 2>/dev/null; then
      echo "SKIP: blosc2-btune 1.2.1 could not be installed (see btune-venv.log); btune not compared"
      return 0
    fi
  fi
  tuner_plugins_run btune "${REF:-/nonexistent}/lib" btune-ref "$v/bin:$PATH" &&
    tuner_plugins_run btune "$LIBDIR" btune-ours "$v/bin:$PATH" &&
    tuner_plugins_same btune-ref btune-ours
}

# The example arrays open with the same metadata and data under both libraries.
b2nd_examples() {
  [ -x "$BUILD/bin/b2nd_interop" ] || { echo "not built"; return 1; }
  LD_LIBRARY_PATH=$LIBDIR "$BUILD/bin/b2nd_interop" examples "$REPO/tests/data" \
    >"$BUILD/out/b2nd_examples.ours" || { cat "$BUILD/out/b2nd_examples.ours"; return 1; }
  LD_LIBRARY_PATH=$REF/lib "$BUILD/bin/b2nd_interop" examples "$REPO/tests/data" \
    >"$BUILD/out/b2nd_examples.ref" || return 1
  diff "$BUILD/out/b2nd_examples.ref" "$BUILD/out/b2nd_examples.ours" &&
    tail -n 1 "$BUILD/out/b2nd_examples.ours"
}

# The program, linked against ours, under valgrind memcheck: no invalid read or write, no use of
# uninitialised values, no definitely or indirectly lost block. (Still-reachable and "possibly
# lost" blocks are the worker threads' stacks and the library's global state at exit.)
valgrind_run() {
  local p=$1
  command -v valgrind >/dev/null || { echo "valgrind not installed"; return 1; }
  [ -x "$BUILD/bin/$p.pc-shared" ] || { echo "not built"; return 1; }
  "$HERE/memcheck.sh" --exec "$BUILD/bin/$p.pc-shared" >"$BUILD/out/$p.valgrind"
}

build_pkgconfig_cxx() {
  # shellcheck disable=SC2046
  $CXX -std=c++17 -Wall -Wextra -o "$BUILD/bin/consumer.pc-cxx" "$HERE/consumer.cpp" \
    $(pkg-config --cflags --libs blosc2) -Wl,-rpath,"$LIBDIR" &&
    loads_from "$BUILD/bin/consumer.pc-cxx" "$LIBDIR" &&
    "$BUILD/bin/consumer.pc-cxx"
}

cmake_build() {
  local programs
  programs=$(IFS=';'; echo "${PROGRAMS[*]}")
  cmake -S "$HERE/cmake-consumer" -B "$BUILD/cmake" -DCMAKE_PREFIX_PATH="$PREFIX" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLOSC2_TEST_PROGRAMS="$programs" &&
    cmake --build "$BUILD/cmake" -j 2
}

cmake_run() {
  local exe=$BUILD/cmake/$1 kind=$2
  [ -x "$exe" ] || { echo "not built: $exe"; return 1; }
  case $kind in
    shared) loads_from "$exe" "$LIBDIR" || return 1 ;;
    static) not_needed "$exe" || return 1 ;;
  esac
  timeout 600 "$exe" >"$BUILD/out/cmake-$1" || { tail -n 25 "$BUILD/out/cmake-$1"; return 1; }
  tail -n 1 "$BUILD/out/cmake-$1"
}

# The C programs of examples/, built through the installed CMake package as a user's project
# would be; each checks its own results, and b2inspect must find the files they write intact.
examples_build() {
  cmake -S "$REPO/examples" -B "$BUILD/examples" -DCMAKE_PREFIX_PATH="$PREFIX" &&
    cmake --build "$BUILD/examples" -j 2
}

examples_run() {
  local dir=$BUILD/out/examples exe
  mkdir -p "$dir"
  for exe in compress_ctx schunk_file b2nd_slice; do
    loads_from "$BUILD/examples/$exe" "$LIBDIR" || return 1
    (cd "$dir" && timeout 120 "$BUILD/examples/$exe") || return 1
  done
  "$PREFIX/bin/b2inspect" verify "$dir/schunk_file.b2frame" &&
    "$PREFIX/bin/b2inspect" verify "$dir/b2nd_slice.b2nd" &&
    "$PREFIX/bin/b2inspect" info "$dir/b2nd_slice.b2nd" | grep -q 'shape:      \[100, 80\]'
}

# ---------------------------------------------------------------------------------------------
echo "capi-tests: prefix $PREFIX, programs: ${PROGRAMS[*]}, build dir $BUILD"
REF=$("$HERE/get-reference.sh" 2>"$BUILD/logs/get-reference.log") || REF=
[ -n "$REF" ] && echo "reference c-blosc2: $REF" || echo "reference c-blosc2: UNAVAILABLE"

run_test install-layout test_install_layout
run_test exports-public-only test_exports
report_export_coverage
run_test header-audit header_audit
tail -n 1 "$BUILD/logs/header-audit.log"

for p in "${PROGRAMS[@]}"; do
  run_test "pkgconfig-shared-build-$p" build_pkgconfig_shared "$p"
  run_test "pkgconfig-shared-run-$p" run_ours_shared "$p"
  run_test "pkgconfig-static-build-$p" build_pkgconfig_static "$p"
  run_test "pkgconfig-static-run-$p" run_ours_static "$p"
  run_test "reference-run-$p" build_and_run_reference "$p"
  run_test "side-by-side-$p" side_by_side "$p"
  run_test "drop-in-$p" drop_in "$p"
  if [ "${RBLOSC2_VALGRIND:-0}" = 1 ]; then
    run_test "valgrind-$p" valgrind_run "$p"
  fi
done
run_test pkgconfig-cxx-consumer build_pkgconfig_cxx

run_test chunk-interop-build build_interop
run_test chunk-interop-ours-to-ref interop "$LIBDIR" "${REF:-/nonexistent}/lib" ours-to-ref --ref
run_test chunk-interop-ref-to-ours interop "${REF:-/nonexistent}/lib" "$LIBDIR" ref-to-ours
report_interop_identity
run_test schunk-interop-build build_schunk_interop
run_test schunk-interop-ours-to-ref schunk_interop_run "$LIBDIR" "${REF:-/nonexistent}/lib" ours-to-ref
run_test schunk-interop-ref-to-ours schunk_interop_run "${REF:-/nonexistent}/lib" "$LIBDIR" ref-to-ours
run_test fingerprint-interop-build build_fingerprint_interop
run_test fingerprint-interop fingerprint_interop_run
run_test schunk-interop-identical-bytes schunk_interop_identical
run_test swmr-interop-build build_swmr_interop
run_test swmr-interop-ours-to-ref swmr_interop_run "$LIBDIR" "${REF:-/nonexistent}/lib" ours-to-ref
run_test swmr-interop-ref-to-ours swmr_interop_run "${REF:-/nonexistent}/lib" "$LIBDIR" ref-to-ours
run_test swmr-lock-ours-holds swmr_lock_run "$LIBDIR" "${REF:-/nonexistent}/lib" ours-holds
run_test swmr-lock-ref-holds swmr_lock_run "${REF:-/nonexistent}/lib" "$LIBDIR" ref-holds
run_test b2nd-swmr-ours b2nd_swmr_ours
run_test b2nd-interop-build build_b2nd_interop
run_test b2nd-interop-ours-to-ref b2nd_interop_run "$LIBDIR" "${REF:-/nonexistent}/lib" ours-to-ref
run_test b2nd-interop-ref-to-ours b2nd_interop_run "${REF:-/nonexistent}/lib" "$LIBDIR" ref-to-ours
run_test b2nd-examples b2nd_examples
run_test plugin-interop-build build_plugin_interop
run_test plugin-interop-ours-to-ref plugin_interop_run "$LIBDIR" "${REF:-/nonexistent}/lib" ours-to-ref
run_test plugin-interop-ref-to-ours plugin_interop_run "${REF:-/nonexistent}/lib" "$LIBDIR" ref-to-ours
run_test plugin-interop-identical-bytes plugin_interop_identical
run_test plugin-refusals plugin_refusals
run_test plugin-mutate plugin_mutate
run_test dynamic-plugins-build build_dynamic_plugins
run_test dynamic-plugins-write-ref dynamic_plugins_run write "${REF:-/nonexistent}/lib" write-ref
run_test dynamic-plugins-write-ours dynamic_plugins_run write "$LIBDIR" write-ours
run_test dynamic-plugins-same-writes dynamic_plugins_same write-ref write-ours
run_test dynamic-plugins-identical-chunks diff -r "$BUILD/dynplugins-write-ref" "$BUILD/dynplugins-write-ours"
run_test dynamic-plugins-ref-reads-ours dynamic_plugins_run read "${REF:-/nonexistent}/lib" read-ref "$BUILD/dynplugins-write-ours"
run_test dynamic-plugins-ours-reads-ref dynamic_plugins_run read "$LIBDIR" read-ours "$BUILD/dynplugins-write-ref"
run_test dynamic-plugins-same-reads dynamic_plugins_same read-ref read-ours
run_test dynamic-plugins-broken-info dynamic_plugins_broken

run_test tuner-plugins-build build_tuner_plugins
run_test tuner-plugins-ref tuner_plugins_run plugins "${REF:-/nonexistent}/lib" plugins-ref
run_test tuner-plugins-ours tuner_plugins_run plugins "$LIBDIR" plugins-ours
run_test tuner-plugins-same tuner_plugins_same plugins-ref plugins-ours
run_test btune-side-by-side btune_side_by_side

if [ "${RBLOSC2_MUTATE:-1}" != 0 ]; then
  run_test mutation-suite env MUTATE_OUT="$BUILD/mutate" "$HERE/mutate.sh" "$PREFIX"
  tail -n 1 "$BUILD/logs/mutation-suite.log"
fi
run_test error-code-parity env PARITY_OUT="$BUILD/parity" "$HERE/parity.sh" "$PREFIX"
tail -n 1 "$BUILD/logs/error-code-parity.log"
if [ "${RBLOSC2_CRASH:-1}" != 0 ]; then
  run_test crash-quick env CRASH_BUILD_DIR="$BUILD/crash" "$HERE/crash/run.sh" "$PREFIX" --quick
  tail -n 1 "$BUILD/logs/crash-quick.log"
fi

run_test cmake-consumer-build cmake_build
for p in "${PROGRAMS[@]}"; do
  run_test "cmake-shared-$p" cmake_run "${p}_shared" shared
  run_test "cmake-static-$p" cmake_run "${p}_static" static
done
run_test "cmake-default-${PROGRAMS[0]}" cmake_run "${PROGRAMS[0]}_default" static
run_test cmake-cxx-shared cmake_run cxx_consumer_shared shared
run_test cmake-cxx-static cmake_run cxx_consumer_static static
run_test examples-build examples_build
run_test examples-run examples_run

if [ "$failed" != 0 ]; then
  echo "failed: ${failed_names[*]}"
fi
echo "capi-tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
