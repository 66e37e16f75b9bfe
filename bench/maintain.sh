#!/usr/bin/env bash
# Incremental maintenance against recomputation, end to end through the
# CLI, on FB15k-237 (facts + train, from $DRUMQL_DATASETS; skipped with a
# message when absent).
#
# Case tc4m: the 4.0M-fact transitive closure of
#   /award/award_nominee/award_nominations./award/award_nomination/award_nominee
# (as bench/infer-memory.sh). On a store where `drumql infer --full` stored
# it, each update is a retract or load followed by `drumql infer`, timed
# with GNU time (wall and peak RSS of the infer alone):
#   remove one edge (the first update after the full infer, from the
#   materialisation image the full infer wrote), add it back, remove it
#   and add it back again (each from the image the update before wrote),
#   add 1,000 random edges (seeded), and an infer with nothing new. The sizes of the store and of its image are printed.
# Case mined: a mined FB15k-237 rule file (MINED, default
# bench/out/maintain/fb.dl mined here with `drumql mine` when absent)
# materialised at threshold MIN (default 0.1, issue 49's), then, for the
# NRULES (default 10) rules of weight at least MIN chosen with seed SEED
# (default 49) and for the rule with the most derivations (the best proof
# of the most derived facts, bench/ruleuse): remove it, add it back,
# halve its weight (each an update, timed), put it back (not timed); then
# add 1,000 random facts of the graph's largest relation. The rows of the
# random rules give the median and the worst of them.
# The full infer of each case is timed in the same run, REPEAT times
# (median); the ratio update/full is printed, with the CPU seconds (user +
# system) beside the wall time. NOIMAGE=1 passes --no-image to every
# update (no materialisation image read or written).
#
#   bench/maintain.sh                 # both cases
#   CASES=tc4m REPEAT=3 bench/maintain.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DS=${DRUMQL_DATASETS:-../shared/datasets}
REPEAT=${REPEAT:-1}
CASES=${CASES:-"tc4m mined"}
MIN=${MIN:-0.1}
NRULES=${NRULES:-10}
SEED=${SEED:-49}
noimage=()
if [ -n "${NOIMAGE:-}" ]; then noimage=(--no-image); fi
if [ ! -d "$DS/fb15k-237" ]; then
  echo "maintain: skipped: $DS/fb15k-237 not found (set DRUMQL_DATASETS)"
  exit 0
