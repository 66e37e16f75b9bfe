#!/usr/bin/env bash
# Soufflé's own evaluation tests run by `drumql run` (issue 51): for each
# program X of tests/evaluation in a Soufflé git directory,
#   drumql run X.dl -F facts -D OUT   (in X's directory)
# passes when every expected .csv has the same lines as drumql's after
# sorting, and the .printsize lines ("REL<TAB>N") of the expected .out are
# those drumql printed (sorted). The .err files are not compared. Prints
# pass/FAIL per program (a failure with the first line of drumql's error,
# or the first differing file), then the total.
#
#   SOUFFLE_GIT=path/to/souffle/.git bench/souffle-conformance.sh [NAME...]
#   REV=a1303be3c (the default) picks the commit; TIMEOUT=60 seconds per program.
# The tests are extracted to a temporary directory and never kept.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
git_dir=${SOUFFLE_GIT:?set SOUFFLE_GIT to a git directory of souffle-lang/souffle}
rev=${REV:-a1303be3c}
limit=${TIMEOUT:-60}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/drumql" ./cmd/drumql
git --git-dir="$git_dir" archive "$rev" tests/evaluation | tar -x -C "$tmp"
ev=$tmp/tests/evaluation
if [ $# -gt 0 ]; then names=("$@"); else
  names=(); for d in "$ev"/*/; do n=$(basename "$d"); [ -f "$d/$n.dl" ] && names+=("$n"); done
fi
pass=0; total=0
printsizes() { grep -aE $'^[A-Za-z_?][A-Za-z0-9_.?]*\t[0-9]+$' "$1" 2>/dev/null | sort || true; }
for n in "${names[@]}"; do
  d=$ev/$n; out=$tmp/out/$n; mkdir -p "$out"; total=$((total + 1))
  facts=facts; [ -d "$d/facts" ] || facts=.
  set +e
  (cd "$d" && timeout "$limit" "$tmp/drumql" run "$n.dl" -F "$facts" -D "$out" >"$out/.stdout" 2>"$out/.stderr")
  code=$?
  set -e
  why=""
  if [ $code -ne 0 ]; then
    why="exit $code: $(awk 'NF { print; exit }' "$out/.stderr")"
    if [ $code -eq 124 ]; then why="timeout after ${limit}s"; fi
  else
    for want in "$d"/*.csv; do
      [ -e "$want" ] || continue
      got=$out/$(basename "$want")
      if ! cmp -s <(sort "$want") <(sort "$got" 2>/dev/null); then why="$(basename "$want") differs"; break; fi
    done
    if [ -z "$why" ] && [ -f "$d/$n.out" ] && ! cmp -s <(printsizes "$d/$n.out") <(printsizes "$out/.stdout"); then
      why="printsize lines differ"
    fi
  fi
  if [ -z "$why" ]; then pass=$((pass + 1)); echo "pass $n"; else echo "FAIL $n: $why"; fi
done
echo "passed $pass of $total"
