package linkpred

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drumql/drumql/internal/noisyor"
)

// TestGroupedNoisyOrPaths checks GroupedNoisyOr's two paths (few hits: no
// sort; many: sorted by group) against the definition: the best
// confidence of each group, highest first, after their noisy-or.
func TestGroupedNoisyOrPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 1))
	group := make([]int32, 40)
	for i := range group {
		group[i] = int32(rng.IntN(12))
	}
	agg := GroupedNoisyOr(group)
	small, large := 0, 0
	for range 500 {
		hits := make([]RuleConf, rng.IntN(3*groupedSmall))
		best := map[int64]float32{}
		for i := range hits {
			r := int32(rng.IntN(50)) // 40..49: groups of their own
			hits[i] = RuleConf{Rule: r, Conf: float32(rng.IntN(10)+1) / 10}
			k := -1 - int64(r)
			if int(r) < len(group) {
				k = int64(group[r])
			}
			best[k] = max(best[k], hits[i].Conf)
		}
		var confs []float32
		for _, c := range best {
			confs = append(confs, c)
		}
		slices.SortFunc(confs, func(a, b float32) int { return cmp.Compare(b, a) })
		want := append([]float32{float32(noisyor.Of(confs))}, confs...)
		if len(hits) == 0 {
			want = []float32{0}
		}
		if got := agg(nil, slices.Clone(hits)); !slices.Equal(got, want) {
			t.Fatalf("%d hits %v: key %v, want %v", len(hits), hits, got, want)
		}
		if len(hits) <= groupedSmall {
			small++
		} else {
			large++
		}
	}
	if small < 100 || large < 100 {
		t.Errorf("%d cases with few hits, %d with many", small, large)
	}
}