fi
out=bench/out/maintain
mkdir -p "$out"
. bench/lib.sh
build_builds "$out"
bin="$out/drumql-head"
machine_line
median() { sort -n | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
rm -rf "$out/fb.db"
"$bin" --db "$out/fb.db" -q load "$DS/fb15k-237" >/dev/null

# timed NAME CMD...: runs CMD under GNU time, appends "wall rss_kb cpu_s" to
# $out/NAME.t and keeps its stdout and stderr in $out/NAME.out and .err.
timed() {
  local name=$1
  shift
  /usr/bin/time -f "%e %M %U %S" -o "$out/t" "$@" > "$out/$name.out" 2> "$out/$name.err"
  awk '{printf "%s %s %.2f\n", $1, $2, $3 + $4}' "$out/t" >> "$out/$name.t"
}

# row NAME FULL: prints the median wall, CPU and RSS of NAME, its wall
# time's ratio to FULL, and its worst (largest) wall time and ratio.
row() {
  local name=$1 full=$2 w kb cpu worst
  w=$(cut -d' ' -f1 "$out/$name.t" | median)
  kb=$(cut -d' ' -f2 "$out/$name.t" | median)
  cpu=$(cut -d' ' -f3 "$out/$name.t" | median)
  worst=$(cut -d' ' -f1 "$out/$name.t" | sort -n | tail -n1)
  printf '| %s | %s s | %s s | %s MB | %s | %s s, %s | %s |\n' "$name" "$w" "$cpu" "$((kb / 1024))" \
    "$(awk -v a="$w" -v b="$full" 'BEGIN{printf "%.1f%%", 100*a/b}')" "$worst" \
    "$(awk -v a="$worst" -v b="$full" 'BEGIN{printf "%.1f%%", 100*a/b}')" "$(head -n1 "$out/$name.out")"
}

# random_facts REL N SEED: N random REL triples between entities of the graph.
random_facts() {
  cut -f1,3 "$DS/fb15k-237/facts.txt" "$DS/fb15k-237/train.txt" | tr '\t' '\n' | tr -d '\r' | sort -u |
    awk -v rel="$1" -v n="$2" -v seed="$3" '
      { ents[m++] = $0 }
      END { srand(seed); for (i = 0; i < n; i++) printf "%s\t%s\t%s\n", ents[int(rand()*m)], rel, ents[int(rand()*m)] }'
}

# sizes DB: the store's size on disk, its image's apart.
sizes() {
  local img=0
  if [ -f "$1/materialisation.img" ]; then img=$(du -k "$1/materialisation.img" | cut -f1); fi
  echo
  echo "store on disk: $(( ($(du -sk "$1" | cut -f1) - img) / 1024 )) MB; its materialisation image: $((img / 1024)) MB"
}

run_case() { # NAME RULES: the updates of one case
  local c=$1 rules=$2
  : > "$out/$c-full.t"
  for _ in $(seq "$REPEAT"); do
    rm -rf "$out/$c.db"; cp -r "$out/fb.db" "$out/$c.db"
    timed "$c-full" "$bin" --db "$out/$c.db" -q infer --full "$rules"
  done
  full=$(cut -d' ' -f1 "$out/$c-full.t" | median)
  echo
  echo "case $c: $(head -n1 "$out/$c-full.out")"
  echo
  echo "| update | infer wall | CPU | peak RSS | of the full infer | worst (wall, of the full) | what it said |"
  echo "|---|---|---|---|---|---|---|"
  row "$c-full" "$full"
}

if [[ " $CASES " == *" tc4m "* ]]; then
  N='/award/award_nominee/award_nominations./award/award_nomination/award_nominee'
  printf 'reach(X, Y) :- "%s"(X, Y).\nreach(X, Z) :- reach(X, Y), "%s"(Y, Z).\n' "$N" "$N" > "$out/tc4m.dl"
  run_case tc4m "$out/tc4m.dl"
  grep -h -F "	$N	" "$DS/fb15k-237/facts.txt" "$DS/fb15k-237/train.txt" | tr -d '\r' | sort | sed -n '100p' > "$out/edge.tsv"
  random_facts "$N" 1000 7 > "$out/random.tsv"
  us="remove-edge add-edge remove-again add-again nothing add-1000"
  for u in $us; do : > "$out/tc4m-$u.t"; done
  upd=("$bin" --db "$out/tc4m.db" -q infer "${noimage[@]}" --changes 0 "$out/tc4m.dl")
  for i in $(seq "$REPEAT"); do
    if [ "$i" -gt 1 ]; then # each repeat starts from a full infer's state and image
      "$bin" --db "$out/tc4m.db" -q infer --full "$out/tc4m.dl" > /dev/null
    fi
    "$bin" --db "$out/tc4m.db" -q retract "$out/edge.tsv" > /dev/null 2>&1
    timed tc4m-remove-edge "${upd[@]}"
    "$bin" --db "$out/tc4m.db" -q load "$out/edge.tsv" > /dev/null 2>&1
    timed tc4m-add-edge "${upd[@]}"
    "$bin" --db "$out/tc4m.db" -q retract "$out/edge.tsv" > /dev/null 2>&1
    timed tc4m-remove-again "${upd[@]}"
    "$bin" --db "$out/tc4m.db" -q load "$out/edge.tsv" > /dev/null 2>&1
    timed tc4m-add-again "${upd[@]}"
    timed tc4m-nothing "${upd[@]}"
    "$bin" --db "$out/tc4m.db" -q load "$out/random.tsv" > /dev/null 2>&1
    timed tc4m-add-1000 "${upd[@]}"
    "$bin" --db "$out/tc4m.db" -q retract "$out/random.tsv" > /dev/null 2>&1
    "${upd[@]}" > /dev/null
  done
  for u in $us; do row "tc4m-$u" "$full"; done
  sizes "$out/tc4m.db"
fi

if [[ " $CASES " == *" mined "* ]]; then
  MINED=${MINED:-$out/fb.dl}
  if [ ! -f "$MINED" ]; then
    "$bin" --db "$out/fb.db" -q mine --out "$MINED" > /dev/null
  fi
  # The file at threshold MIN.
  grep -v '^@min' "$MINED" | sed "1i @min $MIN." > "$out/mined.dl"
  cp "$out/mined.dl" "$out/cur.dl" # one path: the record names the file
  run_case mined "$out/cur.dl"
  # The rules to edit (line numbers of cur.dl): the one with the most
  # derivations, and NRULES seeded random ones of weight at least MIN.
  # (ruleuse reads the stored derived facts and writes the image.)
  go build -o "$out/ruleuse" ./bench/ruleuse
  "$out/ruleuse" -db "$out/mined.db" > "$out/use.tsv"
  # (awk, not sort | head: head's early exit fails the pipe under pipefail)
  read -r most nmost < <(awk -F'\t' 'NR == 1 || $1 + 0 > n { n = $1 + 0; l = $2 } END { sub(/.*:/, "", l); print l, n }' "$out/use.tsv")
  awk -v min="$MIN" -v most="$most" '/ :- / { split($0, a, " :: "); if (a[1] + 0 >= min && NR != most) print NR }' "$out/mined.dl" |
    awk -v n="$NRULES" -v seed="$SEED" '{ l[m++] = $0 } END { srand(seed); for (i = 0; i < n && m > 0; i++) { k = int(rand()*m); print l[k]; l[k] = l[--m] } }' > "$out/rules.txt"
  echo "rule with the most derivations: line $most ($nmost facts); random rules: lines $(tr '\n' ' ' < "$out/rules.txt")"
  rel=$(cut -f2 "$DS/fb15k-237/train.txt" | tr -d '\r' | sort | uniq -c | sort -rn | awk 'NR==1{print $2}')
  random_facts "$rel" 1000 11 > "$out/random-mined.tsv"
  edits="remove-most add-most halve-most remove-random add-random halve-random add-1000"
  for u in $edits; do : > "$out/mined-$u.t"; done
  minedupd=("$bin" --db "$out/mined.db" -q infer "${noimage[@]}" --changes 0 "$out/cur.dl")
  for _ in $(seq "$REPEAT"); do
    for line in $(cat "$out/rules.txt") "$most"; do
      kind=random
      if [ "$line" = "$most" ]; then kind=most; fi
      sed "${line}d" "$out/mined.dl" > "$out/cur.dl"
      timed "mined-remove-$kind" "${minedupd[@]}"
      cp "$out/mined.dl" "$out/cur.dl"
      timed "mined-add-$kind" "${minedupd[@]}"
      awk -v l="$line" 'NR==l { split($0, a, " :: "); printf "%.6g :: %s\n", a[1]/2, a[2]; next } { print }' "$out/mined.dl" > "$out/cur.dl"
      timed "mined-halve-$kind" "${minedupd[@]}"
      cp "$out/mined.dl" "$out/cur.dl"
      "${minedupd[@]}" > /dev/null 2>&1
    done
    "$bin" --db "$out/mined.db" -q load "$out/random-mined.tsv" > /dev/null 2>&1
    timed mined-add-1000 "${minedupd[@]}"
    "$bin" --db "$out/mined.db" -q retract "$out/random-mined.tsv" > /dev/null 2>&1
    "${minedupd[@]}" > /dev/null
  done
  for u in $edits; do row "mined-$u" "$full"; done
  sizes "$out/mined.db"
fi
