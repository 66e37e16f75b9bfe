#!/usr/bin/env bash
# space.sh shows where a store's disk space goes and that drumql gives it
# back (issue 31, item 8): it loads a 2,000-edge chain, infers its
# transitive closure (about 2 million derived facts), then replaces them by
# a rule file that derives 2,000, printing `drumql stats`' size on disk
# (and the part compactions would free) after each step; then it kills a
# load with SIGKILL halfway and shows the size of the directory it left,
# and the size after the next writer rolled the load back. Before the fix,
# replacing the derived facts left the store larger than with them, and
# the rollback of the killed load left its space to Badger's compactions,
# larger than the load itself took (issue 31, item 8); now it comes back.
#
# Usage: scripts/space.sh [EDGES]   (default 2000)
set -euo pipefail

cd "$(dirname "$0")/.."
n=${1:-2000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/drumql
go build -o "$bin" ./cmd/drumql
db=$work/db
for ((i = 0; i < n; i++)); do printf 'n%d\te\tn%d\n' "$i" "$((i + 1))"; done > "$work/chain.tsv"
printf 'tc(X, Y) :- e(X, Y).\ntc(X, Z) :- tc(X, Y), e(Y, Z).\n' > "$work/closure.dl"
printf 'back(X, Y) :- e(Y, X).\n' > "$work/small.dl"

size() { echo "$1: $("$bin" -q --db "$db" stats | grep -i 'on disk')"; du -sh "$db" | sed 's/^/  du: /'; }

"$bin" -q --db "$db" load "$work/chain.tsv" >/dev/null
size "after load"
"$bin" -q --db "$db" infer "$work/closure.dl" > "$work/out.txt"; head -n 1 "$work/out.txt"
size "after infer of the closure"
"$bin" -q --db "$db" infer "$work/small.dl" > "$work/out.txt"; head -n 1 "$work/out.txt"
size "after infer of 2,000 facts replacing them"

# A load killed halfway: the next writer rolls it back at open.
for ((i = 0; i < 1500000; i++)); do printf 'm%d\tr\tm%d\n' "$i" "$((i + 1))"; done > "$work/big.tsv"
"$bin" -q --db "$db" load "$work/big.tsv" >/dev/null 2>&1 &
pid=$!
# kill it once the store has grown to 32 MiB, while it writes its data
while kill -0 "$pid" 2>/dev/null && [ "$(du -sk "$db" | cut -f1)" -lt 32768 ]; do sleep 0.1; done
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
sleep 1 # the writer's child process dies with it (see docs/CLI.md, "Global flags, exit codes and the store")
# Not stats: a reader that finds a killed load rolls it back first.
du -sh "$db" | sed 's/^/after a load killed with SIGKILL, before any drumql opens the store:\n  du: /'
"$bin" -q --db "$db" infer "$work/small.dl" > "$work/out.txt"; head -n 1 "$work/out.txt"
size "after the next writer rolled the load back"
