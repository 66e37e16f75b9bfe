package eval

import (
	"slices"
	"testing"
)

// TestLookupAddAt checks the merge's lookup and addAt against Find and
// Add: the same answers, and every tuple in the slot Add would have put it
// in (the unique indexes equal slot for slot), across the doublings where
// lookup gives no free slot, for lean (load 3/4) and other relations.
func TestLookupAddAt(t *testing.T) {
	for _, lean := range []bool{false, true} {
		a, b := NewRelation("a", 2), NewRelation("b", 2)
		if lean {
			a.MakeLean()
			b.MakeLean()
		}
		free := 0
		x := uint32(7)
		for range 5000 {
			x = x*1664525 + 1013904223
			tu := []uint32{x >> 20, x & 63}
			k, at, ok := b.lookup(tu)
			if want := a.Find(tu); k != want {
				t.Fatalf("lookup(%v) = %d, Find says %d", tu, k, want)
			}
			if k >= 0 {
				continue
			}
			if ok {
				free++
			}
			a.Add(tu, 1, ProvBase)
			b.addAt(tu, 1, ProvBase, at, ok)
		}
		if free == 0 || !slices.Equal(a.Unique.Slots, b.Unique.Slots) || a.Unique.count != b.Unique.count {
			t.Errorf("lean %v: %d tuples added at their free slot; unique indexes equal: %v (%d and %d tuples)",
				lean, free, slices.Equal(a.Unique.Slots, b.Unique.Slots), a.Unique.count, b.Unique.count)
		}
	}
}

// TestCheckEmitHysteresis checks when workers look candidates up (endRound):
// a relation that looks them up stops when fewer than 1 in 8 repeat; a lean
// one that does not starts again only at 7 in 8, another at 1 in 8.
func TestCheckEmitHysteresis(t *testing.T) {
	for _, c := range []struct {
		lean, check bool
		dups        int
		want        bool
	}{
		{true, true, 127, false}, {true, true, 128, true},
		{true, false, 128, false}, {true, false, 895, false}, {true, false, 896, true},
		{false, false, 128, true}, {false, false, 127, false},
	} {
		r := NewRelation("r", 2)
		if c.lean {
			r.MakeLean()
		}
		r.CheckEmit, r.cands, r.dups = c.check, 1024, c.dups
		e := &Evaluator{Rels: []*Relation{r}}
		e.endRound(map[int32][]int32{})
		if r.CheckEmit != c.want {
			t.Errorf("lean %v, looking up %v, %d repeats in 1024: looking up %v, want %v", c.lean, c.check, c.dups, r.CheckEmit, c.want)
		}
	}
}
