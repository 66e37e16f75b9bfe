package reasoner

import (
	"context"
	"fmt"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// evaluator holds the state of one evaluation: the relations, the compiled
// rules of the stratum being evaluated and the provenance pool.
type evaluator struct {
	unit    *unit // the unit evaluated, for proofs after a query
	ctx     context.Context
	syms    *symtab
	st      store.Store
	min     float64
	maxFact int
	threads int
	prov    bool // record provenance
	stored  bool // load the store's derived facts as extensional facts (query mode)
	// baseOnly overrides stored: derived facts are never read.
	baseOnly bool

	rels   []*relation
	relIdx map[string]int32
	// shared returns a preloaded read-only relation (store and program
	// facts) of an Engine, or nil; never used for rule heads.
	shared func(pred string, arity int) *relation
	heads  map[string]bool

	rules []*crule // compiled rules of the unit, by unit rule index
	sink  uint64   // keeps apply's prefetching loads alive
	pool  provPool // provenance: rule index, then (relation, tuple) per body fact
	bufs  []outBuf // candidate buffers of the tasks of a round, reused

	derived    int // facts added by the program (facts and rules)
	iterations int
	strata     int
}

// relation returns the index of the relation pred/arity, creating it.
func (e *evaluator) relation(pred string, arity int) int32 {
	k := relKey(pred, arity)
	if i, ok := e.relIdx[k]; ok {
		return i
	}
	var r *relation
	if e.shared != nil && !e.heads[pred] {
		r = e.shared(pred, arity)
	}
	if r == nil {
		r = newRelation(pred, arity)
	}
	i := int32(len(e.rels))
	e.rels = append(e.rels, r)
	e.relIdx[k] = i
	return i
}

func newEvaluator(ctx context.Context, st store.Store, syms *symtab, opt Options) *evaluator {
	opt = opt.withDefaults()
	return &evaluator{
		ctx: ctx, st: st, syms: syms, min: opt.Min, maxFact: opt.MaxFacts,
		threads: opt.Threads, relIdx: map[string]int32{}, baseOnly: opt.BaseOnly,
	}
}

// load prepares the unit: relations, extensional facts from the store,
// program facts and compiled rules.
func (e *evaluator) load(u *unit) error {
	e.heads = map[string]bool{}
	for i := range u.prog.Rules {
		e.heads[u.prog.Rules[i].Head.Pred] = true
	}
	for i := range u.prog.Rules {
		cr, err := e.compileRule(u, i)
		if err != nil {
			return err
		}
		e.rules = append(e.rules, cr)
	}
	for i := range u.prog.Facts {
		f := &u.prog.Facts[i]
		if f.Weight >= 0 {
			e.relation(f.Atom.Pred, len(f.Atom.Args))
		}
	}
	// Mark internal relations, load the others from the store, in a
	// deterministic order.
	for _, r := range e.rels {
		if disp, ok := u.internal[r.name]; ok {
			r.internal = true
			r.display = disp
		}
	}
	for _, r := range e.rels {
		if r.internal || r.len() > 0 {
			continue
		}
		if r.shared {
			continue
		}
		if err := e.loadStore(r); err != nil {
			return err
		}
	}
	for i := range u.prog.Facts {
		f := &u.prog.Facts[i]
		c := weightOf(f.Weight)
		if f.Weight < 0 || c < e.min {
			continue
		}
		t := make([]uint32, len(f.Atom.Args))
		for j, a := range f.Atom.Args {
			id, err := e.syms.id(a.Value)
			if err != nil {
				return err
			}
			t[j] = id
		}
		ri := e.relation(f.Atom.Pred, len(t))
		r := e.rels[ri]
		if r.shared {
			continue // an Engine loaded it once
		}
		if k := r.find(t); k >= 0 {
			if c > r.confAt(k) {
				r.set(k, c, int32(provFact0-i))
			}
			continue
		}
		if err := e.count(1); err != nil {
			return err
		}
		r.add(t, c, int32(provFact0-i))
	}
	return nil
}

// loadStore loads the base facts of r (and, in query mode, the stored
// derived facts) from the store.
func (e *evaluator) loadStore(r *relation) error {
	id, ok := e.syms.lookup(r.name)
	if !ok || e.syms.isLocal(id) {
		return nil
	}
	for f, err := range e.st.Scan(id) {
		if err != nil {
			return fmt.Errorf("reasoner: load %s: %w", r.name, err)
		}
		if len(f.Args) == r.arity {
			r.add(f.Args, 1, provBase)
		}
	}
	if err := e.ctx.Err(); err != nil {
		return fmt.Errorf("reasoner: load %s: %w", r.name, err)
	}
	if !e.stored || e.baseOnly {
		return nil
	}
	for d, err := range e.st.ScanDerived(id) {
		if err != nil {
			return fmt.Errorf("reasoner: load derived %s: %w", r.name, err)
		}
		c := float64(d.Confidence)
		if len(d.Fact.Args) != r.arity || c < e.min {
			continue
		}
		if k := r.find(d.Fact.Args); k >= 0 {
			if c > r.confAt(k) {
				r.set(k, c, provStored)
			}
			continue
		}
		r.add(d.Fact.Args, c, provStored)
	}
	return nil
}

func (e *evaluator) count(n int) error {
	e.derived += n
	if e.derived > e.maxFact {
		return fmt.Errorf("reasoner: %d facts derived, more than the cap of %d: %w", e.derived, e.maxFact, ErrTooManyFacts)
	}
	return nil
}

// run evaluates the unit stratum by stratum.
func (e *evaluator) run(u *unit) error {
	defer e.releaseBufs()
	strata, ds := datalog.Stratify(u.prog)
	if err := ds.Err(); err != nil {
		return fmt.Errorf("reasoner: %w", err)
	}
	for _, s := range strata {
		if err := e.stratum(s); err != nil {
			return err
		}
		e.strata++
	}
	return nil
}

// stratum evaluates one stratum to its fixpoint, semi-naively.
func (e *evaluator) stratum(s datalog.Stratum) error {
	in := map[int32]bool{}
	for _, ri := range s.Rules {
		in[e.rules[ri].head.rel] = true
	}
	var ts []task
	for _, ri := range s.Rules {
		ts = e.addTasks(ts, e.makePlan(e.rules[ri], ri, -1, nil))
	}
	delta := map[int32][]int32{}
	for {
		e.iterations++
		bufs, err := e.runTasks(ts)
		if err != nil {
			return err
		}
		for k := range delta {
			delete(delta, k)
		}
		if err := e.apply(bufs, delta); err != nil {
			return err
		}
		if !s.Recursive || len(delta) == 0 {
			return nil
		}
		ts = ts[:0]
		for _, ri := range s.Rules {
			r := e.rules[ri]
			for j := range r.body {
				l := &r.body[j]
				if l.kind != datalog.Positive || !in[l.atom.rel] || len(delta[l.atom.rel]) == 0 {
					continue
				}
				ts = e.addTasks(ts, e.makePlan(r, ri, j, delta[l.atom.rel]))
			}
		}
		if len(ts) == 0 {
			return nil
		}
	}
}
