package goal

// Running a query: the choice of its evaluation, then the evaluator.

import (
	"context"
	"github.com/drumql/drumql/internal/pkgerr"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// RunQuery evaluates q over prog with the one evaluator and returns the
// evaluator and the answer relation (nil when nothing answers).
func RunQuery(ctx context.Context, st store.Store, syms *eval.Symtab, prog *datalog.Program, q datalog.Atom, opt eval.Options,
	shared func(string, int) *eval.Relation) (*eval.Evaluator, *eval.Relation, error) {
	setup := func(e *eval.Evaluator) {
		e.Stored = true
		e.Prov = opt.Explain
		e.Shared = shared
	}
	e := eval.NewEvaluator(ctx, st, syms, opt)
	setup(e)
	var err error
	if shared == nil {
		// An Engine's program had its dead rules marked once (Prepare);
		// its relations are not all in the store.
		if prog, _, err = eval.WithoutDeadRules(st, prog, !opt.BaseOnly); err != nil {
			return nil, nil, err
		}
	}
	strong := eval.WithoutWeakRules(prog, e.Min)
	weak := 0
	if len(strong.Rules) < len(prog.Rules) {
		rel := Closure(prog, Defines(prog), q.Pred)
		for i := range prog.Rules {
			if r := &prog.Rules[i]; rel[r.Head.Pred] && eval.WeightOf(r.Weight) < e.Min {
				weak++
			}
		}
	}
	var (
		u    *eval.Unit
		mode eval.QueryMode
	)
	if !opt.NoMagic && !opt.NoRace && goalDirected(strong, q) && boundQuery(q) {
		gd := func() *eval.Unit { return raceUnit(strong, q) }
		e, u, mode, err = raceQuery(ctx, st, syms, gd, plainUnitOf(strong, q), opt, setup)
	} else {
		u, mode = QueryUnit(strong, q, !opt.NoMagic)
		e.Unit = u
		err = e.Load(u)
		if err == nil {
			err = e.Run(u)
		}
	}
	e.WeakRules = weak
	e.ReportStats(opt.Stats)
	if w := opt.Work; w != nil {
		w.Evaluations.Add(1)
		w.Derived.Add(int64(e.Derived))
		w.Joins.Add(e.Work)
		w.Reads.Add(e.Reads)
		w.Modes[mode].Add(1)
	}
	if err != nil {
		return nil, nil, pkgerr.Newf("reasoner: query %s: %w", q, err)
	}
	ri, ok := e.RelIdx[eval.RelKey(u.Answer, len(eval.QueryVars(q)))]
	if !ok {
		return e, nil, nil
	}
	return e, e.Rels[ri], nil
}

// EvalQuery evaluates q over prog with the one evaluator.
func EvalQuery(ctx context.Context, st store.Store, syms *eval.Symtab, prog *datalog.Program, q datalog.Atom, opt eval.Options,
	shared func(string, int) *eval.Relation) ([]eval.Answer, error) {
	e, r, err := RunQuery(ctx, st, syms, prog, q, opt, shared)
	if err != nil || r == nil {
		return nil, err
	}
	answers := make([]eval.Answer, 0, r.Len())
	err = e.EachAnswer(r, q, opt.Explain, false, func(a eval.Answer) bool {
		answers = append(answers, a)
		return true
	})
	if err != nil {
		return nil, err
	}
	if err := eval.SortAnswersCtx(ctx, answers); err != nil {
		return nil, pkgerr.Newf("reasoner: query %s: %w", q, err)
	}
	return answers, nil
}
