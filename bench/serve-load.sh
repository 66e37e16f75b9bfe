#!/usr/bin/env bash
# Load test of drumql serve: 8 concurrent clients (CLIENTS) send
# goal-directed queries with one constant for 20 s (FOR) through the JSON
# API (bench/serveload), combined as the rule files say, with combine max
# (a lookup of the stored materialisation) and with combine noisy-or (the
# head's rules applied once to it); then the same queries are asked
# through one `drumql query` process each, without and with the rule
# files, for the cost beside it. The lookups run once more beside a writer
# (WRITE_RATE updates a second, default 5, of 10 base facts each).
#
# Case families: the quick start's store and rules (examples/families, its
# rules mined here, merged with examples/families/expert.dl); the queries
# are rel(X, tail)? for every test triple of examples/families.
# Case fb: FB15k-237 (facts + train, from $DRUMQL_DATASETS) with a mined
# rule file (MINED, a file drumql mine wrote on it; the case is skipped
# without it) at threshold MIN (default 0.5), materialised by serve on
# start; the queries are rel(X, tail)? for the first 500 test triples.
# Case chain: 200 chains of 200 edges (CHAIN, default 200) served with
# path(X, Z) :- edge(X, Z); CHAIN_CLIENTS readers (default 1) look up
# edge(c7_3, X)? while the rule path(X, Z) :- path(X, Y), edge(Y, Z) is
# added (the closure: 200 x 200 x 201 / 2 facts), until the edit is
# answered: the longest lookup during a long update. Not in the default
# CASES. CHAIN_SERVE_FLAGS adds flags to that serve (e.g. --threads 1).
#
#   bench/serve-load.sh
#   MINED=fb.dl CASES="families fb" bench/serve-load.sh
#   CASES=chain bench/serve-load.sh
#   WRITER_ONLY=1 CASES="families chain" bench/serve-load.sh   # issue 50's runs
set -euo pipefail
cd "$(dirname "$0")/.."
DS=${DRUMQL_DATASETS:-../shared/datasets}
CASES=${CASES:-"families fb"}
CLIENTS=${CLIENTS:-8}
FOR=${FOR:-20s}
MIN=${MIN:-0.5}
PORT=${PORT:-7491}
out=bench/out/serve-load
rm -rf "$out"; mkdir -p "$out"
REPEAT=1
. bench/lib.sh

# wait_healthy waits (up to 5 minutes) until the server on PORT answers
# its health check.
wait_healthy() {
  for _ in $(seq 600); do
    curl -sf "127.0.0.1:$PORT/v1/health" > /dev/null && return
    sleep 0.5
  done
}
build_builds "$out"
bin="$out/drumql-head"
go build -o "$out/serveload" ./bench/serveload
machine_line

# queries FILE: rel(X, tail)? for the test triples of FILE (CRLF tolerated).
queries() {
  tr -d '\r' < "$1" | awk -F'\t' '{ printf "\"%s\"(X, \"%s\")?\n", $2, $3 }'
}

