package eval

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortFarEnds: sortFarEnds puts far ends in the order slices.SortFunc
// gives with compareFar (confidence descending, far end ascending), on
// random slices with many equal confidences, on sorted and reversed ones,
// and through the fallback once the partitions are too deep.
func TestSortFarEnds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	gen := func(n, confs int) []facEntry {
		fars := rng.Perm(4 * (n + 1))
		a := make([]facEntry, n)
		for i := range a {
			a[i] = facEntry{far: uint32(fars[i]), mid: uint32(i), c: float64(1+rng.IntN(confs)) / float64(confs)}
		}
		return a
	}
	check := func(name string, a []facEntry, sort func([]facEntry)) {
		t.Helper()
		want := slices.Clone(a)
		slices.SortFunc(want, compareFar)
		got := slices.Clone(a)
		sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%s, %d entries: got %v, want %v", name, len(a), got, want)
		}
	}
	for _, n := range []int{0, 1, 2, 3, 15, 16, 17, 18, 40, 100, 1000, 5000} {
		for _, confs := range []int{1, 3, 50, 1 << 20} {
			a := gen(n, confs)
			check("random", a, sortFarEnds)
			slices.SortFunc(a, compareFar)
			check("sorted", a, sortFarEnds)
			slices.Reverse(a)
			check("reversed", a, sortFarEnds)
			check("depth 1", gen(n, confs), func(a []facEntry) { sortFar(a, 1) })
		}
	}
	for range 300 {
		check("random", gen(rng.IntN(200), 1+rng.IntN(20)), sortFarEnds)
	}
}
