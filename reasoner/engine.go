package reasoner

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// Engine is a program prepared for many goal-directed queries over one
// store: the program is validated and analysed once, and the extensional
// relations it reads are loaded once and shared by all queries. The store
// must not change while the Engine is used. Its methods are safe for
// concurrent use.
type Engine struct {
	st      store.Store
	prog    *datalog.Program
	opt     Options
	syms    *symtab
	defs    map[string][]int
	facts   map[string][]int // program facts by predicate
	arities map[string][]int // known predicates: store relations, heads, facts
	names   []string         // known predicate names, sorted
	derived map[string]bool  // store relations with derived facts
	base    map[string]bool  // store relations with base facts: the graph
	dead    []bool           // per rule: it can derive nothing (deadRules)
	live    *datalog.Program // prog without its dead rules

	mu     sync.Mutex
	shared map[string]*relation

	chainOnce sync.Once
	chain     *chainData
	// exprRule is the first rule with expressions, built-in tests or
	// aggregates (-1: none): the chain fast path and rule scores do not
	// take them.
	exprRule int
	chainErr error
	scratch  sync.Pool

	// aux holds, once materialised, the facts the program derives for
	// its auxiliary predicates (see auxRelations).
	auxOnce sync.Once
	aux     map[string]*relation
	auxErr  error
	// auxAdjs holds the weighted adjacencies of the auxiliary and graph
	// relations the heads' chain rules over auxiliary relations walk.
	auxAdjs *weightedAdjs
}

// Prepare validates prog (nil means no rules) and prepares it for queries
// over st: it loads the store facts of every predicate the rules read.
func Prepare(ctx context.Context, st store.Store, prog *datalog.Program, opt Options) (*Engine, error) {
	if prog == nil {
		prog = &datalog.Program{}
	}
	if err := checkProgram(st, prog); err != nil {
		return nil, err
	}
	syms, err := newSymtab(st)
	if err != nil {
		return nil, err
	}
	en := &Engine{st: st, prog: prog, opt: opt.withProgram(prog).withDefaults(), syms: syms, defs: defines(prog),
		facts: map[string][]int{}, arities: map[string][]int{}, derived: map[string]bool{}, base: map[string]bool{},
		shared: map[string]*relation{}}
	rs, err := st.Relations()
	if err != nil {
		return nil, errorf("reasoner: prepare: %w", err)
	}
	for _, r := range rs {
		en.arities[r.Name] = append(en.arities[r.Name], r.Arity)
		if r.Derived > 0 && !opt.BaseOnly {
			en.derived[r.Name] = true
		}
		if r.Base > 0 {
			en.base[r.Name] = true
		}
	}
	for i := range prog.Rules {
		h := &prog.Rules[i].Head
		en.arities[h.Pred] = append(en.arities[h.Pred], len(h.Args))
	}
	for i := range prog.Facts {
		a := &prog.Facts[i].Atom
		en.arities[a.Pred] = append(en.arities[a.Pred], len(a.Args))
		en.facts[a.Pred] = append(en.facts[a.Pred], i)
	}
	for n := range en.arities {
		en.names = append(en.names, n)
	}
	slices.Sort(en.names)
	en.exprRule = -1
	for i := range prog.Rules {
		if prog.Rules[i].HasCompound() {
			en.exprRule = i
			en.opt.noChain = true
			break
		}
	}
	dead, n, err := deadRules(st, prog, !opt.BaseOnly)
	if err != nil {
		return nil, err
	}
	en.dead, en.live = dead, dropRules(prog, dead, n)
	if opt.LazyLoad {
		return en, nil
	}
	for i := range prog.Rules {
		if en.dead[i] {
			continue
		}
		var err error
		prog.Rules[i].BodyAtoms(func(l *datalog.Literal, _ bool) {
			if err == nil {
				_, err = en.relation(ctx, l.Atom.Pred, len(l.Atom.Args))
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return en, nil
}

// relation returns the shared relation pred/arity: the store's base and
// derived facts and the program's facts, with hash indexes on each argument
// of binary relations.
func (en *Engine) relation(ctx context.Context, pred string, arity int) (*relation, error) {
	en.mu.Lock()
	defer en.mu.Unlock()
	k := relKey(pred, arity)
	if r := en.shared[k]; r != nil {
		return r, nil
	}
	e := newEvaluator(ctx, en.st, en.syms, en.opt)
	e.stored = true
	r := newRelation(pred, arity)
	if err := e.loadStore(r); err != nil {
		return nil, err
	}
	for _, i := range en.facts[pred] {
		f := &en.prog.Facts[i]
		c := weightOf(f.Weight)
		if len(f.Atom.Args) != arity || c < en.opt.Min {
			continue
		}
		t := make([]uint32, arity)
		for j, a := range f.Atom.Args {
			id, err := en.syms.id(a.Value)
			if err != nil {
				return nil, err
			}
			t[j] = id
		}
		if x := r.find(t); x >= 0 {
			if c > r.confAt(x) {
				r.set(x, c, int32(provFact0-i))
			}
			continue
		}
		r.add(t, c, int32(provFact0-i))
	}
	if arity == 2 {
		r.index(1)
		r.index(2)
	}
	r.shared = true
	en.shared[k] = r
	return r, nil
}

// Query answers q like the package-level Query, with the prepared program.
// Queries over a predicate defined only by chain rules over base relations,
// with one argument a symbol constant, take a fast path (frontier propagation over
// the store's CSR snapshot, max over the rules), unless Options.Explain asks
// for proofs.
func (en *Engine) Query(ctx context.Context, q datalog.Atom) ([]Answer, error) {
	if err := en.checkQuery(q); undefined(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if len(en.prog.Rules) == 0 && len(en.prog.Facts) == 0 {
		return storeAnswers(ctx, en.st, en.syms, q, en.opt)
	}
	if !en.opt.Explain && !en.opt.noChain {
		as, ok, err := en.chainQuery(ctx, q)
		if ok && en.opt.work != nil {
			en.opt.work.chain.Add(1)
		}
		if err != nil || ok {
			return as, err
		}
	}
	as, loadErr, err := en.evalShared(ctx, en.live, q)
	if err == nil && loadErr != nil {
		err = errorf("reasoner: query %s: %w", q, loadErr)
	}
	return as, err
}

// evalShared evaluates q over prog with the one evaluator, reading the
// engine's shared relations (loaded on first use); loadErr is the error of
// the last relation that failed to load (the evaluation read it as empty).
func (en *Engine) evalShared(ctx context.Context, prog *datalog.Program, q datalog.Atom) (as []Answer, loadErr, err error) {
	shared := func(pred string, arity int) *relation {
		r, err := en.relation(ctx, pred, arity)
		if err != nil {
			loadErr = err
			return nil
		}
		return r
	}
	as, err = evalQuery(ctx, en.st, en.syms, prog, q, en.opt, shared)
	return as, loadErr, err
}

func (en *Engine) checkQuery(q datalog.Atom) error {
	known := func(pred string) (int, bool) {
		as, ok := en.arities[pred]
		if !ok {
			return 0, false
		}
		if slices.Contains(as, len(q.Args)) {
			return len(q.Args), true
		}
		return as[0], true
	}
	if err := datalog.CheckQuery(datalog.Query{Atom: q, Pos: q.Pos}, known, en.names...); err != nil {
		if ds, ok := err.(datalog.Diagnostics); ok && !ds.HasErrors() {
			return fmt.Errorf("%w: %w", ErrUndefinedPredicate, err)
		}
		return fmt.Errorf("%w: %w", ErrUnknownPredicate, err)
	}
	return nil
}
