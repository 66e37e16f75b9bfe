#!/usr/bin/env bash
# Rules alone against the model they were read from (issue 14): for each cell
# (dataset, T, L) it trains DRUM once (or reuses the model already in the
# cell's folder: training is deterministic for a seed), writes the default rule
# file with `drumql mine --from-model` (timed: extraction, constants, the
# aggregation chosen on valid), and evaluates on valid and test the model
# (`eval --model`) and the rules alone (`eval --rules`, the file's own
# @aggregate directives, no model). Prints a markdown table; the configuration
# per dataset is chosen by the rules' valid MRR (expected ties).
#
#   bench/rules.sh [small|large|all]      (default small)
#
# REUSE_MODEL_EVAL=1 keeps a cell's model-valid.json and model-test.json when
# they are newer than its model (the model's MRR does not depend on the rule
# step; set it only when the evaluation code has not changed since).
#
# small: family, umls, kinship with T = 2, 3 and L = 1, 4 (minutes);
# large: wn18rr and fb15k-237 with T = 3, L = 3 (WN18RR about 15 minutes of
# training, FB15k-237 about 30 on 2 cores). Large datasets come from
# $DRUMQL_DATASETS (default ../shared/datasets); a missing one is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DRUMQL_DATASETS:-../shared/datasets}
OUT=${OUT:-bench/out/rules}
mkdir -p "$OUT" bin
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time; }
GOEXPERIMENT=simd go build -o bin/drumql-bench ./cmd/drumql
D=bin/drumql-bench

mrr() { python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["expected"]["mrr"])' "$1"; }
secs() { awk '/Elapsed \(wall clock\)/ {n=split($NF,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; printf "%.1f", s}' "$1"; }

rows=()
# cell NAME DATASET_DIR T L
cell() {
  local name=$1 data=$2 T=$3 L=$4 dir=$OUT/$1
  if [ ! -d "$data" ]; then echo "== $name: $data not found (set DRUMQL_DATASETS), skipped" >&2; return; fi
  echo "== $name" >&2
  mkdir -p "$dir"; rm -rf "$dir/db"
  $D --db "$dir/db" -q load "$data" > /dev/null
  if [ ! -s "$dir/model" ]; then
    /usr/bin/time -v -o "$dir/time-train.txt" $D --db "$dir/db" -q mine --len "$T" --rank "$L" --save-model "$dir/model" --out /dev/null
  fi
  /usr/bin/time -v -o "$dir/time-extract.txt" $D --db "$dir/db" mine --from-model "$dir/model" --out "$dir/rules.dl" 2> "$dir/mine.txt"
  for split in valid test; do
    if [ "${REUSE_MODEL_EVAL:-}" != 1 ] || [ ! -s "$dir/model-$split.json" ] || [ "$dir/model" -nt "$dir/model-$split.json" ]; then
      $D --db "$dir/db" -q eval --split $split --model "$dir/model" --format json > "$dir/model-$split.json"
    fi
    /usr/bin/time -v -o "$dir/time-eval-rules-$split.txt" $D --db "$dir/db" -q eval --split $split --rules "$dir/rules.dl" --format json > "$dir/rules-$split.json"
  done
  rm -rf "$dir/db"
  local agg; agg=$(grep -m1 '^@aggregate' "$dir/rules.dl" | sed 's/@aggregate //; s/\.$//')
  rows+=("| $(basename "$data") | $T | $L | $(mrr "$dir/model-valid.json") | $(mrr "$dir/model-test.json") | $(mrr "$dir/rules-valid.json") | **$(mrr "$dir/rules-test.json")** | $(grep -c '::' "$dir/rules.dl") | $agg | $(secs "$dir/time-extract.txt") s | $(secs "$dir/time-eval-rules-test.txt") s |")
  printf '%s\t%s\t%s\n' "$(basename "$data")" "$(mrr "$dir/rules-valid.json")" "$name" >> "$OUT/choices.tsv"
}

rm -f "$OUT/choices.tsv"
sets=("$@"); [ ${#sets[@]} -eq 0 ] && sets=(small)
for s in "${sets[@]}"; do
  case $s in
  small|all)
    for ds in family umls kinship; do for T in 2 3; do for L in 1 4; do cell "$ds-T$T-L$L" "examples/$ds" $T $L; done; done; done ;;&
  large|all)
    for ds in wn18rr fb15k-237; do cell "$ds-T3-L3" "$DATA/$ds" 3 3; done ;;
  small|large|all) ;;
  *) echo "unknown set $s" >&2; exit 2 ;;
  esac
done

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $($D version | head -1)"
echo
echo "| dataset | T | L | model valid | model test | rules valid | rules test | rules | aggregation (file default) | mine --from-model | eval --rules (test) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "Chosen per dataset on the rules' valid MRR:"
sort -t$'\t' -k1,1 -k2,2r "$OUT/choices.tsv" | awk -F'\t' '!seen[$1]++ {print "- " $1 ": " $3}'
