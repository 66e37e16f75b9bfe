#!/usr/bin/env bash
# What a readable rule file costs (issue 35): per dataset, `drumql mine`
# with its defaults (the model saved), then `mine --from-model --top N` for N
# = 5, 10, 20, 50 (the best N rules per head by support × confidence, the
# aggregation chosen on valid for the rules kept), and every file evaluated
# alone (`eval --rules`, expected ties) on valid and test. Prints a markdown
# table: the rules kept, valid and test MRR, and the test MRR as a share of
# the whole file's.
#
#   bench/top-rules.sh [small|large|all]   (default small)
#
# small: family, kinship, umls (examples/, minutes); large: wn18rr and
# fb15k-237 from $DRUMQL_DATASETS (default ../shared/datasets; training takes
# about 15 and 30 minutes on 2 cores); a missing dataset is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
OUT=${OUT:-bench/out/top-rules}
mkdir -p "$OUT" bin
go build -o bin/drumql-top ./cmd/drumql
D=bin/drumql-top

mrr() { python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["expected"]["mrr"])' "$1"; }

echo "machine: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo); $($D version | head -1)"
echo
echo "| dataset | rules per head | rules | valid MRR | test MRR | test MRR / whole file's |"
echo "|---|---|---|---|---|---|"
run() { # NAME DIR
  local name=$1 data=$2 dir=$OUT/$1
  if [ ! -d "$data" ]; then echo "| $name | skipped: $data not found (set DRUMQL_DATASETS) | | | | |"; return; fi
  mkdir -p "$dir"; rm -rf "$dir/db"
  $D --db "$dir/db" -q load "$data" > /dev/null
  $D --db "$dir/db" -q mine --save-model "$dir/model" --out "$dir/all.dl" --force
  local full=""
  for n in all 50 20 10 5; do
    local f=$dir/all.dl
    if [ "$n" != all ]; then
      f=$dir/top$n.dl
      $D --db "$dir/db" -q mine --from-model "$dir/model" --top "$n" --out "$f" --force
    fi
    $D --db "$dir/db" eval --rules "$f" --split valid --format json > "$dir/valid-$n.json" 2> /dev/null
    $D --db "$dir/db" eval --rules "$f" --split test --format json > "$dir/test-$n.json" 2> /dev/null
    local v t k
    v=$(mrr "$dir/valid-$n.json"); t=$(mrr "$dir/test-$n.json")
    k=$(grep -c ':-' "$f")
    [ "$n" = all ] && full=$t
    echo "| $name | $n | $k | $v | $t | $(awk -v a="$t" -v b="$full" 'BEGIN{printf "%.1f%%", 100*a/b}') |"
  done
}
each_dataset "${1:-small}" run
