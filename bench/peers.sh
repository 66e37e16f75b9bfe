#!/usr/bin/env bash
# Datalog peers, measured side by side in one run: drumql, clingo (Debian
# gringo), SWI-Prolog with tabling (swi-prolog-nox) and google/mangle v0.4.0
# (a separate Go module under bench/peers, so drumql's go.mod never depends on
# it). Installs what it needs, generates the workloads, and prints one markdown
# table row per (workload, engine): wall seconds, peak RSS and the number of
# path facts. Every engine's count is checked against the closed form (a chain
# of N edges has N(N+1)/2 paths, a cycle of N nodes N^2): a count that differs,
# or an engine that fails, is reported after the table and the script exits 1.
#
#   bench/peers.sh            # all workloads
#   REPEAT=3 bench/peers.sh   # best of 3 runs
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${OUT:-$root/bench/out/peers}
repeat=${REPEAT:-1}
mkdir -p "$out" "$root/bin"

need() { command -v "$1" >/dev/null 2>&1; }
if ! need clingo || ! need swipl || [ ! -x /usr/bin/time ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gringo swi-prolog-nox time >/dev/null
fi
go build -o "$root/bin/drumql" ./cmd/drumql
(cd bench/peers && go build -o "$root/bin/mangle-run" ./mangle-run)

# gen KIND N: edges of a chain (0->1->...->N) or a cycle (0->...->N-1->0).
edges() {
  local kind=$1 n=$2
  if [ "$kind" = chain ]; then seq 0 $((n - 1)) | awk '{print $1, $1+1}'
  else seq 0 $((n - 1)) | awk -v n="$n" '{print $1, ($1+1)%n}'; fi
}

write_workload() { # name kind n weighted
  local name=$1 kind=$2 n=$3 w=$4 d="$out/$1"
  mkdir -p "$d"
  if [ "$w" = 0 ]; then
    edges "$kind" "$n" | awk '{printf "edge(%d, %d).\n", $1, $2}' > "$d/edges.facts"
    { cat "$d/edges.facts"; echo 'path(X, Y) :- edge(X, Y).'; echo 'path(X, Z) :- path(X, Y), edge(Y, Z).'; } > "$d/prog.dl"
    { cat "$d/edges.facts"; echo 'path(X,Y) :- edge(X,Y).'; echo 'path(X,Z) :- path(X,Y), edge(Y,Z).'
      echo 'n(N) :- N = #count{X,Y: path(X,Y)}.'; echo '#show n/1.'; } > "$d/prog.lp"
    { echo ':- table path/2.'; cat "$d/edges.facts"; echo 'path(X,Y) :- edge(X,Y).'; echo 'path(X,Z) :- path(X,Y), edge(Y,Z).'
      echo 'main :- aggregate_all(count, path(_,_), N), write(N), nl.'; } > "$d/prog.pl"
    { cat "$d/edges.facts"; echo 'path(X, Y) :- edge(X, Y).'; echo 'path(X, Z) :- path(X, Y), edge(Y, Z).'; } > "$d/prog.mg"
  else
    edges "$kind" "$n" | awk '{printf "0.99 :: edge(%d, %d).\n", $1, $2}' > "$d/prog.dl"
    { echo 'path(X, Y) :- edge(X, Y).'; echo 'path(X, Z) :- path(X, Y), edge(Y, Z).'; } >> "$d/prog.dl"
    { echo ':- table path(_,_,max).'; edges "$kind" "$n" | awk '{printf "edge(%d, %d, 0.99).\n", $1, $2}'
      echo 'path(X,Y,C) :- edge(X,Y,C).'; echo 'path(X,Z,C) :- path(X,Y,C1), edge(Y,Z,C2), C is C1*C2.'
      echo 'main :- aggregate_all(count, path(_,_,_), N), write(N), nl.'; } > "$d/prog.pl"
  fi
}

# expected KIND N: the number of path facts of the workload.
expected() { if [ "$1" = chain ]; then echo $(($2 * ($2 + 1) / 2)); else echo $(($2 * $2)); fi; }

# measure ENGINE WORKLOAD CMD...: best wall time of $repeat runs, its RSS, output;
# the count is checked against $want.
problems=()
measure() {
  local engine=$1 wl=$2; shift 2
  local best="" bestrss="" result=""
  for _ in $(seq "$repeat"); do
    if ! /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" > "$out/stdout.txt" 2> "$out/stderr.txt"; then
      echo "| $wl | $engine | failed: $(tail -1 "$out/stderr.txt") | | |"
      problems+=("$wl: $engine failed"); return
    fi
    read -r secs kb < "$out/time.txt"
    if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$secs; bestrss=$kb; fi
    result=$(grep -Eo '[0-9]+' "$out/stdout.txt" | tail -1)
    if [ "$result" != "$want" ]; then problems+=("$wl: $engine counted ${result:-nothing}, expected $want"); fi
  done
  printf '| %s | %s | %.2f | %.0f MB | %s |\n' "$wl" "$engine" "$best" "$(awk -v k="$bestrss" 'BEGIN{print k/1024}')" "$result"
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "versions: $("$root/bin/drumql" version | head -1); clingo $(clingo --version | head -1 | awk '{print $3}'); $(swipl --version); mangle v0.4.0"
echo
echo "| workload | engine | wall s | peak RSS | path facts |"
echo "|---|---|---|---|---|"
for spec in "chain-1000 chain 1000 0" "chain-2000 chain 2000 0" "cycle-1000 cycle 1000 0" "wcycle-1000 cycle 1000 1"; do
  set -- $spec
  wl=$1; write_workload "$@"; d="$out/$wl"; want=$(expected "$2" "$3")
  measure drumql "$wl" "$root/bin/drumql" --db "$out/nostore" query --quiet --min 1e-6 --rules "$d/prog.dl" --count "path(X, Y)?"
  if [ "$4" = 0 ]; then
    # clingo's exit status says satisfiable (10) and search exhausted (20).
    measure clingo "$wl" sh -c 'clingo -V0 --outf=1 "$1"; c=$?; [ $c -eq 30 ] || [ $c -eq 10 ] || [ $c -eq 0 ]' sh "$d/prog.lp"
    measure swipl "$wl" swipl -g main -t halt "$d/prog.pl"
    measure mangle "$wl" "$root/bin/mangle-run" "$d/prog.mg" path 2
  else
    measure swipl "$wl" swipl -g main -t halt "$d/prog.pl"
    echo "| $wl | clingo | n/a: no recursive max-product over reals | | |"
    echo "| $wl | mangle | n/a: aggregation cannot be recursive | | |"
  fi
done
echo
if [ ${#problems[@]} -gt 0 ]; then
  printf 'count check FAILED:\n'; printf '  %s\n' "${problems[@]}"; exit 1
fi
echo "count check: every engine's path facts match the closed form"
