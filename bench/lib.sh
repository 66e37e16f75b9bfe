# Shared pieces of the bench scripts that compare this build with an older
# one (source it from a script that has cd'ed to the repository root).

# build_builds OUT: builds drumql at the work tree into OUT/drumql-head and,
# when $BASE names a git revision, drumql at that revision into
# OUT/drumql-base; sets the array bins to (head) or (base head).
build_builds() {
  local out=$1
  go build -o "$out/drumql-head" ./cmd/drumql
  bins=(head)
  if [ -n "${BASE:-}" ]; then
    mkdir -p "$out/base-src"
    git archive "$BASE" | tar -x -C "$out/base-src"
    (cd "$out/base-src" && go build -o ../drumql-base ./cmd/drumql)
    bins=(base head)
  fi
}

# pinned_fb15k NAME starts a script that infers the pinned file ($PINNED,
# which it requires) over fb15k-237 from $DRUMQL_DATASETS (default
# ../shared/datasets): it sets DS, and exits 0 saying NAME was skipped when
# the dataset is not there.
pinned_fb15k() {
  DS=${DRUMQL_DATASETS:-../shared/datasets}
  : "${PINNED:?set PINNED to the pinned mined file}"
  if [ ! -d "$DS/fb15k-237" ]; then
    echo "$1: skipped: $DS/fb15k-237 not found (set DRUMQL_DATASETS)"
    exit 0
  fi
}

# machine_line prints the machine and how busy it is, then the revisions.
machine_line() {
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(awk '/MemTotal/{printf "%.0f GB", $2/1048576}' /proc/meminfo), shared with other work (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  echo "head: $(git rev-parse --short HEAD)${BASE:+, base: $BASE}; median of $REPEAT run(s)"
}

# each_dataset WHICH FN: calls FN NAME DIR for each dataset of WHICH (small:
# family, kinship, umls from examples/; large: wn18rr, fb15k-237 from
# $DRUMQL_DATASETS, default ../shared/datasets; all: both), or exits 2.
each_dataset() {
  local sets s data=${DRUMQL_DATASETS:-../shared/datasets}
  case "$1" in
    small) sets="family kinship umls" ;;
    large) sets="wn18rr fb15k-237" ;;
    all) sets="family kinship umls wn18rr fb15k-237" ;;
    *) echo "usage: $0 [small|large|all]" >&2; exit 2 ;;
  esac
  for s in $sets; do
    case $s in
      family|kinship|umls) "$2" "$s" "examples/$s" ;;
      *) "$2" "$s" "$data/$s" ;;
    esac
  done
}
