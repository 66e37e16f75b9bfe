package combine

import (
	"cmp"
	"container/heap"
	"context"
	"slices"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/noisyor"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/goal"
	"github.com/drumql/drumql/reasoner/internal/query"
	"github.com/drumql/drumql/store"
)

// Scoring is how QueryBest scores answers: by their best derivation (the
// zero value), or by noisy-or over each answer's Top best rules.
type Scoring struct {
	// NoisyOr rescores answers as NoisyOrTop does.
	NoisyOr bool
	// Top is the number of rules noisy-or combines per answer (0: all).
	Top int
}

// Best is what QueryBest found.
type Best struct {
	// Answers are the best answers, best first.
	Answers []eval.Answer
	// Min is the threshold of the evaluation that decided them: above the
	// one the options and the program set when an evaluation at a higher
	// threshold already knew the best answers for certain.
	Min float64
	// Passes is the number of evaluations made, one per threshold tried.
	Passes int
}

// QueryBest returns the n best answers of q (every answer when n <= 0):
// what Query (and NoisyOrTop, with sc.NoisyOr) followed by a cut to n
// would return, with confidences equal up to the order in which a
// derivation's product was taken (see the package documentation on the
// race).
//
// It evaluates at falling thresholds: 1 (with max), 1/2, 1/4, then each
// the square of the last, down to the threshold opt and the program set.
// With max-product, an evaluation at a threshold τ keeps every derivation
// of confidence at least τ, and so every fact's best one: the answers of
// confidence at least τ are exactly those of the evaluation at any lower
// threshold, with the same confidences. Once n of them are known the rest
// cannot come before them, and the lower thresholds, which cost more
// (weaker rules, longer chains, wider demand), are not evaluated. With
// noisy-or over each answer's k best rules, the confidences through rules
// below τ are unknown but below τ: an answer's score lies between what its
// known rules give and what k − (its known rules) more at τ would add, and
// an answer not found scores below noisy-or of k times τ. The n best are
// decided when their scores are exact and every other answer's bound is
// below the n-th.
//
// A query over the store alone (prog without rules) is answered in one
// pass: there is nothing to evaluate. A program that reads, from q's
// predicate down, a negated literal or an aggregate is evaluated at its
// own threshold only: a fact cut by a higher threshold can make `not p`
// stronger or change a count. So is noisy-or over all of an answer's
// rules, which a threshold does not bound.
func QueryBest(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, n int, sc Scoring, opt eval.Options) (Best, error) {
	if prog == nil {
		prog = &datalog.Program{}
	}
	opt = opt.WithProgram(prog)
	floor := opt.Min
	if floor <= 0 {
		floor = eval.Exact
	}
	if n <= 0 {
		answers, err := query.Query(ctx, st, prog, q, opt)
		if err == nil && sc.NoisyOr {
			answers, err = NoisyOrTop(ctx, st, prog, q, answers, sc.Top, opt)
		}
		return Best{Answers: answers, Min: floor, Passes: 1}, err
	}
	var taus []float64
	if len(prog.Rules) > 0 && (!sc.NoisyOr || sc.Top > 0) && monotoneFrom(prog, q.Pred) {
		taus = fallingThresholds(floor, !sc.NoisyOr)
	}
	taus = append(taus, floor)
	var b Best
	for i, tau := range taus {
		last := i == len(taus)-1
		o := opt
		o.Min, o.Speculative = tau, !last
		var stats eval.EvalStats
		o.Stats = &stats
		b.Passes++
		var (
			best []eval.Answer
			ok   bool
			err  error
		)
		if sc.NoisyOr {
			best, ok, err = bestNoisyOr(ctx, st, prog, q, n, sc.Top, last, o)
		} else {
			best, ok, err = bestMax(ctx, st, prog, q, n, last, o)
		}
		if err != nil {
			return Best{}, err
		}
		if ok {
			b.Answers, b.Min = best, tau
			if opt.Stats != nil {
				*opt.Stats = stats
			}
			return b, nil
		}
	}
	panic("reasoner: QueryBest: the last threshold decides")
}

// fallingThresholds returns the thresholds QueryBest tries before floor,
// highest first, each above floor: 1 (with max only: noisy-or's bound on
// an answer not found is 1 there), 1/2, 1/4, then each the square of the
// last.
func fallingThresholds(floor float64, withOne bool) []float64 {
	var out []float64
	if withOne && floor < 1 {
		out = append(out, 1)
	}
	for tau := 0.5; tau > floor; {
		out = append(out, tau)
		if tau > 0.25 {
			tau = 0.25
		} else {
			tau *= tau
		}
	}
	return out
}

// monotoneFrom reports whether the rules pred depends on (through prog)
// read no negated literal and no aggregate: then an evaluation at a higher
// threshold derives a subset of the facts, each with its confidence.
func monotoneFrom(prog *datalog.Program, pred string) bool {
	rel := goal.Closure(prog, goal.Defines(prog), pred)
	for i := range prog.Rules {
		r := &prog.Rules[i]
		if !rel[r.Head.Pred] {
			continue
		}
		neg := false
		r.BodyAtoms(func(l *datalog.Literal, inAgg bool) {
			neg = neg || inAgg || l.Kind == datalog.Negated
		})
		if neg {
			return false
		}
	}
	return true
}

