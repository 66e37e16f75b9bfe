package linkpred

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drumql/drumql/store"
)

// TestReductions checks that ranking by a reduction of the best confidence
// per rule, computed once, gives every candidate the key its aggregator
// gives from the raw hits (repeated rules, ties and all), and that the key
// is what Max and noisy-or mean, computed here independently.
func TestReductions(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	type pair struct {
		agg  Aggregator
		red  Reduction
		lazy LazyReduction
		top  int // 0: Max; else noisy-or over the top (-1: all)
	}
	pairs := []pair{{Max, MaxReduction, MaxLazy, 0}, {NoisyOr(3), NoisyOrReduction(3), NoisyOrLazy(3), 3},
		{NoisyOr(10), NoisyOrReduction(10), NoisyOrLazy(10), 10}, {NoisyOr(0), NoisyOrReduction(0), nil, -1}}
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
			// The lazy form: the same key once its ties are sorted.
			if p.lazy == nil || len(hits) == 0 {
				continue
			}
			var c Scores
			distinct := bs.Distinct(nil, hits)
			rng.Shuffle(len(distinct), func(i, j int) { distinct[i], distinct[j] = distinct[j], distinct[i] })
			score, ties := p.lazy(distinct)
			c.AddLazy(7, score, ties)
			c.Sparse[0].sortTies()
			if kc := append([]float32{c.Sparse[0].Score}, c.Sparse[0].Ties...); !slices.Equal(kc, kb) {
				t.Fatalf("trial %d, top %d: lazy key %v, want %v", trial, p.top, kc, kb)
			}
		}
	}
}

// TestLazyRanksAsSorted checks that candidates added lazily (tie-breakers
// sorted only when the ranking compares them) rank every answer as the
// same candidates with sorted keys do: random queries whose candidates
// share scores and differ only in later confidences.
func TestLazyRanksAsSorted(t *testing.T) {
	const n = 40
	levels := []float32{0.25, 0.5, 0.75}
	hitsOf := func(q Query, e int) []RuleConf {
		rng := rand.New(rand.NewPCG(uint64(q.Given), uint64(e)))
		hits := make([]RuleConf, rng.IntN(6))
		for i := range hits {
			hits[i] = RuleConf{Rule: int32(rng.IntN(8)), Conf: levels[rng.IntN(len(levels))]}
		}
		return hits
	}
	var qs []Query
	for g := range 60 {
		qs = append(qs, Query{Rel: 1, Given: ent(g % n), Answer: ent((g * 7) % n), Inverse: g%2 == 0})
	}
	var ids []store.ID
	for e := range n {
		ids = append(ids, ent(e))
	}
	for _, c := range []struct {
		red  Reduction
		lazy LazyReduction
	}{{MaxReduction, MaxLazy}, {NoisyOrReduction(3), NoisyOrLazy(3)}, {NoisyOrReduction(1), NoisyOrLazy(1)}} {
		scorer := func(lazy bool) Scorer {
			return ScorerFunc(func(_ context.Context, qs []Query, out []Scores) error {
				var bs BestScratch
				for i, q := range qs {
					for e := range n {
						hits := hitsOf(q, e)
						if len(hits) == 0 {
							continue
						}
						if lazy {
							score, ties := c.lazy(bs.Distinct(nil, hits))
							out[i].AddLazy(int32(e), score, ties)
						} else {
							out[i].AddBest(c.red, int32(e), bs.BestPerRule(nil, hits))
						}
					}
				}
				return nil
			})
		}
		var ranks [2][]Rank
		for k, lazy := range []bool{false, true} {
			rep, err := Evaluate(context.Background(), qs, scorer(lazy), nil, Options{Entities: ids, PerQuery: true})
			if err != nil {
				t.Fatal(err)
			}
			ranks[k] = rep.Ranks
		}
		if !slices.Equal(ranks[0], ranks[1]) {
			t.Errorf("lazy ranks %v, sorted %v", ranks[1], ranks[0])
		}
		ties := 0
		for _, r := range ranks[0] {
			if r.H > r.L {
				ties++
			}
		}
		if ties == len(ranks[0]) {
			t.Errorf("every answer ties: the tie-breakers decide nothing")
		}
	}
}