# run_case NAME DB RULES...: serve, load test, stop; then CLI queries.
run_case() {
  local name=$1 db=$2
  shift 2
  if curl -sf "127.0.0.1:$PORT/v1/health" > /dev/null; then
    echo "serve-load: port $PORT is in use; set PORT" >&2
    exit 1
  fi
  "$bin" --db "$db" -q serve --addr "127.0.0.1:$PORT" --log-format json "$@" > "$out/$name.serve.out" 2> "$out/$name.serve.log" &
  local pid=$!
  trap 'kill -TERM '"$pid"' 2> /dev/null || true' EXIT
  wait_healthy
  echo
  echo "case $name ($(wc -l < "$out/$name.q") distinct queries):"
  # As the files say, as a lookup of the materialisation (max), and with
  # noisy-or (the head's rules applied once to the materialisation).
  # (WRITER_ONLY=1: only the lookups alone and beside the writer.)
  if [ -z "${WRITER_ONLY:-}" ]; then
    "$out/serveload" -url "http://127.0.0.1:$PORT" -queries "$out/$name.q" -clients "$CLIENTS" -for "$FOR" || true
  fi
  "$out/serveload" -url "http://127.0.0.1:$PORT" -queries "$out/$name.q" -clients "$CLIENTS" -for "$FOR" -combine max || true
  if [ -z "${WRITER_ONLY:-}" ]; then
    "$out/serveload" -url "http://127.0.0.1:$PORT" -queries "$out/$name.q" -clients "$CLIENTS" -for "$FOR" -combine noisy-or || true
  fi
  # The lookups again beside a writer: WRITE_RATE updates a second (default
  # 5) of 10 new facts each (added, then removed by the next).
  "$out/serveload" -url "http://127.0.0.1:$PORT" -queries "$out/$name.q" -clients "$CLIENTS" -for "$FOR" -combine max -write-rate "${WRITE_RATE:-5}" -write-rel "${WRITE_REL:-husband}" || true
  kill -TERM "$pid"
  wait "$pid" || true
  trap - EXIT
  [ -z "${WRITER_ONLY:-}" ] || return 0
  # The same lookups through drumql query, one process each (the stored
  # facts, as serve's combine max).
  local n=50 start end
  start=$(date +%s.%N)
  head -n "$n" "$out/$name.q" | while read -r q; do
    "$bin" --db "$db" -q query --top 10 "$q" > /dev/null 2>&1
  done
  end=$(date +%s.%N)
  echo "the same lookups through drumql query (one process each, $n in a row): $(awk -v a="$start" -v b="$end" -v n="$n" 'BEGIN{printf "%.0f ms per query", 1000*(b-a)/n}')"
  # With the rule files, combined as they say: the stored facts are the
  # files' fixpoint, so noisy-or applies the head's rules to them once.
  local rules=() f
  for f in "$@"; do rules+=(--rules "$f"); done
  start=$(date +%s.%N)
  head -n "$n" "$out/$name.q" | while read -r q; do
    "$bin" --db "$db" -q query --top 10 "${rules[@]}" "$q" > /dev/null 2>&1
  done
  end=$(date +%s.%N)
  echo "the same queries with the rule files, combined as they say (one process each, $n in a row): $(awk -v a="$start" -v b="$end" -v n="$n" 'BEGIN{printf "%.0f ms per query", 1000*(b-a)/n}')"
}

if [[ " $CASES " == *" families "* ]]; then
  "$bin" --db "$out/fam.db" -q load examples/families > /dev/null
  "$bin" --db "$out/fam.db" -q mine --out "$out/families.dl" > /dev/null
  queries examples/families/test.txt > "$out/families.q"
  run_case families "$out/fam.db" "$out/families.dl" examples/families/expert.dl
fi

if [[ " $CASES " == *" chain "* ]]; then
  n=${CHAIN:-200}
  awk -v n="$n" 'BEGIN { for (c = 0; c < n; c++) for (i = 0; i < n; i++) printf "c%d_%d\tedge\tc%d_%d\n", c, i, c, i + 1 }' > "$out/chain.tsv"
  "$bin" --db "$out/chain.db" -q load "$out/chain.tsv" > /dev/null
  echo 'path(X, Z) :- edge(X, Z).' > "$out/chain.dl"
  echo 'edge(c7_3, X)?' > "$out/chain.q"
  "$bin" --db "$out/chain.db" -q serve ${CHAIN_SERVE_FLAGS:-} --addr "127.0.0.1:$PORT" --edits "$out/chain.edits.dl" "$out/chain.dl" > "$out/chain.serve.out" 2> "$out/chain.serve.log" &
  pid=$!
  trap 'kill -TERM '"$pid"' 2> /dev/null || true' EXIT
  wait_healthy
  echo
  echo "case chain ($n chains of $n edges): lookups of edge(c7_3, X) during the closure's rule edit"
  "$out/serveload" -url "http://127.0.0.1:$PORT" -queries "$out/chain.q" -clients "${CHAIN_CLIENTS:-1}" -combine max \
    -update '{"add": ["path(X, Z) :- path(X, Y), edge(Y, Z)."]}' -slowest 5 || true
  kill -TERM "$pid"
  wait "$pid" || true
  trap - EXIT
fi

if [[ " $CASES " == *" fb "* ]]; then
  if [ -z "${MINED:-}" ] || [ ! -d "$DS/fb15k-237" ]; then
    echo "case fb: skipped (set MINED to a file drumql mine wrote on FB15k-237, and DRUMQL_DATASETS)"
  else
    "$bin" --db "$out/fb.db" -q load "$DS/fb15k-237" > /dev/null
    grep -v '^@min' "$MINED" | sed "1i @min $MIN." > "$out/fb.dl"
    head -n 500 "$DS/fb15k-237/test.txt" | queries /dev/stdin > "$out/fb.q"
    run_case fb "$out/fb.db" "$out/fb.dl"
  fi
fi
