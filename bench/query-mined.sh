#!/usr/bin/env bash
# Goal-directed queries over a mined rule file: what `drumql query --rules
# MINED.dl "r(X, c)?"` costs, against `drumql infer MINED.dl` (bottom-up
# evaluation of the whole file, store write included) on the same store.
#
#   families: the quick start's graph (examples/families), mined with the
#             defaults; query wife(X, marc_ueda)?
#   kg-N:     a generated graph of N people (examples/gen-kg, seed 1),
#             mined with --len 2; query mother(X, p0000003)?, once as the
#             file's @aggregate directive says (mine chooses noisy_or on
#             it) and once with --combine max; and the graph's four planted
#             rules (a small program, answered goal-directed) as a reference
#
#   numbers:  a chain of 12,000 edges between nodes named by numbers, as
#             a program with no store (drumql as a Datalog interpreter):
#             path(11990, X)? (a number constant), path("11990", X)? (a
#             symbol), and goal()? for `goal() :- path("11990", "12000").`
#             (the constants of a rule body)
#   fb15k-237 (only when FB_RULES names its mined file, e.g. `drumql --db
#             fb.db mine --len 3 --out fb.dl`, 18 min; the data is read from
#             $DRUMQL_DATASETS/fb15k-237, default ../shared/datasets): the
#             first FB_QUERIES (default 5) test triples, each asked as a
#             tail query r(h, X)? --top 5, scored as the file's @aggregate
#             directive says and with --combine max; with FB_INFER=1 also
#             `infer` of the file (about 13 min)
#   inductive: kinship mined on its whole graph, then `eval --rules` on
#             kinship without five of its relations (Term0, Term2, Term14,
#             Term21, Term22: every fact of theirs removed from every split),
#             against eval on the whole graph and against eval of the file
#             without the rules whose bodies name those relations
#
# Each graph is mined once, by the build of the work tree (a base build
# older than the @min directive, 7b3fa19, reads the file without its @min
# line: its --min defaulted to the 0.1 that mine writes); every build
# then loads its own store (formats may differ) and runs every command on
# it: wall time and peak RSS (GNU time), the median of REPEAT runs. A run
# that takes longer than TIMEOUT seconds (default 300) is stopped and shown
# as "> TIMEOUT s". The answers of every build are compared with those of
# the work tree's: the script fails when they differ. Last, for families,
# the rewrite and the facts each round derives, magic sets against the
# evaluation the cost check chooses (TestMinedQueryWork).
#
#   bench/query-mined.sh                                  # families and 10^4 people
#   PEOPLE="10000 100000" REPEAT=3 BASE=3185deb bench/query-mined.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPEAT=${REPEAT:-1}
PEOPLE=${PEOPLE:-10000}
TIMEOUT=${TIMEOUT:-300}
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time; }
out=bench/out/query-mined
rm -rf "$out"; mkdir -p "$out"
. bench/lib.sh
build_builds "$out"
machine_line
head=$out/drumql-head
# base_file FILE OUT: the rule file as the base build reads it (above).
base_file() {
  if [ -n "${BASE:-}" ] && ! git merge-base --is-ancestor 7b3fa19 "$BASE"; then
    grep -v '^@min' "$1" > "$2"
  else
    cp "$1" "$2"
  fi
}

# The graphs and their mined files.
graphs=(families)
cp -r examples/families "$out/families"
query_families='wife(X, marc_ueda)?'
for n in $PEOPLE; do
  g=kg-$n
  graphs+=("$g")
  go run ./examples/gen-kg -people "$n" -out "$out/$g" >/dev/null
  printf -v "query_${g//-/_}" '%s' 'mother(X, p0000003)?'
done
cat > "$out/planted.dl" <<'DL'
wife(A, B) :- husband(B, A).
mother(A, B) :- wife(A, C), father(C, B).
citizen_of(A, B) :- born_in(A, C), city_in(C, B).
sibling(A, B) :- father(C, A), father(C, B).
DL
for g in "${graphs[@]}"; do
  "$head" --db "$out/mine-$g.db" -q load "$out/$g" >/dev/null
  len=()
  [ "$g" = families ] || len=(--len 2)
  /usr/bin/time -f "%e" -o "$out/mine-$g.time" "$head" --db "$out/mine-$g.db" -q mine "${len[@]}" --out "$out/$g.dl" >/dev/null
  echo "$g: mined $(grep -c '::' "$out/$g.dl") rules in $(cat "$out/mine-$g.time") s ($(grep -m1 '^@aggregate' "$out/$g.dl") $(grep -m1 '^@min' "$out/$g.dl"))"
  cp "$out/$g.dl" "$out/$g-head.dl"
  base_file "$out/$g.dl" "$out/$g-base.dl"
  for b in "${bins[@]}"; do
    "$out/drumql-$b" --db "$out/$g-$b.db" -q load "$out/$g" >/dev/null
  done
