#!/usr/bin/env bash
# Usage: bench/python/compare.sh PREFIX [compare.py options: --pairs N --only REGEX --json F --markdown]
#
# python-blosc2 on rblosc2 against python-blosc2 on c-blosc2, side by side (bench/python/compare.py
# running bench/python/workloads.py in alternated process pairs). The two venvs:
#   ours  PYBENCH_OURS_VENV, default the venv of scripts/python-downstream.sh
#         (${RBLOSC2_DS_CACHE:-~/.cache/rblosc2-python-downstream}/venv), python-blosc2 4.14.1
#         built against an rblosc2 install: make it once with
#         `scripts/python-downstream.sh PREFIX DEPS_DIR tests/test_schunk.py`
#         (a new libblosc2.so of the same ABI needs no rebuild: ours runs with
#         LD_LIBRARY_PATH=PREFIX/lib and must map PREFIX's library, checked in every process);
#   ref   PYBENCH_REF_VENV, default ~/.cache/rblosc2-pybench/venv-ref, made here the first time
#         with the official blosc2==4.14.1 wheel (c-blosc2 3.3.5 linked into its extension) and
#         the numpy and numexpr versions of ours' venv.
# Both sides run the same python-blosc2 version; the script stops when they differ.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
BLOSC2_VERSION=4.14.1
if [ $# -lt 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  sed -n '2,/^set -euo/{/^set -euo/d; s/^# \{0,1\}//; p}' "${BASH_SOURCE[0]}"
  exit 2
fi
PREFIX="$(cd "$1" && pwd -P)"
shift
fail() {
  echo "pybench: ERROR: $*" >&2
  exit 2
}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}
OURS="${PYBENCH_OURS_VENV:-${RBLOSC2_DS_CACHE:-$CACHE/rblosc2-python-downstream}/venv}"
[ -x "$OURS/bin/python" ] || fail "no venv $OURS: run scripts/python-downstream.sh PREFIX DEPS_DIR tests/test_schunk.py first, or set PYBENCH_OURS_VENV"
REF="${PYBENCH_REF_VENV:-$CACHE/rblosc2-pybench/venv-ref}"
version() { "$1/bin/python" -c 'import importlib.metadata as m; print(m.version("'"$2"'"))' 2>/dev/null || true; }
if [ ! -x "$REF/bin/python" ] || [ "$(version "$REF" blosc2)" != "$BLOSC2_VERSION" ]; then
  [ -z "${PYBENCH_REF_VENV:-}" ] || fail "$REF has no blosc2==$BLOSC2_VERSION"
  echo "pybench: making $REF with the blosc2==$BLOSC2_VERSION wheel" >&2
  rm -rf "$REF"
  mkdir -p "$(dirname "$REF")"
  python3 -m venv "$REF"
  "$REF/bin/python" -m pip install -q --disable-pip-version-check --only-binary blosc2 \
    "blosc2==$BLOSC2_VERSION" "numpy==$(version "$OURS" numpy)" "numexpr==$(version "$OURS" numexpr)" ||
    fail "pip install into $REF failed"
fi
for pkg in blosc2 numpy numexpr; do
  [ "$(version "$OURS" $pkg)" = "$(version "$REF" $pkg)" ] ||
    fail "$pkg differs: $(version "$OURS" $pkg) in $OURS, $(version "$REF" $pkg) in $REF"
done
exec python3 "$HERE/compare.py" --ours "$OURS" --ref "$REF" --prefix "$PREFIX" "$@"
