#!/usr/bin/env bash
# imports.sh shows how drumql reads rule files and their @imports: only
# regular files, at most --max-import-size, only from the directory of the
# file given (unless --allow-import-outside), with Ctrl-C honoured. Before,
# `@import "/dev/zero".` grew to 24 GB and was OOM-killed, a named pipe hung
# and ignored SIGINT and SIGTERM, and any path was read and its lines echoed.
# Each step runs under a 10 s timeout and a 2 GiB address-space limit, so a
# regression shows as "exit 124" or a crash instead of taking the machine.
#
# Usage: scripts/imports.sh   (no root needed)
set -uo pipefail

cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/drumql
go build -o "$bin" ./cmd/drumql || exit 1
rules=$work/rules
mkdir -p "$rules/kg"
mkfifo "$rules/fifo.tsv"
printf 'bob\thusband\talice\n' >"$rules/kg/extra.tsv"
cat >"$rules/main.dl" <<'DL'
@import "kg/extra.tsv".
@import "/dev/zero".
@import "fifo.tsv".
@import "../../../../../../etc/passwd".
wife(X, Y) :- husband(Y, X).
DL

step() {
	echo
	echo "\$ drumql $*"
	(ulimit -v 2097152; timeout 10 "$bin" -q "$@") 2>&1 | head -n 12
	echo "exit ${PIPESTATUS[0]}"
}

step check "$rules/main.dl"
step check "$rules/fifo.tsv"
step check /dev/zero

echo
echo "a file over the limit, then the limit raised:"
head -c 3000000 /dev/zero | tr '\0' 'a' | fold -w 100 | sed 's/$/\tr\tb/' >"$rules/kg/big.tsv"
printf '@import "kg/big.tsv".\n' >"$rules/big.dl"
step --max-import-size 1M check "$rules/big.dl"
step --max-import-size 4M check "$rules/big.dl"

echo
echo "a long bad line is quoted as an excerpt:"
printf 'x\t%s\n' "$(head -c 100000 /dev/zero | tr '\0' 'z')" >"$rules/kg/long.tsv"
printf '@import "kg/long.tsv".\n' >"$rules/long.dl"
step check "$rules/long.dl"

echo
echo "SIGINT 0.3 s into reading a 60 MB import (stops at once; a whole check takes seconds):"
yes "$(printf 'a\tr\tb')" | head -n 10000000 >"$rules/kg/huge.tsv"
printf '@import "kg/huge.tsv".\n' >"$rules/huge.dl"
start=$(date +%s.%N)
timeout -s INT 0.3 "$bin" -q check "$rules/huge.dl"
code=$?
echo "exit $code after $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }") s"
