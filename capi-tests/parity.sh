#!/usr/bin/env bash
# Error-code parity table: capi-tests/parity.sh PREFIX
#
# Runs capi-tests/error_parity.c (malformed inputs for each parser, one row each) against the
# reference c-blosc2 3.3.5 (get-reference.sh) and against the install at PREFIX, and compares
# the rows. A row matches when both libraries print the same. Where the reference dies, ours
# must not (it must return an error), and the row is reported as such. Fails when ours crashes
# or hangs on any row, or when a row differs without being listed in parity-known.txt (rows
# where we deliberately return an error c-blosc2 does not, each with its reason).
# Output goes to $PARITY_OUT (default: a fresh temporary directory).
set -uo pipefail

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 PREFIX   (an existing install prefix)" >&2
  exit 2
fi
PREFIX=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${PARITY_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/rblosc2-parity.XXXXXX")}
mkdir -p "$OUT/ours-work" "$OUT/ref-work"
while read -r var; do unset "$var"; done < <(env | sed -n 's/^\(BLOSC_[A-Za-z0-9_]*\)=.*/\1/p')
REF=$("$HERE/get-reference.sh") || { echo "reference c-blosc2 unavailable"; exit 1; }

CFLAGS="-O1 -g -Wall -Wextra"
${CC:-cc} $CFLAGS -o "$OUT/error_parity.ours" "$HERE/error_parity.c" -I"$PREFIX/include" \
  -L"$PREFIX/lib" -l:libblosc2.so.9 -Wl,-rpath,"$PREFIX/lib" || exit 1
${CC:-cc} $CFLAGS -o "$OUT/error_parity.ref" "$HERE/error_parity.c" -I"$REF/include" \
  -L"$REF/lib" -l:libblosc2.so.9 -Wl,-rpath,"$REF/lib" || exit 1
"$OUT/error_parity.ours" "$OUT/ours-work" >"$OUT/ours.txt" 2>"$OUT/ours.err" || {
  echo "error_parity failed on ours"; tail "$OUT/ours.err"; exit 1; }
"$OUT/error_parity.ref" "$OUT/ref-work" >"$OUT/ref.txt" 2>"$OUT/ref.err" || {
  echo "error_parity failed on the reference"; tail "$OUT/ref.err"; exit 1; }

# Rows are "NAME<spaces>RESULT" with NAME padded to 44 columns.
paste -d '\t' <(cut -c1-44 "$OUT/ref.txt" | sed 's/ *$//') <(cut -c46- "$OUT/ref.txt") \
  <(cut -c46- "$OUT/ours.txt") | grep -v '^rows:' >"$OUT/table.tsv"
known=$(sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$HERE/parity-known.txt" 2>/dev/null | grep .)
awk -F '\t' -v known="$known" '
  BEGIN { n = split(known, k, "\n"); for (i = 1; i <= n; i++) allowed[k[i]] = 1 }
  {
    rows++
    if ($3 ~ /^(CRASH|EXIT)/) { bad++; printf "OURS DIES  %-44s ref: %s, ours: %s\n", $1, $2, $3; next }
    if ($2 ~ /^(CRASH|EXIT)/) {
      refdies++; printf "REF DIES   %-44s ref: %s, ours: %s\n", $1, $2, $3; next
    }
    if ($2 == $3) { same++; next }
    if ($1 in allowed) { differs++; printf "KNOWN      %-44s ref: %s, ours: %s\n", $1, $2, $3; next }
    bad++; printf "MISMATCH   %-44s ref: %s, ours: %s\n", $1, $2, $3
  }
  END {
    printf "parity table: %d rows, %d match the reference, %d known differences, %d where the reference dies, %d failures\n", rows, same, differs, refdies, bad
    exit bad > 0
  }' "$OUT/table.tsv"
