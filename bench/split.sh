#!/usr/bin/env bash
# What splitting the head relations into groups costs in accuracy (issue 17):
# for each dataset and each N it runs `drumql mine --head-groups N` (one model
# per group, each over the whole graph; rules merged in head order), then
# evaluates on the valid split the group models as one model (`eval --model`)
# and the merged rules alone (`eval --rules`, the file's own @aggregate
# directives). Prints a markdown table (valid MRR under expected ties, the
# wall time and peak RSS of the mine run).
#
#   bench/split.sh [DATASET ...]          (default: wn18rr)
#
# A dataset is a folder name under examples/ (family, kinship, umls) or under
# $DRUMQL_DATASETS (default ../shared/datasets: wn18rr, fb15k-237); a missing
# one is skipped, saying so. Environment: NS (default "1 4 8"), T (rule
# length, default 3), L (rank, default 3), EPOCHS (default: mine's own),
# OUT (default bench/out/split). Needs GNU time (/usr/bin/time; installed
# with apt-get when missing) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DRUMQL_DATASETS:-../shared/datasets}
OUT=${OUT:-bench/out/split}
NS=${NS:-1 4 8}
T=${T:-3}
L=${L:-3}
mkdir -p "$OUT" bin
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time; }
GOEXPERIMENT=simd go build -o bin/drumql-bench ./cmd/drumql
D=bin/drumql-bench
epochs=()
[ -n "${EPOCHS:-}" ] && epochs=(--epochs "$EPOCHS")

mrr() { python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["expected"]["mrr"])' "$1"; }
secs() { awk '/Elapsed \(wall clock\)/ {n=split($NF,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; printf "%.0f", s}' "$1"; }
rss() { awk '/Maximum resident set size/ {printf "%.0f", $NF/1024}' "$1"; }

sets=("$@"); [ ${#sets[@]} -eq 0 ] && sets=(wn18rr)
echo "| dataset | T | L | N | model valid MRR | rules valid MRR | rules | mine wall | mine peak RSS |"
echo "|---|---|---|---|---|---|---|---|---|"
for ds in "${sets[@]}"; do
  data=examples/$ds
  [ -d "$data" ] || data=$DATA/$ds
  if [ ! -d "$data" ]; then echo "== $ds: not in examples/ nor in $DATA (set DRUMQL_DATASETS), skipped" >&2; continue; fi
  db=$OUT/$ds.db
  rm -rf "$db"
  $D --db "$db" -q load "$data" > /dev/null
  for n in $NS; do
    dir=$OUT/$ds-T$T-L$L-N$n
    echo "== $ds T=$T L=$L N=$n" >&2
    rm -rf "$dir"; mkdir -p "$dir"
    /usr/bin/time -v -o "$dir/time-mine.txt" $D --db "$db" mine --len "$T" --rank "$L" "${epochs[@]}" \
      --head-groups "$n" --save-model "$dir/model" --out "$dir/rules.dl" 2> "$dir/mine.txt"
    $D --db "$db" -q eval --split valid --model "$dir/model" --format json > "$dir/model-valid.json"
    $D --db "$db" -q eval --split valid --rules "$dir/rules.dl" --format json > "$dir/rules-valid.json"
    echo "| $ds | $T | $L | $n | $(mrr "$dir/model-valid.json") | $(mrr "$dir/rules-valid.json") | $(grep -c '::' "$dir/rules.dl") | $(secs "$dir/time-mine.txt") s | $(rss "$dir/time-mine.txt") MB |"
  done
  rm -rf "$db"
done
