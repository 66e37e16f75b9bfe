package linkpred

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGroupsAtAgainstAllPairs checks GroupsAt, which skips the pairs it can
// (already joined, or too different in size to reach the lowest overlap),
// against union-find over every pair of rules at each overlap alone, on
// random prediction sets: small ones (exact sketches) and some larger than a
// sketch.
func TestGroupsAtAgainstAllPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 60 {
		n := 2 + rng.IntN(30)
		sk := NewRuleSketches(n)
		for i := range n {
			size := rng.IntN(12)
			if rng.IntN(8) == 0 {
				size = SketchSize + rng.IntN(40)
			}
			universe := 6 + rng.IntN(100)
			for range size {
				sk.Add(i, uint64(rng.IntN(universe)))
			}
		}
		sets := make([][]uint64, n)
		for i, s := range sk.s {
			sets[i] = slices.Sorted(slices.Values(s))
		}
		mins := [][]float64{{0}, {0.5}, {0.2, 0.6, 1}, {0.8, 0.4}, {0, 0.2, 0.4, 0.6, 0.8, 1}}[trial%5]
		got := sk.GroupsAt(mins)
		for t2, m := range mins {
			parent := make([]int32, n)
			for i := range parent {
				parent[i] = int32(i)
			}
			for i := range n {
				for j := i + 1; j < n; j++ {
					if jac := jaccard(sets[i], sets[j]); jac > 0 && jac >= m {
						union(parent, int32(i), int32(j))
					}
				}
			}
			if want := numberGroups(parent); !slices.Equal(got[t2], want) {
				t.Fatalf("trial %d, overlap %v: groups %v, want %v", trial, m, got[t2], want)
			}
		}
	}
}
