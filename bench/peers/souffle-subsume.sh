#!/usr/bin/env bash
# Recursive subsumption against Soufflé: random programs, each a seeded
# graph e, a relation p closed over it by one recursive rule (linear left,
# linear right or non-linear) and one or two subsumptions drawn from five
# shapes (a reverse pair, the greatest y per x, interval containment, a
# window of x per y, a step), and a relation q reading what p keeps through
# a negation. Each program runs in Soufflé (interpreted) and in `drumql run
# -j 2`; the outputs must be equal after sorting lines. Which tuples a
# removed one derived before it went depends on the order of evaluation, so
# this checks that drumql removes them when Soufflé does. Prints each
# difference, then the count; exits 1 on a difference. Local only, never in
# CI (it needs Soufflé: bench/peers/souffle-build.sh).
#
#   SOUFFLE=path/to/souffle bench/peers/souffle-subsume.sh [FIRST [LAST]]
#
# FIRST and LAST (default 1 and 200) are the seeds; SMALL=1 draws smaller
# graphs (2 to 6 nodes, 3 to 6 edges).
set -euo pipefail
cd "$(dirname "$0")/../.."
souffle=${SOUFFLE:?set SOUFFLE to a souffle binary (bench/peers/souffle-build.sh)}
first=${1:-1}
last=${2:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/drumql" ./cmd/drumql

gen() { # seed: a program on stdout
  python3 - "$1" "${SMALL:-0}" <<'EOF'
import random, sys
random.seed(int(sys.argv[1]))
if sys.argv[2] == "1":
    n, m = random.randint(2, 5), random.randint(3, 6)
else:
    n, m = random.randint(3, 8), random.randint(3, 14)
edges = sorted(set((random.randint(0, n), random.randint(0, n)) for _ in range(m)))
subs = ["p(x, y) <= p(y, x) :- x < y.",
        "p(x, y) <= p(x, z) :- y < z.",
        "p(x, y) <= p(a, b) :- a <= x, y <= b, (a != x ; b != y).",
        "p(x, y) <= p(x2, y) :- x2 > x, x2 - x < 3.",
        "p(x, y) <= p(y, z) :- x < z, x != y."]
rules = ["p(x, z) :- p(x, y), e(y, z).", "p(x, z) :- e(x, y), p(y, z).", "p(x, z) :- p(x, y), p(y, z)."]
print(".decl e(x: number, y: number)")
for a, b in edges:
    print(f"e({a}, {b}).")
print(".decl p(x: number, y: number)\n.output p\np(x, y) :- e(x, y).")
print(random.choice(rules))
print(random.choice(subs))
if random.random() < 0.5:
    print(random.choice(subs))
print(".decl q(x: number)\n.output q\nq(x) :- p(x, _), !p(_, x).")
EOF
}

diffs=0; runs=0
for seed in $(seq "$first" "$last"); do
  d=$tmp/$seed; mkdir -p "$d/souffle" "$d/drumql"
  gen "$seed" >"$d/prog.dl"
  "$souffle" -D "$d/souffle" "$d/prog.dl" >/dev/null
  "$tmp/drumql" run -j 2 -D "$d/drumql" "$d/prog.dl"
  runs=$((runs + 1))
  for f in "$d"/souffle/*.csv; do
    b=$(basename "$f")
    if ! diff <(sort "$f") <(sort "$d/drumql/$b") >/dev/null; then
      echo "seed $seed: $b differs"; diffs=$((diffs + 1))
    fi
  done
done
echo "$runs programs, $diffs outputs differ"
[ "$diffs" -eq 0 ]
