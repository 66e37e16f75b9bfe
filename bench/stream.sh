#!/usr/bin/env bash
# Streamed query output (issue 16): what `drumql query` costs in each of
# its output modes, on two transitive closures over FB15k-237 (facts +
# train), with the rules given by --rules:
#
#   4.0M answers: reach over /award/award_nominee/.../award_nominee
#   1.2M answers: reach over /award/award_winner/.../award_winner
#
#   drumql --db DB -q query --rules tc.dl "reach(X, Y)?"              sorted (default)
#   drumql --db DB -q query --rules tc.dl "reach(X, Y)?" --unordered  streamed
#   drumql --db DB -q query --rules tc.dl "reach(X, Y)?" --top 10     bounded heap
#   drumql --db DB -q query --rules tc.dl "reach(X, Y)?" --count      the fixpoint alone
#
# Each to /dev/null: peak RSS (GNU time %M, which counts Badger's mapped
# files too) and wall time, the median of REPEAT runs. The output memory of
# a mode is its peak RSS above --count's at the same closure; reading it at
# two answer counts says whether it grows with them. Then, on the 4.0M
# closure:
#
#   - time to the first answer line, sorted and --unordered, and to the
#     exit of the pipeline when the reader closes it after that line (as
#     `| head -2` does);
#   - Ctrl-C: SIGINT sent halfway through the fixpoint (half of --count's
#     wall time) and after it (halfway between --count's and the sorted
#     output's wall times), with the time from the signal to the exit, the
#     exit code and the message;
#   - the same four modes without --rules, on the 4.0M facts stored by
#     `drumql infer tc.dl` (answered from the store's derived facts).
#
# With BASE=<git revision>, drumql built at that revision is measured the
# same way in the same run (each build loads its own store).
#
#   bench/stream.sh                        # needs $DRUMQL_DATASETS/fb15k-237
#   REPEAT=3 BASE=88d3522 bench/stream.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DS=${DRUMQL_DATASETS:-../shared/datasets}
REPEAT=${REPEAT:-1}
if [ ! -d "$DS/fb15k-237" ]; then
  echo "stream: skipped: $DS/fb15k-237 not found (set DRUMQL_DATASETS)"
  exit 0
fi
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time; }
if ! command -v python3 >/dev/null; then
  echo "stream: skipped: python3 is needed to time the first answer and Ctrl-C"
  exit 0
fi
out=bench/out/stream
rm -rf "$out"; mkdir -p "$out"
. bench/lib.sh
build_builds "$out"
machine_line
for b in "${bins[@]}"; do
  "$out/drumql-$b" --db "$out/fb-$b.db" -q load "$DS/fb15k-237" >/dev/null
done
tc() { # the transitive closure of relation $1
  printf 'reach(X, Y) :- "%s"(X, Y).\nreach(X, Z) :- reach(X, Y), "%s"(Y, Z).\n' "$1" "$1"
}
tc /award/award_nominee/award_nominations./award/award_nomination/award_nominee > "$out/tc4m.dl"
tc /award/award_winner/awards_won./award/award_honor/award_winner > "$out/tc1m.dl"

# probe.py first CMD...: seconds to the first answer line (the second line,
# after the header), then to the exit once the reader has closed the pipe,
# and how the command ended. probe.py sigint DELAY CMD...: SIGINT after
# DELAY seconds; seconds from the signal to the exit, the exit code and the
# first line of stderr. Fields are separated by tabs. The command gets SIGINT and SIGPIPE at their
# defaults, as from a terminal (a non-interactive shell starts background
# jobs with SIGINT ignored).
cat > "$out/probe.py" <<'PY'
import signal, subprocess, sys, time

def child():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)

def ended(rc):
    return f"killed by {signal.Signals(-rc).name}" if rc < 0 else f"exit code {rc}"

mode, args = sys.argv[1], sys.argv[2:]
if mode == "first":
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, preexec_fn=child)
    p.stdout.readline()
    p.stdout.readline()
    t1 = time.monotonic()
    p.stdout.close()
    rc = p.wait()
    print(f"{t1 - t0:.2f}\t{time.monotonic() - t0:.2f}\t{ended(rc)}")
else:
    delay, cmd = float(args[0]), args[1:]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=child)
    time.sleep(delay)
    if p.poll() is not None:
        print(f"-\t{ended(p.returncode)}\tfinished before the signal")
        sys.exit(0)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    err = p.stderr.read().decode().strip().splitlines()
    rc = p.wait()
    print(f"{time.monotonic() - t0:.3f}\t{ended(rc)}\t{err[0] if err else '(no message)'}")
PY

