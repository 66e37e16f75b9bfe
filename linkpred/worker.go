package linkpred

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/store"
)

// worker holds one goroutine's scratch memory.
type worker struct {
	n      int
	index  map[store.ID]int32
	filter *Filter
	scorer VariantScorer
	k      int

	qs   []Query
	out  [][]Scores
	gen  uint32
	excl []uint32 // excl[i] == gen: candidate i is filtered out
	seen []uint32 // seen[i] == gen: sparse candidate i already listed
	ex   []int32  // filtered candidate positions of the current query

	scored bool // the last query ranked gave its answer a score above 0

	at     []int32  // at[e]: e's position in the unit's candidates (atGen[e] == gen)
	atGen  []uint32 // see at
	sorted []scoreAt

	// Rank-safe pruning (prune.go), when the scorer is a Pruner.
	pruner  Pruner
	pruneAt func(q Query) float64 // Options.PruneAt
	prune   map[relDir]*pruneState
	pout    []Scores  // a pruned pass's scores, per variant
	tops    []int     // PruneTop per variant
	tbuf    []float32 // confidences for a noisy-or bound
	loose   []looseAt // candidates known by their score bounds
	looseLo []float32 // the lowest bound of each prefix of loose
	ans     []int32   // a unit's answers (needOf)
}

// scoreAt is a listed candidate's score and its position, for rankUnit.
type scoreAt struct {
	score float32
	k     int32
}

func newWorker(n int, index map[store.ID]int32, filter *Filter, scorer VariantScorer, k int) *worker {
	w := &worker{n: n, index: index, filter: filter, scorer: scorer, k: k, out: make([][]Scores, k)}
	w.pruner, _ = scorer.(Pruner)
	return w
}

// run scores one batch under every variant (each unit's first query, see
// makeBatches), stores the ranks of every query of its units, and adds the
// number of NaN scores seen to nans[variant].
func (w *worker) run(ctx context.Context, qs []Query, batch [][]int, ranks [][]Rank, scored [][]bool, nans []int) error {
	if w.pruner != nil {
		var err error
		if batch, err = w.prunedUnits(ctx, qs, batch, ranks, scored); err != nil || len(batch) == 0 {
			return err
		}
	}
	w.qs = w.qs[:0]
	for _, u := range batch {
		w.qs = append(w.qs, qs[u[0]])
	}
	outs := make([][]Scores, w.k)
	for v := range w.out {
		if cap(w.out[v]) < len(batch) {
			w.out[v] = append(w.out[v][:cap(w.out[v])], make([]Scores, len(batch)-cap(w.out[v]))...)
		}
		outs[v] = w.out[v][:len(batch)]
		for i := range outs[v] {
			outs[v][i].reset()
		}
	}
	first := w.qs[0]
	if err := w.scorer.ScoreVariants(ctx, w.qs, outs); err != nil {
		return pkgerr.Newf("linkpred: score %d queries of relation %d (inverse %t): %w",
			len(batch), first.Rel, first.Inverse, err)
	}
	if w.pruner != nil {
		w.learnFull(qs, batch, outs)
	}
	for v, out := range outs {
		for j, u := range batch {
			if len(u) > 1 && out[j].Dense == nil {
				if err := w.rankUnit(qs, u, &out[j], ranks[v], scored[v], &nans[v]); err != nil {
					return err
				}
				continue
			}
			for _, i := range u {
				rk, n, err := w.rank(qs[i], &out[j])
				if err != nil {
					return pkgerr.Newf("linkpred: query %d (relation %d, given %d, inverse %t): %w",
						i, qs[i].Rel, qs[i].Given, qs[i].Inverse, err)
				}
				ranks[v][i], scored[v][i] = rk, w.scored
				nans[v] += n
			}
		}
	}
	return nil
}

// nextGen advances the stamp generation, clearing the stamps on wrap-around.
func (w *worker) nextGen() {
	if w.excl == nil {
		w.excl = make([]uint32, w.n)
		w.seen = make([]uint32, w.n)
	}
	w.gen++
	if w.gen == 0 {
		clear(w.excl)
		clear(w.seen)
		w.gen = 1
	}
}

