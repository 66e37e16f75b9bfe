#!/usr/bin/env bash
# drumql against Soufflé built from source (bench/peers/souffle-build.sh), in
# one run, on the same seeded inputs and the same rule texts: each program is
# bench/peers/programs/NAME.rules, which drumql infers as it is and Soufflé
# reads through NAME.souffle.dl (declarations, then #include of the rules).
# For each workload it prints one markdown row per engine: Soufflé
# interpreted (-j THREADS), Soufflé compiled (-o, the binary's run timed, the
# compile time beside it), drumql run (the same NAME.souffle.dl through
# `drumql run -j THREADS`, the same .facts files in: evaluation without a
# store, the column that compares evaluation with evaluation), drumql (load
# of the generated triples + infer --threads THREADS, both timed together;
# infer alone beside it). Wall, CPU
# (user + system) and peak RSS come from /usr/bin/time; each row's output
# count (the program's output relations, summed) must equal the others',
# else the script reports it and exits 1. Local benchmarks only, never in CI.
#
#   SOUFFLE_GIT=DIR bench/peers/souffle.sh                  # the small set
#   SIZE=full SOUFFLE_GIT=DIR bench/peers/souffle.sh        # the issue's sizes
#   bench/peers/souffle.sh tc-5k reach-1m                  # chosen workloads
#
# SOUFFLE names a souffle binary to use instead of building one; THREADS
# (default 2), SEED (default 1), OUT (default bench/out/souffle-peers);
# ENGINES (default "interp compiled run infer") the engines to run; the
# engine "base" is `drumql run` of another build, the binary BASE (for a
# before/after in one run: go build -o /tmp/drumql-base ./cmd/drumql at the
# older commit), labelled BASE_LABEL (default "base"). Compiled programs
# are cached in OUT/compiled (CACHE=0 compiles again).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=${OUT:-$root/bench/out/souffle-peers}
threads=${THREADS:-2}
seed=${SEED:-1}
engines=${ENGINES:-interp compiled run infer}
has() { [[ " $engines " == *" $1 "* ]]; }
progs=$root/bench/peers/programs
mkdir -p "$out" "$root/bin"
[ -x /usr/bin/time ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; }
souffle=${SOUFFLE:-}
if [ -z "$souffle" ] && { has interp || has compiled; }; then souffle=$(bench/peers/souffle-build.sh | tail -1); fi
# The compiled programs include souffle/CompiledSouffle.h from the install's
# include directory, which an install moved since its build no longer names.
if [ -n "$souffle" ] && [ -d "$(dirname "$souffle")/../include/souffle" ]; then
  export CPATH="$(cd "$(dirname "$souffle")/../include" && pwd)${CPATH:+:$CPATH}"
fi
go build -o "$root/bin/drumql" ./cmd/drumql
(cd bench/peers && go build -o "$root/bin/graphgen" ./graphgen)

# Workloads: NAME PROGRAM NODES REL=P... (inputs: graphgen -n NODES REL=P...).
declare -A spec
spec[tc-2k]="tc 2000 edge=0.001"
spec[sg-2k]="sg 2000 edge=0.001"
spec[tc-5k]="tc 5000 edge=0.001"
spec[tc-10k]="tc 10000 edge=0.001"
spec[sg-5k]="sg 5000 edge=0.001"
spec[sg-10k]="sg 10000 edge=0.001"
spec[reach-1m]="reach 100000 edge=0.0001"
spec[andersen-s]="andersen 5000 addressOf=0.0002 assign=0.0001 load=0.00001 store=0.00001"
spec[andersen-m]="andersen 10000 addressOf=0.0001 assign=0.00005 load=0.000005 store=0.000005"
spec[cspa-s]="cspa 1000 assign=0.0005 dereference=0.0005"
spec[cspa-m]="cspa 2000 assign=0.00025 dereference=0.00025"
spec[csda-s]="csda 20000 nullEdge=0.000001 arc=0.0001"
small="tc-2k sg-2k reach-1m andersen-s cspa-s csda-s"
full="tc-5k tc-10k sg-5k sg-10k reach-1m andersen-m cspa-m csda-s"
if [ $# -gt 0 ]; then list="$*"; elif [ "${SIZE:-small}" = full ]; then list=$full; else list=$small; fi

# timed OUTFILE CMD...: runs CMD with /usr/bin/time; sets wall, cpu, rss (KB).
timed() {
  local o=$1; shift
  if ! /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$@" > "$o" 2> "$o.err"; then
    echo "failed: $* (see $o.err)" >&2; tail -3 "$o.err" >&2; return 1
  fi
  read -r wall u s rss < "$out/time.txt"
  cpu=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}')
}
mb() { awk -v k="$1" 'BEGIN{printf "%.0f MB", k/1024}'; }
# souffle_count FILE / drumql_count FILE: the output relations' sizes summed.
souffle_count() { awk -F'\t' 'NF==2 && $2 ~ /^[0-9]+$/ {s+=$2} END{print s+0}' "$1"; }
drumql_count() { awk '/^  [^ ]+ +[0-9]+$/ {s+=$2} END{print s+0}' "$1"; }

