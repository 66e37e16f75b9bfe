#!/usr/bin/env bash
# Small updates through the CLI on examples/families: the README
# walkthrough's (its rule edit, an infer with nothing new, the base fact
# husband(marc_ueda, alice_ortiz) retracted and loaded back, the rule put
# back) and small edits of the expert rules and the facts (spouse's
# symmetry rule and ancestor's recursive rule removed and put back, a mined
# aunt rule's weight halved and put back, a father fact retracted and
# loaded back, two new father facts loaded and retracted). Each update is
# `drumql --db DB infer --changes 0 --trace RULES...` under GNU time; the
# table gives its CPU seconds (user + system) in each run, and the rounds
# and joins its trace reports (the same in every run).
#
# The rules are mined here on the families graph (`drumql mine`, as the
# walkthrough does) by the work tree's build; with BASE=<git revision> the
# same updates run with drumql built at that revision, the builds
# alternating, REPEAT (default 3) runs of each.
#
#   bench/small-updates.sh
#   BASE=b780661 REPEAT=3 bench/small-updates.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPEAT=${REPEAT:-3}
out=bench/out/small-updates
mkdir -p "$out"
. bench/lib.sh
build_builds "$out"
machine_line
root=$PWD
E=$root/examples/families
T=$root/cmd/drumql/testdata
rm -rf "$out/mine.db"
"$out/drumql-head" --db "$out/mine.db" -q load "$E" > /dev/null
"$out/drumql-head" --db "$out/mine.db" -q mine --out "$out/mined.dl"
grep -P '^quentin_dalton\tfather\tdiana_dalton' "$E/facts.txt" > "$out/fact.tsv"
printf 'quentin_dalton\tfather\tzed_new\nzed_new\tfather\tzoe_new\n' > "$out/new.tsv"

# run BUILD: the updates with drumql-BUILD on a fresh store; appends
# "BUILD update cpu rounds joins" lines to $out/rows.
run() {
  local b=$1 bin=$root/$out/drumql-$1 d=$out/run-$1
  rm -rf "$d"
  mkdir -p "$d"
  cp "$out/mined.dl" "$d/cur.dl"
  cp "$E/expert.dl" "$d/expert.dl"
  "$bin" --db "$d/db" -q load "$E" > /dev/null
  "$bin" --db "$d/db" -q infer "$d/cur.dl" "$d/expert.dl" > /dev/null 2>&1
  upd() {
    /usr/bin/time -f '%U %S' -o "$d/t" "$bin" --db "$d/db" infer --changes 0 --trace "$d/cur.dl" "$d/expert.dl" > "$d/out" 2> "$d/err"
    local rounds joins
    rounds=$(grep -c '^trace: round' "$d/err" || true)
    joins=$({ grep '^trace: round' "$d/err" || true; } | tail -n1 | sed 's/.* facts derived, \([0-9]*\) joins.*/\1/')
    echo "$b $1 $(awk '{printf "%.2f", $1 + $2}' "$d/t") $rounds ${joins:-0}" >> "$out/rows"
  }
  sed 's/^.*wife(A, B) :- aunt(A, C), uncle(B, C).*$/% removed by hand/' "$out/mined.dl" > "$d/cur.dl"
  upd walkthrough-edit
  upd walkthrough-nothing
  "$bin" --db "$d/db" -q retract "$T/husband.tsv" > /dev/null 2>&1
  upd walkthrough-retract
  "$bin" --db "$d/db" -q load "$T/husband.tsv" > /dev/null 2>&1
  upd walkthrough-load
  cp "$out/mined.dl" "$d/cur.dl"
  upd walkthrough-restore
  sed -i 's/^spouse(X, Y) :- spouse(Y, X)\./% gone/' "$d/expert.dl"
  upd remove-symmetry
  cp "$E/expert.dl" "$d/expert.dl"
  upd add-symmetry
  sed -i 's/^ancestor(X, Z) :- parent(X, Y), ancestor(Y, Z)\./% gone/' "$d/expert.dl"
  upd remove-ancestor-rec
  cp "$E/expert.dl" "$d/expert.dl"
  upd add-ancestor-rec
  # the first mined aunt rule, its weight halved
  awk '!done && /:: aunt\(/ { split($0, a, " :: "); printf "%.4g :: %s\n", a[1]/2, a[2]; done = 1; next } { print }' "$out/mined.dl" > "$d/cur.dl"
  upd halve-aunt
  cp "$out/mined.dl" "$d/cur.dl"
  upd restore-aunt
  "$bin" --db "$d/db" -q retract "$out/fact.tsv" > /dev/null 2>&1
  upd retract-father
  "$bin" --db "$d/db" -q load "$out/fact.tsv" > /dev/null 2>&1
  upd load-father
  "$bin" --db "$d/db" -q load "$out/new.tsv" > /dev/null 2>&1
  upd load-2-new
  "$bin" --db "$d/db" -q retract "$out/new.tsv" > /dev/null 2>&1
  upd retract-2-new
}

: > "$out/rows"
for _ in $(seq "$REPEAT"); do
  for b in "${bins[@]}"; do run "$b"; done
done
echo
echo "| update | build | CPU per run | rounds | joins |"
echo "|---|---|---|---|---|"
awk '{ k = $2 SUBSEP $1; if (!(k in r)) { order[n++] = k; r[k] = $4; j[k] = $5; cpu[k] = $3 } else cpu[k] = cpu[k] ", " $3 }
  END { for (i = 0; i < n; i++) { split(order[i], p, SUBSEP); printf "| %s | %s | %s s | %s | %s |\n", p[1], p[2], cpu[order[i]], r[order[i]], j[order[i]] } }' "$out/rows" | sort -t'|' -k2,2 -s
