#!/usr/bin/env bash
# Scaling benchmark of drumql mine on generated graphs (examples/gen-kg:
# households, planted rules, hub relations gender and citizen_of) at several
# sizes: wall time and peak RSS of load, snapshot and mine (default
# settings, T=2 and T=3), whether each planted rule is among the top 3 chain
# rules of its head (the rules with variables only, h(A, B) :- ...: the rules
# with constants are learnt from the graph, not by the miner, and at 10^5
# people and more some of them, specialisations of the planted citizen_of
# rule to one city, outrank it by chance), and the growth exponent of the mining time fitted by least
# squares on log(time) ~ log(people). Each mine saves its model beside its
# rule file (kg-N-TT.model), so that rules can be read off it again with
# mine --from-model without training.
#
#   bench/scale.sh                       # SIZES="10000 100000" by default
#   SIZES="10000 100000 1000000" bench/scale.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-10000 100000}
# Build with GOEXPERIMENT=simd in the environment for the AVX kernels.
LENS=${LENS:-2 3}
out=bench/out/scale
rm -rf "$out"; mkdir -p "$out" bin
go build -o bin/drumql ./cmd/drumql
go build -o bin/gen-kg ./examples/gen-kg
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), shared; sizes: $SIZES"
echo
planted=("wife(A, B) :- husband(B, A)" "mother(A, B) :- wife(A, C), father(C, B)"
  "citizen_of(A, B) :- born_in(A, C), city_in(C, B)" "sibling(A, B) :- father(C, A), father(C, B)")
t() { /usr/bin/time -f "%e %M" -o "$out/t" "$@" > /dev/null && cat "$out/t"; }
cat > "$out/planted.dl" <<'EOF'
wife(A, B) :- husband(B, A).
mother(A, B) :- wife(A, C), father(C, B).
citizen_of(A, B) :- born_in(A, C), city_in(C, B).
sibling(A, B) :- father(C, A), father(C, B), A != B.
EOF
echo "| people | triples | step | T | wall | peak RSS | estimate | planted rules in top 3 |"
echo "|---|---|---|---|---|---|---|---|"
for n in $SIZES; do
  d=$out/kg-$n
  bin/gen-kg -people "$n" -out "$d"
  triples=$(cat "$d"/{facts,train,valid,test}.txt | wc -l)
  read -r s k < <(t bin/drumql --db "$d.db" -q load "$d")
  echo "| $n | $triples | load | | $s s | $((k/1024)) MB | | |"
  read -r s k < <(t bin/drumql --db "$d.db" -q snapshot --out "$d.snap")
  echo "| $n | $triples | snapshot | | $s s | $((k/1024)) MB | | |"
  for T in $LENS; do
    read -r s k < <(t bin/drumql --db "$d.db" mine --len "$T" --save-model "$d-T$T.model" --out "$d-T$T.dl" 2> "$out/err")
    est=$(sed -n 's/^mine: estimated peak memory \(.*\) (.*/\1/p' "$out/err")
    found=0
    for p in "${planted[@]}"; do
      head=${p%%(*}
      if awk -v h="% ---- $head ----" 'index($0,h)==1{on=1;n=0;next} /^% ----/{on=0} on && /\(A, B\) :-/ && n<3 {n++; print}' "$d-T$T.dl" | grep -qF "$p"; then
        found=$((found+1))
      else
        echo "missing in top 3 at $n people, T=$T: $p" >&2
      fi
    done
    rulestep=$(sed -n 's/.*rules read, counted and tuned in \([^)]*\)).*/\1/p' "$out/err")
    echo "| $n | $triples | mine | $T | $s s | $((k/1024)) MB | $est | $found/4 |"
    echo "| $n | $triples | (of which the rule step) | $T | $rulestep | | | |"
    echo "$n $T $s" >> "$out/fit"
  done
  # The rules of the last T applied alone to every test query, and one
  # goal-directed query (the mothers of a person of the test split) with the
  # planted rules written by hand and with the mined file (which may not
  # finish: at most QUERY_TIMEOUT seconds).
  read -r s k < <(t bin/drumql --db "$d.db" -q eval --rules "$d-T$T.dl")
  echo "| $n | $triples | eval --rules (test) | $T | $s s | $((k/1024)) MB | | |"
  who=$(awk -F'\t' '$2=="mother" {print $3; exit}' "$d/test.txt")
  read -r s k < <(t bin/drumql --db "$d.db" -q query --rules "$out/planted.dl" "mother(X, $who)?")
  echo "| $n | $triples | query mother(X, $who)? planted rules | | $s s | $((k/1024)) MB | | |"
  if read -r s k < <(t timeout "${QUERY_TIMEOUT:-300}" bin/drumql --db "$d.db" -q query --rules "$d-T$T.dl" "mother(X, $who)?"); then
    echo "| $n | $triples | query mother(X, $who)? mined rules | $T | $s s | $((k/1024)) MB | | |"
  else
    echo "| $n | $triples | query mother(X, $who)? mined rules | $T | not done in ${QUERY_TIMEOUT:-300} s | | | |"
  fi
done
echo
for T in $LENS; do
  awk -v T="$T" '$2==T {x=log($1); y=log($3); n++; sx+=x; sy+=y; sxx+=x*x; sxy+=x*y}
    END {if (n>1) printf "T=%d: mining time grows as people^%.2f (least squares over %d sizes)\n", T, (n*sxy-sx*sy)/(n*sxx-sx*sx), n}' "$out/fit"
done
