#!/usr/bin/env bash
# Another learner's rules applied by drumql's reasoner: an AnyBURL rule file
# (RULES, learned on the dataset's train split; this script does not run
# AnyBURL) is converted with drumql convert and evaluated on a DRUM dataset
# folder with each aggregation eval offers (max, noisy-or over each
# candidate's top 5 rules, grouped), each with and without the slot prior
# (the zero-body rules' stand-in), beside drumql's own rule file when MINED
# names one: the comparison of learning against aggregation that issue 35
# asks docs/RESULTS.md to record. Prints a Markdown table (expected ties).
#
#   RULES=rules-1000 DATA=$DRUMQL_DATASETS/fb15k-237 bench/anyburl-rules.sh
#   RULES=rules-1000 DATA=... MINED=fb15k-237.dl SPLIT=valid bench/anyburl-rules.sh
#   FROM=amie RULES=amie.tsv DATA=... bench/anyburl-rules.sh   # AMIE 3's output instead
#   COMBINES="max noisy-or" PRIORS=prior RULES=... DATA=... bench/anyburl-rules.sh   # fewer rows
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
  local json
  json=$("$dq" -q --max-import-size 4G eval --data "$DATA" --split "$split" --rules "$2" --combine "$3" "--$4" --format json)
  echo "$json" | jq -r --arg n "$1" --arg c "$3" --arg p "$4" \
    '"| \($n) | \($c) | \(if $p == "prior" then "yes" else "no" end) | \(.expected.mrr*1000|round/1000) | \(.expected.hits1*1000|round/1000) | \(.expected.hits10*1000|round/1000) |"'
}

echo "| rules | aggregation | slot prior | MRR | H@1 | H@10 |"
echo "|---|---|---|---|---|---|"
for combine in ${COMBINES:-max noisy-or grouped}; do
  for prior in ${PRIORS:-no-prior prior}; do
    row "$from $(basename "$RULES")" "$converted" "$combine" "$prior"
    if [ -n "${MINED:-}" ]; then
      row "drumql $(basename "$MINED")" "$MINED" "$combine" "$prior"
    fi
  done
done
