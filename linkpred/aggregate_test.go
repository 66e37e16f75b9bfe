package linkpred

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestReductions checks that ranking by a reduction of the best confidence
// per rule, computed once, gives every candidate the key its aggregator
// gives from the raw hits (repeated rules, ties and all), and that the key
// is what Max and noisy-or mean, computed here independently.
func TestReductions(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	type pair struct {
		agg Aggregator
		red Reduction
		top int // 0: Max; else noisy-or over the top (-1: all)
	}
	pairs := []pair{{Max, MaxReduction, 0}, {NoisyOr(3), NoisyOrReduction(3), 3},
		{NoisyOr(10), NoisyOrReduction(10), 10}, {NoisyOr(0), NoisyOrReduction(0), -1}}
	levels := []float32{0.1, 0.25, 0.5, 0.9, 1}
	var bs BestScratch
	for trial := range 500 {
		hits := make([]RuleConf, rng.IntN(15))
		for i := range hits {
			hits[i] = RuleConf{Rule: int32(rng.IntN(6 + trial%40)), Conf: levels[rng.IntN(len(levels))]}
		}
		// The best confidence of each rule, highest first, by hand.
		bestOf := map[int32]float32{}
		for _, h := range hits {
			bestOf[h.Rule] = max(bestOf[h.Rule], h.Conf)
		}
		var want []float32
		for _, c := range bestOf {
			want = append(want, c)
		}
		slices.Sort(want)
		slices.Reverse(want)
		best := BestPerRule(nil, slices.Clone(hits))
		if !slices.Equal(best, want) {
			t.Fatalf("trial %d: BestPerRule %v, want %v", trial, best, want)
		}
		// The scratch's version, reused across trials and appending after
		// what dst holds.
		prefix := []float32{-1, -2}
		if got := bs.BestPerRule(slices.Clone(prefix), hits); !slices.Equal(got, append(prefix, want...)) {
			t.Fatalf("trial %d: BestScratch.BestPerRule %v, want %v after %v", trial, got, want, prefix)
		}
		for _, p := range pairs {
			var a, b Scores
			a.AddRules(p.agg, 7, slices.Clone(hits))
			b.AddBest(p.red, 7, best)
			ka := append([]float32{a.Sparse[0].Score}, a.Sparse[0].Ties...)
			kb := append([]float32{b.Sparse[0].Score}, b.Sparse[0].Ties...)
			if !slices.Equal(ka, kb) {
				t.Fatalf("trial %d, top %d: aggregator key %v, reduction key %v", trial, p.top, ka, kb)
			}
			wantKey := slices.Clone(want)
			if p.top != 0 {
				prod := 1.0
				for k, c := range want {
					if p.top < 0 || k < p.top {
						prod *= 1 - float64(c)
					}
				}
				wantKey = append([]float32{float32(1 - prod)}, want...)
			} else if len(want) == 0 {
				wantKey = []float32{0}
			}
			if !slices.Equal(kb, wantKey) {
				t.Fatalf("trial %d, top %d: key %v, want %v", trial, p.top, kb, wantKey)
			}
		}
	}
}
