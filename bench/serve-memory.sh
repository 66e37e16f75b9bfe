#!/usr/bin/env bash
# serve --max-memory against the process's peak RSS (issue 50, item 3): for
# each cap, a store of N chains of N edges (CHAIN, default 200) served with
# `path(X, Z) :- edge(X, Z).` under `serve --max-memory CAP`, then one rule
# edit that derives the closure (`path(X, Z) :- path(X, Y), edge(Y, Z).`,
# about N^3/2 facts: 3.98 M for 200) through POST /v1/rules. Prints per cap
# the edit's status (200, or 413/503 memory_limit when refused), the peak
# RSS of the serve process from /usr/bin/time and its ratio to the cap
# (MiB: a cap of 1G is 1024 MiB). Local benchmark, never in CI.
#
#   bench/serve-memory.sh                 # caps 1G 750M 500M
#   CAPS="2G 300M" CHAIN=150 bench/serve-memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CAPS=${CAPS:-"1G 750M 500M"}
n=${CHAIN:-200}
PORT=${PORT:-7492}
out=bench/out/serve-memory
rm -rf "$out"; mkdir -p "$out"
REPEAT=1
. bench/lib.sh
build_builds "$out"
bin="$out/drumql-head"
machine_line
awk -v n="$n" 'BEGIN { for (c = 0; c < n; c++) for (i = 0; i < n; i++) printf "c%d_%d\tedge\tc%d_%d\n", c, i, c, i + 1 }' > "$out/chain.tsv"
echo 'path(X, Z) :- edge(X, Z).' > "$out/chain.dl"
mib() { # SIZE: in MiB
  local s=$1 v=${1%[KMGkmg]}
  case "$s" in
    *[Gg]) echo $((v * 1024)) ;;
    *[Mm]) echo "$v" ;;
    *[Kk]) echo $((v / 1024)) ;;
    *) echo $((s / 1048576)) ;;
  esac
}
echo "| --max-memory | the edit | peak RSS | peak / cap |"
echo "|---|---|---|---|"
for cap in $CAPS; do
  rm -rf "$out/chain.db" "$out/chain.edits.dl"
  "$bin" --db "$out/chain.db" -q load "$out/chain.tsv" > /dev/null
  /usr/bin/time -f "%M" -o "$out/rss" "$bin" --db "$out/chain.db" -q serve --addr "127.0.0.1:$PORT" \
    --max-memory "$cap" --edits "$out/chain.edits.dl" "$out/chain.dl" > "$out/serve.out" 2> "$out/serve.log" &
  pid=$!
  for _ in $(seq 600); do
    curl -sf "127.0.0.1:$PORT/v1/health" > /dev/null && break
    sleep 0.5
  done
  code=$(curl -s -o "$out/edit.json" -w "%{http_code}" -X POST "127.0.0.1:$PORT/v1/rules" \
    -d '{"add": ["path(X, Z) :- path(X, Y), edge(Y, Z)."]}')
  what=$(grep -o '"added": [0-9]*' "$out/edit.json" | head -1 || true)
  [ "$code" = 200 ] || what=$(grep -o '"code": "[a-z_]*"' "$out/edit.json" || true)
  pkill -INT -P "$pid" # serve, the child of time
  wait "$pid" || true
  rss=$(($(cat "$out/rss") / 1024))
  printf '| %s | %s (%s) | %d MiB | %s |\n' "$cap" "$code" "$what" "$rss" "$(awk -v a="$rss" -v b="$(mib "$cap")" 'BEGIN { printf "%.2f", a / b }')"
done
