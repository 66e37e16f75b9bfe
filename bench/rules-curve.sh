#!/usr/bin/env bash
# Test MRR against rules and against work (issue 48, item 3): on one dataset,
# `drumql mine --widen off` with sets of growing size (path samples of up to
# three atoms, N rules with constants per head, N per constant at least
# 1,000), then the default `drumql mine` (the two sets chosen per relation),
# each evaluated alone (`eval --rules`, test, expected ties). The model is
# trained once (--save-model) and every set read off it (--from-model), so
# "work" is the rule step's wall time and the file's rules. Prints a
# markdown table.
#
#   bench/rules-curve.sh DATA_DIR [N ...]   (default N: 300 1000 2000 5000)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 DATA_DIR [N ...]" >&2; exit 2; }
data=$1; shift
sizes=${*:-300 1000 2000 5000}
OUT=${OUT:-bench/out/rules-curve/$(basename "$data")}
mkdir -p "$OUT" bin
command -v jq >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq >/dev/null; }
go build -o bin/drumql-curve ./cmd/drumql
D=bin/drumql-curve
rm -rf "$OUT/db"
$D --db "$OUT/db" -q load "$data" > /dev/null
$D --db "$OUT/db" -q mine --save-model "$OUT/model" --widen off --out "$OUT/base.dl" --force
echo "| rules read off the model | rules | rule step (wall) | test MRR | H@1 | H@10 |"
echo "|---|---|---|---|---|---|"
row() { # LABEL FILE SECONDS
  $D --db "$OUT/db" -q --max-import-size 1G eval --rules "$2" --format json |
    jq -r --arg l "$1" --arg n "$(grep -c ':-' "$2")" --arg s "$3" \
      '"| \($l) | \($n) | \($s) s | \(.expected.mrr*10000|round/10000) | \(.expected.hits1*1000|round/1000) | \(.expected.hits10*1000|round/1000) |"'
}
timed() { # FILE ARGS...: mine --from-model, prints the wall seconds
  local f=$1; shift
  /usr/bin/time -f "%e" -o "$OUT/time" $D --db "$OUT/db" -q mine --from-model "$OUT/model" --out "$f" --force "$@"
  cat "$OUT/time"
}
s=$(timed "$OUT/base.dl" --widen off); row "paths of --len, 300 with constants per head (--widen off)" "$OUT/base.dl" "$s"
for n in $sizes; do
  f=$OUT/wide-$n.dl
  s=$(timed "$f" --widen off --path-len 3 --constant-rules "$n" --per-constant "$((n > 1000 ? n : 1000))")
  row "paths of 3, $n with constants per head" "$f" "$s"
done
s=$(timed "$OUT/default.dl"); row "the default: both sets, chosen per relation on valid" "$OUT/default.dl" "$s"
