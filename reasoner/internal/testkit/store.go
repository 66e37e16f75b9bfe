package testkit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// NewStore returns a memory store holding the triples of tsv
// (subject<TAB>relation<TAB>object lines).
func NewStore(t testing.TB, tsv string) *store.Mem {
	t.Helper()
	st := store.NewMemory()
	LoadTSV(t, st, tsv)
	return st
}

// LoadTSV loads the triples of tsv (subject<TAB>relation<TAB>object lines)
// into st. Blank lines and lines starting with # are skipped; any other
// line without three fields fails the test.
func LoadTSV(t testing.TB, st store.Store, tsv string) {
	t.Helper()
	var b store.Batch
	for line := range strings.SplitSeq(tsv, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("bad triple line %q", line)
		}
		b.Graph = append(b.Graph, store.NamedTriple{S: f[0], R: f[1], O: f[2]})
	}
	if _, err := st.Load(context.Background(), &b, nil); err != nil {
		t.Fatal(err)
	}
}

// MustParse parses the program src (named test.dl), or fails the test.
func MustParse(t testing.TB, src string) *datalog.Program {
	t.Helper()
	p, err := parser.ParseString("test.dl", src)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return p
}

// MustQuery parses the query src and returns its atom, or fails the test.
func MustQuery(t testing.TB, src string) datalog.Atom {
	t.Helper()
	q, err := parser.ParseQuery(src)
	if err != nil {
		t.Fatalf("parse query %q: %v", src, err)
	}
	return q.Atom
}

// FB15k loads fb15k-237 from $DRUMQL_DATASETS (default ../../shared/datasets
// from the calling test's package directory) into a memory store, or skips
// the benchmark.
func FB15k(b *testing.B) store.Store {
	dir := os.Getenv("DRUMQL_DATASETS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "datasets")
	}
	dir = filepath.Join(dir, "fb15k-237")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("fb15k-237 not found at %s (set DRUMQL_DATASETS): %v", dir, err)
	}
	batch, err := store.ReadDataset(dir)
	if err != nil {
		b.Fatal(err)
	}
	st := store.NewMemory()
	if _, err := st.Load(context.Background(), batch, nil); err != nil {
		b.Fatal(err)
	}
	return st
}