// rank computes (L, H) for one query and counts NaN scores.
func (w *worker) rank(q Query, s *Scores) (Rank, int, error) {
	w.nextGen()
	a := int32(-1)
	if i, ok := w.index[q.Answer]; ok {
		a = i
	}
	// Other true answers are not candidates.
	w.ex = w.ex[:0]
	for _, e := range w.filter.Answers(q) {
		if i, ok := w.index[e]; ok && i != a {
			w.excl[i] = w.gen
			w.ex = append(w.ex, i)
		}
	}
	eligible := w.n - len(w.ex)
	if a >= 0 {
		eligible--
	}
	if s.Dense != nil {
		return w.rankDense(a, s.Dense)
	}
	return w.rankSparse(a, eligible, s.Sparse, s.prior)
}

// rankUnit ranks the answers of the queries u, which share their scores s
// (sparse): they differ only in the answer, so they share the filtered
// entities too. Each answer some candidate key places above 0 (reached) is
// ranked by a binary search over the unit's eligible candidates sorted by
// score once, and a comparison of full keys among those with its score;
// the others are ranked by rank, one by one. Ranking every answer of a hub query
// (thousands) against every candidate (thousands) grew with the square
// of the graph. The ranks are rank's.
func (w *worker) rankUnit(qs []Query, u []int, s *Scores, ranks []Rank, scored []bool, nans *int) error {
	w.nextGen()
	if w.at == nil {
		w.at = make([]int32, w.n)
		w.atGen = make([]uint32, w.n)
	}
	q0 := qs[u[0]]
	w.ex = w.ex[:0] // every known answer, each query's own included
	for _, e := range w.filter.Answers(q0) {
		if i, ok := w.index[e]; ok {
			w.excl[i] = w.gen
			w.ex = append(w.ex, i)
		}
	}
	cs := s.Sparse
	w.sorted = w.sorted[:0]
	nan := 0
	for k := range cs {
		c := &cs[k]
		if c.Entity < 0 || int(c.Entity) >= w.n {
			return w.unitError(q0, fmt.Errorf("%w: candidate %d out of range [0, %d)", ErrBadScores, c.Entity, w.n))
		}
		if w.atGen[c.Entity] == w.gen {
			return w.unitError(q0, fmt.Errorf("%w: candidate %d listed twice", ErrBadScores, c.Entity))
		}
		w.atGen[c.Entity], w.at[c.Entity] = w.gen, int32(k)
		if c.hasNaN() {
			nan++
		}
		if w.excl[c.Entity] != w.gen {
			w.sorted = append(w.sorted, scoreAt{fixNaN(c.Score), int32(k)})
		}
	}
	slices.SortFunc(w.sorted, func(x, y scoreAt) int { return cmpFloat(y.score, x.score) })
	var later []int
	for _, i := range u {
		q := qs[i]
		a, ok := w.index[q.Answer]
		if !ok || w.atGen[a] != w.gen || cmpFloat(0, cs[w.at[a]].Score) >= 0 {
			later = append(later, i) // not reached: the prior and the rest decide
			continue
		}
		ac := &cs[w.at[a]]
		ac.sortTies()
		as, at := fixNaN(ac.Score), ac.Ties
		// Eligible candidates scoring strictly more, then those with as.
		gt, _ := slices.BinarySearchFunc(w.sorted, as, func(x scoreAt, t float32) int { return cmpFloat(t, x.score) })
		eq := 0
		for j := gt; j < len(w.sorted) && w.sorted[j].score == as; j++ {
			k := w.sorted[j].k
			if cs[k].Entity == a {
				continue // the answer, when the filter does not hold it
			}
			tally(&cs[k], as, at, &gt, &eq)
		}
		ranks[i], scored[i] = Rank{L: 1 + gt, H: 1 + gt + eq}, true
		*nans += nan
	}
	if len(later) == 0 {
		return nil
	}
	later, err := w.rankUnreached(qs, later, s, ranks, scored, nans, nan)
	if err != nil {
		return err
	}
	for _, i := range later {
		q := qs[i]
		rk, n, err := w.rank(q, s)
		if err != nil {
			return pkgerr.Newf("linkpred: query %d (relation %d, given %d, inverse %t): %w", i, q.Rel, q.Given, q.Inverse, err)
		}
		ranks[i], scored[i] = rk, w.scored
		*nans += n
	}
	return nil
}

