#!/usr/bin/env bash
# Usage: scripts/python-downstream.sh PREFIX DEPS_DIR [pytest args...]
#
# Runs python-blosc2 4.14.1's own test suite on rblosc2: builds python-blosc2 from its PyPI
# sdist against the library installed in PREFIX (`make install PREFIX=...`; found through its
# blosc2.pc, linked with a RUNPATH to its lib dir), checks that the Python module really maps
# PREFIX's libblosc2.so.9, runs the tests python-blosc2's pytest.ini selects (under tests/), two
# xdist workers taking a file each (a test that crashes its worker loses only that test), and
# compares the failures with scripts/python-downstream-known.txt, the tests that fail with the
# reference c-blosc2 as well. Prints every other failure, error, crash or test that never ran,
# then `N passed, M failed` (M: those unexpected ones).
#
#   PREFIX    an install of rblosc2: PREFIX/lib*/pkgconfig/blosc2.pc, libblosc2.so.9, headers.
#   DEPS_DIR  the three sources python-blosc2's CMake would otherwise fetch from GitHub, as
#             `git archive --prefix=NAME/ COMMIT | gzip >NAME.tar.gz` tarballs, NAME being
#             miniexpr-f0b8c94771cd21d3c9029d6ccec204ab3a67584f (Blosc/miniexpr),
#             sleef-7623d6cfa2712462880fa63a4d0f0b5f775d1a83 (shibatch/sleef) and
#             minicc-695ad1e6b5c9a00875192ca1f3a9c4949dee4858 (Blosc/minicc); checked against
#             DEPS_DIR/SHA256SUMS when there is one, else by the commit id git archive embeds.
#   pytest args  go to pytest as they are, run from a copy of the sdist's test tree, so paths
#             start with tests/: e.g. tests/test_schunk.py, -k vlmeta.
#
# Needs: bash, python3 >= 3.11 with venv, a C compiler, pkg-config, tar, sha256sum, ldd, and the
# package index (pip) the first time; cmake >= 3.20 (else pip installs one into the venv).
# Everything goes to a cache directory: the venv (about 1 GB), the sdist, the build (reused while
# PREFIX's headers, blosc2.pc and lib dir are unchanged), and results/ (pytest.log, junit.xml,
# results.jsonl, unexpected.tsv).
#
# Environment:
#   RBLOSC2_DS_CACHE=DIR      cache directory (default ~/.cache/rblosc2-python-downstream)
#   RBLOSC2_DS_PYTHON=PY      interpreter for the venv (default python3)
#   RBLOSC2_DS_WORKERS=N      pytest-xdist workers (default 2); also the build's parallelism
#   RBLOSC2_DS_TIMEOUT=S      a test running longer is stopped and counted as a crash (120: the
#                             whole suite takes ~4 min a worker; 600 let a hang repeated in a
#                             file's tests outlast CI's 90 min)
#   RBLOSC2_DS_MAX_RESTARTS=N crashed workers replaced before xdist gives up (default 2000)
#   RBLOSC2_DS_REBUILD=1      rebuild python-blosc2 even if nothing it depends on changed
#
# Exit status: 0 when every failure is a known one; 1 when there are unexpected failures;
# 2 on a setup error; 3 when the module loads another libblosc2 than PREFIX's; 77 when the
# package index cannot be reached and the cache lacks what it would have downloaded (skipped).
set -euo pipefail

# --- what is built and tested (data) ---------------------------------------------------------
BLOSC2_VERSION=4.14.1
SDIST=blosc2-$BLOSC2_VERSION.tar.gz
SDIST_SHA256=b5adb408854260acf64aca5c351ab1307bcb7c71d112e3049d8541c1e2f9b222
# FetchContent name -> tarball name (the repository and the commit python-blosc2 4.14.1 pins)
DEP_NAMES=(MINIEXPR SLEEF TINYCC)
declare -A DEP_TARBALL=(
  [MINIEXPR]=miniexpr-f0b8c94771cd21d3c9029d6ccec204ab3a67584f # Blosc/miniexpr
  [SLEEF]=sleef-7623d6cfa2712462880fa63a4d0f0b5f775d1a83       # shibatch/sleef
  [TINYCC]=minicc-695ad1e6b5c9a00875192ca1f3a9c4949dee4858     # Blosc/minicc
)

SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REQUIREMENTS=$SCRIPTS/python-downstream-requirements.txt
CONSTRAINTS=$SCRIPTS/python-downstream-constraints.txt
KNOWN=$SCRIPTS/python-downstream-known.txt

say() { echo "python-downstream: $*"; }
fail() {
  echo "python-downstream: ERROR: $*" >&2
  exit 2
}

if [ $# -lt 2 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  sed -n '2,/^set -euo/{/^set -euo/d; s/^# \{0,1\}//; p}' "${BASH_SOURCE[0]}"
  exit 2
fi
[ -d "$1" ] || fail "PREFIX '$1' is not a directory"
[ -d "$2" ] || fail "DEPS_DIR '$2' is not a directory"
PREFIX="$(cd "$1" && pwd -P)"
DEPS="$(cd "$2" && pwd -P)"
shift 2
PYTEST_ARGS=("$@")

CACHE="${RBLOSC2_DS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rblosc2-python-downstream}"
PYTHON="${RBLOSC2_DS_PYTHON:-python3}"
WORKERS="${RBLOSC2_DS_WORKERS:-2}"
TEST_TIMEOUT="${RBLOSC2_DS_TIMEOUT:-120}"
MAX_RESTARTS="${RBLOSC2_DS_MAX_RESTARTS:-2000}"
VENV=$CACHE/venv
LOGS=$CACHE/logs
START=$SECONDS

# --- the library under test -----------------------------------------------------------------
PC_FILE=
for pc in "$PREFIX"/lib*/pkgconfig/blosc2.pc "$PREFIX"/lib/*/pkgconfig/blosc2.pc; do
  if [ -f "$pc" ]; then PC_FILE=$pc; break; fi
done
[ -n "$PC_FILE" ] || fail "no blosc2.pc under $PREFIX/lib*/pkgconfig (is PREFIX an install of rblosc2?)"
PC_DIR=$(dirname "$PC_FILE")
for tool in cc pkg-config tar sha256sum ldd "$PYTHON"; do
  command -v "$tool" >/dev/null || fail "'$tool' not found"
done
LIBDIR="$(PKG_CONFIG_PATH=$PC_DIR pkg-config --variable=libdir blosc2)"
LIB=$LIBDIR/libblosc2.so.9
[ -e "$LIB" ] || fail "$PC_FILE says libdir=$LIBDIR, but $LIB does not exist (was the install moved?)"
LIB_REAL="$(readlink -f "$LIB")"
case "$LIB_REAL" in "$PREFIX"/*) ;; *) fail "$LIB resolves to $LIB_REAL, outside PREFIX $PREFIX" ;; esac
"$PYTHON" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null ||
  fail "$PYTHON is older than 3.11 or cannot make venvs (Debian: apt-get install python3-venv)"
case "$PREFIX$CACHE$DEPS" in *[[:space:]]*) fail "PREFIX, DEPS_DIR and the cache dir must not contain spaces" ;; esac

# --- the dependency tarballs ----------------------------------------------------------------
for name in "${DEP_NAMES[@]}"; do
  [ -f "$DEPS/${DEP_TARBALL[$name]}.tar.gz" ] || fail "$DEPS/${DEP_TARBALL[$name]}.tar.gz is missing"
done
if [ -f "$DEPS/SHA256SUMS" ]; then
  (cd "$DEPS" && sha256sum --check --quiet SHA256SUMS) || fail "$DEPS does not match its SHA256SUMS"
elif command -v git >/dev/null; then
  for name in "${DEP_NAMES[@]}"; do
    tarball=${DEP_TARBALL[$name]}
    commit="$(gzip -dc "$DEPS/$tarball.tar.gz" | git get-tar-commit-id || true)"
    [ "$commit" = "${tarball##*-}" ] || fail "$tarball.tar.gz is not a git archive of commit ${tarball##*-}"
  done
else
  say "warning: no $DEPS/SHA256SUMS and no git: the tarballs' contents are not checked"
fi

mkdir -p "$CACHE" "$LOGS"
exec 9>"$CACHE/lock"
if command -v flock >/dev/null; then
  flock -n 9 || fail "another python-downstream.sh is using $CACHE (RBLOSC2_DS_CACHE picks another)"
fi

# pip, with a log. When it fails because the package index cannot be reached, the run is skipped
# (exit 77), not failed: a machine without network cannot say anything about the library.
pip_logged() { # LOG pip-args...
  local log=$1
  shift
  if "$VENV/bin/python" -m pip --disable-pip-version-check "$@" >>"$log" 2>&1; then return 0; fi
  if grep -Eq 'NewConnectionError|ConnectTimeoutError|ReadTimeoutError|Max retries exceeded|Temporary failure in name resolution|Name or service not known|Network is unreachable|Connection refused|ProxyError|Could not fetch URL' "$log"; then
    say "skipped: pip cannot reach the package index (see $log)"
    exit 77
  fi
  tail -n 20 "$log" >&2
  fail "pip $1 failed, see $log"
}

# --- the venv: build and test requirements at the pinned versions ----------------------------
t0=$SECONDS
venv_stamp="$("$PYTHON" -VV | tr -d '\n') $(cat "$REQUIREMENTS" "$CONSTRAINTS" | sha256sum | cut -c1-16)"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$VENV/.stamp" 2>/dev/null)" != "$venv_stamp" ]; then
  say "creating the venv $VENV (pip log: $LOGS/pip.log)"
  rm -rf "$VENV" "$CACHE/build"
  : >"$LOGS/pip.log"
  "$PYTHON" -m venv "$VENV"
  pip_logged "$LOGS/pip.log" install --retries 2 --timeout 60 -r "$REQUIREMENTS" -c "$CONSTRAINTS"
  echo "$venv_stamp" >"$VENV/.stamp"
fi
# minicc needs cmake >= 3.20; the system's if it has one, else PyPI's, inside the venv
cmake_recent() {
  command -v cmake >/dev/null &&
    cmake --version | awk 'NR == 1 { split($3, v, "."); exit !(v[1] > 3 || (v[1] == 3 && v[2] >= 20)) }'
}
if ! PATH="$VENV/bin:$PATH" cmake_recent; then
  say "cmake >= 3.20 not found: installing it into the venv"
  pip_logged "$LOGS/pip.log" install --retries 2 --timeout 60 "cmake>=3.20,<4"
fi
T_VENV=$((SECONDS - t0))

# --- sources: the sdist (sha256-checked) and the dependency tarballs, unpacked ---------------
t0=$SECONDS
mkdir -p "$CACHE/sdist"
if ! echo "$SDIST_SHA256  $CACHE/sdist/$SDIST" | sha256sum --check --status 2>/dev/null; then
  say "downloading the $SDIST sdist"
  rm -rf "$CACHE/sdist"
  mkdir -p "$CACHE/sdist"
  # --no-build-isolation: pip reads the sdist's metadata with the venv's scikit-build-core
  PATH="$VENV/bin:$PATH" pip_logged "$LOGS/pip.log" download --retries 2 --timeout 60 --no-deps \
    --no-binary blosc2 --no-build-isolation -d "$CACHE/sdist" "blosc2==$BLOSC2_VERSION"
  echo "$SDIST_SHA256  $CACHE/sdist/$SDIST" | sha256sum --check --status ||
    fail "the downloaded $SDIST does not have the sha256 $SDIST_SHA256"
fi
SRC=$CACHE/src/blosc2-$BLOSC2_VERSION
if [ "$(cat "$SRC/.unpacked" 2>/dev/null)" != "$SDIST_SHA256" ]; then
  rm -rf "$CACHE/src"
  mkdir -p "$CACHE/src"
  tar -xzf "$CACHE/sdist/$SDIST" -C "$CACHE/src"
  echo "$SDIST_SHA256" >"$SRC/.unpacked"
fi
DEPS_STAMP=
mkdir -p "$CACHE/deps"
for name in "${DEP_NAMES[@]}"; do
  tarball=${DEP_TARBALL[$name]}
  sum="$(sha256sum <"$DEPS/$tarball.tar.gz" | cut -c1-64)"
  DEPS_STAMP+="$tarball:$sum "
  if [ "$(cat "$CACHE/deps/$tarball/.unpacked" 2>/dev/null)" != "$sum" ]; then
    rm -rf "${CACHE:?}/deps/$tarball"
    tar -xzf "$DEPS/$tarball.tar.gz" -C "$CACHE/deps"
    [ -d "$CACHE/deps/$tarball" ] || fail "$tarball.tar.gz does not unpack into $tarball/"
    echo "$sum" >"$CACHE/deps/$tarball/.unpacked"
  fi
done

# --- python-blosc2, built against PREFIX (USE_SYSTEM_BLOSC2, RUNPATH to PREFIX's lib dir) ------
# Rebuilt when anything it compiled or linked against changes; a new libblosc2.so of the same
# ABI needs no rebuild, since the extension loads it at run time.
build_stamp="$({
  echo "v1 $LIB $SDIST_SHA256 $DEPS_STAMP"
  cat "$VENV/.stamp" "$PC_FILE"
  find "$PREFIX/include" -type f -name '*.h' -print0 2>/dev/null | sort -z | xargs -0r cat
} | sha256sum | cut -c1-16)"
site_ext() { compgen -G "$VENV/lib/python3*/site-packages/blosc2/blosc2_ext*.so" | head -n 1 || true; }
EXT="$(site_ext)"
if [ -n "${RBLOSC2_DS_REBUILD:-}" ] || [ -z "$EXT" ] || [ "$(cat "$VENV/.built" 2>/dev/null)" != "$build_stamp" ]; then
  say "building python-blosc2 $BLOSC2_VERSION against $PREFIX (log: $LOGS/build.log)"
  rm -rf "$CACHE/build" "$VENV/.built"
  "$VENV/bin/python" -m pip uninstall -y -q blosc2 >/dev/null 2>&1 || true
  fetch_defs=(--config-settings=cmake.define.FETCHCONTENT_FULLY_DISCONNECTED=ON)
  for name in "${DEP_NAMES[@]}"; do
    fetch_defs+=("--config-settings=cmake.define.FETCHCONTENT_SOURCE_DIR_$name=$CACHE/deps/${DEP_TARBALL[$name]}")
  done
  if ! env PATH="$VENV/bin:$PATH" PKG_CONFIG_PATH="$PC_DIR${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
    USE_SYSTEM_BLOSC2=1 CMAKE_BUILD_PARALLEL_LEVEL="$WORKERS" \
    "$VENV/bin/python" -m pip --disable-pip-version-check install -v --no-build-isolation \
    --no-deps --no-cache-dir \
    --config-settings=cmake.define.USE_SYSTEM_BLOSC2=ON \
    "${fetch_defs[@]}" \
    "--config-settings=cmake.define.CMAKE_MODULE_LINKER_FLAGS=-Wl,-rpath,$LIBDIR" \
    "--config-settings=cmake.define.CMAKE_SHARED_LINKER_FLAGS=-Wl,-rpath,$LIBDIR" \
    "--config-settings=build-dir=$CACHE/build" \
    "$SRC" >"$LOGS/build.log" 2>&1; then
    tail -n 30 "$LOGS/build.log" >&2
    fail "building python-blosc2 against $PREFIX failed, see $LOGS/build.log"
  fi
  EXT="$(site_ext)"
  [ -n "$EXT" ] || fail "the build installed no blosc2_ext*.so (see $LOGS/build.log)"
  echo "$build_stamp" >"$VENV/.built"
else
  say "reusing the build of python-blosc2 $BLOSC2_VERSION (PREFIX's headers and blosc2.pc unchanged)"
fi
T_BUILD=$((SECONDS - t0))

# --- which libblosc2 does it load? ----------------------------------------------------------
wrong_library() {
  echo "python-downstream: WRONG LIBRARY: $*" >&2
  exit 3
}
# The extension alone (RUNPATH, no LD_LIBRARY_PATH) must resolve to PREFIX's library...
resolved="$(env -u LD_LIBRARY_PATH ldd "$EXT" | awk '$1 == "libblosc2.so.9" { print $3 }')"
[ -n "$resolved" ] && [ "$(readlink -f "$resolved")" = "$LIB_REAL" ] ||
  wrong_library "$EXT resolves libblosc2.so.9 to '${resolved:-nothing}', not $LIB"
# ...and so must a Python process in the tests' environment (LD_LIBRARY_PATH would win over
# RUNPATH, so PREFIX's lib dir goes first), mapping no other libblosc2.
export LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
(cd / && "$VENV/bin/python" - "$LIB_REAL" "$VENV" "$SCRIPTS" <<'EOF') || wrong_library "blosc2 does not load $LIB alone"
import os, sys
want, venv = sys.argv[1], os.path.realpath(sys.argv[2])
sys.path.insert(0, sys.argv[3])
import blosc2
from mapped_libblosc2 import mapped_libblosc2
mapped = mapped_libblosc2()
print(f"python-downstream: blosc2 {blosc2.__version__} ({os.path.dirname(blosc2.__file__)}), "
      f"C-Blosc2 {blosc2.blosclib_version.split()[0]}, maps {mapped}")
ok = mapped == [want] and os.path.realpath(blosc2.__file__).startswith(venv + os.sep)
sys.exit(0 if ok else 3)
EOF

# --- the tests --------------------------------------------------------------------------------
RUN=$CACHE/run
RESULTS=$CACHE/results
rm -rf "$RUN" "$RESULTS"
mkdir -p "$RUN" "$RESULTS/collect"
# The test tree only: from the sdist's root, pytest would import the uncompiled src/blosc2.
for item in tests examples conftest.py pytest.ini; do cp -r "$SRC/$item" "$RUN/"; done
# the plugin from a copy, so that Python's bytecode cache stays out of the checkout
mkdir -p "$RUN/.plugin"
cp "$SCRIPTS/python_downstream_plugin.py" "$SCRIPTS/mapped_libblosc2.py" "$RUN/.plugin/"
export PYTHONPATH="$RUN/.plugin${PYTHONPATH:+:$PYTHONPATH}"
export RBLOSC2_DS_EXPECT_LIB=$LIB_REAL
PYTEST=("$VENV/bin/python" -m pytest -p python_downstream_plugin -p no:cacheprovider)

# Collection, in one process, first: it gives the list of tests (so that a test that never
# reports is seen), and finds the files whose import kills the process; those are left out of
# the run, where they would kill every xdist worker at start-up.
t0=$SECONDS
IGNORED=()
: >"$RESULTS/collect-crashes.tsv"
while :; do
  rc=0
  (cd "$RUN" && RBLOSC2_DS_OUT=$RESULTS/collect RBLOSC2_DS_COLLECT_LOG=$RESULTS/collect/files.log \
    "${PYTEST[@]}" -n 0 --collect-only -q --continue-on-collection-errors "${IGNORED[@]}" \
    "${PYTEST_ARGS[@]}" >"$RESULTS/collect/pytest.log" 2>&1) || rc=$?
  [ -s "$RESULTS/collect/wrong-library.txt" ] && wrong_library "$(cat "$RESULTS/collect/wrong-library.txt")"
  [ $rc -ge 128 ] || break
  culprit="$(awk '$1 == "start" { open[$2] = NR } $1 == "done" { delete open[$2] }
                  END { best = 0; for (f in open) if (open[f] > best) { best = open[f]; file = f }; print file }' \
    "$RESULTS/collect/files.log")"
  if [ -z "$culprit" ] || [ ${#IGNORED[@]} -ge 40 ]; then
    tail -n 30 "$RESULTS/collect/pytest.log" >&2
    fail "pytest died (status $rc) while collecting, outside any test file"
  fi
  say "importing $culprit kills pytest (status $rc): its tests are left out and it counts as a crash"
  printf '%s\tpytest exited with status %s\n' "$culprit" "$rc" >>"$RESULTS/collect-crashes.tsv"
  IGNORED+=("--ignore=$culprit")
  rm -f "$RESULTS/collect/files.log"
done
[ $rc -le 1 ] || [ $rc = 5 ] || {
  tail -n 30 "$RESULTS/collect/pytest.log" >&2
  fail "collecting the tests failed (pytest status $rc), see $RESULTS/collect/pytest.log"
}
T_COLLECT=$((SECONDS - t0))
say "$(wc -l <"$RESULTS/collect/collected.txt") tests selected; running them with $WORKERS xdist workers (log: $RESULTS/pytest.log)"

t0=$SECONDS
RUN_ARGS=(-n "$WORKERS" --dist loadfile --max-worker-restart "$MAX_RESTARTS" -q -rN
  --continue-on-collection-errors
  --basetemp "$RUN/tmp" --junitxml "$RESULTS/junit.xml")
if "$VENV/bin/python" -c 'import pytest_timeout' 2>/dev/null; then
  # the thread method also stops a test stuck inside C code (by ending its worker)
  RUN_ARGS+=(--timeout "$TEST_TIMEOUT" --timeout-method thread)
fi
(cd "$RUN" && RBLOSC2_DS_OUT=$RESULTS "${PYTEST[@]}" "${RUN_ARGS[@]}" "${IGNORED[@]}" \
  "${PYTEST_ARGS[@]}" >"$RESULTS/pytest.log" 2>&1) &
pytest_pid=$!
# a line a minute, so that a long run shows it is alive
next_note=$((SECONDS + 60))
while kill -0 "$pytest_pid" 2>/dev/null; do
  sleep 1
  if [ $SECONDS -ge $next_note ] && kill -0 "$pytest_pid" 2>/dev/null; then
    reported=0
    if [ -f "$RESULTS/results.jsonl" ]; then
      reported="$(grep -c -e '"when": "teardown"' -e '"when": "???"' "$RESULTS/results.jsonl" || true)"
    fi
    say "... $((SECONDS - t0)) s, $reported tests reported"
    next_note=$((SECONDS + 60))
  fi
done
rc=0
wait "$pytest_pid" || rc=$?
T_TESTS=$((SECONDS - t0))
[ -s "$RESULTS/wrong-library.txt" ] && wrong_library "$(cat "$RESULTS/wrong-library.txt")"
if [ $rc -gt 1 ] && [ $rc != 5 ]; then
  say "pytest exited with status $rc; its last lines:"
  tail -n 15 "$RESULTS/pytest.log"
fi

say "times: venv ${T_VENV}s, sources and build ${T_BUILD}s, collection ${T_COLLECT}s," \
  "tests ${T_TESTS}s, total $((SECONDS - START))s; details in $RESULTS/"
report() { "$VENV/bin/python" -B "$SCRIPTS/python-downstream-report.py" "$@"; }
rc=0
report "$RESULTS" "$KNOWN" >"$RESULTS/report.txt" || rc=$?
if [ $rc != 1 ]; then
  cat "$RESULTS/report.txt"
  exit $rc
fi
# A few of python-blosc2's tests race other processes (file locking) and fail now and then on
# either library: the unexpected failures run once more, alone in one process, and only those
# that fail again count. At most 50: more is not a race.
mapfile -t again < <(sed -n 's/^UNEXPECTED \([^ ]*\): .*/\1/p' "$RESULTS/report.txt")
if [ ${#again[@]} = 0 ] || [ ${#again[@]} -gt 50 ]; then
  cat "$RESULTS/report.txt"
  exit 1
fi
sed '$d' "$RESULTS/report.txt"
first_passed="$(tail -n 1 "$RESULTS/report.txt" | sed -n 's/^\([0-9]*\) passed, .*/\1/p')"
say "running the ${#again[@]} unexpected failures once more, one process"
mkdir -p "$RESULTS/rerun"
(cd "$RUN" && RBLOSC2_DS_OUT=$RESULTS/rerun "${PYTEST[@]}" -n 0 -q -p no:randomly \
  --basetemp "$RUN/tmp-rerun" "${again[@]}" >"$RESULTS/rerun/pytest.log" 2>&1) || true
rc=0
report "$RESULTS/rerun" "$KNOWN" >"$RESULTS/rerun/report.txt" || rc=$?
sed '$d' "$RESULTS/rerun/report.txt"
again_passed="$(tail -n 1 "$RESULTS/rerun/report.txt" | sed -n 's/^\([0-9]*\) passed, .*/\1/p')"
again_failed="$(tail -n 1 "$RESULTS/rerun/report.txt" | sed -n 's/^[0-9]* passed, \([0-9]*\) failed/\1/p')"
if [ -z "$again_failed" ]; then
  again_failed=${#again[@]}
  again_passed=0
fi
say "passed when run again (timing-dependent): $again_passed"
echo "$((${first_passed:-0} + again_passed)) passed, $again_failed failed"
[ "$again_failed" = 0 ]
