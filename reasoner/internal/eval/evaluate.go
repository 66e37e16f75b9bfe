package eval

import (
	"context"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/store"
)

// Evaluation is the fixpoint of a program over a store, held by the
// evaluator that computed it (Evaluate): its relations' tuples as symbol
// ids, read without a store write.
type Evaluation struct {
	e *Evaluator
	// Derived is the number of facts the program added (its facts and
	// its rules' conclusions), as Infer counts them.
	Derived int
}

// Evaluate is reasoner.Evaluate, documented there.
func Evaluate(ctx context.Context, st store.Store, prog *datalog.Program, opt Options) (*Evaluation, error) {
	if prog == nil {
		prog = &datalog.Program{}
	}
	e, _, _, err := runFixpoint(ctx, st, prog, opt, "evaluate", func(e *Evaluator) { e.lean = true })
	if err != nil {
		return nil, err
	}
	e.ReportStats(opt.Stats)
	return &Evaluation{e: e, Derived: e.Derived}, nil
}

// Each calls fn with every tuple of the relation pred/arity at the
// fixpoint (the store's base facts of it and what the program added), as
// symbol ids, and its confidence, until fn returns false; a relation the
// program neither reads nor defines is read from the store (its base
// facts). The order is the evaluator's: it may differ from run to run
// when the evaluation is parallel. args is reused from call to call.
func (v *Evaluation) Each(pred string, arity int, fn func(args []uint32, conf float64) bool) error {
	e := v.e
	if ri, ok := e.RelIdx[RelKey(pred, arity)]; ok && !e.Rels[ri].Internal {
		r := e.Rels[ri]
		for t := range int32(r.Len()) {
			if t&0xffff == 0 {
				if err := e.Ctx.Err(); err != nil {
					return pkgerr.Newf("reasoner: %s: %w", pred, err)
				}
			}
			if !fn(r.Tuple(t), r.ConfAt(t)) {
				return nil
			}
		}
		return nil
	}
	id, ok := e.Syms.Lookup(pred)
	if !ok || e.Syms.IsLocal(id) {
		return nil
	}
	for f, err := range e.St.Scan(id) {
		if err != nil {
			return pkgerr.Newf("reasoner: %s: %w", pred, err)
		}
		if len(f.Args) == arity && !fn(f.Args, 1) {
			return nil
		}
	}
	return nil
}

// Name returns the name of symbol id, as Each gives it.
func (v *Evaluation) Name(id uint32) (string, error) { return v.e.Syms.Name(id) }
