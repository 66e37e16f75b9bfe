package linkpred

import (
	"context"
	"math"
	"slices"
)

// Scorer scores link-prediction queries.
//
// Evaluate calls Score with a batch of queries that all share Rel and
// Inverse (so a model whose parameters depend only on the query relation,
// like DRUM's attention, runs once per batch), and with len(out) ==
// len(qs). Score fills out[i] with the scores of every candidate for qs[i],
// either densely or sparsely (see [Scores]); candidates are identified by
// their position in the evaluation's entity list ([Options.Entities]), which
// the scorer is built with. Score must not keep out or qs after it returns.
// The scores of a query must not depend on its Answer: queries that differ
// only in the answer are scored once (see [Evaluate]).
// With more than one worker, Score is called from several goroutines at once
// and must be safe for concurrent use.
type Scorer interface {
	// Score fills out[i] with the scores of qs[i].
	Score(ctx context.Context, qs []Query, out []Scores) error
}

// ScorerFunc adapts a function to the [Scorer] interface.
type ScorerFunc func(ctx context.Context, qs []Query, out []Scores) error

// Score calls f(ctx, qs, out).
func (f ScorerFunc) Score(ctx context.Context, qs []Query, out []Scores) error {
	return f(ctx, qs, out)
}

// Candidate is one sparsely scored candidate: its position in the entity
// list, its score, and optional tie-breakers.
//
// Candidates are ordered by Score, then by Ties compared lexicographically,
// element by element, where a missing element is below any present one (so
// with confidences in (0, 1], (0.9) < (0.9, 0.1) < (0.9, 0.2)). A NaN is a
// scorer bug: it compares as -Inf and is counted in [Report.NaN].
type Candidate struct {
	Entity int32
	Score  float32
	Ties   []float32

	lazy bool // Ties are unsorted: sort them (descending) before comparing
}

// Scores holds the scores of every candidate for one query, in one of two
// forms:
//
//   - dense: Dense is not nil and holds one score per entity of the entity
//     list, indexed by position;
//   - sparse: Dense is nil and Sparse lists the scored candidates, each entity
//     at most once, in any order. An entity that is not listed scores 0 with
//     no tie-breakers, exactly as if it were listed as {Score: 0}.
//
// Evaluate resets a Scores (Dense to nil, Sparse to empty) before each call to
// Score and keeps the memory behind [Scores.SetDense] and [Scores.AddRules]
// for reuse.
type Scores struct {
	Dense  []float32
	Sparse []Candidate

	// prior adds the candidates of a slot prior (see SlotPrior.Extend):
	// every entity of the slot not in Sparse, with score 0
	// and its count as the only tie-breaker. Shared, never written.
	prior *priorSlot

	dense []float32 // reusable memory for Dense
	keys  []float32 // reusable memory for tie-breakers
}

// SetDense switches s to the dense form with n scores, all zero, and returns
// the score slice to fill (s.Dense), reusing memory from earlier queries.
func (s *Scores) SetDense(n int) []float32 {
	if cap(s.dense) < n {
		s.dense = make([]float32, n)
	}
	s.Dense = s.dense[:n]
	clear(s.Dense)
	return s.Dense
}

// AddRules appends a sparse candidate whose ranking key the aggregator
// computes from the candidate's rule confidences; see [Aggregator]. The
// aggregator may reorder hits.
func (s *Scores) AddRules(agg Aggregator, entity int32, hits []RuleConf) {
	start := len(s.keys)
	s.keys = agg(s.keys, hits)
	s.addKey(entity, start)
}

// addKey adds the candidate entity whose key is s.keys[start:].
func (s *Scores) addKey(entity int32, start int) {
	key := s.keys[start:len(s.keys):len(s.keys)]
	c := Candidate{Entity: entity}
	if len(key) > 0 {
		c.Score = key[0]
		if len(key) > 1 {
			c.Ties = key[1:]
		}
	}
	s.Sparse = append(s.Sparse, c)
}

// AddBest is AddRules for an aggregator that is a reduction: best holds the
// candidate's distinct rule confidences, highest first (see [BestPerRule]).
func (s *Scores) AddBest(red Reduction, entity int32, best []float32) {
	start := len(s.keys)
	s.keys = red(append(s.keys, best...), start)
	s.addKey(entity, start)
}

// AddLazy appends a sparse candidate from a [LazyReduction]'s result: its
// score and its tie-breakers in any order, which the ranking sorts
// (descending) only if it compares them. The ties are copied.
func (s *Scores) AddLazy(entity int32, score float32, ties []float32) {
	start := len(s.keys)
	s.keys = append(s.keys, ties...)
	s.Sparse = append(s.Sparse, Candidate{Entity: entity, Score: score,
		Ties: s.keys[start:len(s.keys):len(s.keys)], lazy: len(ties) > 1})
}

// sortTies sorts a lazy candidate's tie-breakers, highest first.
func (c *Candidate) sortTies() {
	if c.lazy {
		slices.Sort(c.Ties)
		slices.Reverse(c.Ties)
		c.lazy = false
	}
}

// reset clears the scores for the next query, keeping memory.
func (s *Scores) reset() {
	s.Dense = nil
	clear(s.Sparse) // drop references to Ties
	s.Sparse = s.Sparse[:0]
	s.keys = s.keys[:0]
	s.prior = nil
}

// fixNaN maps NaN to -Inf.
func fixNaN(v float32) float32 {
	if v != v {
		return float32(math.Inf(-1))
	}
	return v
}

// hasNaN reports whether the candidate's key holds a NaN.
func (c *Candidate) hasNaN() bool {
	if c.Score != c.Score {
		return true
	}
	for _, v := range c.Ties {
		if v != v {
			return true
		}
	}
	return false
}

// compareKeys orders two ranking keys (score, ties): -1, 0 or +1. NaN
// compares as -Inf; a missing tie element is below any present one.
func compareKeys(as float32, at []float32, bs float32, bt []float32) int {
	if c := cmpFloat(as, bs); c != 0 {
		return c
	}
	n := min(len(at), len(bt))
	for i := range n {
		if c := cmpFloat(at[i], bt[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(at) < len(bt):
		return -1
	case len(at) > len(bt):
		return 1
	}
	return 0
}

// cmpFloat compares two scores with NaN as -Inf.
func cmpFloat(a, b float32) int {
	a, b = fixNaN(a), fixNaN(b)
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