done

median() { sort -n | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# measure NAME BUILD DB ARGS...: runs drumql ARGS REPEAT times on DB (a
# fresh copy for infer), prints a table row, keeps the output of the last
# run in $out/NAME-BUILD.out.
measure() {
  local name=$1 b=$2 db=$3; shift 3
  local key=${name// /_}
  : > "$out/t.wall"; : > "$out/t.rss"
  local status=ok
  for _ in $(seq "$REPEAT"); do
    local run=$db
    if [ "$1" = infer ]; then
      rm -rf "$out/x.db"; cp -r "$db" "$out/x.db"; run=$out/x.db
    fi
    if ! /usr/bin/time -f "%e %M" -o "$out/t" timeout "$TIMEOUT" "$out/drumql-$b" --db "$run" -q "$@" > "$out/$key-$b.out"; then
      status=timeout
      break
    fi
    read -r s kb < "$out/t"
    echo "$s" >> "$out/t.wall"; echo "$kb" >> "$out/t.rss"
  done
  if [ "$status" = timeout ]; then
    rm -f "$out/$key-$b.out"
    echo "| $name | $b | > $TIMEOUT s | | stopped |"
    return
  fi
  local s kb
  s=$(median < "$out/t.wall"); kb=$(median < "$out/t.rss")
  local what
  case $1 in
    infer) what=$(sed -n 's/^derived \([0-9]*\) facts.*/\1 facts derived/p' "$out/$key-$b.out") ;;
    eval) what="MRR $(awk '$1 == "all" {print $2; exit}' "$out/$key-$b.out")" ;;
    *) what="$(($(wc -l < "$out/$key-$b.out") - 1)) answers" ;;
  esac
  awk -v n="$name" -v b="$b" -v s="$s" -v kb="$kb" -v w="$what" 'BEGIN{printf "| %s | %s | %.2f s | %.0f MB | %s |\n", n, b, s, kb/1024, w}'
}