// rankUnreached ranks, within rankUnit (its marks still set: w.excl and
// w.ex for the unit's known answers, w.at for the listed candidates), the
// queries of u whose answer is an indexed entity that no candidate lists:
// as rankSparse would, from counts made once for the unit (the listed
// candidates above 0, and the slot prior's counts of the entities rankSparse
// takes back) and binary searches. It returns the queries it left to rank:
// answers listed with a score of 0 or below, or not indexed.
func (w *worker) rankUnreached(qs []Query, u []int, s *Scores, ranks []Rank, scored []bool, nans *int, nan int) ([]int, error) {
	cs, prior := s.Sparse, s.prior
	var taken []float32 // prior counts of the listed and the known answers in the slot
	if prior != nil {
		if last := prior.ents[len(prior.ents)-1]; prior.ents[0] < 0 || int(last) >= w.n {
			return nil, w.unitError(qs[u[0]], fmt.Errorf("%w: prior candidates out of range [0, %d)", ErrBadScores, w.n))
		}
		for k := range cs {
			if c, ok := prior.count(cs[k].Entity); ok {
				taken = append(taken, c)
			}
		}
		for _, e := range w.ex {
			if w.atGen[e] != w.gen {
				if c, ok := prior.count(e); ok {
					taken = append(taken, c)
				}
			}
		}
		slices.Sort(taken)
	}
	// The listed eligible candidates: above an unlisted answer's key when
	// they score above 0, compared in full when they score 0.
	listedElig, above := 0, 0
	var zero []int32
	for k := range cs {
		if w.excl[cs[k].Entity] == w.gen {
			continue
		}
		listedElig++
		switch cmpFloat(cs[k].Score, 0) {
		case 1:
			above++
		case 0:
			zero = append(zero, int32(k))
		}
	}
	var left []int
	for _, i := range u {
		a, ok := w.index[qs[i].Answer]
		if !ok || w.atGen[a] == w.gen {
			left = append(left, i)
			continue
		}
		var at []float32 // the answer's key is (0, at)
		gt, eq, listed := 0, 0, 0
		if prior != nil {
			c, inSlot := prior.count(a)
			if inSlot {
				at = []float32{c}
			}
			gt, eq = prior.compareAll(0, at)
			listed = len(prior.ents) - len(taken)
			// Take back the listed and the known answers: (0, [t]) against
			// (0, at).
			if at == nil {
				gt -= len(taken)
			} else {
				lo, _ := slices.BinarySearch(taken, c)
				hi := lo
				for hi < len(taken) && taken[hi] == c {
					hi++
				}
				gt -= len(taken) - hi
				eq -= hi - lo
			}
			if inSlot && w.excl[a] != w.gen { // the answer itself, not taken yet
				listed--
				eq--
			}
		}
		listed += listedElig
		gt += above
		for _, k := range zero {
			tally(&cs[k], 0, at, &gt, &eq)
		}
		ex := len(w.ex)
		if w.excl[a] == w.gen {
			ex-- // a query's own answer is not filtered out
		}
		if rest := w.n - ex - 1 - listed; rest > 0 {
			switch compareKeys(0, nil, 0, at) {
			case 1:
				gt += rest
			case 0:
				eq += rest
			}
		}
		ranks[i], scored[i] = Rank{L: 1 + gt, H: 1 + gt + eq}, false
		*nans += nan
	}
	return left, nil
}

// tally counts candidate c in gt when its key ranks above the answer's
// (as, at), in eq when it ties; it sorts c's lazy tie-breakers when the
// scores are equal.
func tally(c *Candidate, as float32, at []float32, gt, eq *int) {
	if c.lazy && cmpFloat(c.Score, as) == 0 {
		c.sortTies()
	}
	switch compareKeys(c.Score, c.Ties, as, at) {
	case 1:
		*gt++
	case 0:
		*eq++
	}
}

// unitError wraps a malformed-scores error of a unit as run does.
func (w *worker) unitError(q Query, err error) error {
	return pkgerr.Newf("linkpred: query (relation %d, given %d, inverse %t): %w", q.Rel, q.Given, q.Inverse, err)
}

