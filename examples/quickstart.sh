#!/usr/bin/env bash
# The quick start: build drumql, load the example family graph into the
# embedded default store (./drumql.db), mine weighted rules with DRUM, merge
# them with the expert rules, complete the graph by forward chaining, and ask
# who is Marc Ueda's wife (the graph does not say: the fact is held out), with
# the proof of the best answer.
set -euo pipefail
cd "$(dirname "$0")/.."
# The quick start replaces only what it made: a ./drumql.db it created (it
# leaves the marker file below in it) and a ./families.dl that drumql mine
# wrote and nobody edited since (drumql mine checks that itself).
marker=drumql.db/.created-by-quickstart
if [ -e drumql.db ] && [ ! -e "$marker" ]; then
  echo "quickstart: ./drumql.db exists and the quick start did not create it; move it away and run again" >&2
  exit 1
fi
if [ -e families.dl ] && ! head -n 1 families.dl | grep -q '^% drumql mine'; then
  echo "quickstart: ./families.dl exists and was not written by drumql mine; move it away and run again" >&2
  exit 1
fi
mkdir -p bin
echo "== building bin/drumql" >&2
GOEXPERIMENT=simd go build -o bin/drumql ./cmd/drumql
if [ -e drumql.db ]; then
  echo "== removing the ./drumql.db of a previous quick start (it builds a fresh one)" >&2
  rm -rf drumql.db
fi
echo "== drumql load examples/families" >&2
bin/drumql load examples/families
touch "$marker"
if [ -e families.dl ]; then
  echo "== drumql mine --out families.dl (replaces the families.dl of a previous run)" >&2
else
  echo "== drumql mine --out families.dl" >&2
fi
bin/drumql mine --out families.dl
echo "== drumql infer families.dl examples/families/expert.dl" >&2
bin/drumql infer families.dl examples/families/expert.dl
echo "== drumql query \"wife(X, marc_ueda)?\" --top 3 --explain" >&2
bin/drumql query "wife(X, marc_ueda)?" --top 3 --explain
echo "== to explore the rules and proofs in a browser: bin/drumql serve families.dl examples/families/expert.dl, then open http://127.0.0.1:7474/" >&2
