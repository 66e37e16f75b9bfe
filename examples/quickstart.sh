#!/usr/bin/env bash
# The quick start: build drumql, load the bundled family knowledge graph into
# the embedded default store (./drumql.db) and show what is in it.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
go build -o bin/drumql ./cmd/drumql
rm -rf drumql.db
bin/drumql load examples/family
bin/drumql stats
