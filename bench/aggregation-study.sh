#!/usr/bin/env bash
# Would a learned aggregation rank better (issue 35, item 1)? Per dataset:
# `drumql mine` with its defaults, then BenchmarkAggregationStudy
# (scoring/aggstudy_test.go) on the store's valid split:
# the MRR share of the queries some rule reaches under today's per-relation
# choice (max, noisy_or top 3 or 10), and what fitted position weights and
# SAFRAN-style groups of redundant rules add, each chosen per relation by
# two-fold cross-validation on valid. Prints a markdown table.
#
#   bench/aggregation-study.sh [small|large|all]   (default small)
#
# small: family, kinship, umls (examples/); large: wn18rr and fb15k-237 from
# $DRUMQL_DATASETS (default ../shared/datasets; mining takes about 1 and 15
# minutes on 2 cores); a missing dataset is skipped. REUSE=1 keeps a store
# and rule file an earlier run left in $OUT and only runs the study.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
OUT=${OUT:-bench/out/aggregation-study}
mkdir -p "$OUT" bin
go build -o bin/drumql-study ./cmd/drumql
go test -c -o bin/scoring-study.test ./scoring
D=bin/drumql-study

echo "machine: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo); $($D version | head -1)"
echo
echo "| dataset | valid queries reached | today's choice | + fitted position weights | + groups of redundant rules |"
echo "|---|---|---|---|---|"
run() { # NAME DIR
  local name=$1 data=$2 dir=$OUT/$1
  if [ ! -d "$data" ]; then echo "| $name | skipped: $data not found (set DRUMQL_DATASETS) | | | |"; return; fi
  mkdir -p "$dir"
  if [ -z "${REUSE:-}" ] || [ ! -f "$dir/rules.dl" ]; then
    rm -rf "$dir/db"
    $D --db "$dir/db" -q load "$data" > /dev/null
    $D --db "$dir/db" -q mine --out "$dir/rules.dl" --force
  fi
  DRUMQL_STUDY_DB=$dir/db DRUMQL_STUDY_RULES=$dir/rules.dl bin/scoring-study.test \
    -test.run XXX -test.bench AggregationStudy -test.benchtime 1x > "$dir/study.txt" 2>&1
  awk -v name="$name" '/BenchmarkAggregationStudy/ {
      for (i = 1; i <= NF; i++) m[$(i+1)] = $i
      printf "| %s | %.1f%% | %.4f | %+.4f | %+.4f |\n", name, 100*m["reached"], m["base-mrr"], m["weighted-gain"], m["grouped-gain"]
    }' "$dir/study.txt"
}
each_dataset "${1:-small}" run
