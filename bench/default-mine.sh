#!/usr/bin/env bash
# The default pipeline, as a user runs it (issue 48): per dataset, a fresh
# store, `drumql mine` with no flags, then `drumql eval --rules` of the file
# on the test split (expected ties). With BASE=REV the build at that revision
# runs the same two commands on its own store in the same run (the baseline:
# BASE=22cd86d is the build before issue 48's work). Prints a markdown table:
# rules, test MRR, Hits@1, Hits@10, mine's wall time and peak RSS, eval's wall
# time, and the mined header's line on the rule sets chosen.
#
#   [BASE=REV] bench/default-mine.sh [small|large|all]   (default small)
#
# small: family, kinship, umls (examples/, minutes); large: wn18rr and
# fb15k-237 from $DRUMQL_DATASETS (default ../shared/datasets; FB15k-237's
# mine takes 10 to 20 minutes on 2 cores); a missing dataset is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
OUT=${OUT:-bench/out/default-mine}
REPEAT=1
mkdir -p "$OUT"
command -v jq >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq >/dev/null; }
build_builds "$OUT"
machine_line
echo
echo "| dataset | build | rules | test MRR | H@1 | H@10 | mine (wall, peak RSS) | eval (wall) | rule sets |"
echo "|---|---|---|---|---|---|---|---|---|"
run() { # NAME DIR
  local name=$1 data=$2
  if [ ! -d "$data" ]; then echo "| $name | skipped: $data not found (set DRUMQL_DATASETS) | | | | | | | |"; return; fi
  for b in "${bins[@]}"; do
    local dir=$OUT/$name-$b D=$OUT/drumql-$b
    rm -rf "$dir"; mkdir -p "$dir"
    "$D" --db "$dir/db" -q load "$data" > /dev/null
    /usr/bin/time -f "%e %M" -o "$dir/mine.time" "$D" --db "$dir/db" -q mine --out "$dir/mined.dl" 2> "$dir/mine.err"
    /usr/bin/time -f "%e %M" -o "$dir/eval.time" "$D" --db "$dir/db" -q --max-import-size 1G eval --rules "$dir/mined.dl" --format json > "$dir/eval.json"
    read -r mw mr < "$dir/mine.time"
    read -r ew _ < "$dir/eval.time"
    local sets
    sets=$(grep -m1 '^% rule sets chosen' "$dir/mined.dl" | sed 's/^% rule sets chosen on [0-9]* valid queries: //' || true)
    jq -r --arg n "$name" --arg b "$b" --arg rules "$(grep -c ':-' "$dir/mined.dl")" --arg m "$mw s, $((mr / 1024)) MB" --arg e "$ew s" --arg s "${sets:--}" \
      '"| \($n) | \($b) | \($rules) | \(.expected.mrr*10000|round/10000) | \(.expected.hits1*1000|round/1000) | \(.expected.hits10*1000|round/1000) | \($m) | \($e) | \($s) |"' "$dir/eval.json"
  done
}
each_dataset "${1:-small}" run