// bestMax returns the n best answers of q evaluated at opt.Min, and
// whether they are certain: n of them reach it, or it is the last
// threshold. Without proofs to attach, they are kept in a heap of n as
// the evaluator reads them out, not all collected and sorted.
func bestMax(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, n int, last bool, opt eval.Options) ([]eval.Answer, bool, error) {
	// A stored fact weaker than the threshold may be an answer too: only
	// the answers reaching it are known to be all there are.
	known := 0
	var best []eval.Answer
	if opt.Explain {
		answers, err := query.Query(ctx, st, prog, q, opt)
		if err != nil {
			return nil, false, err
		}
		known = reaching(answers, opt.Min)
		best = answers[:min(n, len(answers))]
	} else {
		h := make(answerHeap, 0, n)
		err := query.QueryFunc(ctx, st, prog, q, opt, func(a eval.Answer) bool {
			if a.Confidence >= opt.Min {
				known++
			}
			switch {
			case len(h) < n:
				heap.Push(&h, keep(a))
			case eval.CompareAnswers(&a, &h[0]) < 0:
				h[0] = keep(a)
				heap.Fix(&h, 0)
			}
			return true
		})
		if err != nil {
			return nil, false, err
		}
		best = make([]eval.Answer, len(h))
		for i := len(h) - 1; i >= 0; i-- {
			best[i] = heap.Pop(&h).(eval.Answer)
		}
	}
	if known < n && !last {
		return nil, false, nil
	}
	return best, true, nil
}

// reaching returns the number of answers (sorted best first) whose
// confidence reaches tau.
func reaching(answers []eval.Answer, tau float64) int {
	n := 0
	for n < len(answers) && answers[n].Confidence >= tau {
		n++
	}
	return n
}

// answerHeap is a heap of answers, the worst (compareAnswers) on top.
type answerHeap []eval.Answer

func (h answerHeap) Len() int           { return len(h) }
func (h answerHeap) Less(i, j int) bool { return eval.CompareAnswers(&h[i], &h[j]) > 0 }
func (h answerHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *answerHeap) Push(x any)        { *h = append(*h, x.(eval.Answer)) }
func (h *answerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// keep copies the slices of an answer of QueryFunc, which reuses them for
// the next answer.
func keep(a eval.Answer) eval.Answer {
	a.Values = slices.Clone(a.Values)
	a.Fact.Args = slices.Clone(a.Fact.Args)
	return a
}

// bestNoisyOr returns the n best answers of q evaluated at opt.Min and
// rescored by noisy-or over each one's top best rules, and whether they
// are certain (always when last).
func bestNoisyOr(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, n, top int, last bool, opt eval.Options) ([]eval.Answer, bool, error) {
	tau := opt.Min
	answers, err := query.Query(ctx, st, prog, q, opt)
	if err != nil {
		return nil, false, err
	}
	if last {
		as, err := NoisyOrTop(ctx, st, prog, q, answers, top, opt)
		if err != nil {
			return nil, false, err
		}
		return as[:min(n, len(as))], true, nil
	}
	answers = answers[:reaching(answers, tau)]
	if len(answers) < n {
		return nil, false, nil
	}
	confs, _, err := ruleConfs(ctx, st, prog, q, opt)
	if err != nil {
		return nil, false, err
	}
	// Each answer's score lies in [lo, hi]: its rules below tau are
	// unknown, each below tau.
	type bounded struct {
		a      eval.Answer
		lo, hi float64
	}
	bs := make([]bounded, len(answers))
	pad := make([]float64, 0, top)
	for i, a := range answers {
		cs := slices.DeleteFunc(confs[strings.Join(a.Values, "\x00")], func(c float64) bool { return c < tau })
		slices.SortFunc(cs, func(x, y float64) int { return cmp.Compare(y, x) })
		cs = cs[:min(top, len(cs))]
		pad = append(pad[:0], cs...)
		for len(pad) < top {
			pad = append(pad, tau)
		}
		// with top rules known, pad is cs: hi is lo
		bs[i] = bounded{a, max(a.Confidence, noisyor.Of(cs)), max(a.Confidence, noisyor.Of(pad))}
	}
	slices.SortStableFunc(bs, func(x, y bounded) int {
		if x.lo != y.lo {
			return cmp.Compare(y.lo, x.lo)
		}
		return slices.Compare(x.a.Values, y.a.Values)
	})
	nth := bs[n-1].lo
	// An answer not found: its best derivation and its rules are all
	// below tau.
	if noisyor.Of(slices.Repeat([]float64{tau}, top)) >= nth {
		return nil, false, nil
	}
	for i, x := range bs {
		if i < n && x.hi != x.lo {
			return nil, false, nil
		}
		if i >= n && x.hi != x.lo && x.hi >= nth {
			return nil, false, nil
		}
	}
	out := make([]eval.Answer, n)
	for i := range out {
		out[i] = bs[i].a
		out[i].Confidence = bs[i].lo
	}
	return out, true, nil
}
