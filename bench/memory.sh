#!/usr/bin/env bash
# Memory estimate against the measured peak: for each dataset and T = 2, 3,
# the estimate drumql mine prints before training and the peak RSS of the
# run (GNU time), one epoch (the peak is reached in the first epoch: every
# buffer is allocated by its first batch).
#
#   bench/memory.sh        # wn18rr needs $DRUMQL_DATASETS (default ../shared/datasets)
set -euo pipefail
cd "$(dirname "$0")/.."
DS=${DRUMQL_DATASETS:-../shared/datasets}
out=bench/out/memory
rm -rf "$out"; mkdir -p "$out" bin
go build -o bin/drumql ./cmd/drumql
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), shared"
echo
echo "| dataset | T | estimate | peak RSS | estimate / peak |"
echo "|---|---|---|---|---|"
for d in family kinship umls wn18rr; do
  src=examples/$d; [ -d "$src" ] || src=$DS/$d
  [ -d "$src" ] || { echo "| $d | - | not found | | |"; continue; }
  bin/drumql --db "$out/$d.db" -q load "$src" >/dev/null
  for T in 2 3; do
    /usr/bin/time -f "%M" -o "$out/t" bin/drumql --db "$out/$d.db" mine --len "$T" --epochs 1 --out /dev/null 2> "$out/err"
    est=$(sed -n 's/^mine: estimated peak memory \([0-9.]*\) MB.*/\1/p' "$out/err")
    kb=$(cat "$out/t")
    awk -v d="$d" -v T="$T" -v e="$est" -v k="$kb" 'BEGIN{printf "| %s | %d | %d MB | %.0f MB | %.2f |\n", d, T, e, k/1024, e/(k/1024)}'
  done
done
