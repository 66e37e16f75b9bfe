#!/usr/bin/env bash
# Memory with many relations: a generated graph (examples/gen-kg, $PEOPLE
# people) with $TAIL long-tail background relations of 50 facts each, as in
# a real graph's long tail of properties, mined by this checkout and by
# $BASE (a commit, default 914b002: the layout with one row pointer per
# entity for every relation), each with default settings, `--len 2`, and
# rules for the four planted heads only (`--heads`: the long-tail relations'
# own rules are not what is measured, and reading them is most of the time).
# Prints, per binary and tail size, the estimate `mine` prints, the peak
# RSS (GNU time) and the wall time of the whole command, and checks that
# both write the same rule file (the layout must not change a result).
#
#   bench/many-relations.sh
#   PEOPLE=100000 TAIL="0 1000 3000" BASE=914b002 bench/many-relations.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PEOPLE=${PEOPLE:-100000}
TAIL=${TAIL:-0 1000}
BASE=${BASE:-914b002}
out=${OUT:-bench/out/many-relations}
rm -rf "$out"; mkdir -p "$out" bin
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time; }
GOEXPERIMENT=simd go build -o bin/drumql-bench ./cmd/drumql
go build -o bin/gen-kg ./examples/gen-kg
wt=$(mktemp -d)
git worktree add -q --detach "$wt" "$BASE"
(cd "$wt" && GOEXPERIMENT=simd go build -o "$OLDPWD/bin/drumql-base" ./cmd/drumql)
git worktree remove --force "$wt"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo)"
echo
echo "| people | tail relations | facts | build | estimate | peak RSS | wall time |"
echo "|---|---|---|---|---|---|---|"
for tail in $TAIL; do
  d=$out/kg-$PEOPLE-tail$tail
  bin/gen-kg -people "$PEOPLE" -tail "$tail" -out "$d"
  bin/drumql-bench --db "$d.db" -q load "$d" >/dev/null
  facts=$(cat "$d"/{facts,train,valid,test}.txt | wc -l)
  for b in base bench; do
    cell=$d-$b
    /usr/bin/time -f "%M %e" -o "$cell.time" bin/drumql-$b --db "$d.db" mine --len 2 --max-memory off \
      --heads wife,mother,citizen_of,sibling \
      --out "$cell.dl" 2> "$cell.err"
    est=$(sed -n 's/^mine: estimated peak memory \([0-9.]*\) MB.*/\1/p; s/^mine: estimated peak memory \([0-9.]*\) GB.*/\1 1024/p' "$cell.err" | awk '{print ($2 ? $1*$2 : $1)}')
    label=$b; [ $b = base ] && label="$BASE"; [ $b = bench ] && label="this checkout"
    read -r rss wall < "$cell.time"
    awk -v p="$PEOPLE" -v t="$tail" -v f="$facts" -v l="$label" -v e="$est" -v r="$rss" -v w="$wall" \
      'BEGIN{printf "| %d | %d | %d | %s | %.0f MB | %.0f MB | %.1f s |\n", p, t, f, l, e, r/1024, w}'
  done
  if cmp -s <(tail -n +2 "$d-base.dl") <(tail -n +2 "$d-bench.dl"); then
    echo "(tail $tail: rule files identical)" >&2
  else
    echo "(tail $tail: the rule files differ)" >&2
  fi
done
