#!/usr/bin/env bash
# The pinned FB15k-237 file (issue 49 item 2): infer it with a build and
# check that the build derives exactly the facts of the recorded infer,
# with confidences within 1e-6, by the digests of `drumql stats --digest`
# recorded below; then time `explain` of one derived fact, the first after
# infer, and of NSAMPLE (default 20) derived facts chosen at random. The
# digests recorded are of the infer by ad85bbf, which derived as many facts
# as 22cd86d's (11,866,216); 22cd86d's own digest is not recorded yet
# (BIN=<a build of 22cd86d> bench/pinned.sh prints it).
#
# The pinned file is the output of `drumql mine --len 3` over FB15k-237 by
# the build at 22cd86d (docs/BENCHMARKS.md, "The pinned FB15k-237 file"
# says how to make it; 111,818 rules, SHA-256 f9a23e1d5bc5...). It is not
# in the repository (32 MB): give its path.
#
#   PINNED=fb-pinned.dl bench/pinned.sh              # infers with this work tree's build
#   PINNED=fb-pinned.dl BIN=/path/to/drumql bench/pinned.sh
#   PINNED=fb-pinned.dl PROFILE=DIR bench/pinned.sh  # DIR/infer.cpu, DIR/infer.peak
#
# PROFILE, when given, is a directory for the infer's CPU profile and its
# heap profile at the live heap's peak (DRUMQL_CPUPROFILE, DRUMQL_HEAPPEAK;
# go tool pprof BIN DIR/infer.peak). BIN, when given, loads FB15k-237 and
# infers; the digest and explain are always this work tree's build (the
# first with stats --digest). An infer
# takes minutes and GBs: 12 to 23 min and 3.6 to 8 GB in the runs of
# docs/BENCHMARKS.md. Exit 1 when the digests differ.
#
# What it prints is one infer's wall, CPU and peak RSS, the digests, the
# first explain after infer and the sampled explains' median and max, e.g.
# (an infer of 26 facts, not the pinned file):
#
#   infer: 0:00.16 wall, 0.05 s user + 0.01 s sys, peak RSS 28 MB
#   derived facts: 26 (want 11866216)
#   ...
#   explain (the first open after infer): 0.03 s, 27 MB
#   explain of 20 sampled derived facts: median 0.03 s, max 0.04 s, ...
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
pinned_fb15k pinned
# The derived facts of ad85bbf's infer of the pinned file, as
# `drumql stats --digest` prints them.
WANT_FACTS=11866216
WANT_DIGEST=sha256:da0ca6858efa260db8f095a5d8481d497ce8c89149c818246a2c53b10cf7f4da
WANT_CONF=sha256:6edf88f5f7e2825e80d6f0c017c188cebbe6778eac2cf48532a0ad5e190a19b6
out=bench/out/pinned
rm -rf "$out"; mkdir -p "$out"
REPEAT=1
build_builds "$out"
bin=${BIN:-$out/drumql-head}
head=$out/drumql-head
machine_line
echo "pinned file: $PINNED, SHA-256 $(sha256sum "$PINNED" | cut -c1-12)...; infer with $bin"
db=$out/fb.db
"$bin" --db "$db" -q load "$DS/fb15k-237" >/dev/null
prof=()
if [ -n "${PROFILE:-}" ]; then # the infer's CPU profile and its heap at the live heap's peak
  mkdir -p "$PROFILE"
  prof=(env DRUMQL_CPUPROFILE="$PROFILE/infer.cpu" DRUMQL_HEAPPEAK="$PROFILE/infer.peak")
fi
"${prof[@]}" /usr/bin/time -v "$bin" --db "$db" -q infer "$PINNED" >"$out/infer.out" 2>"$out/infer.time"
tv() { grep -F "$1" "$out/infer.time" | awk '{print $NF}'; }
echo "infer: $(tv 'Elapsed (wall') wall, $(tv 'User time') s user + $(tv 'System time') s sys, peak RSS $(( $(tv 'Maximum resident') / 1024 )) MB"
"$head" --db "$db" stats --digest --format json >"$out/digest.json"
got() { sed -n "s/.*\"$1\": \"\{0,1\}\([^\",]*\).*/\1/p" "$out/digest.json"; }
echo "derived facts: $(got derived_facts) (want $WANT_FACTS)"
echo "digest: $(got digest)"
echo "confidence digest: $(got confidence_digest)"
status=0
if [ "$(got derived_facts)" != "$WANT_FACTS" ] || [ "$(got digest)" != "$WANT_DIGEST" ]; then
  echo "pinned: the derived facts differ from ad85bbf's ($WANT_DIGEST)"
  status=1
elif [ "$(got confidence_digest)" != "$WANT_CONF" ]; then
  echo "pinned: the same facts, but confidences differ from ad85bbf's ($WANT_CONF) after rounding to 6 decimals"
  echo "        (by more than 1e-6, or two values within 1e-6 rounding apart: compare the facts' confidences)"
  status=1
else
  echo "pinned: the same facts and confidences (to 6 decimals) as ad85bbf's infer"
fi
# explain: the first open after infer (timed apart: it checks the tables
# infer's close left unverified, store/corrupt.go), then NSAMPLE derived facts
# chosen at random with seed 1 (bench/proofsum -sample, which reads every
# derived fact first: the page cache holds the store, as after an infer).
q='"/award/award_category/category_of"("/m/01c99j", "/m/0c4ys")'
if /usr/bin/time -f "%e %M" "$head" --db "$db" explain "$q" >"$out/explain.out" 2>"$out/explain.time"; then
  echo "explain (the first open after infer): $(tail -1 "$out/explain.time" | awk '{printf "%.2f s, %d MB", $1, $2/1024}')"
else
  echo "pinned: explain $q failed:"; cat "$out/explain.time"; status=1
fi
go build -o "$out/proofsum" ./bench/proofsum
"$out/proofsum" -db "$db" -sample "${NSAMPLE:-20}" -seed 1 >"$out/sample.txt"
while IFS= read -r fact; do
  /usr/bin/time -f "%e %M" "$head" --db "$db" explain "$fact" >"$out/explain.out" 2>"$out/explain.time" || {
    echo "pinned: explain $fact failed:" >&2; cat "$out/explain.time" >&2; status=1; }
  echo "$(tail -1 "$out/explain.time") $(grep -c '' "$out/explain.out")"
done <"$out/sample.txt" >"$out/explain.times"
sort -n "$out/explain.times" | awk '{t[NR]=$1; m=($2>m?$2:m); l=($3>l?$3:l)} END {
  printf "explain of %d sampled derived facts: median %.2f s, max %.2f s, peak RSS up to %d MB, trees of up to %d lines\n",
    NR, t[int((NR+1)/2)], t[NR], m/1024, l}'
exit $status
