package eval

import (
	"fmt"
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

// BenchmarkSortFarEnds sorts memos of far ends of a few sizes, with many
// equal confidences, by sortFarEnds ("typed") and by slices.SortFunc with
// compareFar ("func"), as facBuild sorted them before.
func BenchmarkSortFarEnds(b *testing.B) {
	for _, n := range []int{8, 64, 512} {
		rng := rand.New(rand.NewPCG(uint64(n), 3))
		src := make([]facEntry, n)
		for i := range src {
			src[i] = facEntry{far: uint32(i), c: float64(1+rng.IntN(20)) / 20}
		}
		rng.Shuffle(n, func(i, j int) { src[i].far, src[j].far = src[j].far, src[i].far })
		a := make([]facEntry, n)
		for _, s := range []struct {
			name string
			sort func([]facEntry)
		}{{"typed", sortFarEnds}, {"func", func(a []facEntry) { slices.SortFunc(a, compareFar) }}} {
			b.Run(fmt.Sprintf("%s/%d", s.name, n), func(b *testing.B) {
				for range b.N {
					copy(a, src)
					s.sort(a)
				}
			})
		}
	}
}
