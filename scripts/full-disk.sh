#!/usr/bin/env bash
# full-disk.sh shows what drumql does on a full file system: it loads a small
# dataset into a store on a 15 MiB tmpfs, then a larger one that does not
# fit (refused before anything is written, exit 1, store unchanged), then
# fills the device and shows that stats and query still work while load
# and infer are refused. Before the free-space check, each of these writes
# died with "fatal error: fault [signal SIGBUS]".
#
# Usage: sudo scripts/full-disk.sh [BIG_DATASET]   (default: $DRUMQL_DATASETS/wn18rr)
# Needs root (it mounts a tmpfs) and the datasets of ../shared/datasets.
set -uo pipefail

cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
	echo "full-disk: needs root to mount a tmpfs" >&2
	exit 2
fi
big=${1:-${DRUMQL_DATASETS:-../shared/datasets}/wn18rr}
work=$(mktemp -d)
mnt=$work/tmpfs
bin=$work/drumql
mkdir "$mnt"
trap 'umount "$mnt" 2>/dev/null; rm -rf "$work"' EXIT
go build -o "$bin" ./cmd/drumql || exit 1
mount -t tmpfs -o size=15m tmpfs "$mnt" || exit 1
db=$mnt/db

step() {
	echo
	echo "\$ drumql $*"
	"$bin" -q --db "$db" "$@" 2>&1 | head -n 8
	echo "exit ${PIPESTATUS[0]}"
}

step load examples/family
step load "$big"
step stats
echo
echo "filling the device:"
dd if=/dev/zero of="$mnt/fill" bs=1M 2>&1 | tail -n 1
df -h "$mnt" | tail -n 1
step stats
step query 'wife(X, Y)?'
printf 'spouse(X, Y) :- wife(X, Y).\n' >"$work/rules.dl"
step infer "$work/rules.dl"
step load examples/kinship
