#!/usr/bin/env bash
# Prints the directory holding the reference c-blosc2 3.3.5 (include/ and lib/), fetching it
# first if it is not cached: the library inside the PyPI wheel blosc2==4.14.1.
#
#   REF=$(capi-tests/get-reference.sh)     # $REF/include/blosc2.h, $REF/lib/libblosc2.so.9
#
# Cache: $RBLOSC2_REFERENCE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/rblosc2-reference-3.3.5.
set -euo pipefail

dir=${RBLOSC2_REFERENCE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rblosc2-reference-3.3.5}
if [ -f "$dir/include/blosc2.h" ] && [ -f "$dir/lib/libblosc2.so.9" ]; then
  echo "$dir"
  exit 0
fi

mkdir -p "$dir"
work=$(mktemp -d "$dir/.download.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The wheel is abi3 (CPython >= 3.11); naming the platform and Python version makes the download
# independent of the interpreter running pip.
python3 -m pip download --quiet --no-deps --only-binary=:all: \
  --platform "manylinux_2_28_$(uname -m)" --python-version 3.12 --implementation cp \
  --dest "$work" "blosc2==4.14.1" >&2
wheel=$(ls "$work"/blosc2-4.14.1-*.whl)
python3 - "$wheel" "$work/unpacked" <<'PY'
import sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith(("blosc2/include/", "blosc2/lib/")):
            z.extract(name, out)
PY
for sub in include lib; do
  rm -rf "${dir:?}/$sub"
  mv "$work/unpacked/blosc2/$sub" "$dir/$sub"
done
chmod +x "$dir"/lib/*.so* 2>/dev/null || true
test -f "$dir/include/blosc2.h" && test -f "$dir/lib/libblosc2.so.9"
echo "$dir"
