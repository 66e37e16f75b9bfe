#!/usr/bin/env bash
# What ranking by rules alone costs: `drumql eval --rules RULES.dl` over a
# store's test split, by the build of the work tree and, when $BASE names a
# git revision, by the build at BASE, run in turn (base, head, base, head,
# ...) REPEAT times each. Prints, per build, the median CPU seconds (user +
# system), wall seconds and peak RSS (GNU time), and fails unless every
# build prints the same report (ranks must not move).
#
#   BASE=REV [REPEAT=3] [LIMIT=N] bench/eval-rules.sh DB RULES.dl
#
# LIMIT evaluates only the first N test triples (both directions).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: BASE=REV [REPEAT=3] [LIMIT=N] $0 DB RULES.dl" >&2; exit 2; }
DB=$1 RULES=$2
REPEAT=${REPEAT:-3}
OUT=${OUT:-bench/out/eval-rules}
mkdir -p "$OUT"
source bench/lib.sh
build_builds "$OUT"
machine_line
limit=()
[ -n "${LIMIT:-}" ] && limit=(--limit "$LIMIT")
for i in $(seq "$REPEAT"); do
  for b in "${bins[@]}"; do
    /usr/bin/time -f "%U %S %e %M" -o "$OUT/time-$b-$i" \
      "$OUT/drumql-$b" -q --db "$DB" eval --rules "$RULES" --split test "${limit[@]}" --format json > "$OUT/report-$b.json"
  done
done
for b in "${bins[@]}"; do
  cmp -s "$OUT/report-$b.json" "$OUT/report-head.json" || { echo "the $b build's report differs from head's" >&2; exit 1; }
  med() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
  cpu=$(cat "$OUT"/time-"$b"-* | awk '{print $1 + $2}' | med)
  wall=$(cat "$OUT"/time-"$b"-* | awk '{print $3}' | med)
  rss=$(cat "$OUT"/time-"$b"-* | awk '{print $4}' | med)
  echo "$b: cpu $cpu s, wall $wall s, peak $((rss / 1024)) MB (median of $REPEAT)"
done
echo "reports identical: $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("%d queries, MRR %.4f (expected ties)" % (r["queries"], r["expected"]["mrr"]))' "$OUT/report-head.json")"
