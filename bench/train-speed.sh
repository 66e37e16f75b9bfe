#!/usr/bin/env bash
# Training speed on the large benchmarks (issue 15 item 5): for
# `drumql mine --len 3 --rank 3` (default settings otherwise) on WN18RR and
# FB15k-237, the whole command's wall time and peak RSS (GNU time), the time
# of each epoch (mine's per-epoch lines) and the model's valid MRR (expected
# ties, `eval --split valid --model`). With BASE=<git revision>, drumql built
# at that revision is measured the same way in the same run, on the same
# store. EPOCHS=N stops after N epochs: speed only, no MRR. Builds use
# GOEXPERIMENT=simd, as the cells of docs/RESULTS.md.
#
#   bench/train-speed.sh                          # needs $DRUMQL_DATASETS
#   BASE=26b404f EPOCHS=1 bench/train-speed.sh
#   SETS=wn18rr bench/train-speed.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
DS=${DRUMQL_DATASETS:-../shared/datasets}
SETS=${SETS:-"wn18rr fb15k-237"}
REPEAT=1
OUT=bench/out/train-speed
mkdir -p "$OUT"
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time; }
export GOEXPERIMENT=simd
build_builds "$OUT"

echo "| dataset | build | epochs | time per epoch | mine wall | peak RSS | model valid MRR |"
echo "|---|---|---|---|---|---|---|"
for ds in $SETS; do
  if [ ! -d "$DS/$ds" ]; then echo "train-speed: $ds skipped: $DS/$ds not found (set DRUMQL_DATASETS)" >&2; continue; fi
  db=$OUT/db-$ds
  rm -rf "$db"
  "$OUT/drumql-head" --db "$db" -q load "$DS/$ds" > /dev/null
  for b in "${bins[@]}"; do
    bin=$OUT/drumql-$b
    model=$OUT/$ds-$b.model
    /usr/bin/time -f "%e %M" -o "$OUT/$ds-$b.time" "$bin" --db "$db" mine --len 3 --rank 3 ${EPOCHS:+--epochs "$EPOCHS"} \
      --save-model "$model" --out /dev/null 2> "$OUT/$ds-$b.err" > /dev/null
    epochs=$(grep -a -o 'epoch [0-9]*/[0-9]*: .*' "$OUT/$ds-$b.err" | sed 's/.*(\(.*\))$/\1/' | paste -sd ' ' -)
    n=$(grep -a -c 'epoch [0-9]*/[0-9]*: ' "$OUT/$ds-$b.err" || true)
    read -r wall rss < "$OUT/$ds-$b.time"
    mrr="—"
    if [ -z "${EPOCHS:-}" ]; then
      "$bin" --db "$db" -q eval --split valid --model "$model" --format json > "$OUT/$ds-$b-valid.json"
      mrr=$(python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["expected"]["mrr"])' "$OUT/$ds-$b-valid.json")
    fi
    echo "| $ds | $b | $n | $epochs | ${wall} s | $((rss / 1024)) MB | $mrr |"
  done
  rm -rf "$db"
done
machine_line
