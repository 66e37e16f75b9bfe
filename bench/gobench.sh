#!/usr/bin/env bash
# The Go benchmarks recorded in docs/BENCHMARKS.md, with the peak RSS of each
# benchmark binary (/usr/bin/time), in one run:
#
#   bench/gobench.sh [parser|sparse|reasoner|store]...   (default: all)
#
# Large datasets come from $DRUMQL_DATASETS (default ../shared/datasets); the
# benchmarks that need them skip, saying so, when they are absent. Output
# goes to the terminal and to bench/out/gobench-<part>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
export DRUMQL_DATASETS=$(realpath -m "${DRUMQL_DATASETS:-../shared/datasets}")
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time; }
mkdir -p bench/out bin
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(go version)"

# run NAME PKG GOEXPERIMENT BENCH BENCHTIME
run() {
  local name=$1 pkg=$2 exp=$3 bench=$4 bt=$5
  GOEXPERIMENT=$exp go test -c -o "bin/$name.test" "$pkg"
  echo "== $name: GOEXPERIMENT=$exp go test -run=NONE -bench='$bench' -benchtime=$bt $pkg"
  (cd "$pkg" && /usr/bin/time -f "peak RSS %M KB, wall %e s" "$OLDPWD/bin/$name.test" \
    -test.run=NONE -test.bench="$bench" -test.benchtime="$bt" -test.benchmem) 2>&1 | tee -a "bench/out/gobench-$name.txt"
}

parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(store parser sparse reasoner)
for p in "${parts[@]}"; do
  rm -f "bench/out/gobench-$p"*.txt
  case $p in
  store) run store ./store "" 'LoadFB15k237|SnapshotFB15k237' 5x ;;
  parser)
    run parser ./parser "" 'Parse100k|ParseValidate100k|ParseParticiple100k|Merge100k' 3x ;;
  sparse)
    run sparse ./miner/internal/sparse "" 'MulAdd/fb15k237/B128|GatherAdd/fb15k237/B128|MemBandwidth' 20x
    run sparse-simd ./miner/internal/sparse simd 'MulAdd/fb15k237/B128|GatherAdd/fb15k237/B128' 20x ;;
  reasoner)
    run reasoner ./reasoner "" 'TCChain2000|WeightedCycle1000' 3x
    run reasoner-fb ./reasoner "" 'FB15k' 3x ;;
  *) echo "unknown part $p"; exit 2 ;;
  esac
done
