#!/usr/bin/env bash
# The workload matrix (bench/matrix.c) side by side with the reference c-blosc2 3.3.5.
#
#   bench/matrix.sh [--rounds N] [--only REGEX] [--callgrind] [--threads1] [--fingerprint VALUE]
#
# --fingerprint VALUE compares ours with itself instead of the reference: the "ours" column
# runs with BLOSC_FINGERPRINT=VALUE (1: frames written with fingerprints; verify: also every
# chunk read checked, docs/FINGERPRINTS.md), the "reference" column without it; gain = time
# without / time with (0.95 and above: within 5%).
#
# Wall-clock mode (default, for a quiet machine): every row runs in its own process, the two
# libraries' processes interleaved (ours first on even rounds, the reference first on odd
# ones), N rounds (default 6); each process reports its fastest sample and the table takes the
# median over rounds. gain = reference time / our time (above 1: ours faster); rss = our peak
# RSS / the reference's. --callgrind instead counts the instructions of one call of each row's
# operation (after one warm-up call) under callgrind, per library: gain = reference
# instructions / ours (stable on a shared machine, blind to memory stalls and the kernel).
# Results go to target/bench/matrix.tsv (or matrix-callgrind.tsv); the summary per family
# (min / median / max gain, geometric mean without gains above 10, rows under 1.00) is printed
# after the table by bench/matrix_summary.py.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=6 only=. mode=time
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift ;;
    --only) only=$2; shift ;;
    --callgrind) mode=callgrind ;;
    --threads1) t1=1 ;;
    --fingerprint) fingerprint=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
cargo build --release --quiet
ref=$(capi-tests/get-reference.sh)
out=target/bench
mkdir -p "$out/ours-lib"
ln -sf "$PWD/target/release/libblosc2.so" "$out/ours-lib/libblosc2.so.9"
${CC:-cc} -O2 -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers -I"$ref/include" bench/matrix.c \
  -o "$out/matrix" -L"$ref/lib" -l:libblosc2.so.9 -lm
libs=("$PWD/$out/ours-lib" "$ref/lib")
envs=("BLOSC_FINGERPRINT=" "BLOSC_FINGERPRINT=")
if [ -n "${fingerprint:-}" ]; then
  libs=("$PWD/$out/ours-lib" "$PWD/$out/ours-lib")
  envs=("BLOSC_FINGERPRINT=$fingerprint" "BLOSC_FINGERPRINT=")
  echo "fingerprint: ours with BLOSC_FINGERPRINT=$fingerprint against ours without" >&2
fi
mapfile -t rows < <(LD_LIBRARY_PATH=${libs[1]} "$out/matrix" --list | grep -E -- "$only" | { if [ -n "${t1:-}" ]; then grep ' t1 '; else cat; fi; })
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
if [ $mode = callgrind ]; then
  tsv=$out/matrix-callgrind.tsv
  : >"$tsv"
  for row in "${rows[@]}"; do
    ir=()
    for l in 0 1; do
      f=$out/callgrind.matrix.$l
      env "${envs[$l]}" LD_LIBRARY_PATH=${libs[$l]} MATRIX_ITERS=1 valgrind --tool=callgrind --toggle-collect=run_counted \
        --callgrind-out-file="$f" "$out/matrix" "$row" >/dev/null 2>"$f.log" || { cat "$f.log" >&2; exit 1; }
      ir+=("$(sed -n 's/^summary: *//p' "$f")")
    done
    printf '%s\t%s\t%s\n' "$row" "${ir[0]}" "${ir[1]}" | tee -a "$tsv" >&2
  done
  exec python3 bench/matrix_summary.py callgrind "$tsv"
fi
tsv=$out/matrix.tsv
: >"$tsv"
for row in "${rows[@]}"; do
  for ((r = 0; r < rounds; r++)); do
    for k in 0 1; do
      l=$(( (k + r) % 2 ))
      res=$(env "${envs[$l]}" LD_LIBRARY_PATH=${libs[$l]} "$out/matrix" "$row")
      printf '%s\t%s\n' "$l" "$res" >>"$tsv"
    done
  done
done
exec python3 bench/matrix_summary.py time "$tsv"
