package combine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/query"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestStoredNoisyOrAsNoisyOrTop checks the rescoring over a materialised
// store against NoisyOrTop over a store holding only the base facts, which
// evaluates the whole program per query: random programs (negation in half
// of them), thresholds and queries, every top. Stored confidences are
// float32, hence the tolerance.
func TestStoredNoisyOrAsNoisyOrTop(t *testing.T) {
	ctx := context.Background()
	rescored, raised, firsts, settled := 0, 0, 0, 0
	for seed := range 120 {
		rng := rand.New(rand.NewPCG(uint64(seed), 29))
		base, _, src := oracle.RandomCase(rng, seed%2 == 1)
		if seed >= 80 {
			// The shape of mined files, with three-step rules under
			// object identity whose bodies read derived, weighted facts.
			base, src = oracle.RandomMinedCase(rng)
			src += randomOIRules(rng)
		}
		p := testkit.MustParse(t, src)
		if datalog.Validate(p).HasErrors() {
			continue
		}
		opt := eval.Options{}
		if seed%3 == 2 {
			opt.Min = 0.3
		}
		plain := testkit.NewStore(t, oracle.TripleTSV(base))
		mat := testkit.NewStore(t, oracle.TripleTSV(base))
		if _, err := eval.Infer(ctx, mat, p, opt); err != nil {
			t.Fatal(err)
		}
		sn, err := PrepareStoredNoisyOr(ctx, mat, p, opt)
		if err != nil {
			t.Fatal(err)
		}
		queries := oracle.RandomQueries(rng, 9)
		if seed >= 80 {
			queries = nil
			for range 12 {
				h, n := rng.IntN(4), rng.IntN(10)
				queries = append(queries, fmt.Sprintf("h%d(n%d, X)?", h, n), fmt.Sprintf("h%d(X, n%d)?", h, n))
			}
		}
		for _, qs := range queries {
			q := testkit.MustQuery(t, qs)
			answers, err := query.Query(ctx, plain, p, q, opt)
			if err != nil {
				continue // a predicate neither the store nor the program knows
			}
			// 0: every rule; up to maxTopHits, the k best per candidate
			// are kept as they come (topHits); past it, grouped.
			top := []int{0, 1, 2, 3, query.MaxTopHits + 1}[rng.IntN(5)]
			want, err := NoisyOrTop(ctx, plain, p, q, answers, top, opt)
			if err != nil {
				t.Fatal(err)
			}
			stored, err := query.Query(ctx, mat, nil, q, opt)
			if errors.Is(err, eval.ErrUnknownPredicate) && len(want) == 0 {
				continue // nothing derived: the store does not know the predicate
			} else if err != nil {
				t.Fatal(err)
			}
			got, err := sn.Rescore(ctx, q, stored, top)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameAnswersWithin(got, want, 1e-6); err != nil {
				t.Fatalf("seed %d: %s top %d over\n%s\n%v", seed, qs, top, src, err)
			}
			firsts, settled = checkRescoreFirst(t, sn, q, stored, got, top, firsts, settled)
			rescored += len(want)
			for i := range want {
				if k := slices.IndexFunc(answers, func(a eval.Answer) bool { return slices.Equal(a.Values, want[i].Values) }); k >= 0 && want[i].Confidence > answers[k].Confidence+1e-9 {
					raised++
				}
			}
		}
	}
	// The comparison must have seen noisy-or raise answers above their best
	// derivation, not only answers it leaves as they are.
	if rescored < 500 || raised < 50 {
		t.Errorf("only %d answers rescored, %d raised by noisy-or", rescored, raised)
	}
	t.Logf("%d answers rescored, %d raised", rescored, raised)
	// RescoreFirst must have been decided by its bounds alone often, and
	// not always.
	if settled < 20 || settled > firsts-20 {
		t.Errorf("RescoreFirst settled by its bounds %d times of %d", settled, firsts)
	}
	t.Logf("RescoreFirst: %d calls, %d settled by the bounds", firsts, settled)
}

// checkRescoreFirst checks that sn.RescoreFirst of stored for a few n is
// exactly the first n of all, sn.Rescore's answers (same values, same
// confidences bit for bit, same order), and counts the calls and those the
// bounds decided.
func checkRescoreFirst(t *testing.T, sn *StoredNoisyOr, q datalog.Atom, stored, all []eval.Answer, top, calls, settled int) (int, int) {
	t.Helper()
	for _, n := range []int{1, 2, 5} {
		first, err := sn.RescoreFirst(context.Background(), q, stored, top, n)
		if err != nil {
			t.Fatal(err)
		}
		want := all[:min(n, len(all))]
		if len(first) != len(want) {
			t.Fatalf("%s top %d, first %d: %d answers, want %d", q, top, n, len(first), len(want))
		}
		for i := range want {
			if !slices.Equal(first[i].Values, want[i].Values) || first[i].Confidence != want[i].Confidence {
				t.Fatalf("%s top %d, first %d: answer %d is %v %v, want %v %v", q, top, n, i, first[i].Values, first[i].Confidence, want[i].Values, want[i].Confidence)
			}
		}
		calls++
		if top > 0 && n < len(stored) {
			if _, ok := settledFirst(stored, top, n); ok {
				settled++
			}
		}
	}
	return calls, settled
}

// sameAnswersWithin is oracle.SameAnswers with a relative tolerance.
func sameAnswersWithin(got, want []eval.Answer, tol float64) error {
	key := func(a eval.Answer) string { return strings.Join(a.Values, " ") }
	g := map[string]float64{}
	for _, a := range got {
		g[key(a)] = a.Confidence
	}
	var diffs []string
	for _, a := range want {
		c, ok := g[key(a)]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("missing %q %g", key(a), a.Confidence))
		case math.Abs(c-a.Confidence) > tol*a.Confidence:
			diffs = append(diffs, fmt.Sprintf("%q: got %g want %g", key(a), c, a.Confidence))
		}
		delete(g, key(a))
	}
	for k, c := range g {
		diffs = append(diffs, fmt.Sprintf("extra %q %g", k, c))
	}
	slices.Sort(diffs)
	if len(diffs) > 0 {
		return fmt.Errorf("%s", strings.Join(diffs, "; "))
	}
	return nil
}

// randomOIRules returns rules of mined files' three-step shape over the
// relations of oracle.RandomMinedCase, most under object identity (A != B, A != D,
// C != B, which the walk of storedChains takes), some with only part of it.
func randomOIRules(rng *rand.Rand) string {
	weights := []string{"0.9", "0.7", "0.5", "0.3"}
	atom := func(x, y string) string {
		if rng.IntN(2) == 0 {
			x, y = y, x
		}
		return fmt.Sprintf("h%d(%s, %s)", rng.IntN(4), x, y)
	}
	var b strings.Builder
	for range 2 + rng.IntN(5) {
		cmps := "A != B, A != D, C != B"
		switch rng.IntN(5) {
		case 0:
			cmps = "A != B"
		case 1:
			cmps = "A != D, C != B"
		}
		fmt.Fprintf(&b, "%s :: h%d(A, B) :- %s, %s, %s, %s.\n", weights[rng.IntN(len(weights))], rng.IntN(4),
			atom("A", "C"), atom("C", "D"), atom("D", "B"), cmps)
	}
	return b.String()
}
