#!/usr/bin/env bash
# Peak memory of drumql infer per derived fact: two transitive closures
# over FB15k-237 (facts + train), written to the store end to end.
#
#   4.0M facts: reach over /award/award_nominee/.../award_nominee
#   14.0M facts: reach over /film/actor/film./film/performance/film taken
#                in both directions (actors and films, co-star closure)
#
# For each case: peak RSS (GNU time, %M) and wall time of
# `drumql --db DB -q infer case.dl` on a fresh copy of the loaded store,
# the median of REPEAT runs, and the slope of peak RSS between the two
# cases in bytes per derived fact. With BASE=<git revision>, the same is
# measured for drumql built at that revision, in the same run.
#
# Then, for each build, the 14M closure once under --max-memory CAP for
# each CAP of $CAPS (default "1G 700M"; CAPS= skips it): its peak RSS
# against 1.1 x CAP, what infer said, and the derived facts the store
# holds after it (none when it stopped):
#
#   drumql --db DB -q infer --max-memory 1G tc14m.dl
#
#   bench/infer-memory.sh                  # needs $DRUMQL_DATASETS/fb15k-237
#   REPEAT=3 BASE=a4d33b0 bench/infer-memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DS=${DRUMQL_DATASETS:-../shared/datasets}
REPEAT=${REPEAT:-1}
if [ ! -d "$DS/fb15k-237" ]; then
  echo "infer-memory: skipped: $DS/fb15k-237 not found (set DRUMQL_DATASETS)"
  exit 0
fi
out=bench/out/infer-memory
rm -rf "$out"; mkdir -p "$out"
. bench/lib.sh
build_builds "$out"
machine_line
for b in "${bins[@]}"; do # each build loads its own store (formats differ)
  "$out/drumql-$b" --db "$out/fb-$b.db" -q load "$DS/fb15k-237" >/dev/null
done
N='"/award/award_nominee/award_nominations./award/award_nomination/award_nominee"'
A='"/film/actor/film./film/performance/film"'
cat > "$out/tc4m.dl" <<DL
reach(X, Y) :- $N(X, Y).
reach(X, Z) :- reach(X, Y), $N(Y, Z).
DL
cat > "$out/tc14m.dl" <<DL
reach(X, Y) :- $A(X, Y).
reach(X, Y) :- $A(Y, X).
reach(X, Z) :- reach(X, Y), $A(Y, Z).
reach(X, Z) :- reach(X, Y), $A(Z, Y).
DL
median() { sort -n | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
echo
echo "| build | case | derived facts | peak RSS | wall | disk |"
echo "|---|---|---|---|---|---|"
for b in "${bins[@]}"; do
  for c in tc4m tc14m; do
    : > "$out/$b-$c.rss"; : > "$out/$b-$c.wall"
    for _ in $(seq "$REPEAT"); do
      rm -rf "$out/x.db"; cp -r "$out/fb-$b.db" "$out/x.db"
      /usr/bin/time -f "%M %e" -o "$out/t" "$out/drumql-$b" --db "$out/x.db" -q infer "$out/$c.dl" > "$out/$b-$c.out"
      read -r kb s < "$out/t"
      echo "$kb" >> "$out/$b-$c.rss"; echo "$s" >> "$out/$b-$c.wall"
    done
    n=$(sed -n 's/^derived \([0-9]*\) facts.*/\1/p' "$out/$b-$c.out")
    kb=$(median < "$out/$b-$c.rss"); s=$(median < "$out/$b-$c.wall")
    disk=$(du -sm "$out/x.db" | cut -f1)
    echo "$n $kb" > "$out/$b-$c.point"
    awk -v b="$b" -v c="$c" -v n="$n" -v kb="$kb" -v s="$s" -v d="$disk" 'BEGIN{printf "| %s | %s | %d | %.0f MB | %.1f s | %d MB |\n", b, c, n, kb/1024, s, d}'
  done
done
echo
for b in "${bins[@]}"; do
  read -r n1 k1 < "$out/$b-tc4m.point"; read -r n2 k2 < "$out/$b-tc14m.point"
  awk -v b="$b" -v n1="$n1" -v k1="$k1" -v n2="$n2" -v k2="$k2" 'BEGIN{printf "%s: slope %.0f bytes of peak RSS per derived fact; %.0f bytes per fact at the 4M closure\n", b, (k2-k1)*1024/(n2-n1), k1*1024/n1}'
done
CAPS=${CAPS-1G 700M}
if [ -n "$CAPS" ]; then
  echo
  echo "| build | case | --max-memory | peak RSS | peak / cap | wall | outcome | derived facts stored after |"
  echo "|---|---|---|---|---|---|---|---|"
  for b in "${bins[@]}"; do for CAP in $CAPS; do
    rm -rf "$out/x.db"; cp -r "$out/fb-$b.db" "$out/x.db"
    set +e
    /usr/bin/time -f "%M %e" -o "$out/t" "$out/drumql-$b" --db "$out/x.db" -q infer --max-memory "$CAP" "$out/tc14m.dl" > "$out/$b-cap.out" 2>&1
    set -e
    read -r kb s < <(tail -1 "$out/t")
    said=$(grep -v '^Command exited' "$out/$b-cap.out" | head -1 | cut -c1-90)
    stored=$("$out/drumql-$b" --db "$out/x.db" -q query --count 'reach(X, Y)?' 2>/dev/null || echo "?")
    awk -v b="$b" -v cap="$CAP" -v kb="$kb" -v s="$s" -v said="$said" -v st="$stored" 'BEGIN{c=cap+0; if (cap ~ /G$/) c*=1024; if (cap ~ /K$/) c/=1024
      printf "| %s | tc14m | %s | %.0f MB | %.2f | %.1f s | %s | %s |\n", b, cap, kb/1024, kb/1024/c, s, said, st}'
  done; done
fi
rm -rf "$out/x.db"
