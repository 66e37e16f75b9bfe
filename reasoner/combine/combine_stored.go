package combine

import (
	"cmp"
	"context"
	"github.com/drumql/drumql/internal/pkgerr"
	"slices"
	"sync"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/query"
	"github.com/drumql/drumql/store"
)

// StoredNoisyOr rescores answers by noisy-or, as NoisyOrTop does, when the
// store's derived facts already are the program's fixpoint: when the
// store's record equals RecordOf(prog, opt) and no base fact changed since
// (what infer leaves, and what serve keeps). Each rule of the query's
// predicate is then applied once to the stored facts, base and derived,
// goal-directed from the query's constants: a rule's body reads facts the
// fixpoint already holds, so nothing needs to be derived first. NoisyOrTop
// evaluates the whole program the bodies depend on instead, which for a
// mined file through hub relations is most of the graph's closure.
//
// The answers are those of NoisyOrTop over the same store, program and
// threshold (TestStoredNoisyOrAsNoisyOrTop). A StoredNoisyOr reads each
// relation from the store once and keeps it: the store must not change
// while it is used (prepare another after an update). Its methods are safe
// for concurrent use.
type StoredNoisyOr struct {
	en   *query.Engine
	prog *datalog.Program

	mu    sync.Mutex
	heads map[string]*datalog.Program // tagged rules per head predicate
	sets  map[string]*storedSets      // compiled rules per binary head predicate
	adjs  *query.WeightedAdjs         // the relations chain rules walk

	scratch sync.Pool // *wscratch, one per goroutine at a time
}

// storedSets is a binary head predicate's rules prepared once for
// queries with one symbol constant: its chain rules in tries walked from
// the constant (storedChains), the others compiled (an otherSet: the
// given entity a constant each query patches), a join from the constant
// per rule, with no rewrite, compilation or planning per query.
type storedSets struct {
	chains   *query.StoredChains
	other    []int     // program indices of the rules the otherSet holds
	compound bool      // a rule has expressions: not prepared
	pool     sync.Pool // *otherSet
	// Hits name a rule by its rank among the head's rules (their order in
	// the program): the walk records ranks, otherRank maps the otherSet's
	// program indices to them; rules counts them.
	otherRank map[int32]int32
	rules     int
}

// PrepareStoredNoisyOr prepares the noisy-or rescoring of prog's answers
// over st, whose derived facts must be prog's fixpoint at opt's threshold
// (see StoredNoisyOr). Relations are read from the store on first use.
func PrepareStoredNoisyOr(ctx context.Context, st store.Store, prog *datalog.Program, opt eval.Options) (*StoredNoisyOr, error) {
	opt = opt.WithProgram(prog)
	opt.LazyLoad, opt.BaseOnly, opt.Explain = true, false, false
	// The tagged rules read only relations the fixpoint holds: the
	// goal-directed rewrite is always the right evaluation (no race with a
	// bottom-up one).
	opt.NoRace = true
	en, err := query.Prepare(ctx, st, &datalog.Program{Facts: prog.Facts, Thresholds: prog.Thresholds}, opt)
	if err != nil {
		return nil, err
	}
	s := &StoredNoisyOr{en: en, prog: prog, heads: map[string]*datalog.Program{}, sets: map[string]*storedSets{}}
	s.adjs = query.NewWeightedAdjs(int(en.Syms.NStore), func(ctx context.Context, pred string) (*eval.Relation, error) {
		return en.Relation(ctx, pred, 2)
	})
	return s, nil
}

// storedAux is the predicate of the tagged rules of pred.
func storedAux(pred string) string { return "\x00rule\x00" + pred }

// liveRules returns the indices in prog of pred's rules (binary ones only,
// when binary) that can derive something: a rule below the threshold
// derives nothing kept, one over a relation without facts nothing at all.
func (s *StoredNoisyOr) liveRules(pred string, binary bool) ([]int, error) {
	var idx []int
	sub := &datalog.Program{Facts: s.prog.Facts}
	for _, i := range headRules(s.prog, pred) {
		r := &s.prog.Rules[i]
		if (!binary || len(r.Head.Args) == 2) && eval.WeightOf(r.Weight) >= s.en.Opt.Min {
			idx = append(idx, i)
			sub.Rules = append(sub.Rules, *r)
		}
	}
	dead, _, err := eval.DeadRules(s.en.St, sub, true)
	if err != nil {
		return nil, err
	}
	live := idx[:0]
	for k, i := range idx {
		if !dead[k] {
			live = append(live, i)
		}
	}
	return live, nil
}

