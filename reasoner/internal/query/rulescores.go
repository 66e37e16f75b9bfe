package query

import (
	"cmp"
	"context"
	"github.com/drumql/drumql/internal/pkgerr"
	"slices"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// RuleScores applies, for link prediction, every rule whose head is the
// binary predicate head to the entity given: as the head's first argument,
// or its second when inverse. It returns, per candidate entity for the
// other argument, the confidence each rule gives it on its own (the rule's
// weight times its best body derivation), scores descending with ties by
// rule index. Hits are sorted by their scores (lexicographically,
// descending), then by symbol id.
//
// Each rule is applied once to the graph, as rule learners evaluate rules:
// a body literal over a relation the store holds base facts of reads those
// facts (and any the program states), never what other rules derive for
// that relation; a body literal over any other predicate (an auxiliary
// predicate such as parent in a hand-written file) reads what the program
// derives for it. Chain rules over graph relations use the CSR fast path
// (frontier propagation over a trie of body paths, so rules sharing a prefix
// share its work); other rules are evaluated goal-directed by the evaluator.
func (en *Engine) RuleScores(ctx context.Context, head, given string, inverse bool) ([]eval.RuleHit, error) {
	cd, ents, sc, err := en.collectHits(ctx, head, given, inverse, en.Opt.Min)
	if sc != nil {
		defer en.scratch.Put(sc)
	}
	if err != nil {
		return nil, err
	}
	return en.groupHits(cd, ents, sc)
}

// EachRuleHit is RuleScores without building its result, for callers that
// rank the candidates by keys of their own: it calls fn once per candidate
// with the entity's symbol id and the confidences its rules give it (in no
// particular order). The candidates come in a deterministic order, not
// RuleScores'. hits is scratch memory, reused once fn returns: on a large
// graph a rule through a hub reaches most entities, and a RuleHit for each
// would cost more than the rules' evaluation.
func (en *Engine) EachRuleHit(ctx context.Context, head, given string, inverse bool, fn func(id store.ID, hits []eval.RuleScore)) error {
	return en.EachRuleHitAbove(ctx, head, given, inverse, en.Opt.Min, fn)
}

// EachRuleHitAbove is EachRuleHit keeping only the confidences of at least
// min (when min is above the engine's Options.Min): exactly the hits
// EachRuleHit gives with such a confidence, each with the same float64
// confidence, bit for bit, and no other. A candidate none of whose rules
// gives it min is left out. The chain rules' walks skip every step below
// which no rule's weight reaches min (and the weighted walks every entity
// whose product cannot reach it): a rule's confidence is its weight times
// a product of confidences at most 1, rounded monotonically, so what is
// skipped could only lead to confidences below min. This is the pass of
// rank-safe pruning (linkpred.Pruner), which needs the rules of a query's
// strong candidates only.
func (en *Engine) EachRuleHitAbove(ctx context.Context, head, given string, inverse bool, min float64, fn func(id store.ID, hits []eval.RuleScore)) error {
	cd, ents, sc, err := en.collectHits(ctx, head, given, inverse, max(min, en.Opt.Min))
	if sc != nil {
		defer en.scratch.Put(sc)
	}
	if err != nil || len(ents) == 0 {
		return err
	}
	var buf []eval.RuleScore
	if sc != nil {
		buf = sc.rs[:0]
	}
	en.eachCandidate(cd, ents, sc, func(c uint32, group []HitEntry) {
		buf = buf[:0]
		for _, e := range group {
			buf = append(buf, eval.RuleScore{Rule: e.R, Score: e.S})
		}
		fn(c, buf)
	})
	if sc != nil {
		sc.rs = buf
	}
	return nil
}

// collectHits applies head's rules to given: one entry per rule and
// candidate, the candidate's symbol id with the rule's confidence, for the
// confidences of at least min (at least the engine's Options.Min). The
// entries live in the scratch memory returned (nil without a CSR
// snapshot), which the caller puts back when done with them.
func (en *Engine) collectHits(ctx context.Context, head, given string, inverse bool, min float64) (*chainData, []HitEntry, *chainScratch, error) {
	if en.exprRule >= 0 {
		r := &en.prog.Rules[en.exprRule]
		return nil, nil, nil, pkgerr.Newf("reasoner: rule scores: %s: rules with expressions, built-in tests or aggregates cannot score candidates (%s)", r.Pos, r.Head.Pred)
	}
	cd, err := en.chainInfo(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	h := cd.heads[head]
	if h == nil {
		return cd, nil, nil, nil
	}
	var ents []HitEntry
	var sc *chainScratch
	if cd.snap != nil {
		sc = en.getScratch(len(cd.names))
		ents = sc.ents[:0]
	}
	id, known := en.Syms.Lookup(given)
	if known && len(h.lpChain) > 0 && int(id) < len(cd.dense) && cd.dense[id] >= 0 {
		root := h.lpFwd
		if inverse {
			root = h.lpInv
		}
		cd.walk(sc, root, cd.dense[id], []int32{cd.dense[id]}, 0, 0, min, func(c int32, r int32, w float64) {
			if w >= min {
				ents = append(ents, HitEntry{int32(cd.snap.Entities[c]), r, w})
			}
		})
	}
	if len(h.lpConst) > 0 {
		gid := int32(-1)
		if known && int(id) < len(cd.dense) {
			gid = cd.dense[id]
		}
		ents = cd.constHits(ents, h, gid, inverse, min)
	}
	if len(h.lpAux) > 0 {
		if ents, err = en.auxHits(ctx, h, ents, id, known, inverse, min); err != nil {
			return cd, nil, sc, err
		}
	}
	if len(h.lpOther) > 0 {
		if ents, err = en.otherHits(ctx, h, ents, id, known, inverse); err != nil {
			return cd, nil, sc, err
		}
		if min > en.Opt.Min { // the evaluator applies Options.Min
			ents = slices.DeleteFunc(ents, func(e HitEntry) bool { return e.S < min })
		}
	}
	if sc != nil {
		sc.ents = ents
	}
	if err := ctx.Err(); err != nil {
		return cd, nil, sc, pkgerr.Newf("reasoner: rule scores: %w", err)
	}
	return cd, ents, sc, nil
}

// auxHits appends to ents the hits of h's chain rules over auxiliary
// relations (h.lpAux) of at least min for the given entity id (known:
// whether the store or the program knows it), walked over the graph's and
// the auxiliary relations' facts weighted by their confidences (the best
// product per entity and step, as the join of an otherSet finds it for
// each rule). The first call builds the walk; when it cannot be built the
// rules join h.lpOther, which the caller applies next.
func (en *Engine) auxHits(ctx context.Context, h *chainHead, ents []HitEntry, id uint32, known, inverse bool, min float64) ([]HitEntry, error) {
	h.auxOnce.Do(func() {
		if _, err := en.auxRelations(ctx); err != nil {
			h.auxErr = err
			return
		}
		if h.auxChains, h.auxErr = NewStoredChains(ctx, en.prog, h.lpAux, nil, en.auxAdjs); h.auxErr == nil && h.auxChains == nil {
			h.lpOther = append(h.lpOther, h.lpAux...)
			slices.Sort(h.lpOther)
		}
	})
	if h.auxErr != nil || h.auxChains == nil || !known || int(id) >= h.auxChains.nsym {
		return ents, h.auxErr
	}
	sc, _ := h.auxWalks.Get().(*Wscratch)
	if sc == nil {
		sc = NewWScratch(h.auxChains.nsym)
	}
	defer h.auxWalks.Put(sc)
	root := h.auxChains.Fwd
	if inverse {
		root = h.auxChains.Inv
	}
	h.auxChains.Walk(sc, root, id, []uint32{id}, nil, 0, min, func(c uint32, r int32, s float64) {
		ents = append(ents, HitEntry{int32(c), r, s})
	})
	return ents, nil
}

// graphRel reports whether pred is a relation of the graph for link
// prediction: the store holds base facts of it and nothing else (no derived
// facts, no program facts), so the CSR snapshot has all of it.
func (en *Engine) graphRel(pred string) bool {
	return en.base[pred] && !en.derived[pred] && len(en.facts[pred]) == 0
}

// eachCandidate calls fn with each candidate's entries together: in order
// of first appearance by a counting pass when every candidate is an entity
// of the snapshot (as with rules over the graph), by symbol id otherwise.
func (en *Engine) eachCandidate(cd *chainData, ents []HitEntry, sc *chainScratch, fn func(c uint32, group []HitEntry)) {
	if sc == nil || !bucketByCandidate(cd, ents, sc) {
		slices.SortFunc(ents, func(a, b HitEntry) int { return cmp.Compare(a.C, b.C) })
	}
	for i := 0; i < len(ents); {
		j := i + 1
		for j < len(ents) && ents[j].C == ents[i].C {
			j++
		}
		fn(uint32(ents[i].C), ents[i:j])
		i = j
	}
}

// groupHits builds RuleScores' result from the entries: per candidate, by
// decreasing score, ties by rule; the candidates as RuleScores orders them.
func (en *Engine) groupHits(cd *chainData, ents []HitEntry, sc *chainScratch) ([]eval.RuleHit, error) {
	if len(ents) == 0 {
		return nil, nil
	}
	var hits []eval.RuleHit
	scores := make([]float64, len(ents))
	rules := make([]int, len(ents))
	i := 0
	var err error
	en.eachCandidate(cd, ents, sc, func(c uint32, group []HitEntry) {
		if err != nil {
			return
		}
		// (Scores are weights, never NaN: plain comparisons.)
		slices.SortFunc(group, func(a, b HitEntry) int {
			switch {
			case a.S > b.S:
				return -1
			case a.S < b.S:
				return 1
			}
			return cmp.Compare(a.R, b.R)
		})
		j := i + len(group)
		for k, e := range group {
			scores[i+k], rules[i+k] = e.S, int(e.R)
		}
		var name string
		if int(c) < len(cd.dense) && cd.dense[c] >= 0 {
			name = cd.names[cd.dense[c]]
		} else if name, err = en.Syms.Name(c); err != nil {
			return
		}
		hits = append(hits, eval.RuleHit{Candidate: name, ID: c, Scores: scores[i:j:j], Rules: rules[i:j:j]})
		i = j
	})
	if err != nil {
		return nil, err
	}
	// A total order (the IDs differ), so an unstable sort gives one result.
	slices.SortFunc(hits, func(a, b eval.RuleHit) int {
		for k := 0; k < len(a.Scores) && k < len(b.Scores); k++ {
			if c := cmp.Compare(b.Scores[k], a.Scores[k]); c != 0 {
				return c
			}
		}
		return cmp.Or(cmp.Compare(len(b.Scores), len(a.Scores)), cmp.Compare(a.ID, b.ID))
	})
	return hits, nil
}

// bucketByCandidate reorders ents so that each candidate's entries are
// contiguous (hitBuckets.bucket) when every candidate is an entity of the
// snapshot; otherwise it returns false and leaves the order to the caller.
func bucketByCandidate(cd *chainData, ents []HitEntry, sc *chainScratch) bool {
	for _, e := range ents {
		if e.C < 0 || int(e.C) >= len(cd.dense) || cd.dense[e.C] < 0 {
			return false
		}
	}
	sc.buckets.Bucket(ents, cd.dense)
	return true
}

// hitBuckets is the scratch of bucket, over n slots: per slot the epoch of
// its last use (seen) and its group (group); the groups' sizes, then
// starts (counts); the reordered entries (tmp).
type hitBuckets struct {
	Seen   []uint32
	Epoch  uint32
	Group  []int32
	Counts []int32
	tmp    []HitEntry
}

// NewHitBuckets returns buckets for n candidates.
func NewHitBuckets(n int) hitBuckets {
	return hitBuckets{Seen: make([]uint32, n), Group: make([]int32, n)}
}

// next starts a new epoch of seen and returns it with seen.
func (b *hitBuckets) next() ([]uint32, uint32) {
	b.Epoch++
	if b.Epoch == 0 {
		clear(b.Seen)
		b.Epoch = 1
	}
	return b.Seen, b.Epoch
}

// Bucket reorders ents so that each candidate's entries are contiguous,
// candidates in order of first appearance and entries in their order, by
// counting over each candidate's slot: slot[c], or c itself when slot is
// nil; every slot is below the n of newHitBuckets.
func (b *hitBuckets) Bucket(ents []HitEntry, slot []int32) {
	at := func(c int32) int32 {
		if slot == nil {
			return c
		}
		return slot[c]
	}
	seen, epoch := b.next()
	counts := b.Counts[:0]
	for _, e := range ents {
		x := at(e.C)
		if seen[x] != epoch {
			seen[x] = epoch
			b.Group[x] = int32(len(counts))
			counts = append(counts, 0)
		}
		counts[b.Group[x]]++
	}
	start := int32(0)
	for g, n := range counts {
		counts[g] = start
		start += n
	}
	tmp := slices.Grow(b.tmp[:0], len(ents))[:len(ents)]
	for _, e := range ents {
		g := b.Group[at(e.C)]
		tmp[counts[g]] = e
		counts[g]++
	}
	copy(ents, tmp)
	b.Counts, b.tmp = counts, tmp
}

// auxRelations materialises, once, what the program derives for the
// predicates that rule scores read as derived (every predicate defined by
// rules that has no base facts in the store: an auxiliary predicate such as
// parent in a hand-written file, or a relation of the graph a mined file
// was mined on that this graph lacks), bottom-up over the graph at the
// program's threshold, and returns their relations by relKey. Evaluated for every query and rule
// instead, the rules deriving a relation the graph lacks (hundreds in a
// mined file, most with constants) made link prediction on a graph without
// some of the training relations thousands of times slower than on one
// with all of them; materialised, they cost one bottom-up evaluation, and
// each query reads the same facts and confidences.
func (en *Engine) auxRelations(ctx context.Context) (map[string]*eval.Relation, error) {
	en.auxOnce.Do(func() {
		prog := &datalog.Program{Facts: en.prog.Facts}
		aux := map[string]bool{}
		for i := range en.prog.Rules {
			r := &en.prog.Rules[i]
			if !en.base[r.Head.Pred] && !en.dead[i] {
				prog.Rules = append(prog.Rules, *r)
				aux[eval.RelKey(r.Head.Pred, len(r.Head.Args))] = true
			}
		}
		en.aux = map[string]*eval.Relation{}
		en.auxAdjs = NewWeightedAdjs(int(en.Syms.NStore), func(ctx context.Context, pred string) (*eval.Relation, error) {
			if r := en.aux[eval.RelKey(pred, 2)]; r != nil {
				return r, nil
			}
			return en.Relation(ctx, pred, 2)
		})
		if len(prog.Rules) == 0 {
			return
		}
		// The auxiliary facts are what infer derives: the program's
		// threshold (a mined file's @min) applies to them, not the
		// ranking's (the rules applied to them still rank down to
		// Options.Min). At RankMin, a mined file's hundreds of rules per
		// relation chained into nearly every pair of entities.
		opt := en.Opt
		if m, ok := en.prog.Threshold(); ok && m > opt.Min {
			opt.Min = m
		}
		e := eval.NewEvaluator(ctx, en.St, en.Syms, opt)
		e.Stored = true
		u := eval.PlainUnit(eval.WithoutWeakRules(prog, e.Min))
		if err := e.Load(u); err != nil {
			en.auxErr = pkgerr.Newf("reasoner: rule scores: %w", err)
			return
		}
		if err := e.Run(u); err != nil {
			en.auxErr = pkgerr.Newf("reasoner: rule scores: %w", err)
			return
		}
		for k, i := range e.RelIdx {
			if r := e.Rels[i]; aux[k] {
				if r.Arity == 2 {
					r.Index(1)
					r.Index(2)
				}
				r.Shared = true
				en.aux[k] = r
			}
		}
	})
	return en.aux, en.auxErr
}
