package query

import (
	"context"
	"github.com/drumql/drumql/internal/pkgerr"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/goal"
	"github.com/drumql/drumql/store"
)

// Query is reasoner.Query, documented there.
func Query(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, opt eval.Options) ([]eval.Answer, error) {
	if prog == nil {
		prog = &datalog.Program{}
	}
	opt = opt.WithProgram(prog)
	if err := eval.CheckProgram(st, prog); err != nil {
		return nil, err
	}
	syms, err := eval.NewSymtab(st)
	if err != nil {
		return nil, err
	}
	if err := eval.CheckProgramQuery(st, prog, q); eval.Undefined(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if len(prog.Rules) == 0 && len(prog.Facts) == 0 {
		return storeAnswers(ctx, st, syms, q, opt)
	}
	return goal.EvalQuery(ctx, st, syms, prog, q, opt, nil)
}

// Count is reasoner.Count, documented there.
func Count(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, opt eval.Options) (int, error) {
	if prog == nil {
		prog = &datalog.Program{}
	}
	opt = opt.WithProgram(prog)
	if err := eval.CheckProgram(st, prog); err != nil {
		return 0, err
	}
	syms, err := eval.NewSymtab(st)
	if err != nil {
		return 0, err
	}
	if err := eval.CheckProgramQuery(st, prog, q); eval.Undefined(err) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	if len(prog.Rules) == 0 && len(prog.Facts) == 0 {
		return countStoreAnswers(ctx, st, syms, q, opt)
	}
	opt.Explain = false
	_, r, err := goal.RunQuery(ctx, st, syms, prog, q, opt, nil)
	if err != nil || r == nil {
		return 0, err
	}
	return r.Len(), nil
}

// QueryFunc is reasoner.QueryFunc, documented there.
func QueryFunc(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, opt eval.Options, yield func(eval.Answer) bool) error {
	if prog == nil {
		prog = &datalog.Program{}
	}
	opt = opt.WithProgram(prog)
	if err := eval.CheckProgram(st, prog); err != nil {
		return err
	}
	syms, err := eval.NewSymtab(st)
	if err != nil {
		return err
	}
	if err := eval.CheckProgramQuery(st, prog, q); eval.Undefined(err) {
		return nil
	} else if err != nil {
		return err
	}
	opt.Explain = false
	if len(prog.Rules) == 0 && len(prog.Facts) == 0 {
		return eachStoreAnswer(ctx, st, syms, q, opt, yield)
	}
	e, r, err := goal.RunQuery(ctx, st, syms, prog, q, opt, nil)
	if err != nil || r == nil {
		return err
	}
	return e.EachAnswer(r, q, false, true, yield)
}

// Explain is reasoner.Explain, documented there.
func Explain(ctx context.Context, st store.Store, prog *datalog.Program, fact datalog.Atom, opt eval.Options) (*eval.Proof, error) {
	for _, t := range fact.Args {
		if t.Kind == datalog.Var {
			return nil, pkgerr.Newf("reasoner: explain %s: %w", fact, eval.ErrNotGround)
		}
	}
	opt.Explain = true
	as, err := Query(ctx, st, prog, fact, opt)
	if err != nil {
		return nil, err
	}
	if len(as) == 0 {
		return nil, pkgerr.Newf("reasoner: explain %s: %w", fact, eval.ErrNoProof)
	}
	return as[0].Proof, nil
}
