#!/usr/bin/env bash
# AnyBURL learns rules on a DRUM dataset's training graph (facts.txt and
# train.txt; never valid or test), with 2 worker threads and -Xmx12g, and
# writes its rule files at the given snapshots (seconds of learning). The
# rules are then applied with bench/anyburl-rules.sh (drumql convert, then
# drumql eval under each aggregation). Local only, never in CI: AnyBURL is
# not part of the project. Its jar comes from a checkout of the public
# repository symbolic-kg/PyClause (clause/bin/AnyBURL-23-1.jar), run on the
# machine's Java 17.
#
#   JAR=.../AnyBURL-23-1.jar DATA=$DRUMQL_DATASETS/fb15k-237 SNAPSHOTS=100,1000 bench/anyburl-learn.sh
#   then: RULES=bench/out/anyburl-learn/fb15k-237/rules-100 DATA=... bench/anyburl-rules.sh
#
# Prints the rule files written and how many rules each holds. THREADS
# (default 2) and HEAP (default 12g) change the threads and the heap.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${JAR:?set JAR to AnyBURL-23-1.jar (clause/bin/ of a PyClause checkout)}"
: "${DATA:?set DATA to a DRUM dataset folder}"
snapshots=${SNAPSHOTS:-100,1000}
threads=${THREADS:-2}
heap=${HEAP:-12g}
name=$(basename "$DATA")
out=${OUT:-$(pwd)/bench/out/anyburl-learn/$name}
mkdir -p "$out"
command -v java >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null; }

# AnyBURL reads tab-separated head, relation, tail: the training graph is
# facts and train (fb15k-237's files are CRLF).
train="$out/train.txt"
cat "$DATA/facts.txt" "$DATA/train.txt" | tr -d '\r' >"$train"

config="$out/config-learn.properties"
cat >"$config" <<EOF
PATH_TRAINING = $train
PATH_OUTPUT = $out/rules
SNAPSHOTS_AT = $snapshots
WORKER_THREADS = $threads
EOF

start=$SECONDS
# AnyBURL 23-1 exits with status 1 after writing its last snapshot: what
# counts is the rule files below.
rc=0
java "-Xmx$heap" -cp "$JAR" de.unima.ki.anyburl.Learn "$config" >"$out/learn.log" 2>&1 || rc=$?
echo "learned in $((SECONDS - start)) s, exit status $rc (log: $out/learn.log)"
missing=0
for s in ${snapshots//,/ }; do
  f="$out/rules-$s"
  if [ -f "$f" ]; then
    echo "$f: $(wc -l <"$f") rules"
  else
    echo "$f: missing (see $out/learn.log)"
    missing=1
  fi
done
exit $missing
