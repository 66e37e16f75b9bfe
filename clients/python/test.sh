#!/usr/bin/env bash
# Tests the Python client (clients/python/) against a real drumql serve on
# a loopback port: builds drumql, loads a small graph into a scratch
# store, starts the server with a token and a 64K body limit, runs the
# client's tests and the example script, and stops the server.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 --version
tmp=$(mktemp -d)
pid=""
cleanup() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi; rm -rf "$tmp"; }
trap cleanup EXIT
go build -o "$tmp/drumql" ./cmd/drumql
printf 'marc_ueda\thusband\talice_ortiz\nbob\thusband\tcarol\n' > "$tmp/graph.tsv"
printf '0.2887 :: wife(A, B) :- husband(B, A).\n' > "$tmp/rules.dl"
"$tmp/drumql" -q --db "$tmp/db" load "$tmp/graph.tsv"
DRUMQL_TOKEN=s3cret "$tmp/drumql" -q --db "$tmp/db" serve --addr 127.0.0.1:0 --max-body 64K "$tmp/rules.dl" > "$tmp/out" 2> "$tmp/err" &
pid=$!
url=""
for _ in $(seq 100); do
  url=$(sed -n 's|^serving \(http://[^ ]*\) .*|\1|p' "$tmp/out")
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/err"; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "the server did not start"; cat "$tmp/err"; exit 1; }
DRUMQL_URL="$url" DRUMQL_TEST_TOKEN=s3cret python3 -m unittest -v clients/python/test_client.py
DRUMQL_TOKEN=s3cret python3 clients/python/example.py "$url"
