#!/usr/bin/env bash
# The quick start: build drumql, load the example family graph into the
# embedded default store (./drumql.db), mine weighted rules with DRUM, merge
# them with the expert rules, complete the graph by forward chaining, and ask
# who is Marc Ueda's wife (the graph does not say: the fact is held out), with
# the proof of the best answer.
set -euo pipefail
cd "$(dirname "$0")/.."
# The quick start replaces only what it made and nobody changed since: a
# ./drumql.db it created (the marker file below records the store's
# generation, which every load or retraction, through drumql serve too,
# moves on) and a ./families.dl that drumql mine wrote (the marker records
# its checksum: a rule removed through drumql serve edits it). It checks
# both before it removes anything, and keeps the store's edits.dl (the
# rules added through drumql serve).
marker=drumql.db/.created-by-quickstart
refuse() { echo "quickstart: $*; nothing was removed" >&2; exit 1; }
if [ -e drumql.db ] && [ ! -e "$marker" ]; then
  refuse "./drumql.db exists and the quick start did not create it; move it away and run again"
fi
if [ -e families.dl ] && ! head -n 1 families.dl | grep -q '^% drumql mine'; then
  refuse "./families.dl exists and was not written by drumql mine; move it away and run again"
fi
# marked KEY: the value the marker records for KEY (empty: none).
marked() { sed -n "s/^$1=//p" "$marker" 2>/dev/null | head -n 1; }
# generation: the store's generation, as drumql stats reports it.
generation() { bin/drumql -q stats --format json | sed -n 's/^ *"generation": *\([0-9][0-9]*\).*/\1/p'; }
checksum() { sha256sum "$1" | cut -d ' ' -f 1; }
mkdir -p bin
echo "== building bin/drumql" >&2
GOEXPERIMENT=simd go build -o bin/drumql ./cmd/drumql
if [ -e drumql.db ]; then
  made=$(marked generation)
  if ! now=$(generation) || [ -z "$now" ]; then
    refuse "drumql stats cannot read ./drumql.db (is drumql serve running on it?); stop what holds it and run again"
  fi
  if [ -z "$made" ] || [ "$now" != "$made" ]; then
    refuse "./drumql.db changed since the quick start made it (generation ${made:-unknown}, now $now: facts were loaded or retracted, through drumql serve or the CLI); move it away and run again"
  fi
  if [ -e families.dl ] && [ "$(checksum families.dl)" != "$(marked families)" ]; then
    refuse "./families.dl changed since the quick start wrote it (a rule removed or edited, through drumql serve or by hand); move it away and run again"
  fi
fi
keep=""
if [ -e drumql.db/edits.dl ]; then
  keep=$(mktemp)
  cp drumql.db/edits.dl "$keep"
fi
if [ -e drumql.db ]; then
  echo "== removing the ./drumql.db of a previous quick start, unchanged since (it builds a fresh one)" >&2
  rm -rf drumql.db
fi
echo "== drumql load examples/families" >&2
bin/drumql load examples/families
echo "generation=$(generation)" > "$marker"
if [ -n "$keep" ]; then
  echo "== keeping drumql.db/edits.dl (the rules added through drumql serve)" >&2
  cp "$keep" drumql.db/edits.dl && rm -f "$keep"
fi
if [ -e families.dl ]; then
  echo "== drumql mine --out families.dl (replaces the families.dl of a previous run)" >&2
else
  echo "== drumql mine --out families.dl" >&2
fi
bin/drumql mine --out families.dl
echo "== drumql infer families.dl examples/families/expert.dl" >&2
bin/drumql infer families.dl examples/families/expert.dl
printf 'generation=%s\nfamilies=%s\n' "$(generation)" "$(checksum families.dl)" > "$marker"
echo "== drumql query \"wife(X, marc_ueda)?\" --top 3 --explain" >&2
bin/drumql query "wife(X, marc_ueda)?" --top 3 --explain
echo "== to explore the rules and proofs in a browser: bin/drumql serve families.dl examples/families/expert.dl, then open http://127.0.0.1:7474/" >&2
