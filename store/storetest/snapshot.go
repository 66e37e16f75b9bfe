package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/drumql/drumql/store"
)

func testSnapshot(t *testing.T, s store.Store) {
	b := bigBatch(3000)
	b.Symbols = []string{"unused"}
	b.Facts = append(b.Facts, store.NamedFact{Rel: "t", Args: []string{"only-ternary", "x", "y"}})
	load(t, s, b)
	snap := must[*store.Snapshot](t)(s.Snapshot(context.Background()))
	CheckSnapshot(t, s, snap)
	if _, ok, _ := s.Lookup("only-ternary"); !ok {
		t.Fatal("setup")
	}
	for _, e := range snap.Entities {
		if n, _ := s.Name(e); n == "only-ternary" || n == "unused" {
			t.Errorf("entity %q is in no binary fact", n)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Snapshot(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Snapshot(canceled) = %v", err)
	}
}

// CheckSnapshot verifies snap against the store's scans: entity and
// relation numbering, both CSRs, and the edge ids of In.
func CheckSnapshot(t *testing.T, s store.Store, snap *store.Snapshot) {
	t.Helper()
	if !slices.IsSorted(snap.Entities) || !slices.IsSorted(snap.Relations) {
		t.Fatal("Entities or Relations not sorted")
	}
	ent := map[store.ID]bool{}
	var rels []store.ID
	for _, r := range must[[]store.RelationStats](t)(s.Relations()) {
		fs := collect(t, s.Scan(r.Rel))
		has := false
		for _, f := range fs {
			if len(f.Args) == 2 {
				has = true
				ent[f.Args[0]], ent[f.Args[1]] = true, true
			}
		}
		if has {
			rels = append(rels, r.Rel)
		}
	}
	slices.Sort(rels)
	if !slices.Equal(rels, snap.Relations) {
		t.Fatalf("Relations = %v, want %v", snap.Relations, rels)
	}
	var ents []store.ID
	for e := range ent {
		ents = append(ents, e)
	}
	slices.Sort(ents)
	if !slices.Equal(ents, snap.Entities) {
		t.Fatalf("Entities (%d) differ from the binary facts' symbols (%d)", len(snap.Entities), len(ents))
	}
	idx := map[store.ID]int32{}
	for i, e := range snap.Entities {
		idx[e] = int32(i)
	}
	if len(snap.Out) != len(rels) || len(snap.In) != len(rels) {
		t.Fatalf("len(Out), len(In) = %d, %d, want %d", len(snap.Out), len(snap.In), len(rels))
	}
	n := len(snap.Entities)
	for r, rel := range rels {
		out, in := snap.Out[r], snap.In[r]
		for _, m := range []store.CSR{out, in} {
			want := n + 1
			if m.RowIDs != nil {
				want = len(m.RowIDs) + 1
				if !slices.IsSorted(m.RowIDs) || len(slices.Compact(slices.Clone(m.RowIDs))) != len(m.RowIDs) {
					t.Fatalf("relation %d: RowIDs not strictly ascending", rel)
				}
				for k := range m.Stored() {
					if m.RowPtr[k+1] == m.RowPtr[k] {
						t.Fatalf("relation %d: hypersparse row %d stored without columns", rel, m.RowIDs[k])
					}
				}
			}
			if len(m.RowPtr) != want || m.RowPtr[0] != 0 || int(m.RowPtr[want-1]) != len(m.Col) {
				t.Fatalf("relation %d: bad CSR shapes", rel)
			}
		}
		if len(in.Edge) != len(in.Col) {
			t.Fatalf("relation %d: bad CSR shapes", rel)
		}
		var wantOut [][2]int32
		for f, err := range s.Scan(rel) {
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Args) == 2 {
				wantOut = append(wantOut, [2]int32{idx[f.Args[0]], idx[f.Args[1]]})
			}
		}
		var gotOut [][2]int32
		for i := range n {
			row := out.Row(int32(i))
			if !slices.IsSorted(row) {
				t.Fatalf("relation %d: Out row %d not sorted", rel, i)
			}
			for _, c := range row {
				gotOut = append(gotOut, [2]int32{int32(i), c})
			}
		}
		if !slices.Equal(gotOut, wantOut) {
			t.Fatalf("relation %d: Out differs from Scan", rel)
		}
		count := 0
		for o := range n {
			row := in.Row(int32(o))
			if !slices.IsSorted(row) {
				t.Fatalf("relation %d: In row %d not sorted", rel, o)
			}
			for k, sIdx := range row {
				lo, _ := in.Span(int32(o))
				e := in.Edge[int(lo)+k]
				if olo, ohi := out.Span(sIdx); out.Col[e] != int32(o) || e < olo || e >= ohi {
					t.Fatalf("relation %d: In edge %d does not point at (%d, %d)", rel, e, sIdx, o)
				}
				count++
			}
		}
		if count != len(wantOut) {
			t.Fatalf("relation %d: In has %d entries, want %d", rel, count, len(wantOut))
		}
	}
}

// Hypersparse returns a copy of snap with every adjacency in the
// hypersparse layout (the rows with facts only), whatever its density:
// tests read the same graph in both layouts and require the same results.
func Hypersparse(snap *store.Snapshot) *store.Snapshot {
	out := *snap
	out.Out, out.In = make([]store.CSR, len(snap.Out)), make([]store.CSR, len(snap.In))
	for r := range snap.Out {
		out.Out[r], out.In[r] = snap.Out[r].Compact(), snap.In[r].Compact()
	}
	return &out
}
