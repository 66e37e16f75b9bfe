#!/usr/bin/env bash
# Store benchmark with a peer, in one run: load fb15k-237 (facts + train,
# 272,115 triples, plus the valid and test splits) into a fresh drumql store,
# and into SQLite (a table of triples with the same two relation-first
# indexes, one transaction) as the peer. Prints wall time, peak RSS and size
# on disk for each; then the Go benchmarks of the snapshot.
#
#   bench/store.sh            # needs $DRUMQL_DATASETS/fb15k-237 (default ../shared/datasets)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DRUMQL_DATASETS:-../shared/datasets}/fb15k-237
[ -d "$DATA" ] || { echo "fb15k-237 not found at $DATA (set DRUMQL_DATASETS)"; exit 1; }
if ! command -v sqlite3 >/dev/null || [ ! -x /usr/bin/time ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3 time >/dev/null
fi
out=bench/out/store
rm -rf "$out"; mkdir -p "$out" bin
go build -o bin/drumql ./cmd/drumql

row() { # name timefile dir
  read -r secs kb < "$2"
  printf '| %s | %.2f s | %.0f MB | %.1f MB |\n' "$1" "$secs" "$(awk -v k="$kb" 'BEGIN{print k/1024}')" \
    "$(du -sk "$3" | awk '{print $1/1024}')"
}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(sqlite3 --version | cut -d' ' -f1 | sed 's/^/sqlite /')"
echo
echo "| load fb15k-237 | wall | peak RSS | on disk |"
echo "|---|---|---|---|"
/usr/bin/time -f "%e %M" -o "$out/t-drumql" bin/drumql --db "$out/drumql.db" -q load "$DATA" > /dev/null
row "drumql load (Badger, synced)" "$out/t-drumql" "$out/drumql.db"

# SQLite peer: the same triples (CRLF stripped), both relation-first indexes.
mkdir -p "$out/sqlite"
cat > "$out/load.sql" <<SQL
PRAGMA journal_mode=WAL;
CREATE TABLE t(s TEXT, r TEXT, o TEXT, split TEXT);
.mode tabs
BEGIN;
.import '|tr -d "\r" < $DATA/facts.txt | sed "s/\$/\tfacts/"' t
.import '|tr -d "\r" < $DATA/train.txt | sed "s/\$/\ttrain/"' t
.import '|tr -d "\r" < $DATA/valid.txt | sed "s/\$/\tvalid/"' t
.import '|tr -d "\r" < $DATA/test.txt | sed "s/\$/\ttest/"' t
CREATE INDEX rs ON t(r, s, o);
CREATE INDEX ro ON t(r, o, s);
COMMIT;
SQL
/usr/bin/time -f "%e %M" -o "$out/t-sqlite" sqlite3 "$out/sqlite/kg.db" < "$out/load.sql"
row "sqlite3 .import + 2 indexes" "$out/t-sqlite" "$out/sqlite"
echo
echo "rows in sqlite: $(sqlite3 "$out/sqlite/kg.db" 'select count(*) from t')"
echo
go test -run=NONE -bench='LoadFB15k237|SnapshotFB15k237' -benchtime=5x ./store/
