package store

import (
	"context"
	"iter"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// A write of derived facts that fills many memtables pays for the
// compactions it leaves before its process closes the store: the next
// process to open it finds no compaction due, and its update (one derived
// fact) and close rewrite no table of the store (every table there before is
// there after).
func TestCompactionDebtPaid(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := Options{MemTableSize: chainMemTable}
	db, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := db.Intern("r")
	if err != nil {
		t.Fatal(err)
	}
	const n = 1500000 // about 60 MiB of keys and values: 7 memtables
	r := rand.New(rand.NewPCG(49, 1))
	facts := func(yield func(Derived, error) bool) {
		for range n {
			d := Derived{Fact: Fact{Rel: rel, Args: []ID{r.Uint32(), r.Uint32()}}, Confidence: 1, Prov: Provenance{Rule: "r"}}
			if !yield(d, nil) {
				return
			}
		}
	}
	if err := db.ReplaceDerivedSeq(ctx, n*64, iter.Seq2[Derived, error](facts)); err != nil {
		t.Fatal(err)
	}
	if !db.Settle(ctx) {
		t.Error("Settle: compactions still due after its limit")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if db.CompactionDue() {
		t.Errorf("a compaction is due when the store is opened after a write of %d derived facts", n)
	}
	before := tables(t, dir)
	put := Derived{Fact: Fact{Rel: rel, Args: []ID{1, 2}}, Confidence: 1, Prov: Provenance{Rule: "r"}}
	if err := db.UpdateDerived(ctx, DerivedUpdate{Put: []Derived{put}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	after := tables(t, dir)
	for _, f := range before {
		if !slices.Contains(after, f) {
			t.Errorf("table %s, there after the write of derived facts, was compacted away by the next writer (%d tables before it, %d after)", f, len(before), len(after))
			break
		}
	}
}

// tables lists the table files of the store in dir.
func tables(t *testing.T, dir string) []string {
	t.Helper()
	fs, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range fs {
		fs[i] = filepath.Base(f)
	}
	if len(fs) == 0 {
		t.Fatal("no tables")
	}
	return fs
}
