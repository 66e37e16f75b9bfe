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
	// Passes is the number of thresholds QueryBest tried, falling, the last
	// being Min: 1 when it tried only the threshold the options and the
	// program set (n <= 0, a program without rules, noisy-or over all of an
	// answer's rules, or a negated literal or an aggregate from q's
	// predicate down). A pass is not one evaluation: with noisy-or it may
	// take two (the answers, then their confidences through each rule).
	Passes int
}

// QueryBest returns the n best answers of q, best first (every answer when
// n <= 0): those that Query returns, rescored by NoisyOrTop over each
// answer's sc.Top best rules when sc.NoisyOr, cut to n, with confidences
// equal up to the order in which a derivation's product was taken (see the
// package documentation on the race). Best.Min is the threshold of the
// evaluation that decided them, at or above the one opt and prog set
// (eval.Exact when neither sets one); opt.Stats, if set, receives that
// evaluation's statistics.
//
// To cost less than Query, it evaluates at falling thresholds (1 with max,
// 1/2, 1/4, then each the square of the last) and stops at the first that
// decides the n best: with max-product, an evaluation at τ finds every
// answer of confidence at least τ with its exact confidence. It evaluates
// once, at the threshold opt and prog set, when n <= 0, when prog has no
// rules, for noisy-or with sc.Top <= 0 (all rules, which a threshold does
// not bound), and when a rule from q's predicate down reads a negated
// literal or an aggregate (a fact cut by a higher threshold can make `not
// p` stronger or change a count).
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
// are certain (always when last). At τ = opt.Min an answer's score lies
// between noisy-or of its known rules and that list padded with τ up to
// top, and an answer not found scores below noisy-or of top times τ; the n
// best are decided when their scores are exact and no other answer whose
// score is not exact has a bound reaching the n-th.
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
	confs, _, err := ruleConfs(ctx, st, prog, q, opt, nil)
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
