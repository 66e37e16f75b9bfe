package eval

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// TestSortedInputs checks the relations a lean evaluation loads without a
// unique index (input.go): an input no rule derives is never indexed
// (no insert into a unique index, the work it saves), whole-tuple lookups
// of it (far(X, Y) reads !edge(X, Y) with both bound) find what the
// index would, an input the program also states a fact of gets its index at
// that fact, and every relation holds the same tuples in the same order as
// the evaluation that indexes everything (Infer's, not lean).
func TestSortedInputs(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	var b store.Batch
	for i := range 300 {
		b.Graph = append(b.Graph,
			store.NamedTriple{S: fmt.Sprint("n", i%97), R: "edge", O: fmt.Sprint("n", (i*7+3)%97)},
			store.NamedTriple{S: fmt.Sprint("n", i%13), R: "extra", O: fmt.Sprint("n", i%11)})
	}
	if _, err := st.Load(ctx, &b, nil); err != nil {
		t.Fatal(err)
	}
	prog, err := parser.ParseString("p.dl", `
path(X, Y) :- edge(X, Y).
path(X, Z) :- path(X, Y), edge(Y, Z).
both(X, Y) :- path(X, Y), edge(X, Y), extra(X, Y).
hop(Y, X) :- path(X, Y), edge(Y, X).
far(X, Y) :- path(X, Y), !edge(X, Y).
extra(n1, n96).
`)
	if err != nil {
		t.Fatal(err)
	}
	lean, _, _, err := runFixpoint(ctx, st, prog, Options{Threads: 2}, "test", func(e *Evaluator) { e.lean = true })
	if err != nil {
		t.Fatal(err)
	}
	full, _, _, err := runFixpoint(ctx, st, prog, Options{Threads: 2}, "test", func(*Evaluator) {})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rel    string
		sorted bool
	}{{"edge", true}, {"extra", false}, {"path", false}, {"both", false}, {"hop", false}, {"far", false}} {
		r, f := lean.Rels[lean.RelIdx[RelKey(c.rel, 2)]], full.Rels[full.RelIdx[RelKey(c.rel, 2)]]
		if r.sorted != c.sorted {
			t.Errorf("%s: sorted %v, want %v", c.rel, r.sorted, c.sorted)
		}
		if r.N == 0 || r.N != f.N {
			t.Fatalf("%s: %d tuples, %d in the indexed evaluation", c.rel, r.N, f.N)
		}
		for i := range int32(r.N) {
			if !slices.Equal(r.Tuple(i), f.Tuple(i)) {
				t.Fatalf("%s: tuple %d is %v, %v in the indexed evaluation", c.rel, i, r.Tuple(i), f.Tuple(i))
			}
		}
	}
	// The sorted edge relation answers Find as an index would.
	r := lean.Rels[lean.RelIdx[RelKey("edge", 2)]]
	for i := range int32(r.N) {
		tu := slices.Clone(r.Tuple(i))
		if k := r.Find(tu); k != i {
			t.Fatalf("Find(%v) = %d, want %d", tu, k, i)
		}
		tu[1] += 1 << 20
		if k := r.Find(tu); k != -1 {
			t.Fatalf("Find(%v) = %d, want -1", tu, k)
		}
	}
}

// TestSortedOutOfOrder: tuples that come out of order end the sorted
// state, and the relation is then indexed as if it never had been.
func TestSortedOutOfOrder(t *testing.T) {
	r := NewRelation("r", 2)
	r.MakeLean()
	r.sorted = true
	for _, tu := range [][]uint32{{1, 2}, {1, 3}, {2, 0}} {
		r.load(tu, 1, ProvBase)
	}
	if !r.sorted || r.Unique.count != 0 {
		t.Fatalf("sorted %v, %d tuples in the unique index, want none", r.sorted, r.Unique.count)
	}
	r.load([]uint32{1, 9}, 1, ProvBase)
	if r.sorted || r.Unique.count != 4 {
		t.Fatalf("out of order: sorted %v, %d tuples in the unique index, want 4", r.sorted, r.Unique.count)
	}
	for i, tu := range [][]uint32{{1, 2}, {1, 3}, {2, 0}, {1, 9}} {
		if k := r.Find(tu); k != int32(i) {
			t.Errorf("Find(%v) = %d, want %d", tu, k, i)
		}
	}
}

// TestFillSorted checks the index of a sorted relation on a prefix of its
// positions against fill's: every key's chain the same tuples in the same
// order, and a table sized for the keys (1,000 keys of 20,000 tuples in
// 2,048 slots); an index on another mask, or of a relation no longer
// sorted, is fill's, which grows with the keys too (5 keys in 16 slots).
func TestFillSorted(t *testing.T) {
	r := NewRelation("r", 3)
	r.MakeLean()
	r.sorted = true
	for i := range 20000 {
		r.load([]uint32{uint32(i / 20), uint32(i % 20 / 4), uint32(i % 4)}, 1, ProvBase)
	}
	chains := func(ix *hashIndex) [][]int32 {
		var out [][]int32
		for k := range uint32(1000) {
			var c []int32
			for i := ix.First(r, []uint32{k, 0, 0}); i >= 0; i = ix.After(i) {
				c = append(c, i)
			}
			out = append(out, c)
		}
		return out
	}
	ix := r.Index(1)
	ref := &hashIndex{mask: 1}
	ref.fill(r)
	if len(ix.Slots) != 2048 || ix.count != 1000 {
		t.Errorf("index by the first position: %d keys in %d slots, want 1000 in 2048", ix.count, len(ix.Slots))
	}
	if got, want := chains(ix), chains(ref); !slices.EqualFunc(got, want, slices.Equal) || len(got[7]) != 20 {
		t.Errorf("chains differ from fill's (key 7: %v, fill %v)", got[7], want[7])
	}
	if ix := r.Index(2); len(ix.Slots) != 16 || ix.count != 5 {
		t.Errorf("index by the second position: %d keys in %d slots, want fill's 5 in 16", ix.count, len(ix.Slots))
	}
}
