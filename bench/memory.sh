#!/usr/bin/env bash
# Memory estimate against the measured peak: for each dataset and T, the
# estimate `drumql mine` prints before training and the peak RSS (GNU time)
# of the whole command with its default settings: training (at most 10
# epochs, early stopping), then the rule step (chain rules read and counted,
# rules with constants, the aggregation chosen by applying the rules to the
# valid queries) and the coverage line. The rules are written to a file, as
# a user would. The last column is the peak of the rule step alone: `mine
# --from-model` on the model the run saved.
#
# Datasets: family, kinship, umls (examples/), wn18rr ($DRUMQL_DATASETS,
# default ../shared/datasets), and graphs of examples/gen-kg with $PEOPLE
# people (T = 2 and 3 at 10^4, T = 2 above: T = 3 takes hours there).
#
#   bench/memory.sh                                  # all of the above, 10^4 people
#   DATASETS="kinship umls" PEOPLE="10000 100000" bench/memory.sh
#   OUT=/tmp/memory bench/memory.sh                  # another folder for its files
set -euo pipefail
cd "$(dirname "$0")/.."
DS=${DRUMQL_DATASETS:-../shared/datasets}
DATASETS=${DATASETS:-family kinship umls wn18rr}
PEOPLE=${PEOPLE:-10000}
out=${OUT:-bench/out/memory}
rm -rf "$out"; mkdir -p "$out" bin
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time; }
GOEXPERIMENT=simd go build -o bin/drumql-bench ./cmd/drumql
go build -o bin/gen-kg ./examples/gen-kg
D=bin/drumql-bench
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo), shared"
echo
echo "| dataset | T | estimate | peak RSS | estimate / peak | rule step alone |"
echo "|---|---|---|---|---|---|"
mb() { awk -v k="$(cat "$1")" 'BEGIN{printf "%.0f", k/1024}'; }
# row LABEL NAME DB T
row() {
  local label=$1 db=$3 T=$4 cell=$out/$2-T$4
  /usr/bin/time -f "%M" -o "$cell.time" $D --db "$db" mine --len "$T" --save-model "$cell.model" --out "$cell.dl" 2> "$cell.err"
  /usr/bin/time -f "%M" -o "$cell.rules.time" $D --db "$db" mine --from-model "$cell.model" --out "$cell.again.dl" 2> "$cell.rules.err"
  cmp -s "$cell.dl" "$cell.again.dl" || echo "$label T=$T: mine --from-model wrote other rules" >&2
  est=$(sed -n 's/^mine: estimated peak memory \([0-9.]*\) MB.*/\1/p; s/^mine: estimated peak memory \([0-9.]*\) GB.*/\1 1024/p' "$cell.err" | awk '{print ($2 ? $1*$2 : $1)}')
  peak=$(mb "$cell.time")
  awk -v d="$label" -v T="$T" -v e="$est" -v p="$peak" -v r="$(mb "$cell.rules.time")" \
    'BEGIN{printf "| %s | %d | %.0f MB | %d MB | %.2f | %d MB |\n", d, T, e, p, e/p, r}'
}
for d in $DATASETS; do
  src=examples/$d; [ -d "$src" ] || src=$DS/$d
  [ -d "$src" ] || { echo "| $d | - | not found | | | |"; continue; }
  $D --db "$out/$d.db" -q load "$src" >/dev/null
  for T in 2 3; do row "$d" "$d" "$out/$d.db" "$T"; done
done
for n in $PEOPLE; do
  bin/gen-kg -people "$n" -out "$out/kg-$n"
  $D --db "$out/kg-$n.db" -q load "$out/kg-$n" >/dev/null
  lens="2 3"; [ "$n" -gt 10000 ] && lens=2
  for T in $lens; do row "gen-kg, $n people" "kg-$n" "$out/kg-$n.db" "$T"; done
done