// tagged returns the program of pred's tagged rules (ruleTagged) that can
// derive something, with prog's facts.
func (s *StoredNoisyOr) tagged(pred string) (*datalog.Program, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.heads[pred]; ok {
		return p, nil
	}
	idx, err := s.liveRules(pred, false)
	if err != nil {
		return nil, err
	}
	p := &datalog.Program{Facts: s.prog.Facts, Thresholds: s.prog.Thresholds, Rules: ruleTagged(s.prog, idx, storedAux(pred))}
	s.heads[pred] = p
	return p, nil
}

// Rescore is NoisyOrTop(ctx, st, prog, q, answers, top, opt) for the
// store, program and options the StoredNoisyOr was prepared with.
func (s *StoredNoisyOr) Rescore(ctx context.Context, q datalog.Atom, answers []eval.Answer, top int) ([]eval.Answer, error) {
	if as, ok, err := s.rescoreGiven(ctx, q, answers, top); ok || err != nil {
		return as, err
	}
	p, err := s.tagged(q.Pred)
	if err != nil || len(p.Rules) == 0 {
		return answers, err
	}
	as, loadErr, err := s.en.EvalShared(ctx, p, ruleTaggedAtom(q, storedAux(q.Pred)))
	if err == nil && loadErr != nil {
		err = pkgerr.Newf("reasoner: noisy-or %s: %w", q, loadErr)
	}
	if err != nil {
		return nil, err
	}
	confs, err := ruleConfsOf(q, as, nil)
	if err != nil {
		return nil, err
	}
	return rescored(answers, confs, top), nil
}

// binaryRules returns the prepared rules of the binary head predicate
// pred (nil when it has none that can derive something).
func (s *StoredNoisyOr) binaryRules(ctx context.Context, pred string) (*storedSets, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss, ok := s.sets[pred]; ok {
		return ss, nil
	}
	idx, err := s.liveRules(pred, true)
	if err != nil {
		return nil, err
	}
	var ss *storedSets // nil: no rule can derive anything
	if len(idx) > 0 {
		ss = &storedSets{}
	}
	var chains []int
	var ranks []int32
	for k, i := range idx {
		r := &s.prog.Rules[i]
		if r.HasCompound() {
			ss.compound = true
		}
		if _, _, _, ok := query.ChainPath(r); ok {
			chains, ranks = append(chains, i), append(ranks, int32(k))
		} else {
			ss.other = append(ss.other, i)
		}
	}
	if ss != nil && !ss.compound && len(chains) > 0 {
		if ss.chains, err = query.NewStoredChains(ctx, s.prog, chains, ranks, s.adjs); err != nil {
			return nil, err
		}
		if ss.chains == nil {
			ss.other = append(ss.other, chains...)
			slices.Sort(ss.other)
		}
	}
	if ss != nil {
		ss.rules = len(idx)
		ss.otherRank = make(map[int32]int32, len(ss.other))
		for _, i := range ss.other {
			k, _ := slices.BinarySearch(idx, i)
			ss.otherRank[int32(i)] = int32(k)
		}
	}
	s.sets[pred] = ss
	return ss, nil
}

