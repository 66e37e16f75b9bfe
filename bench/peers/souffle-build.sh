#!/usr/bin/env bash
# Builds Soufflé from source at a pinned commit, for local peer benchmarks
# only (never in CI): 64-bit domain (-DSOUFFLE_DOMAIN_64BIT=ON, so numbers
# and memory compare with drumql's 64-bit ids), release build, no tests.
# About half an hour on two cores.
#
# The source comes from a git directory given by SOUFFLE_GIT (a clone, bare
# or not, of https://github.com/souffle-lang/souffle, for example
#   git clone --bare https://github.com/souffle-lang/souffle souffle.git
#   SOUFFLE_GIT=$PWD/souffle.git bench/peers/souffle-build.sh
# ); the commit is SOUFFLE_COMMIT. The build goes under OUT (default
# bench/out/souffle): OUT/bin/souffle is the result, and the script prints
# its path. Rerunning it with the binary present does nothing.
#
#   SOUFFLE_GIT=DIR [JOBS=2] [OUT=DIR] bench/peers/souffle-build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
commit=${SOUFFLE_COMMIT:-a1303be3c}
out=${OUT:-$PWD/bench/out/souffle}
jobs=${JOBS:-2}
if [ -x "$out/bin/souffle" ]; then echo "$out/bin/souffle"; exit 0; fi
if [ -z "${SOUFFLE_GIT:-}" ]; then
  echo "SOUFFLE_GIT must name a git clone of https://github.com/souffle-lang/souffle" >&2
  exit 2
fi

pkgs="cmake bison flex g++ make libffi-dev zlib1g-dev libsqlite3-dev mcpp"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

rm -rf "$out/src" "$out/build"
mkdir -p "$out/src"
# tests/ is left out: the build does not need it (testing is off), and a
# partial clone may lack some of its example files.
git --git-dir="$SOUFFLE_GIT" archive "$commit" -- . ':(exclude)tests' | tar -x -C "$out/src"
cmake -S "$out/src" -B "$out/build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$out" \
  -DSOUFFLE_DOMAIN_64BIT=ON -DSOUFFLE_GIT=OFF -DSOUFFLE_ENABLE_TESTING=OFF \
  -DSOUFFLE_USE_CURSES=OFF -DSOUFFLE_BASH_COMPLETION=OFF > "$out/cmake.log"
cmake --build "$out/build" -j "$jobs" > "$out/build.log"
cmake --install "$out/build" > "$out/install.log"
echo "souffle $commit (64-bit domain)" > "$out/VERSION"
echo "$out/bin/souffle"
