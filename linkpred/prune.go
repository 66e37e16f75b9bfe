package linkpred

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/drumql/drumql/internal/noisyor"
	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/store"
)

// Pruner is a [VariantScorer] of rule confidences that can also score a
// query from its strong confidences alone, for rank-safe pruning: the
// answers of a query (all those that share its relation, direction and
// given entity) are ranked from a pass that applies only the rules able
// to give some candidate at least a threshold tau, when that pass decides
// every rank exactly; otherwise the query is scored in full. A Scorer
// passed to [Evaluate] that implements PruneTop and ScorePruned is pruned
// too, as its variant 0.
//
// Why the ranks are exact. A candidate's key is built from its distinct
// rule confidences, highest first (see [Max] and [NoisyOr]). The pass at
// tau knows exactly the confidences c with c >= tau (float64, before the
// conversion to float32); every other confidence c < tau converts to at
// most T = float32(tau), as rounding is monotone, and every known one to
// at least T. So a listed candidate's known confidences are the exact
// prefix of its full list, and the rest of the list (possibly empty) is
// at most T. For [Max] its score (the first) is exact; for noisy-or over
// the top k it is exact once k confidences are known, and otherwise lies
// between the noisy-or of the known ones and that of the known ones
// followed by T repeated up to k (noisyor.Of multiplies in the order given,
// and each rounded product is monotone in its factors, so more factors,
// or larger confidences, never lower it). A candidate no rule gives tau
// scores at most U = T for Max, the noisy-or of k copies of T otherwise.
// An answer's rank counts the eligible candidates whose key is above its
// own, then those equal to it. The pass decides it when the answer is
// listed with an exact score s > U (every unlisted candidate is below it;
// the slot prior and the unlisted rest too, at score 0), when every listed
// candidate's score bounds lie on one side of s or its score equals s
// exactly, and when, for those equal, the known prefixes of the two
// tie-breaker lists differ at a position where the larger element is
// above T (the smaller one, known or not, is then below it, and a missing
// element is below any present one). Anything else, a tie whose known
// prefixes agree, an answer the pass does not list, a score bound that
// straddles s, leaves the rank undecided, and the query is scored in full.
type Pruner interface {
	VariantScorer
	// PruneTop reports how variant v builds the key of q's candidates from
	// their distinct rule confidences: top 0 when the score is the highest
	// confidence and the tie-breakers the others, highest first ([Max]);
	// top k > 0 when the score is the noisy-or of the k highest (all of
	// them when there are fewer) and the tie-breakers are all of them,
	// highest first ([NoisyOr]; for noisy-or over every confidence, or
	// across groups, k bounds how many a candidate can have). ok is false
	// when the variant cannot be pruned.
	PruneTop(v int, q Query) (top int, ok bool)
	// ScorePruned fills out[v] with the sparse scores of q under each
	// variant v from the rule confidences c >= tau alone (the float64
	// confidence, before its conversion to float32): a candidate is listed
	// when a rule gives it at least tau, with the key the variant gives
	// those of its confidences; the others are not listed, and no slot
	// prior is added. It returns false when it does not score q so (out is
	// then undefined), for example when tau is no higher than the
	// threshold of its full scores. Its scores are never NaN.
	ScorePruned(ctx context.Context, q Query, tau float64, out []Scores) (bool, error)
}

// prunedSingle is the VariantScorer of a Scorer that is a Pruner of one
// variant (see [Evaluate]).
type prunedSingle struct {
	single
	p interface {
		PruneTop(v int, q Query) (int, bool)
		ScorePruned(ctx context.Context, q Query, tau float64, out []Scores) (bool, error)
	}
}

func (s prunedSingle) PruneTop(v int, q Query) (int, bool) { return s.p.PruneTop(v, q) }

func (s prunedSingle) ScorePruned(ctx context.Context, q Query, tau float64, out []Scores) (bool, error) {
	return s.p.ScorePruned(ctx, q, tau, out)
}

// asVariants returns scorer as a VariantScorer of one variant, a Pruner
// when it implements the methods of one.
func asVariants(scorer Scorer) VariantScorer {
	if p, ok := scorer.(interface {
		PruneTop(v int, q Query) (int, bool)
		ScorePruned(ctx context.Context, q Query, tau float64, out []Scores) (bool, error)
	}); ok {
		return prunedSingle{single{scorer}, p}
	}
	return single{scorer}
}