// rescoreGiven rescores the answers of a binary query with one symbol
// constant the store knows and one variable through the prepared rules of
// its predicate; ok is false for other queries (Rescore then evaluates the
// tagged rules).
func (s *StoredNoisyOr) rescoreGiven(ctx context.Context, q datalog.Atom, answers []eval.Answer, top int) ([]eval.Answer, bool, error) {
	if len(q.Args) != 2 {
		return nil, false, nil
	}
	dir := slices.IndexFunc(q.Args, func(t datalog.Term) bool { return t.Kind == datalog.Symbol })
	if dir < 0 {
		return nil, false, nil
	}
	if v := q.Args[1-dir]; v.Kind != datalog.Var || v.Value == "_" {
		return nil, false, nil
	}
	id, ok := s.en.Syms.Lookup(q.Args[dir].Value)
	if !ok || id >= s.en.Syms.NStore { // a symbol the program made
		return nil, false, nil
	}
	ss, err := s.binaryRules(ctx, q.Pred)
	switch {
	case err != nil:
		return nil, false, err
	case ss == nil:
		return answers, true, nil
	case ss.compound:
		return nil, false, nil
	}
	nsym := int(s.en.Syms.NStore)
	sc, _ := s.scratch.Get().(*query.Wscratch)
	if sc == nil {
		sc = query.NewWScratch(nsym)
	}
	defer s.scratch.Put(sc)
	var acc *query.TopHits // the k best hits per candidate, for noisy_or(top = k)
	if top > 0 && top <= query.MaxTopHits {
		if sc.Top == nil {
			sc.Top = query.NewTopHits(nsym)
		}
		acc = sc.Top
		acc.Reset(top)
	}
	hits := sc.Hits[:0]
	if ss.chains != nil {
		root := ss.chains.Fwd
		if dir == 1 {
			root = ss.chains.Inv
		}
		ss.chains.Walk(sc, root, id, []uint32{id}, nil, 0, s.en.Opt.Min, func(c uint32, rule int32, v float64) {
			if acc != nil {
				acc.Add(c, v)
			} else {
				hits = append(hits, query.HitEntry{C: int32(c), R: rule, S: v})
			}
		})
	}
	if len(ss.other) > 0 {
		o, _ := ss.pool.Get().(*query.OtherSet)
		if o == nil {
			if o, err = s.en.NewOtherSet(ctx, s.prog, ss.other, nil); err != nil {
				return nil, false, err
			}
		}
		o.E.Ctx = ctx
		n := len(hits)
		hits = o.Hits(hits, store.ID(id), dir == 1)
		ss.pool.Put(o)
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		for i := n; i < len(hits); i++ {
			hits[i].R = ss.otherRank[hits[i].R]
		}
	}
	sc.Hits = hits
	if acc != nil {
		for _, h := range hits {
			acc.Add(uint32(h.C), h.S)
		}
		return rescoredBy(answers, func(vals []string) []float64 {
			c, ok := s.en.Syms.Lookup(vals[0])
			if !ok {
				return nil
			}
			if k, ok := acc.Find(c); ok {
				return acc.Confs(k)
			}
			return nil
		}, top), true, nil
	}
	confOf, err := s.candidateConfs(sc, hits, ss.rules)
	if err != nil {
		return nil, false, err
	}
	return rescoredBy(answers, confOf, top), true, nil
}

// candidateConfs groups hits by candidate, each candidate's confidences in
// rule order (hits name rules by rank, below rules), as ruleConfsOf orders
// them (rescored then orders each answer's best first), and
// returns them by an answer's values for rescoredBy: by a counting sort on
// the rank and a stable one on the candidate (hitBuckets), found by the
// answer's symbol; by sorting, found by name, when a candidate is a symbol
// the program made.
func (s *StoredNoisyOr) candidateConfs(sc *query.Wscratch, hits []query.HitEntry, rules int) (func(vals []string) []float64, error) {
	if sc.Buckets.Seen == nil {
		sc.Buckets = query.NewHitBuckets(int(s.en.Syms.NStore))
	}
	all := make([]float64, len(hits))
	if slices.ContainsFunc(hits, func(h query.HitEntry) bool { return int(h.C) >= len(sc.Buckets.Seen) }) {
		slices.SortFunc(hits, func(a, b query.HitEntry) int {
			if c := cmp.Compare(a.C, b.C); c != 0 {
				return c
			}
			return cmp.Compare(a.R, b.R)
		})
		confs := map[string][]float64{}
		for lo := 0; lo < len(hits); {
			hi := lo + 1
			for hi < len(hits) && hits[hi].C == hits[lo].C {
				hi++
			}
			name, err := s.en.Syms.Name(uint32(hits[lo].C))
			if err != nil {
				return nil, err
			}
			for k := lo; k < hi; k++ {
				all[k] = hits[k].S
			}
			confs[name] = all[lo:hi:hi]
			lo = hi
		}
		return func(vals []string) []float64 { return confs[vals[0]] }, nil
	}
	sc.ByRank(hits, rules)
	b := &sc.Buckets
	b.Bucket(hits, nil)
	for k, h := range hits {
		all[k] = h.S
	}
	return func(vals []string) []float64 {
		c, ok := s.en.Syms.Lookup(vals[0])
		if !ok || int(c) >= len(b.Seen) || b.Seen[c] != b.Epoch {
			return nil
		}
		g := b.Group[c]
		lo := int32(0)
		if g > 0 {
			lo = b.Counts[g-1]
		}
		return all[lo:b.Counts[g]:b.Counts[g]]
	}, nil
}
