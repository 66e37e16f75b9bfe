package query

import (
	"context"
	"fmt"
	"github.com/drumql/drumql/internal/pkgerr"
	"slices"
	"sync"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/goal"
	"github.com/drumql/drumql/store"
)

// Engine is a program prepared for many goal-directed queries over one
// store: the program is validated and analysed once, and the extensional
// relations it reads are loaded once and shared by all queries. The store
// must not change while the Engine is used. Its methods are safe for
// concurrent use.
type Engine struct {
	St      store.Store
	prog    *datalog.Program
	Opt     eval.Options
	Syms    *eval.Symtab
	defs    map[string][]int
	facts   map[string][]int // program facts by predicate
	arities map[string][]int // known predicates: store relations, heads, facts
	names   []string         // known predicate names, sorted
	derived map[string]bool  // store relations with derived facts
	base    map[string]bool  // store relations with base facts: the graph
	dead    []bool           // per rule: it can derive nothing (deadRules)
	live    *datalog.Program // prog without its dead rules

	mu     sync.Mutex
	shared map[string]*eval.Relation

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
	aux     map[string]*eval.Relation
	auxErr  error
	// auxAdjs holds the weighted adjacencies of the auxiliary and graph
	// relations the heads' chain rules over auxiliary relations walk.
	auxAdjs *WeightedAdjs
}

// Prepare is reasoner.Prepare, documented there.
func Prepare(ctx context.Context, st store.Store, prog *datalog.Program, opt eval.Options) (*Engine, error) {
	if prog == nil {
		prog = &datalog.Program{}
	}
	if err := eval.CheckProgramWith(st, prog, !opt.Validated); err != nil {
		return nil, err
	}
	syms, err := eval.NewSymtab(st)
	if err != nil {
		return nil, err
	}
	en := &Engine{St: st, prog: prog, Opt: opt.WithProgram(prog).WithDefaults(), Syms: syms, defs: goal.Defines(prog),
		facts: map[string][]int{}, arities: map[string][]int{}, derived: map[string]bool{}, base: map[string]bool{},
		shared: map[string]*eval.Relation{}}
	rs, err := st.Relations()
	if err != nil {
		return nil, pkgerr.Newf("reasoner: prepare: %w", err)
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
			en.Opt.NoChain = true
			break
		}
	}
	dead, n, err := eval.DeadRules(st, prog, !opt.BaseOnly)
	if err != nil {
		return nil, err
	}
	en.dead, en.live = dead, eval.DropRules(prog, dead, n)
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
				_, err = en.Relation(ctx, l.Atom.Pred, len(l.Atom.Args))
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return en, nil
}

// Relation returns the shared relation pred/arity: the store's base and
// derived facts and the program's facts, with hash indexes on each argument
// of binary relations.
func (en *Engine) Relation(ctx context.Context, pred string, arity int) (*eval.Relation, error) {
	en.mu.Lock()
	defer en.mu.Unlock()
	k := eval.RelKey(pred, arity)
	if r := en.shared[k]; r != nil {
		return r, nil
	}
	e := eval.NewEvaluator(ctx, en.St, en.Syms, en.Opt)
	e.Stored = true
	r := eval.NewRelation(pred, arity)
	if err := e.LoadStore(r); err != nil {
		return nil, err
	}
	for _, i := range en.facts[pred] {
		f := &en.prog.Facts[i]
		c := eval.WeightOf(f.Weight)
		if len(f.Atom.Args) != arity || c < en.Opt.Min {
			continue
		}
		t := make([]uint32, arity)
		for j, a := range f.Atom.Args {
			id, err := en.Syms.Id(a.Value)
			if err != nil {
				return nil, err
			}
			t[j] = id
		}
		if x := r.Find(t); x >= 0 {
			if c > r.ConfAt(x) {
				r.Set(x, c, int32(eval.ProvFact0-i))
			}
			continue
		}
		r.Add(t, c, int32(eval.ProvFact0-i))
	}
	if arity == 2 {
		r.Index(1)
		r.Index(2)
	}
	r.Shared = true
	en.shared[k] = r
	return r, nil
}

// Query answers q like the package-level Query, with the prepared program.
// Queries over a predicate defined only by chain rules over base relations,
// with one argument a symbol constant, take a fast path (frontier propagation over
// the store's CSR snapshot, max over the rules), unless Options.Explain asks
// for proofs.
func (en *Engine) Query(ctx context.Context, q datalog.Atom) ([]eval.Answer, error) {
	if err := en.checkQuery(q); eval.Undefined(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if len(en.prog.Rules) == 0 && len(en.prog.Facts) == 0 {
		return storeAnswers(ctx, en.St, en.Syms, q, en.Opt)
	}
	if !en.Opt.Explain && !en.Opt.NoChain {
		as, ok, err := en.chainQuery(ctx, q)
		if ok && en.Opt.Work != nil {
			en.Opt.Work.Chain.Add(1)
		}
		if err != nil || ok {
			return as, err
		}
	}
	as, loadErr, err := en.EvalShared(ctx, en.live, q)
	if err == nil && loadErr != nil {
		err = pkgerr.Newf("reasoner: query %s: %w", q, loadErr)
	}
	return as, err
}

// EvalShared evaluates q over prog with the one evaluator, reading the
// engine's shared relations (loaded on first use); loadErr is the error of
// the last relation that failed to load (the evaluation read it as empty).
func (en *Engine) EvalShared(ctx context.Context, prog *datalog.Program, q datalog.Atom) (as []eval.Answer, loadErr, err error) {
	shared := func(pred string, arity int) *eval.Relation {
		r, err := en.Relation(ctx, pred, arity)
		if err != nil {
			loadErr = err
			return nil
		}
		return r
	}
	as, err = goal.EvalQuery(ctx, en.St, en.Syms, prog, q, en.Opt, shared)
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
			return fmt.Errorf("%w: %w", eval.ErrUndefinedPredicate, err)
		}
		return fmt.Errorf("%w: %w", eval.ErrUnknownPredicate, err)
	}
	return nil
}
