#!/usr/bin/env bash
# The quick start: build drumql, load the example family graph into the
# embedded default store (./drumql.db), mine weighted rules with DRUM, merge
# them with the expert rules, complete the graph by forward chaining, and ask
# who is Marc Ueda's wife (the graph does not say: the fact is held out), with
# the proof of the best answer.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
echo "== building bin/drumql" >&2
GOEXPERIMENT=simd go build -o bin/drumql ./cmd/drumql
rm -rf drumql.db
echo "== drumql load examples/families" >&2
bin/drumql load examples/families
echo "== drumql mine --out families.dl" >&2
bin/drumql mine --out families.dl
echo "== drumql infer families.dl examples/families/expert.dl" >&2
bin/drumql infer families.dl examples/families/expert.dl
echo "== drumql query \"wife(X, marc_ueda)?\" --top 3 --explain" >&2
bin/drumql query "wife(X, marc_ueda)?" --top 3 --explain
