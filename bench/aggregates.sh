#!/usr/bin/env bash
# Aggregates over FB15k-237's training graph (facts.txt and train.txt),
# drumql beside clingo (Debian gringo) in one run: the out-degree of every entity (count), the number of
# films per actor (count over one relation) and the total of the degrees
# (sum over the degrees, which must equal the number of triples). Both
# engines get the same facts, t(S, R, O) per triple; each engine's answers
# are checked: the total against the number of triples, and the two engines'
# per-entity degrees and film counts against each other (as sorted lists).
#
#   bench/aggregates.sh            # DRUMQL_DATASETS=../shared/datasets by default
#   REPEAT=3 bench/aggregates.sh   # best of 3 runs
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
data=${DRUMQL_DATASETS:-$root/../shared/datasets}/fb15k-237
out=${OUT:-$root/bench/out/aggregates}
repeat=${REPEAT:-1}
if [ ! -f "$data/facts.txt" ] || [ ! -f "$data/train.txt" ]; then
  echo "skipped: $data/facts.txt or train.txt not found (set DRUMQL_DATASETS)"; exit 0
fi
mkdir -p "$out" "$root/bin"
need() { command -v "$1" >/dev/null 2>&1; }
if ! need clingo || [ ! -x /usr/bin/time ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gringo time >/dev/null
fi
go build -o "$root/bin/drumql" ./cmd/drumql

# The facts, quoted for both (FB15k-237 is CRLF).
cat "$data/facts.txt" "$data/train.txt" | tr -d '\r' | awk -F'\t' '{printf "t(\"%s\", \"%s\", \"%s\").\n", $1, $2, $3}' > "$out/facts.lp"
triples=$(wc -l < "$out/facts.lp")
film='/film/actor/film./film/performance/film'
cp "$out/facts.lp" "$out/prog.dl"
cat >> "$out/prog.dl" <<EOF
node(X) :- t(X, _, _).
deg(X, N) :- node(X), N = count : { t(X, _, _) }.
actor(A) :- t(A, "$film", _).
films(A, N) :- actor(A), N = count : { t(A, "$film", _) }.
total(S) :- S = sum N : { deg(_, N) }.
EOF
{ cat "$out/facts.lp"
  echo 'node(X) :- t(X, _, _).'
  echo 'deg(X, N) :- node(X), N = #count{ R, O : t(X, R, O) }.'
  echo "actor(A) :- t(A, \"$film\", _)."
  echo "films(A, N) :- actor(A), N = #count{ F : t(A, \"$film\", F) }."
  echo 'total(S) :- S = #sum{ N, X : deg(X, N) }.'
  echo '#show deg/2. #show films/2. #show total/1.'
} > "$out/prog.lp"

problems=()
# measure ENGINE CMD...: best wall time of $repeat runs and its peak RSS;
# the output of the last run stays in $out/ENGINE.out.
measure() {
  local engine=$1; shift
  local best="" bestrss=""
  for _ in $(seq "$repeat"); do
    if ! /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" > "$out/$engine.out" 2> "$out/$engine.err"; then
      problems+=("$engine failed: $(tail -1 "$out/$engine.err")"); return
    fi
    read -r secs kb < "$out/time.txt"
    if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$secs; bestrss=$kb; fi
  done
  printf '| %s | %.2f | %.0f MB |' "$engine" "$best" "$(awk -v k="$bestrss" 'BEGIN{print k/1024}')"
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "versions: $("$root/bin/drumql" version | head -1); clingo $(clingo --version | head -1 | awk '{print $3}')"
echo "graph: FB15k-237 facts.txt + train.txt, $triples triples"
echo
echo "| engine | wall s | peak RSS | entities with a degree | actors | total |"
echo "|---|---|---|---|---|---|"

# drumql: one evaluation answers the three predicates (an auxiliary rule
# collects them, so nothing is computed twice).
cp "$out/prog.dl" "$out/all.dl"
cat >> "$out/all.dl" <<'EOF'
out(deg, X, N) :- deg(X, N).
out(films, X, N) :- films(X, N).
out(total, total, S) :- total(S).
EOF
measure drumql "$root/bin/drumql" --db "$out/nostore" query --quiet --format tsv --rules "$out/all.dl" 'out(K, X, N)?'
awk -F'\t' 'NR > 1 && $1 == "deg" {print $2, $3}' "$out/drumql.out" | sort > "$out/drumql.deg"
awk -F'\t' 'NR > 1 && $1 == "films" {print $2, $3}' "$out/drumql.out" | sort > "$out/drumql.films"
dtotal=$(awk -F'\t' 'NR > 1 && $1 == "total" {print $3}' "$out/drumql.out")
printf ' %s | %s | %s |\n' "$(wc -l < "$out/drumql.deg")" "$(wc -l < "$out/drumql.films")" "$dtotal"

# clingo's exit status says satisfiable (10) and search exhausted (20).
measure clingo sh -c 'clingo -V0 "$1"; c=$?; [ $c -eq 30 ] || [ $c -eq 10 ] || [ $c -eq 0 ]' sh "$out/prog.lp"
tr ' ' '\n' < "$out/clingo.out" | sed -n 's/^deg("\(.*\)",\([0-9]*\))$/\1 \2/p' | sort > "$out/clingo.deg"
tr ' ' '\n' < "$out/clingo.out" | sed -n 's/^films("\(.*\)",\([0-9]*\))$/\1 \2/p' | sort > "$out/clingo.films"
ctotal=$(tr ' ' '\n' < "$out/clingo.out" | sed -n 's/^total(\([0-9]*\))$/\1/p')
printf ' %s | %s | %s |\n' "$(wc -l < "$out/clingo.deg")" "$(wc -l < "$out/clingo.films")" "$ctotal"

echo
[ "$dtotal" = "$triples" ] || problems+=("drumql: total $dtotal, want $triples")
[ "$ctotal" = "$triples" ] || problems+=("clingo: total $ctotal, want $triples")
cmp -s "$out/drumql.deg" "$out/clingo.deg" || problems+=("the degrees differ (diff $out/drumql.deg $out/clingo.deg)")
cmp -s "$out/drumql.films" "$out/clingo.films" || problems+=("the film counts differ (diff $out/drumql.films $out/clingo.films)")
if [ ${#problems[@]} -gt 0 ]; then
  printf 'check FAILED:\n'; printf '  %s\n' "${problems[@]}"; exit 1
fi
echo "check: both totals equal the number of triples; both engines give the same degrees and film counts"
