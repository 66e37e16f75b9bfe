package policy

import (
	"context"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/combine"
	"github.com/drumql/drumql/reasoner/maintain"
	"github.com/drumql/drumql/store"
)

// StoredFixpoint reports whether st's derived facts are prog's fixpoint at
// opt's threshold, so that a query of q over prog can be answered from
// them: infer (or serve) stored them for this program (its record is the
// one an evaluation with opt writes) and no base fact changed since. A
// query over a predicate with no stored fact is not answered from the
// store (the program may still define it).
func StoredFixpoint(st store.Store, prog *datalog.Program, q datalog.Atom, opt reasoner.Options) bool {
	ms, err := st.Materialised()
	return err == nil && maintain.UpToDate(ms, prog, opt) && reasoner.CheckQuery(st, nil, q) == nil
}

// Request is how a query's answers are asked for.
type Request struct {
	// Top keeps the Top best answers (0: all).
	Top int
	// Combination is how an answer's rules combine (Combine).
	Combination Combination
	// Stored says that the store holds the program's fixpoint at Opt's
	// threshold (StoredFixpoint): the answers are then its facts, and the
	// rules are applied once to them to rescore.
	Stored bool
	// Opt are the evaluation's options, its threshold resolved
	// (ResolveMin).
	Opt reasoner.Options
}

// Result is what Answers found.
type Result struct {
	// Answers are the answers, best first, at most Request.Top.
	Answers []reasoner.Answer
	// Decided is the threshold of the evaluation that decided the Top best
	// answers when it is above the request's (the weaker derivations were
	// not evaluated), else 0.
	Decided float64
}

// Answers returns the answers of q over the policy's program and store as
// req asks. With Top, max and noisy-or over each answer's k best rules
// evaluate at falling thresholds until the Top best are decided
// (combine.QueryBest); otherwise every answer is evaluated (or read from the
// stored fixpoint) and rescored (Rescore), then cut to Top.
func (p *Policy) Answers(ctx context.Context, q datalog.Atom, req Request) (Result, error) {
	prog, comb, opt := p.prog, req.Combination, req.Opt
	if req.Stored {
		prog = nil // the stored facts are the fixpoint
	}
	var res Result
	if req.Top > 0 && comb.Method != Grouped && (!req.Stored || comb.Method == Max) {
		// the N best at falling thresholds (over the stored fixpoint, one
		// pass), each kept in a bounded heap, not every answer sorted
		best, err := combine.QueryBest(ctx, p.st, prog, q, req.Top, combine.Scoring{NoisyOr: comb.Method == NoisyOr, Top: comb.Top}, opt)
		if err != nil {
			return res, err
		}
		res.Answers = best.Answers
		if best.Min > max(opt.Min, reasoner.Exact) {
			res.Decided = best.Min
		}
	} else {
		as, err := reasoner.Query(ctx, p.st, prog, q, opt)
		if err != nil {
			return res, err
		}
		var sn *combine.StoredNoisyOr
		if req.Stored && comb.Method == NoisyOr {
			if sn, err = combine.PrepareStoredNoisyOr(ctx, p.st, p.prog, opt); err != nil {
				return res, err
			}
		}
		if res.Answers, err = p.Rescore(ctx, q, as, comb, opt, sn, req.Top); err != nil {
			return res, err
		}
	}
	if req.Top > 0 && len(res.Answers) > req.Top {
		res.Answers = res.Answers[:req.Top]
	}
	return res, nil
}
