package eval

import "testing"

// TestGrowthWithin: growthWithin(n) predicts the doubling of an index's
// slots exactly at the insert that makes it (none for fewer inserts), and
// counts the growth of a chained index's Next array.
func TestGrowthWithin(t *testing.T) {
	r := NewRelation("p", 2)
	add := func(k int) {
		for range k {
			r.Add([]uint32{uint32(r.N), uint32(r.N % 7)}, 1, ProvBase)
		}
	}
	add(1000)
	ix := r.Index(1) // chained: the first position
	for _, c := range []struct {
		name string
		ix   *hashIndex
	}{{"unique", &r.Unique}, {"by first position", ix}} {
		room := len(c.ix.Slots)/2 - c.ix.count // inserts that fit before a doubling
		slots := len(c.ix.Slots)
		if g := c.ix.growthWithin(room); c.ix.unique && g != 0 {
			t.Errorf("%s: growthWithin(%d) = %d with room for %d more tuples, want 0", c.name, room, g, room)
		}
		if g := c.ix.growthWithin(room + 1); g < 16*int64(slots) {
			t.Errorf("%s: growthWithin(%d) = %d, want at least %d (the slots doubled)", c.name, room+1, g, 16*slots)
		}
		if c.ix.unique {
			add(room)
			if len(c.ix.Slots) != slots {
				t.Fatalf("%s: slots grew from %d to %d within the predicted room", c.name, slots, len(c.ix.Slots))
			}
			add(1)
			if len(c.ix.Slots) != 2*slots {
				t.Fatalf("%s: %d slots after the predicted doubling of %d", c.name, len(c.ix.Slots), slots)
			}
		}
	}
	if g := ix.growthWithin(cap(ix.Next) - len(ix.Next) + 1); g < 4*int64(cap(ix.Next)) {
		t.Errorf("Next at %d of %d: growthWithin says %d bytes, want at least %d", len(ix.Next), cap(ix.Next), g, 4*cap(ix.Next))
	}
	e := &Evaluator{Rels: []*Relation{r}}
	if g, want := e.growthWithin(1<<20), r.Unique.growthWithin(1<<20)+ix.growthWithin(1<<20); g != want || g == 0 {
		t.Errorf("Evaluator.growthWithin = %d, want %d (the sum over the indexes)", g, want)
	}
}
