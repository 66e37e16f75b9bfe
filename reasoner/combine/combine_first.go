package combine

import (
	"cmp"
	"context"
	"slices"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
)

// storedConfSlack bounds how far a rule's confidence for an answer,
// recomputed from the stored facts, can exceed the answer's stored
// confidence: the fixpoint stores each fact's best confidence over its
// derivations, rounded to float32, and a rule's derivation recomputed from
// float32 body confidences differs from the one the fixpoint computed by a
// few float32 roundings (relative 6e-8 each).
const storedConfSlack = 1e-6

// RescoreFirst is the first n answers of Rescore (n <= 0: all of them).
// With noisy-or over each answer's top best rules (0 < top), it first
// bounds each answer's rescored confidence: at least its stored confidence
// (an answer keeps it when higher), at most the noisy-or of top rules each
// as confident as it (a rule's derivation is never better than the
// fixpoint's best, up to storedConfSlack). When every answer that can
// reach the first n has its bounds equal (a base fact's 1, typically: a
// hub's query has thousands), the first n are known without applying a
// rule; otherwise the rules are applied as Rescore does. Exact: the same
// answers, confidences and order as Rescore's first n
// (TestRescoreFirstAsRescore).
func (s *StoredNoisyOr) RescoreFirst(ctx context.Context, q datalog.Atom, answers []eval.Answer, top, n int) ([]eval.Answer, error) {
	if n > 0 && top > 0 && n < len(answers) {
		if first, ok := settledFirst(answers, top, n); ok {
			return first, nil
		}
	}
	as, err := s.Rescore(ctx, q, answers, top)
	if n > 0 && len(as) > n {
		as = as[:n]
	}
	return as, err
}

// NoisyOrBound is the highest confidence noisy-or over top rules can give
// an answer stored with confidence c.
func NoisyOrBound(c float64, top int) float64 {
	c = min(1, c*(1+storedConfSlack))
	p := 1.0
	for range top {
		p *= 1 - c
	}
	return max(c, 1-p)
}

// settledFirst returns the first n answers rescored by noisy-or over top
// rules, ordered as rescored orders them, when the bounds decide them
// (see RescoreFirst); ok is false otherwise. 0 < n < len(answers).
func settledFirst(answers []eval.Answer, top, n int) (first []eval.Answer, ok bool) {
	// low: the n-th highest stored confidence. Every answer bounded above
	// below it ends after at least n others, which are rescored to at
	// least their stored confidence.
	best := make([]float64, 0, n+1) // descending
	for _, a := range answers {
		c := a.Confidence
		if len(best) == n && c <= best[n-1] {
			continue
		}
		i, _ := slices.BinarySearchFunc(best, c, func(x, t float64) int { return cmp.Compare(t, x) })
		best = slices.Insert(best, i, c)
		if len(best) > n {
			best = best[:n]
		}
	}
	low := best[n-1]
	// Among the others, the first n by confidence then values, as
	// rescored sorts; each must be settled (bounds equal).
	before := func(a, b *eval.Answer) bool {
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		}
		return eval.CompareValues(a.Values, b.Values) < 0
	}
	first = make([]eval.Answer, 0, n+1)
	for i := range answers {
		a := &answers[i]
		ub := NoisyOrBound(a.Confidence, top)
		if ub < low {
			continue
		}
		if ub != a.Confidence {
			return nil, false
		}
		if len(first) == n && !before(a, &first[n-1]) {
			continue
		}
		k := len(first)
		for k > 0 && before(a, &first[k-1]) {
			k--
		}
		first = slices.Insert(first, k, *a)
		if len(first) > n {
			first = first[:n]
		}
	}
	return first, true
}