// pruneHistory is the number of past queries of a relation and direction
// whose needs set the threshold of the next (pruneGuess).
const pruneHistory = 8

// pruneState is what a worker learnt of one relation and direction: the
// thresholds its last queries needed (0: none would do), and how its
// recent pruned passes fared.
type pruneState struct {
	need        [pruneHistory]float64
	n           int
	tries, wins int // recent pruned passes, and those that decided
	skipped     int // queries scored in full without a try since the last
}

// relDir identifies a relation and a direction.
type relDir struct {
	rel store.ID
	inv bool
}

// pruneGuess returns the threshold at which to try a pruned pass for q, 0
// for none: half the lowest of what the last queries of its relation and
// direction needed (a pruned pass lists less than a full one, and ties
// need more of the keys), none until one such query was scored in full,
// and only now and then while fewer than half of the recent tries
// decided. Only the work depends on it, never the ranks.
func (w *worker) pruneGuess(q Query) float64 {
	st := w.prune[relDir{q.Rel, q.Inverse}]
	if st == nil || st.n == 0 {
		return 0
	}
	if st.tries >= 4 && 2*st.wins < st.tries && st.skipped < 16 {
		st.skipped++
		return 0
	}
	st.skipped = 0
	tau := math.Inf(1)
	for _, v := range st.need[:min(st.n, pruneHistory)] {
		tau = min(tau, v)
	}
	return tau / 2
}

// pruneTried records whether a pruned pass for q decided its ranks.
func (w *worker) pruneTried(q Query, won bool) {
	st := w.pruneState(q)
	st.tries++
	if won {
		st.wins++
	}
	if st.tries == 16 {
		st.tries, st.wins = 8, st.wins/2
	}
}

// pruneLearn records what q's query needed.
func (w *worker) pruneLearn(q Query, need float64) {
	st := w.pruneState(q)
	st.need[st.n%pruneHistory] = need
	st.n++
}

// pruneState returns the state of q's relation and direction.
func (w *worker) pruneState(q Query) *pruneState {
	if w.prune == nil {
		w.prune = map[relDir]*pruneState{}
	}
	k := relDir{q.Rel, q.Inverse}
	st := w.prune[k]
	if st == nil {
		st = &pruneState{}
		w.prune[k] = st
	}
	return st
}

// reach returns the confidence a candidate needs for a score of s under a
// variant of PruneTop top: s for Max, the c whose noisy-or of top copies
// is s otherwise.
func reach(top int, s float32) float64 {
	if top == 0 {
		return float64(s)
	}
	return 1 - math.Pow(1-float64(s), 1/float64(top))
}

// prunedUnits ranks, by a pruned pass each (Pruner), the units of batch it
// can and returns the others.
func (w *worker) prunedUnits(ctx context.Context, qs []Query, batch [][]int, ranks [][]Rank, scored [][]bool) ([][]int, error) {
	var left [][]int
	for _, u := range batch {
		ok, err := w.prunedUnit(ctx, qs, u, ranks, scored)
		if err != nil {
			return nil, err
		}
		if !ok {
			left = append(left, u)
		}
	}
	return left, nil
}

// prunedUnit ranks the queries of unit u under every variant from one
// pruned pass, and reports whether it decided them all (see Pruner); when
// it did not, the ranks it wrote are written again by the full pass.
func (w *worker) prunedUnit(ctx context.Context, qs []Query, u []int, ranks [][]Rank, scored [][]bool) (bool, error) {
	q := qs[u[0]]
	var tau float64
	if w.pruneAt != nil {
		tau = w.pruneAt(q)
	} else {
		tau = w.pruneGuess(q)
	}
	if tau <= 0 {
		return false, nil
	}
	w.tops = w.tops[:0]
	for v := range w.k {
		top, ok := w.pruner.PruneTop(v, q)
		if !ok {
			return false, nil
		}
		w.tops = append(w.tops, top)
	}
	if len(w.pout) < w.k {
		w.pout = make([]Scores, w.k)
	}
	for v := range w.pout {
		w.pout[v].reset()
	}
	ok, err := w.pruner.ScorePruned(ctx, q, tau, w.pout[:w.k])
	if err != nil {
		return false, pkgerr.Newf("linkpred: score query (relation %d, given %d, inverse %t): %w", q.Rel, q.Given, q.Inverse, err)
	}
	if !ok {
		return false, nil
	}
	t := float32(tau)
	need := math.Inf(1)
	for v := range w.k {
		n, ok := w.rankPruned(qs, u, &w.pout[v], w.tops[v], t, ranks[v], scored[v])
		if !ok {
			w.pruneTried(q, false)
			return false, nil
		}
		need = min(need, n)
	}
	w.pruneTried(q, true)
	w.pruneLearn(q, need)
	return true, nil
}