median() { sort -n | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
modes=(sorted unordered top10 count)
flags() {
  case $1 in
  sorted) ;;
  unordered) echo --unordered ;;
  top10) echo --top 10 ;;
  count) echo --count ;;
  esac
}
# measure BUILD DB CASE MODE ARGS...: median peak RSS (KB) and wall (s) of
# the query to /dev/null, into $out/BUILD-CASE-MODE.{kb,s}.
measure() {
  local b=$1 db=$2 c=$3 m=$4
  shift 4
  : > "$out/rss"; : > "$out/wall"
  for _ in $(seq "$REPEAT"); do
    # shellcheck disable=SC2046
    /usr/bin/time -f "%M %e" -o "$out/t" "$out/drumql-$b" --db "$db" -q query "$@" $(flags "$m") > "$out/$b-$c-$m.out"
    read -r kb s < "$out/t"
    echo "$kb" >> "$out/rss"; echo "$s" >> "$out/wall"
  done
  median < "$out/rss" > "$out/$b-$c-$m.kb"
  median < "$out/wall" > "$out/$b-$c-$m.s"
}
row() { # build, label, answers, mode
  awk -v b="$1" -v l="$2" -v n="$3" -v m="$4" -v kb="$(cat "$out/$1-$5-$4.kb")" -v s="$(cat "$out/$1-$5-$4.s")" \
    'BEGIN{printf "| %s | %s | %d | %s | %.1f s | %.0f MB |\n", b, l, n, m, s, kb/1024}'
}

echo
echo "| build | query | answers | output | wall | peak RSS |"
echo "|---|---|---|---|---|---|"
for b in "${bins[@]}"; do
  for c in tc4m tc1m; do
    for m in "${modes[@]}"; do
      measure "$b" "$out/fb-$b.db" "$c" "$m" --rules "$out/$c.dl" "reach(X, Y)?"
    done
    n=$(cat "$out/$b-$c-count.out")
    echo "$n" > "$out/$c.n"
    for m in "${modes[@]}"; do row "$b" "--rules $c.dl" "$n" "$m" "$c"; done
  done
  # The 4.0M facts stored by infer, queried without --rules.
  rm -rf "$out/inf-$b.db"; cp -r "$out/fb-$b.db" "$out/inf-$b.db"
  "$out/drumql-$b" --db "$out/inf-$b.db" -q infer "$out/tc4m.dl" >/dev/null
  for m in "${modes[@]}"; do
    measure "$b" "$out/inf-$b.db" stored "$m" "reach(X, Y)?"
  done
  for m in "${modes[@]}"; do row "$b" "stored (no --rules)" "$(cat "$out/$b-stored-count.out")" "$m" stored; done
done

echo
echo "Output memory: peak RSS above --count's (the fixpoint alone) at the same closure."
for b in "${bins[@]}"; do
  for m in sorted unordered top10; do
    line="$b, $m:"
    for c in tc4m tc1m; do
      line+=$(awk -v a="$(cat "$out/$b-$c-$m.kb")" -v z="$(cat "$out/$b-$c-count.kb")" -v n="$(cat "$out/$c.n")" \
        'BEGIN{d=(a-z)/1024; printf " %+d MB at %.1fM answers,", d<0 ? -int(-d+0.5) : int(d+0.5), n/1e6}')
    done
    echo "${line%,}"
  done
done

echo
echo "Time to the first answer line, and to the exit when the reader closes the pipe after it (| head -2), 4.0M closure:"
for b in "${bins[@]}"; do
  for m in sorted unordered; do
    : > "$out/first"; : > "$out/total"
    for _ in $(seq "$REPEAT"); do
      # shellcheck disable=SC2046
      IFS=$'\t' read -r f tot how < <(python3 "$out/probe.py" first "$out/drumql-$b" --db "$out/fb-$b.db" -q query --rules "$out/tc4m.dl" "reach(X, Y)?" $(flags "$m"))
      echo "$f" >> "$out/first"; echo "$tot" >> "$out/total"
    done
    echo "$b, $m: first answer after $(median < "$out/first") s, done after $(median < "$out/total") s ($how)"
  done
done

echo
echo "Ctrl-C (SIGINT), sorted output, 4.0M closure:"
for b in "${bins[@]}"; do
  fix=$(cat "$out/$b-tc4m-count.s"); all=$(cat "$out/$b-tc4m-sorted.s")
  for when in fixpoint after; do
    if [ "$when" = fixpoint ]; then
      d=$(awk -v f="$fix" 'BEGIN{printf "%.1f", f/2}')
    else
      d=$(awk -v f="$fix" -v a="$all" 'BEGIN{printf "%.1f", (f+a)/2}')
    fi
    : > "$out/lat"
    for _ in $(seq "$REPEAT"); do
      IFS=$'\t' read -r lat how msg < <(python3 "$out/probe.py" sigint "$d" "$out/drumql-$b" --db "$out/fb-$b.db" -q query --rules "$out/tc4m.dl" "reach(X, Y)?")
      echo "$lat" >> "$out/lat"
    done
    if [ "$lat" = - ]; then
      echo "$b, signal after $d s ($when): $how $msg"
    else
      echo "$b, signal after $d s ($when): exited $(median < "$out/lat") s after it, $how: $msg"
    fi
  done
done
rm -rf "$out"/inf-*.db
