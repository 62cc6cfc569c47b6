#!/usr/bin/env bash
# Usage: scripts/plugin-wheels.sh PREFIX [SUITES_DIR]
#
# The Blosc2 plugin wheels from PyPI as checks of rblosc2: blosc2-openzl 0.0.1, blosc2-j2k 0.4.0,
# blosc2-htj2k 0.4.2 and blosc2-btune 1.2.1 (pinned), with python-blosc2 4.14.1 built against
# the library installed in PREFIX ("ours") and with the official blosc2==4.14.1 wheel, which
# carries c-blosc2 ("ref"). On each side:
#   1. round trips (scripts/plugin_wheels_check.py): every case compressed by its plugin into a
#      file (blosc2.asarray to .b2nd, or an SChunk to a frame), decompressed and compared; openzl
#      over 4 profiles x 7 dtypes x 1-D/2-D/3-D arrays plus shuffled super-chunks, j2k and htj2k
#      (both of its backends) over uint8/uint16 2-D and stacked 3-D images, lossless and lossy;
#   2. cross reads: the files ours wrote read by the reference and the reverse, compared with
#      the data the writer kept; and whether both sides' chunks are byte-identical (a note);
#   3. btune: an array written with cparams tuner=BTUNE must round-trip, cross-read, print the
#      same BTUNE_TRACE lines as on the reference (numbers masked) and give every chunk the
#      codec, filters and blocksize the reference gives it;
#   4. with SUITES_DIR, the plugins' own tests: SUITES_DIR/{openzl,j2k,htj2k}/tests (their
#      pytest suites) and SUITES_DIR/btune/examples (btune_config.py and lossy.py, run as btune's
#      CI does; their exit status, their trace and the chunks of btune_config.py's array are
#      compared), from the plugins' repositories at the tags of the wheels:
#        git clone -b v0.0.1 https://github.com/Blosc/blosc2-openzl SUITES_DIR/openzl
#        git clone -b v0.4.0 https://github.com/Blosc/blosc2_j2k SUITES_DIR/j2k
#        git clone -b v0.4.2 https://github.com/alemirone/blosc2_htj2k SUITES_DIR/htj2k
#        git clone -b v1.2.1 https://github.com/ironArray/Blosc2-Btune SUITES_DIR/btune
#      Expected on both sides (3.3.5 reference): openzl 160 passed; j2k 11 passed, 3 skipped;
#      htj2k 14 passed, 3 skipped (the Kakadu tests skip: no Kakadu backend in the wheels).
#
# The venvs: each side's plugins go into a small venv of this script's layered on a python-blosc2
# venv (a .pth adds that venv's site-packages), so the python-blosc2 venvs stay as their
# harnesses made them. The python-blosc2 venvs, by default:
#   ours  ~/.cache/rblosc2-downstream/venv-ours (the project's python-blosc2 harness), else the
#         venv of scripts/python-downstream.sh ($RBLOSC2_DS_CACHE/venv): make one first with
#         `scripts/python-downstream.sh PREFIX DEPS_DIR tests/test_schunk.py`;
#   ref   ~/.cache/rblosc2-downstream/venv-ref, else one this script makes (pip install blosc2==4.14.1).
#
# Packaging facts the script works around (the same on c-blosc2, not bugs of the library):
#   * The plugin libraries look for libblosc2 inside the `blosc2` package (RUNPATH
#     $ORIGIN/../blosc2/lib, and the j2k/htj2k `__init__`s dlopen blosc2/lib/libblosc2.so*
#     RTLD_GLOBAL, then dlsym blosc2_compname_to_compcode). The official wheel's `__init__` loads
#     its copy so; a python-blosc2 built on an install has none there, so ours' layered venv
#     loads PREFIX/lib/libblosc2.so.9 with ctypes RTLD_GLOBAL at interpreter start (a .pth line
#     acting on RBLOSC2_PLUGIN_PRELOAD), in the test processes and their subprocesses alike.
#   * The library finds a plugin's .so by running `python -c "import blosc2_NAME;
#     blosc2_NAME.print_libpath()"`: the layered venv's bin/ goes first on PATH.
#   * The j2k/htj2k suites run with BLOSC2_EXPECT_GLOBAL_CODEC_IDS=1, as in their CI (the
#     codec ids 39 and 40 are c-blosc2 3.3.5's).
#
# Environment:
#   PLUGIN_WHEELS_CACHE=DIR      the layered venvs and the results (default ~/.cache/rblosc2-plugin-wheels)
#   PLUGIN_WHEELS_OURS_VENV=DIR  python-blosc2 4.14.1 built against PREFIX
#   PLUGIN_WHEELS_REF_VENV=DIR   a venv with the official blosc2==4.14.1 wheel
#   PLUGIN_WHEELS_ONLY="roundtrip suites btune"  the parts to run (default: all)
#   PLUGIN_WHEELS_TRACEBACK=1    print the tracebacks of failing round-trip cases
#
# Prints one line per failing case and per suite `SIDE PLUGIN: N passed, M failed, K skipped`,
# then the tests that pass on ref but not on ours. Exit status 0 when every round trip and cross
# read passes on both sides, btune tuned on both, and every test of the suites that passes on ref
# passes on ours; 1 otherwise; 2 on a setup error; 3 when ours does not map PREFIX's library.
set -euo pipefail

