package eval

import (
	"runtime"
	"testing"
)

// TestSegmentedUnique fills a lean relation's unique index past one
// segment, half through Add and half through the merge's lookup and addAt,
// and finds every tuple and none of the absent ones.
func TestSegmentedUnique(t *testing.T) {
	r := NewRelation("r", 2)
	r.MakeLean()
	n := 100_000
	key := func(i int) []uint32 { return []uint32{uint32(i % 997), uint32(i)} }
	for i := range n {
		if i%2 == 0 {
			r.Add(key(i), 1, ProvUnknown)
			continue
		}
		k, at, free := r.lookup(key(i))
		if k >= 0 {
			t.Fatalf("tuple %d found before it was added", i)
		}
		r.addAt(key(i), 1, ProvUnknown, at, free)
	}
	if r.Unique.seg == nil {
		t.Fatal("the unique index of 100,000 tuples is not segmented")
	}
	for i := range n {
		if got := r.Find(key(i)); got != int32(i) {
			t.Fatalf("Find(%v) = %d, want %d", key(i), got, i)
		}
		if k, _, _ := r.lookup(key(i)); k != int32(i) {
			t.Fatalf("lookup(%v) = %d, want %d", key(i), k, i)
		}
	}
	for i := n; i < 2*n; i++ {
		if got := r.Find(key(i)); got != -1 {
			t.Fatalf("Find(%v) = %d of an absent tuple", key(i), got)
		}
	}
	if load := float64(n) / float64(r.Unique.slotCount()); load < 0.375 || load > 0.75 {
		t.Errorf("load %.2f of the segmented index, want between 3/8 and 3/4", load)
	}
}

// TestUniqueGrowthBytes counts the bytes a lean relation's unique index
// allocates while 400,000 tuples are added: about its final slots, where
// a table that doubles allocated every smaller table before it too (twice
// the final size, the last of them live beside the new one).
func TestUniqueGrowthBytes(t *testing.T) {
	n := 400_000
	fill := func(index bool) (uint64, *Relation) {
		r := NewRelation("r", 2)
		r.MakeLean()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for i := range n {
			tu := []uint32{uint32(i), uint32(i >> 3)}
			if index {
				r.Add(tu, 1, ProvUnknown)
			} else {
				r.add(tu, 1, ProvUnknown)
			}
		}
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc, r
	}
	cols, _ := fill(false)
	all, r := fill(true)
	index := int64(all) - int64(cols)
	slots := int64(8 * r.Unique.slotCount())
	// The flat tables before the first segment (at most two segments'
	// worth), the scratch segment of a split and the directory come on
	// top.
	if limit := slots + 3*8*segLen + 64<<10; index > limit {
		t.Errorf("the unique index allocated %d bytes for %d bytes of slots, want at most %d", index, slots, limit)
	}
}

// TestGroupsWithin checks the batches of a factorised plan's groups:
// bounded by their tuples, at least one group each, the last ending at n.
func TestGroupsWithin(t *testing.T) {
	groups := [][2]int32{{0, 3}, {3, 10}, {10, 11}, {11, 12}, {12, 40}, {40, 42}}
	for _, c := range []struct{ lo, n, room, hi, w int }{
		{0, 6, 10, 2, 10}, {0, 6, 9, 1, 3}, {2, 6, 5, 4, 2}, {4, 6, 5, 5, 28}, {5, 6, 100, 6, 2}, {0, 6, 1000, 6, 42},
	} {
		if hi, w := groupsWithin(groups, c.lo, c.n, c.room); hi != c.hi || w != c.w {
			t.Errorf("groupsWithin(lo %d, room %d) = %d, %d; want %d, %d", c.lo, c.room, hi, w, c.hi, c.w)
		}
	}
}

// slotCount is the number of slots of ix, flat or segmented.
func (ix *hashIndex) slotCount() int {
	if ix.seg == nil {
		return len(ix.Slots)
	}
	return ix.seg.segments() * segLen
}

// segments is the number of segments of t.
func (t *segTable) segments() int {
	n := 0
	for k, s := range t.dir {
		// A segment of depth d appears in 2^(depth-d) entries; count it at
		// the first.
		if uint64(k)&(1<<(t.depth-s.depth)-1) == 0 {
			n++
		}
	}
	return n
}
