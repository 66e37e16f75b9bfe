package eval

import (
	"math/rand/v2"
	"testing"
)

// Restore builds the unique index of columns without one (an image of
// Infer's) at the size the inserts grew the relation's own to, every
// tuple found at its index and no other, over several of place's batches
// and one partial.
func TestPlaceBuildsUniqueIndex(t *testing.T) {
	const n = 3*placeBatch + 1234
	r := NewRelation("p", 2)
	rng := rand.New(rand.NewPCG(49, 3))
	for r.N < n {
		tu := []uint32{rng.Uint32N(1000), rng.Uint32N(1000)}
		if r.Find(tu) < 0 {
			r.Add(tu, 1, ProvBase)
		}
	}
	c := r.Columns()
	c.Unique = IndexImage{}
	got := NewRelation("p", 2)
	got.Restore(c)
	if len(got.Unique.Slots) != len(r.Unique.Slots) || got.Unique.count != n {
		t.Fatalf("%d slots, %d tuples indexed; the inserts made %d slots for %d", len(got.Unique.Slots), got.Unique.count, len(r.Unique.Slots), n)
	}
	occupied := 0
	for _, s := range got.Unique.Slots {
		if s != 0 {
			occupied++
		}
	}
	if occupied != n {
		t.Errorf("%d slots occupied, want %d", occupied, n)
	}
	for i := range int32(n) {
		if j := got.Find(r.Tuple(i)); j != i {
			t.Fatalf("tuple %d %v found at %d", i, r.Tuple(i), j)
		}
	}
	if j := got.Find([]uint32{1000, 1000}); j >= 0 {
		t.Errorf("an absent tuple found at %d", j)
	}
}