BLOSC2_VERSION=4.14.1
PLUGINS=("blosc2-openzl==0.0.1" "blosc2-j2k==0.4.0" "blosc2-htj2k==0.4.2" "blosc2-btune==1.2.1")
SUITES=(openzl j2k htj2k)
GROUPS_RT=(openzl j2k-grok htj2k-grok htj2k-openhtj2k) # plugin_wheels_check.py GROUPS

SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
CHECK=$SCRIPTS/plugin_wheels_check.py
say() { echo "plugin-wheels: $*"; }
fail() {
  echo "plugin-wheels: ERROR: $*" >&2
  exit 2
}

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  sed -n '2,/^set -euo/{/^set -euo/d; s/^# \{0,1\}//; p}' "${BASH_SOURCE[0]}"
  exit 2
fi
[ -d "$1" ] || fail "PREFIX '$1' is not a directory"
PREFIX="$(cd "$1" && pwd -P)"
LIB=$PREFIX/lib/libblosc2.so.9
[ -e "$LIB" ] || fail "$LIB not found (is PREFIX an install of rblosc2?)"
LIB_REAL="$(readlink -f "$LIB")"
SUITES_DIR=
if [ $# = 2 ]; then
  [ -d "$2" ] || fail "SUITES_DIR '$2' is not a directory"
  SUITES_DIR="$(cd "$2" && pwd -P)"
fi
ONLY="${PLUGIN_WHEELS_ONLY:-roundtrip suites btune}"
CACHE="${PLUGIN_WHEELS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rblosc2-plugin-wheels}"
mkdir -p "$CACHE"
exec 9>"$CACHE/lock"
if command -v flock >/dev/null; then
  flock -n 9 || fail "another plugin-wheels.sh is using $CACHE (PLUGIN_WHEELS_CACHE picks another)"
fi

# --- the python-blosc2 venvs --------------------------------------------------------------------
first_dir() { for d in "$@"; do if [ -x "$d/bin/python" ]; then echo "$d"; return; fi; done; }
DS=${XDG_CACHE_HOME:-$HOME/.cache}
OURS_BASE="${PLUGIN_WHEELS_OURS_VENV:-$(first_dir "$DS/rblosc2-downstream/venv-ours" \
  "${RBLOSC2_DS_CACHE:-$DS/rblosc2-python-downstream}/venv")}"
[ -n "$OURS_BASE" ] || fail "no python-blosc2 venv built against PREFIX: run scripts/python-downstream.sh PREFIX DEPS_DIR tests/test_schunk.py first, or set PLUGIN_WHEELS_OURS_VENV"
REF_BASE="${PLUGIN_WHEELS_REF_VENV:-$(first_dir "$DS/rblosc2-downstream/venv-ref")}"
if [ -z "$REF_BASE" ]; then
  REF_BASE=$CACHE/venv-ref-base
  if ! "$REF_BASE/bin/python" -c "import blosc2, sys; sys.exit(blosc2.__version__ != '$BLOSC2_VERSION')" 2>/dev/null; then
    say "making $REF_BASE with the official blosc2==$BLOSC2_VERSION wheel"
    rm -rf "$REF_BASE"
    python3 -m venv "$REF_BASE"
    "$REF_BASE/bin/python" -m pip install -q --disable-pip-version-check --only-binary blosc2 \
      "blosc2==$BLOSC2_VERSION" pytest h5py hdf5plugin >"$CACHE/pip-ref-base.log" 2>&1 ||
      fail "pip install into $REF_BASE failed, see $CACHE/pip-ref-base.log"
  fi
fi
for base in "$OURS_BASE" "$REF_BASE"; do
  v="$("$base/bin/python" -c 'import importlib.metadata as m; print(m.version("blosc2"))' 2>/dev/null || true)"
  [ "$v" = "$BLOSC2_VERSION" ] || fail "$base has blosc2 '$v', not $BLOSC2_VERSION"
done

# --- the layered venvs: the plugin wheels and their tests' requirements -------------------------
site_packages() { "$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'; }
layer() { # SIDE BASE -> makes $CACHE/SIDE
  local side=$1 base=$2 venv=$CACHE/$1
  local stamp
  stamp="v1 $base $(cat "$base/pyvenv.cfg" | sha256sum | cut -c1-16) ${PLUGINS[*]}"
  if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.stamp" 2>/dev/null)" = "$stamp" ]; then return; fi
  say "making the $side plugin venv $venv on $base (pip log: $CACHE/pip-$side.log)"
  rm -rf "$venv"
  "$base/bin/python" -m venv --without-pip "$venv"
  local sp base_sp
  sp="$(site_packages "$venv")"
  base_sp="$(site_packages "$base")"
  # 0_: before anything pip installs here; the base venv's own .pth files are processed too
  echo "import site; site.addsitedir('$base_sp')" >"$sp/0_rblosc2_base.pth"
  echo "import os, ctypes; p = os.environ.get('RBLOSC2_PLUGIN_PRELOAD'); p and ctypes.CDLL(p, mode=ctypes.RTLD_GLOBAL)" \
    >"$sp/1_rblosc2_preload.pth"
  : >"$CACHE/pip-$side.log"
  local pip=("$venv/bin/python" -m pip --disable-pip-version-check)
  "${pip[@]}" install --no-deps "${PLUGINS[@]}" >>"$CACHE/pip-$side.log" 2>&1 ||
    fail "pip install of the plugins failed, see $CACHE/pip-$side.log"
  # the tests' requirements that the base venv lacks, with its numpy kept
  local missing=()
  "$venv/bin/python" -c 'import pytest' 2>/dev/null || missing+=(pytest)
  "$venv/bin/python" -c 'import PIL' 2>/dev/null || missing+=(Pillow)
  "$venv/bin/python" -c 'import h5py' 2>/dev/null || missing+=(h5py)
  "$venv/bin/python" -c 'import hdf5plugin' 2>/dev/null || missing+=(hdf5plugin)
  if [ ${#missing[@]} -gt 0 ]; then
    "$venv/bin/python" -c 'import numpy; print("numpy==" + numpy.__version__)' >"$venv/constraints.txt"
    "${pip[@]}" install -c "$venv/constraints.txt" "${missing[@]}" >>"$CACHE/pip-$side.log" 2>&1 ||
      fail "pip install ${missing[*]} failed, see $CACHE/pip-$side.log"
  fi
  echo "$stamp" >"$venv/.stamp"
}
layer ours "$OURS_BASE"
layer ref "$REF_BASE"

# The environment of each side's processes (and of their subprocesses).
export PYTHONDONTWRITEBYTECODE=1 BLOSC2_EXPECT_GLOBAL_CODEC_IDS=1
unset RBLOSC2_PLUGIN_PRELOAD RBLOSC2_PLUGIN_EXPECT_LIB
on() { # SIDE command... : runs a command in SIDE's venv and environment
  local side=$1
  shift
  if [ "$side" = ours ]; then
    env PATH="$CACHE/ours/bin:$PATH" LD_LIBRARY_PATH="$PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      RBLOSC2_PLUGIN_PRELOAD="$LIB" RBLOSC2_PLUGIN_EXPECT_LIB="$LIB_REAL" "$@"
  else
    env PATH="$CACHE/ref/bin:$PATH" "$@"
  fi
}

# --- which library each side maps ----------------------------------------------------------------
for side in ours ref; do
  info="$(on $side python "$CHECK" info)" || {
    echo "$info"
    [ $side = ours ] && exit 3
    fail "the reference venv does not load"
  }
  say "$side: $info"
done
ref_info="$(on ref python "$CHECK" info)"
case "$ref_info" in *"$PREFIX"*) fail "the reference maps PREFIX's library: $ref_info" ;; esac

RESULTS=$CACHE/results
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
FAILURES=()
run_logged() { # LOG SIDE command...: runs, keeps the output in LOG, prints its FAIL lines
  local log=$1
  shift
  local rc=0
  (cd "$RESULTS/tmp" && on "$@") >"$log" 2>&1 || rc=$?
  grep -E '^(FAIL|note|btune choices|chunks )' "$log" || true
  return $rc
}
mkdir -p "$RESULTS/tmp"

# --- round trips and cross reads ---------------------------------------------------------------
if [[ " $ONLY " == *" roundtrip "* ]]; then
  for group in "${GROUPS_RT[@]}"; do
    for side in ours ref; do
      log=$RESULTS/write-$group-$side.log
      run_logged "$log" $side python "$CHECK" write "$RESULTS/files-$side" "$group" ||
        FAILURES+=("$group round trips on $side")
      say "$side $group: $(grep -c '^ok ' "$log" || true) round trips ok, $(grep -c '^FAIL ' "$log" || true) failed"
    done
    for pair in "ours ref" "ref ours"; do
      set -- $pair
      log=$RESULTS/read-$group-$1-of-$2.log
      run_logged "$log" "$1" python "$CHECK" read "$RESULTS/files-$2" "$group" ||
        FAILURES+=("$1 reading $2's $group files")
      say "$1 read the $group files of $2: $(grep -c '^ok ' "$log" || true) ok, $(grep -c '^FAIL ' "$log" || true) failed"
    done
    run_logged "$RESULTS/chunks-$group.log" ref python "$CHECK" chunks "$RESULTS/files-ours" "$RESULTS/files-ref" \
      "$group" | grep -v '^note' || true
  done
fi

# --- btune ---------------------------------------------------------------------------------------
# Both sides must run the tuner (its BTUNE_TRACE banner), round-trip, read each other's file and
# choose the same codec, filters and blocksize for every chunk. (Under python-blosc2 4.14.1 the
# reference calls only btune's init and next_blocksize, seen under gdb, never its next_cparams or
# update: the chunks keep the codec and filters asked for, and the choices are deterministic.
# A plain SChunk with tuner=BTUNE dies of SIGFPE in the reference, hence an NDArray.)
same_choices() { # WHAT FILE_OURS FILE_REF
  if cmp -s "$2" "$3"; then
    say "btune $1: ours chose as ref for every chunk"
  else
    say "btune $1: the chunk choices differ: ours $(head -c 300 "$2"); ref $(head -c 300 "$3")"
    FAILURES+=("btune $1: choices differ")
  fi
}
same_trace() { # WHAT LOG_OURS LOG_REF: btune's BTUNE_TRACE lines, numbers masked
  local a b
  a="$(grep -E '^(Btune|Performance|Behaviour|TRACE|INFO|WARNING|\|)' "$2" | sed 's/[0-9][0-9.e+-]*/N/g' || true)"
  b="$(grep -E '^(Btune|Performance|Behaviour|TRACE|INFO|WARNING|\|)' "$3" | sed 's/[0-9][0-9.e+-]*/N/g' || true)"
  if [ "$a" != "$b" ]; then
    say "btune $1: its trace differs (numbers masked):"
    diff <(echo "$a") <(echo "$b") | head -n 20 || true
    FAILURES+=("btune $1: trace differs")
  fi
}
if [[ " $ONLY " == *" btune "* ]]; then
  for side in ours ref; do
    run_logged "$RESULTS/btune-$side.log" $side env BTUNE_TRACE=1 python "$CHECK" btune "$RESULTS/btune-$side" ||
      FAILURES+=("btune on $side")
    grep -q '^Btune version' "$RESULTS/btune-$side.log" || FAILURES+=("btune on $side: the tuner never started")
    say "$side btune: $(grep -c '^ok ' "$RESULTS/btune-$side.log" || true) ok, $(grep -c '^FAIL ' "$RESULTS/btune-$side.log" || true) failed (log: $RESULTS/btune-$side.log)"
  done
  if [ -s "$RESULTS/btune-ours/btune.npy" ] && [ -s "$RESULTS/btune-ref/btune.npy" ]; then
    run_logged "$RESULTS/btune-read-ref-of-ours.log" ref python "$CHECK" btune-read "$RESULTS/btune-ours" ||
      FAILURES+=("ref reading ours' btune file")
    run_logged "$RESULTS/btune-read-ours-of-ref.log" ours python "$CHECK" btune-read "$RESULTS/btune-ref" ||
      FAILURES+=("ours reading ref's btune file")
    same_choices "array" "$RESULTS/btune-ours/btune-choices.json" "$RESULTS/btune-ref/btune-choices.json"
    same_trace "array" "$RESULTS/btune-ours.log" "$RESULTS/btune-ref.log"
  fi
fi

# --- the plugins' own suites -------------------------------------------------------------------
summarize_junit() { # JUNIT -> "passed failed skipped" and, in JUNIT.passed, the passing test ids
  python3 - "$1" <<'EOF'
import sys, xml.etree.ElementTree as ET
p = f = s = 0
passed = []
try:
    cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
except (OSError, ET.ParseError):
    cases = []
for c in cases:
    tid = f"{c.get('classname')}::{c.get('name')}"
    if c.find("skipped") is not None:
        s += 1
    elif c.find("failure") is not None or c.find("error") is not None:
        f += 1
    else:
        p += 1
        passed.append(tid)
open(sys.argv[1] + ".passed", "w").write("".join(t + "\n" for t in sorted(passed)))
print(p, f, s)
EOF
}
if [ -n "$SUITES_DIR" ] && [[ " $ONLY " == *" suites "* ]]; then
  for plugin in "${SUITES[@]}"; do
    if [ ! -d "$SUITES_DIR/$plugin/tests" ]; then
      say "no $SUITES_DIR/$plugin/tests: $plugin's suite not run"
      continue
    fi
    for side in ours ref; do
      junit=$RESULTS/suite-$plugin-$side.xml
      # from a scratch directory, as their CI runs them from /tmp
      (cd "$RESULTS/tmp" && on $side env BLOSC_TRACE=1 python -m pytest -p no:cacheprovider -p no:randomly \
        -q -rfEs --junitxml "$junit" "$SUITES_DIR/$plugin/tests") >"$RESULTS/suite-$plugin-$side.log" 2>&1 || true
      read -r p f s < <(summarize_junit "$junit")
      say "$side $plugin: $p passed, $f failed, $s skipped (log: $RESULTS/suite-$plugin-$side.log)"
    done
    missing="$(comm -23 "$RESULTS/suite-$plugin-ref.xml.passed" "$RESULTS/suite-$plugin-ours.xml.passed")"
    if [ -n "$missing" ]; then
      FAILURES+=("$plugin suite: $(wc -l <<<"$missing") tests pass on ref only")
      sed 's/^/  passes on ref only: /' <<<"$missing" | head -n 40
    fi
  done
  # btune's CI: its two examples with BTUNE_TRACE=1; btune_config.py's array is kept and its
  # chunks' choices compared
  if [ -d "$SUITES_DIR/btune/examples" ]; then
    ex=$SUITES_DIR/btune/examples
    for side in ours ref; do
      mkdir -p "$RESULTS/btune-examples-$side"
      for script in btune_config lossy; do
        args=()
        [ $script = lossy ] && args=("$ex/lossy_example.tif")
        rc=0
        (cd "$RESULTS/btune-examples-$side" && on $side env BTUNE_TRADEOFF="(0.3, 0.1, 0.6)" BTUNE_PERF_MODE=DECOMP \
          BTUNE_TRACE=1 python "$ex/$script.py" "${args[@]}") >"$RESULTS/btune-$script-$side.log" 2>&1 || rc=$?
        echo $rc >"$RESULTS/btune-$script-$side.rc"
        grep -q '^Btune version' "$RESULTS/btune-$script-$side.log" || rc="$rc, no btune banner"
        say "$side btune example $script.py: exit $rc (log: $RESULTS/btune-$script-$side.log)"
      done
      f=$RESULTS/btune-examples-$side/btune_config.b2nd
      [ -e "$f" ] && on $side python "$CHECK" choices "$f" "$RESULTS/btune-examples-$side/choices.json" >/dev/null
    done
    for script in btune_config lossy; do
      same_trace "$script.py" "$RESULTS/btune-$script-ours.log" "$RESULTS/btune-$script-ref.log"
      [ "$(cat "$RESULTS/btune-$script-ours.rc")" = "$(cat "$RESULTS/btune-$script-ref.rc")" ] ||
        FAILURES+=("btune example $script.py: exit $(cat "$RESULTS/btune-$script-ours.rc") on ours, $(cat "$RESULTS/btune-$script-ref.rc") on ref")
      [ "$(grep -c '^Btune version' "$RESULTS/btune-$script-ours.log")" = "$(grep -c '^Btune version' "$RESULTS/btune-$script-ref.log")" ] ||
        FAILURES+=("btune example $script.py: the tuner started $(grep -c '^Btune version' "$RESULTS/btune-$script-ours.log") times on ours, $(grep -c '^Btune version' "$RESULTS/btune-$script-ref.log") on ref")
    done
    if [ "$(cat "$RESULTS/btune-btune_config-ours.rc")$(cat "$RESULTS/btune-btune_config-ref.rc")" = 00 ]; then
      same_choices "btune_config.py" "$RESULTS/btune-examples-ours/choices.json" "$RESULTS/btune-examples-ref/choices.json"
    fi
  fi
fi

if [ ${#FAILURES[@]} -gt 0 ]; then
  say "FAILED: $(printf '%s; ' "${FAILURES[@]}")details in $RESULTS/"
  exit 1
fi
say "all checks passed; details in $RESULTS/"