// rankPruned ranks the answers of unit u from the pruned scores s (a pass
// at T, under a variant of PruneTop top) when it decides every one of
// them, and returns the lowest confidence their scores need (reach).
func (w *worker) rankPruned(qs []Query, u []int, s *Scores, top int, t float32, ranks []Rank, scored []bool) (float64, bool) {
	w.nextGen()
	if w.at == nil {
		w.at = make([]int32, w.n)
		w.atGen = make([]uint32, w.n)
	}
	for _, e := range w.filter.Answers(qs[u[0]]) {
		if i, ok := w.index[e]; ok {
			w.excl[i] = w.gen
		}
	}
	unlisted := t // the highest score of a candidate with no confidence of T
	if top > 0 {
		unlisted = w.noisyOrUpTo(nil, top, t)
	}
	cs := s.Sparse
	w.sorted, w.loose = w.sorted[:0], w.loose[:0]
	for k := range cs {
		c := &cs[k]
		if c.Entity < 0 || int(c.Entity) >= w.n || w.atGen[c.Entity] == w.gen || c.hasNaN() {
			return 0, false // malformed: the full pass reports it
		}
		w.atGen[c.Entity], w.at[c.Entity] = w.gen, int32(k)
		if w.excl[c.Entity] == w.gen {
			continue
		}
		if top == 0 || len(c.Ties) >= top {
			w.sorted = append(w.sorted, scoreAt{c.Score, int32(k)})
			continue
		}
		// Fewer than top confidences known: the score is between the
		// noisy-or of those and of those followed by T up to top.
		c.sortTies()
		w.loose = append(w.loose, looseAt{c.Score, w.noisyOrUpTo(c.Ties, top, t)})
	}
	slices.SortFunc(w.sorted, func(x, y scoreAt) int { return cmpFloat(y.score, x.score) })
	slices.SortFunc(w.loose, func(x, y looseAt) int { return cmpFloat(y.hi, x.hi) })
	w.looseLo = w.looseLo[:0] // the lowest lo of each prefix of w.loose
	for j, l := range w.loose {
		if j > 0 {
			l.lo = min(l.lo, w.looseLo[j-1])
		}
		w.looseLo = append(w.looseLo, l.lo)
	}
	need := math.Inf(1)
	for _, i := range u {
		a, ok := w.index[qs[i].Answer]
		if !ok || w.atGen[a] != w.gen {
			return 0, false // not listed: its score is unknown
		}
		ac := &cs[w.at[a]]
		ac.sortTies()
		as, at := ac.Score, ac.Ties
		lo, hi, exact := as, as, top == 0 || len(at) >= top
		if !exact {
			hi = w.noisyOrUpTo(at, top, t)
		}
		if !(lo > unlisted) {
			return 0, false // an unlisted candidate may reach it
		}
		// The candidates of exact scores: above hi, then those whose score
		// may equal the answer's, which must equal its exact score and be
		// above it by the known prefixes of their tie-breakers (no key is
		// known to equal the answer's: see cmpKnown).
		gt, _ := slices.BinarySearchFunc(w.sorted, hi, func(x scoreAt, s float32) int { return cmpFloat(s, x.score) })
		for j := gt; j < len(w.sorted) && w.sorted[j].score >= lo; j++ {
			c := &cs[w.sorted[j].k]
			if c.Entity == a {
				continue
			}
			if !exact || c.Score != as {
				return 0, false
			}
			c.sortTies()
			if cmpKnown(c.Ties, at, t) != 1 {
				return 0, false
			}
			gt++
		}
		// The candidates known by their bounds: those whose highest score
		// reaches the answer's must be above it, lowest score and all.
		n := sort.Search(len(w.loose), func(j int) bool { return w.loose[j].hi < lo })
		if n > 0 && !(w.looseLo[n-1] > hi) {
			return 0, false
		}
		gt += n
		ranks[i], scored[i] = Rank{L: 1 + gt, H: 1 + gt}, true
		need = min(need, reach(top, lo))
	}
	return need, true
}

