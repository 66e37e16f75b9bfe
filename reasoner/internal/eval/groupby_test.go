package eval

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGroupBy checks groupBy against a stable sort of the tuples by the
// grouped position: the same order (ties as they were in d) and spans.
func TestGroupBy(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	r := NewRelation("r", 3)
	for range 5000 {
		tu := []uint32{rng.Uint32N(50), rng.Uint32N(7), rng.Uint32() | 1<<31}
		if r.Find(tu) < 0 {
			r.Add(tu, 1, ProvBase)
		}
	}
	for _, pos := range []int{0, 1, 2} {
		var d []int32
		for i := range int32(r.Len()) {
			if rng.IntN(3) > 0 {
				d = append(d, i)
			}
		}
		rng.Shuffle(len(d), func(i, j int) { d[i], d[j] = d[j], d[i] }) // "as they were" need not be sorted
		want := slices.Clone(d)
		slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(r.Tuple(a)[pos], r.Tuple(b)[pos]) })
		got, groups := groupBy(r, d, pos)
		if !slices.Equal(got, want) {
			t.Fatalf("position %d: not the stable order", pos)
		}
		next := int32(0)
		for _, g := range groups {
			if g[0] != next || g[1] <= g[0] {
				t.Fatalf("position %d: span %v after %d", pos, g, next)
			}
			v := r.Tuple(got[g[0]])[pos]
			for _, k := range got[g[0]:g[1]] {
				if r.Tuple(k)[pos] != v {
					t.Fatalf("position %d: span %v mixes values", pos, g)
				}
			}
			if g[1] < int32(len(got)) && r.Tuple(got[g[1]])[pos] == v {
				t.Fatalf("position %d: span %v ends inside its value", pos, g)
			}
			next = g[1]
		}
		if next != int32(len(got)) {
			t.Fatalf("position %d: spans end at %d of %d", pos, next, len(got))
		}
	}
}