echo
echo "| command | build | wall | peak RSS | result |"
echo "|---|---|---|---|---|"
for g in "${graphs[@]}"; do
  qv=query_${g//-/_}; q=${!qv}
  for b in "${bins[@]}"; do
    db=$out/$g-$b.db
    rules=$out/$g-$b.dl
    measure "$g infer" "$b" "$db" infer "$rules"
    measure "$g query" "$b" "$db" query --rules "$rules" "$q"
    if [ "$g" != families ]; then
      measure "$g query --combine max" "$b" "$db" query --combine max --rules "$rules" "$q"
      measure "$g query, planted rules" "$b" "$db" query --rules "$out/planted.dl" "$q"
    fi
  done
done
# The families query once more on a store without infer's derived facts
# (the quick start's query runs after its infer, which stores them).
for b in "${bins[@]}"; do
  "$out/drumql-$b" --db "$out/families-fresh-$b.db" -q load "$out/families" >/dev/null
  measure "families query, no derived facts stored" "$b" "$out/families-fresh-$b.db" query --rules "$out/families-$b.dl" "$query_families"
done
rm -rf "$out/x.db"

# Numbers: a chain of 12,000 edges as a program, no store.
{
  echo 'path(X, Y) :- e(X, Y).'
  echo 'path(X, Z) :- e(X, Y), path(Y, Z).'
  for i in $(seq 0 11999); do echo "e($i, $((i + 1)))."; done
} > "$out/chain.dl"
echo 'goal() :- path("11990", "12000").' > "$out/goal.dl"
for b in "${bins[@]}"; do
  measure "numbers path(11990, X)?" "$b" "$out/none.db" query --rules "$out/chain.dl" 'path(11990, X)?'
  measure 'numbers path("11990", X)?' "$b" "$out/none.db" query --rules "$out/chain.dl" 'path("11990", X)?'
  measure "numbers goal()?" "$b" "$out/none.db" query --rules "$out/chain.dl" --rules "$out/goal.dl" 'goal()?'
done

# Inductive: kinship's rules on kinship without five of its relations.
absent='Term0|Term2|Term14|Term21|Term22'
mkdir -p "$out/kinred"
cp examples/kinship/entities.txt examples/kinship/relations.txt "$out/kinred/"
for f in facts train valid test; do
  grep -v -P "\t($absent)\t" "examples/kinship/$f.txt" > "$out/kinred/$f.txt"
done
"$head" --db "$out/kin-mine.db" -q load examples/kinship >/dev/null
"$head" --db "$out/kin-mine.db" -q mine --out "$out/kin.dl" >/dev/null
grep -v -P ":-.*\"($absent)\"\\(" "$out/kin.dl" > "$out/kin-present.dl"
echo "kinship: $(grep -c '::' "$out/kin.dl") rules, $(( $(grep -c '::' "$out/kin.dl") - $(grep -c '::' "$out/kin-present.dl") )) of them over the five relations"
cp "$out/kin.dl" "$out/kin-head.dl"; base_file "$out/kin.dl" "$out/kin-base.dl"
cp "$out/kin-present.dl" "$out/kin-present-head.dl"; base_file "$out/kin-present.dl" "$out/kin-present-base.dl"
for b in "${bins[@]}"; do
  "$out/drumql-$b" --db "$out/kin-$b.db" -q load examples/kinship >/dev/null
  "$out/drumql-$b" --db "$out/kinred-$b.db" -q load "$out/kinred" >/dev/null
  measure "kinship eval --rules, whole graph" "$b" "$out/kin-$b.db" eval --rules "$out/kin-$b.dl"
  measure "kinship eval --rules, five relations absent" "$b" "$out/kinred-$b.db" eval --rules "$out/kin-$b.dl"
  measure "kinship eval --rules without their rules, five absent" "$b" "$out/kinred-$b.db" eval --rules "$out/kin-present-$b.dl"
done

# FB15k-237: queries with one constant over its mined file, --top 5.
if [ -n "${FB_RULES:-}" ]; then
  data=${DRUMQL_DATASETS:-../shared/datasets}/fb15k-237
  if [ ! -f "$data/test.txt" ]; then
    echo "fb15k-237: skipped, $data/test.txt not found (set DRUMQL_DATASETS)"
  else
    echo "fb15k-237: $(grep -c '::' "$FB_RULES") rules in $FB_RULES ($(grep -m1 '^@aggregate' "$FB_RULES") $(grep -m1 '^@min' "$FB_RULES"))"
    cp "$FB_RULES" "$out/fb-head.dl"; base_file "$FB_RULES" "$out/fb-base.dl"
    for b in "${bins[@]}"; do
      "$out/drumql-$b" --db "$out/fb-$b.db" -q load "$data" >/dev/null
    done
    i=0
    while IFS=$'\t' read -r h r _; do
      i=$((i + 1))
      q="\"$r\"(\"$h\", X)?"
      for b in "${bins[@]}"; do
        measure "fb15k-237 test $i query --top 5" "$b" "$out/fb-$b.db" query --rules "$out/fb-$b.dl" --top 5 "$q"
        measure "fb15k-237 test $i query --top 5 --combine max" "$b" "$out/fb-$b.db" query --rules "$out/fb-$b.dl" --top 5 --combine max "$q"
      done
    done < <(head -n "${FB_QUERIES:-5}" "$data/test.txt" | tr -d '\r')
    if [ "${FB_INFER:-}" = 1 ]; then
      for b in "${bins[@]}"; do
        measure "fb15k-237 infer" "$b" "$out/fb-$b.db" infer "$out/fb-$b.dl"
      done
    fi
    rm -rf "$out"/fb-*.db "$out/x.db"
  fi
fi

# The answers must not depend on the build.
echo
fail=0
for f in "$out"/*query*-head.out; do
  for b in "${bins[@]}"; do
    o=${f%-head.out}-$b.out
    [ "$b" = head ] || [ ! -e "$o" ] || cmp -s "$f" "$o" || { echo "answers differ: $o against $f"; fail=1; }
  done
done
[ "$fail" = 0 ] && echo "answers: identical in every build that finished"
for f in "$out"/*query*-head.out; do
  n=$(basename "$f" -head.out)
  echo "$n: $(sed -n 2p "$f" | tr -s ' ')"
done

# What the families query derives with the plain magic-set rewrite (what
# the base build evaluates) and with the evaluation the cost check
# chooses: rules, adorned goals, facts derived per round (counts only).
echo
echo "families, $query_families, rewrite and work (go test ./reasoner -run TestMinedQueryWork):"
DRUMQL_MINED_DB=$PWD/$out/families-head.db DRUMQL_MINED_RULES=$PWD/$out/families.dl DRUMQL_MINED_QUERY=$query_families \
  go test ./reasoner -run '^TestMinedQueryWork$' -count=1 -v | sed -n 's/^ *mined_test.go:[0-9]*: /  /p'
exit "$fail"