problems=()
row() { printf '| %s | %s | %.2f | %.2f | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$(mb "$5")" "$6" "$7"; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "drumql $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!bench' || echo '+changes'); ${souffle:+$(cat "$(dirname "$souffle")/../VERSION" 2>/dev/null || "$souffle" --version | head -1); }engines $engines; threads $threads; seed $seed; $(date -u +%Y-%m-%d)"
echo
echo "| workload | engine | wall s | CPU s | peak RSS | output facts | note |"
echo "|---|---|---|---|---|---|---|"
for wl in $list; do
  [ -n "${spec[$wl]:-}" ] || { echo "unknown workload $wl (known: ${!spec[*]})" >&2; exit 2; }
  set -- ${spec[$wl]}
  prog=$1 n=$2; shift 2
  d=$out/$wl
  rm -rf "$d"; mkdir -p "$d"
  inputs=$("$root/bin/graphgen" -n "$n" -seed "$seed" -out "$d/in" "$@" | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')
  echo "| $wl | input | | | | | $prog, n = $n: $inputs |"
  mkdir -p "$d/sout"
  counts=()
  if has interp; then
    timed "$d/interp.txt" "$souffle" -j "$threads" -F "$d/in" -D "$d/sout" "$progs/$prog.souffle.dl"
    c=$(souffle_count "$d/interp.txt"); counts+=("interpreted $c")
    row "$wl" "Soufflé interpreted" "$wall" "$cpu" "$rss" "$c" ""
  fi
  if has compiled; then
    # The binary is kept in $out/compiled, named by a hash of the souffle
    # binary, the program's texts and THREADS; a later run reuses it
    # ("compile cached" in the note) unless CACHE=0.
    key=$( (cat "$souffle" "$progs/$prog.souffle.dl" "$progs/$prog.rules"; echo "j$threads") | sha256sum | cut -c1-16)
    bin=$out/compiled/$prog-$key
    cnote=""
    if [ "${CACHE:-1}" != 0 ] && [ -x "$bin" ]; then
      cnote="compile cached"
    else
      mkdir -p "$out/compiled"
      timed "$d/compile.txt" "$souffle" -j "$threads" -o "$d/$prog-bin" "$progs/$prog.souffle.dl"
      mv "$d/$prog-bin" "$bin"
      cnote="compile $wall s"
    fi
    timed "$d/compiled.txt" "$bin" -j "$threads" -F "$d/in" -D "$d/sout"
    c=$(souffle_count "$d/compiled.txt"); counts+=("compiled $c")
    row "$wl" "Soufflé compiled" "$wall" "$cpu" "$rss" "$c" "$cnote"
  fi
  if has run; then
    timed "$d/run.txt" "$root/bin/drumql" run -j "$threads" -F "$d/in" -D "$d/sout" "$progs/$prog.souffle.dl"
    c=$(souffle_count "$d/run.txt"); counts+=("drumql-run $c")
    row "$wl" "drumql run" "$wall" "$cpu" "$rss" "$c" "no store"
  fi
  if has base; then
    timed "$d/base.txt" "${BASE:?set BASE to a drumql binary for the engine base}" run -j "$threads" -F "$d/in" -D "$d/sout" "$progs/$prog.souffle.dl"
    c=$(souffle_count "$d/base.txt"); counts+=("drumql-run-base $c")
    row "$wl" "drumql run (${BASE_LABEL:-base})" "$wall" "$cpu" "$rss" "$c" "no store"
  fi
  if has infer; then
    timed "$d/load.txt" "$root/bin/drumql" -q --db "$d/db" load "$d/in/facts.tsv"
    lw=$wall lc=$cpu lr=$rss
    timed "$d/infer.txt" "$root/bin/drumql" --db "$d/db" infer --threads "$threads" --max-facts 1000000000 --max-memory off "$progs/$prog.rules"
    c=$(drumql_count "$d/infer.txt"); counts+=("drumql-infer $c")
    tw=$(awk -v a="$lw" -v b="$wall" 'BEGIN{print a+b}'); tc=$(awk -v a="$lc" -v b="$cpu" 'BEGIN{print a+b}')
    row "$wl" "drumql load + infer" "$tw" "$tc" "$((rss > lr ? rss : lr))" "$c" "infer $wall s, $(mb "$rss")"
  fi
  if [ "$(printf '%s\n' "${counts[@]}" | awk '{print $2}' | sort -u | wc -l)" -gt 1 ]; then
    problems+=("$wl: output facts differ: ${counts[*]}")
  fi
  rm -rf "$d/db" "$d/sout"
done
echo
if [ ${#problems[@]} -gt 0 ]; then printf 'count check FAILED:\n'; printf '  %s\n' "${problems[@]}"; exit 1; fi
echo "count check: the engines' runs ($engines) of every workload derived the same number of facts"