// noisyOrUpTo returns the noisy-or of the confidences cs (highest first,
// each at least t) followed by t up to top of them, in float32: the
// highest score noisy-or over the top confidences can give a candidate
// whose confidences above t are cs. Up to exactTail copies of t are
// multiplied in as the scorer multiplies them; more (a noisy-or over all of
// a head's rules makes top hundreds) are bounded by a power, lowered by more
// than its rounding can differ from the product's, so that the bound stays
// at or above the score and costs no more than cs.
func (w *worker) noisyOrUpTo(cs []float32, top int, t float32) float32 {
	k := top - len(cs)
	if k <= exactTail {
		w.tbuf = append(w.tbuf[:0], cs...)
		for range k {
			w.tbuf = append(w.tbuf, t)
		}
		return float32(noisyor.Of(w.tbuf))
	}
	p := 1.0 // as noisyor.Of multiplies cs
	for _, c := range cs {
		p *= 1 - clamp01(float64(c))
	}
	return float32(1 - p*tailProduct(t, k))
}

// clamp01 clamps c to [0, 1], as noisyor.Of does.
func clamp01(c float64) float64 { return min(max(c, 0), 1) }

// exactTail is the most copies of the threshold noisyOrUpTo multiplies in
// one by one.
const exactTail = 16

// tailProduct returns a number at most the product of k factors 1-t
// rounded one by one after any positive p (as noisyor.Of rounds them): the
// power (within a few units in the last place) lowered by 2(k+16) units,
// more than the k roundings of the product and the power's own error.
func tailProduct(t float32, k int) float64 {
	q := 1 - clamp01(float64(t))
	return math.Pow(q, float64(k)) * (1 - float64(2*(k+16))*0x1p-53)
}

// looseAt is a listed candidate's score bounds (rankPruned).
type looseAt struct{ lo, hi float32 }

// cmpKnown compares two tie-breaker lists of which only a prefix is known
// (ct a candidate's, at the answer's, both sorted highest first), each
// followed by unknown elements of at most t or by nothing: 1 when the
// candidate's full list is certainly above the answer's, -1 below, 2 when
// the known prefixes cannot tell. It never returns 0: lists that agree on
// their known parts are undecided even when both end there, as either may
// go on with elements of at most t.
func cmpKnown(ct, at []float32, t float32) int {
	n := min(len(ct), len(at))
	for i := range n {
		if c := cmpFloat(ct[i], at[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(ct) > n && ct[n] > t:
		return 1 // the answer's element there is at most t, or missing
	case len(at) > n && at[n] > t:
		return -1
	}
	return 2
}

// needOf returns the lowest confidence the answers of unit u need under a
// variant of PruneTop top, from its full scores s: 0 when an answer scores
// 0 (a pruned pass cannot rank it).
func (w *worker) needOf(qs []Query, u []int, s *Scores, top int) float64 {
	w.ans = w.ans[:0]
	for _, i := range u {
		a, ok := w.index[qs[i].Answer]
		if !ok {
			return 0
		}
		w.ans = append(w.ans, a)
	}
	slices.Sort(w.ans)
	need, found := math.Inf(1), 0
	for k := range s.Sparse {
		c := &s.Sparse[k]
		if _, ok := slices.BinarySearch(w.ans, c.Entity); ok {
			if !(c.Score > 0) {
				return 0
			}
			need = min(need, reach(top, c.Score))
			found++
		}
	}
	if found < len(slices.Compact(w.ans)) {
		return 0
	}
	return need
}

// learnFull records what the units of batch, scored in full (outs), needed.
func (w *worker) learnFull(qs []Query, batch [][]int, outs [][]Scores) {
	for j, u := range batch {
		need := math.Inf(1)
		for v := range w.k {
			top, ok := w.pruner.PruneTop(v, qs[u[0]])
			if !ok || outs[v][j].Dense != nil {
				return
			}
			need = min(need, w.needOf(qs, u, &outs[v][j], top))
		}
		w.pruneLearn(qs[u[0]], need)
	}
}
