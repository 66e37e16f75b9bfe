#!/usr/bin/env bash
# AnyBURL's own rule application and evaluation, beside drumql's
# (bench/anyburl-rules.sh): AnyBURL's Apply ranks the test split's queries
# with a rule file (its max aggregation, 5 unseen negative examples, top 100
# candidates, every rule read: READ_THRESHOLD_CORRECT_PREDICTIONS = 1), and
# its Eval scores the ranking, filtered with facts, train, valid and test.
# Local only, never in CI; the jar is that of bench/anyburl-learn.sh.
#
#   JAR=.../AnyBURL-23-1.jar DATA=$DRUMQL_DATASETS/fb15k-237 RULES=.../rules-1000 bench/anyburl-apply.sh
set -euo pipefail
cd "$(dirname "$0")/.."
: "${JAR:?set JAR to AnyBURL-23-1.jar}"
: "${DATA:?set DATA to a DRUM dataset folder}"
: "${RULES:?set RULES to an AnyBURL rule file}"
threads=${THREADS:-2}
heap=${HEAP:-12g}
out=${OUT:-$(pwd)/bench/out/anyburl-apply/$(basename "$DATA")}
mkdir -p "$out"
# AnyBURL's training file is drumql's facts and train; CRLF stripped.
cat "$DATA/facts.txt" "$DATA/train.txt" | tr -d '\r' >"$out/train.txt"
tr -d '\r' <"$DATA/valid.txt" >"$out/valid.txt"
tr -d '\r' <"$DATA/test.txt" >"$out/test.txt"
pred="$out/predictions-$(basename "$RULES")"
cat >"$out/config-apply.properties" <<EOF
PATH_TRAINING = $out/train.txt
PATH_VALID = $out/valid.txt
PATH_TEST = $out/test.txt
PATH_RULES = $RULES
PATH_OUTPUT = $pred
UNSEEN_NEGATIVE_EXAMPLES = 5
TOP_K_OUTPUT = 100
WORKER_THREADS = $threads
READ_THRESHOLD_CORRECT_PREDICTIONS = 1
EOF
cat >"$out/config-eval.properties" <<EOF
PATH_TRAINING = $out/train.txt
PATH_VALID = $out/valid.txt
PATH_TEST = $out/test.txt
PATH_PREDICTIONS = $pred
EOF
start=$SECONDS
# AnyBURL exits with status 1 when done, as Learn does: the predictions
# file is what counts.
java "-Xmx$heap" -cp "$JAR" de.unima.ki.anyburl.Apply "$out/config-apply.properties" >"$out/apply.log" 2>&1 || true
[ -s "$pred" ] || { echo "no predictions (see $out/apply.log)"; exit 1; }
echo "applied in $((SECONDS - start)) s"
java -cp "$JAR" de.unima.ki.anyburl.Eval "$out/config-eval.properties" 2>&1 | tee "$out/eval.log" | tail -5 || true
