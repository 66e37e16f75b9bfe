#!/usr/bin/env bash
# The profile that `go build ./cmd/drumql` optimises with (profile-guided
# optimisation: the Go toolchain reads cmd/drumql/default.pgo, and inlines
# the hot calls it names, such as a chain walk's step in the factorised
# joins). It is a CPU profile of `drumql infer` of the pinned FB15k-237
# file (bench/pinned.sh says how that file is made), the product's heaviest
# operation, written by a build without a profile so that the profile
# names the calls as the source makes them.
#
#   PINNED=fb-pinned.dl bench/pgo.sh            # writes bench/out/pgo/infer.pgo
#   PINNED=fb-pinned.dl INSTALL=1 bench/pgo.sh  # and copies it to cmd/drumql/default.pgo
#
# An infer takes 11 to 15 minutes and 3 GB on the 2-core machines of
# docs/BENCHMARKS.md. The profile is only a hint to the compiler: a build
# with any profile, or none, derives the same facts (bench/pinned.sh
# checks the digests).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
pinned_fb15k pgo
out=bench/out/pgo
rm -rf "$out"; mkdir -p "$out"
go build -pgo=off -o "$out/drumql" ./cmd/drumql
"$out/drumql" --db "$out/fb.db" -q load "$DS/fb15k-237" >/dev/null
DRUMQL_CPUPROFILE="$out/infer.pgo" "$out/drumql" --db "$out/fb.db" -q infer "$PINNED" >/dev/null
echo "pgo: wrote $out/infer.pgo ($(du -k "$out/infer.pgo" | cut -f1) KB)"
if [ -n "${INSTALL:-}" ]; then
  cp "$out/infer.pgo" cmd/drumql/default.pgo
  echo "pgo: installed as cmd/drumql/default.pgo"
fi
rm -rf "$out/fb.db"
