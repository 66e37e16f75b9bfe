#!/usr/bin/env bash
# Another learner's rules applied by drumql's reasoner: an AnyBURL rule file
# (RULES, learned on the dataset's train split; this script does not run
# AnyBURL) is converted with drumql convert and evaluated on a DRUM dataset
# folder with each aggregation eval offers (max, noisy-or over each
# candidate's top 5 rules, grouped), each with and without the slot prior
# (the zero-body rules' stand-in), beside drumql's own rule file when MINED
# names one: the comparison of learning against aggregation that issue 35
# asks docs/RESULTS.md to record. Prints a Markdown table (expected ties).
# COMBINES may name auto: the combination chosen per relation on valid
# (eval --combine auto: SAFRAN's clustering among the candidates), one row
# whose aggregation column says what was chosen (its slot prior too), and
# whose time column says how long choosing and ranking took.
#
#   RULES=rules-1000 DATA=$DRUMQL_DATASETS/fb15k-237 bench/anyburl-rules.sh
#   RULES=rules-1000 DATA=... MINED=fb15k-237.dl SPLIT=valid bench/anyburl-rules.sh
#   FROM=amie RULES=amie.tsv DATA=... bench/anyburl-rules.sh   # AMIE 3's output instead
#   COMBINES="max noisy-or" PRIORS=prior RULES=... DATA=... bench/anyburl-rules.sh   # fewer rows
#   COMBINES=auto RULES=... DATA=... MINED=... bench/anyburl-rules.sh   # chosen on valid
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
: "${RULES:?set RULES to an AnyBURL rule file (or FROM=amie and the output of AMIE 3)}"
: "${DATA:?set DATA to the DRUM dataset folder the rules were learned on}"
from=${FROM:-anyburl}
split=${SPLIT:-test}
out=${OUT:-$root/bench/out/anyburl-rules}
mkdir -p "$out" "$root/bin"
command -v jq >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq >/dev/null; }
go build -o "$root/bin/drumql" ./cmd/drumql
dq="$root/bin/drumql"

converted="$out/$(basename "$RULES").dl"
"$dq" -q --max-import-size 4G convert --from "$from" "$RULES" --out "$converted"

row() { # name file combine prior
  local json start secs
  start=$(date +%s)
  if [ "$3" = auto ]; then
    json=$("$dq" -q --max-import-size 4G eval --data "$DATA" --split "$split" --rules "$2" --combine auto --format json)
  else
    json=$("$dq" -q --max-import-size 4G eval --data "$DATA" --split "$split" --rules "$2" --combine "$3" "--$4" --format json)
  fi
  secs=$(( $(date +%s) - start ))
  echo "$json" | jq -r --arg n "$1" --arg c "$3" --arg p "$4" --arg s "$secs" '
    (if $c == "auto" then "auto: \(.combination.directive), \(.combination.relations | length) relations their own (valid MRR \(.combination.valid_mrr*1000|round/1000))" else $c end) as $agg
    | (if $c == "auto" then "chosen" elif $p == "prior" then "yes" else "no" end) as $prior
    | "| \($n) | \($agg) | \($prior) | \(.expected.mrr*1000|round/1000) | \(.expected.hits1*1000|round/1000) | \(.expected.hits10*1000|round/1000) | \($s) s |"'
}

echo "| rules | aggregation | slot prior | MRR | H@1 | H@10 | time |"
echo "|---|---|---|---|---|---|---|"
for combine in ${COMBINES:-max noisy-or grouped}; do
  priors=${PRIORS:-no-prior prior}
  if [ "$combine" = auto ]; then
    priors=chosen # auto chooses the slot prior too
  fi
  for prior in $priors; do
    row "$from $(basename "$RULES")" "$converted" "$combine" "$prior"
    if [ -n "${MINED:-}" ]; then
      row "drumql $(basename "$MINED")" "$MINED" "$combine" "$prior"
    fi
  done
done