func (w *worker) rankDense(a int32, d []float32) (Rank, int, error) {
	if len(d) != w.n {
		return Rank{}, 0, fmt.Errorf("%w: %d dense scores for %d entities", ErrBadScores, len(d), w.n)
	}
	sa := float32(math.Inf(-1))
	if a >= 0 {
		sa = fixNaN(d[a])
	}
	w.scored = sa > 0
	// Count over every entity, then take back the answer and the filtered.
	gt, eq, nan := 0, 0, 0
	for _, v := range d {
		if v != v {
			nan++
			v = float32(math.Inf(-1))
		}
		if v > sa {
			gt++
		} else if v == sa {
			eq++
		}
	}
	if a >= 0 {
		eq-- // the answer ties with itself
	}
	for _, i := range w.ex {
		v := fixNaN(d[i])
		if v > sa {
			gt--
		} else if v == sa {
			eq--
		}
	}
	return Rank{L: 1 + gt, H: 1 + gt + eq}, nan, nil
}

// rankSparse ranks answer a (-1: not a candidate) among the sparse
// candidates cs, the slot prior's entities not in cs, and the unlisted rest;
// eligible is the number of candidates other than a and the filtered-out
// entities (listed in w.ex and marked in w.excl). Its time grows with cs and
// the filtered entities, and only logarithmically with the prior's slot.
func (w *worker) rankSparse(a int32, eligible int, cs []Candidate, prior *priorSlot) (Rank, int, error) {
	// The answer's key: listed, implicit 0, or -Inf when not a candidate.
	var as float32
	var at []float32
	if a < 0 {
		as = float32(math.Inf(-1))
	}
	nan := 0
	for k := range cs {
		c := &cs[k]
		if c.Entity < 0 || int(c.Entity) >= w.n {
			return Rank{}, 0, fmt.Errorf("%w: candidate %d out of range [0, %d)", ErrBadScores, c.Entity, w.n)
		}
		if w.seen[c.Entity] == w.gen {
			return Rank{}, 0, fmt.Errorf("%w: candidate %d listed twice", ErrBadScores, c.Entity)
		}
		w.seen[c.Entity] = w.gen
		if c.hasNaN() {
			nan++
		}
		if c.Entity == a {
			c.sortTies()
			as, at = c.Score, c.Ties
		}
	}
	gt, eq, listed := 0, 0, 0
	w.scored = a >= 0 && w.seen[a] == w.gen && cmpFloat(0, as) < 0
	if w.scored {
		// The answer scores above 0: the prior's candidates (score 0) and
		// the unlisted rest rank below it, however many there are.
		prior = nil
	}
	if prior != nil {
		if last := prior.ents[len(prior.ents)-1]; prior.ents[0] < 0 || int(last) >= w.n {
			return Rank{}, 0, fmt.Errorf("%w: prior candidates out of range [0, %d)", ErrBadScores, w.n)
		}
		// The prior's entities not listed in cs have the key (0, [count]):
		// compare all of the slot's at once, then take back those listed,
		// filtered out, or the answer.
		var ac [1]float32
		if a >= 0 && w.seen[a] != w.gen {
			if c, ok := prior.count(a); ok {
				ac[0] = c
				as, at = 0, ac[:]
			}
		}
		gt, eq = prior.compareAll(as, at)
		listed = len(prior.ents)
		takeBack := func(e int32) {
			c, ok := prior.count(e)
			if !ok {
				return
			}
			listed--
			switch compareKeys(0, []float32{c}, as, at) {
			case 1:
				gt--
			case 0:
				eq--
			}
		}
		for k := range cs {
			takeBack(cs[k].Entity)
		}
		for _, e := range w.ex {
			if w.seen[e] != w.gen {
				takeBack(e)
			}
		}
		if a >= 0 && w.seen[a] != w.gen {
			takeBack(a)
		}
	}
	for k := range cs {
		c := &cs[k]
		if c.Entity == a || w.excl[c.Entity] == w.gen {
			continue
		}
		listed++
		tally(c, as, at, &gt, &eq)
	}
	// Unlisted eligible candidates all have the key (0, no ties).
	if rest := eligible - listed; rest > 0 {
		switch compareKeys(0, nil, as, at) {
		case 1:
			gt += rest
		case 0:
			eq += rest
		}
	}
	return Rank{L: 1 + gt, H: 1 + gt + eq}, nan, nil
}
