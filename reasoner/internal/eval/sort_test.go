package eval

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestSortAnswersCtx: the cancellable sort gives the order of the stable
// sort (ties in input order) for sizes around its run length, and stops
// with the context's error when cancelled before or while it merges.
func TestSortAnswersCtx(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	gen := func(n int) []Answer {
		as := make([]Answer, n)
		for i := range as {
			// few distinct confidences and values: many ties
			as[i] = Answer{Values: []string{fmt.Sprint("n", rng.IntN(50)), fmt.Sprint("m", rng.IntN(3))},
				Confidence: float64(rng.IntN(4)) / 4, Fact: datalog.Atom{Pred: fmt.Sprint(i)}}
		}
		return as
	}
	for _, n := range []int{0, 1, 7, sortRun, sortRun + 1, 2*sortRun - 1, 3*sortRun + 5, 8*sortRun + 3} {
		as := gen(n)
		want := slices.Clone(as)
		SortAnswers(want)
		if err := SortAnswersCtx(context.Background(), as); err != nil {
			t.Fatal(err)
		}
		for i := range as {
			if as[i].Fact.Pred != want[i].Fact.Pred {
				t.Fatalf("n = %d: answer %d is input %s, want input %s", n, i, as[i].Fact.Pred, want[i].Fact.Pred)
			}
		}
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SortAnswersCtx(cancelled, gen(3*sortRun)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: %v", err)
	}
	// The runs take 4 checks, the merges more.
	if err := SortAnswersCtx(testkit.NewCancelAfter(6), gen(4*sortRun)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled while merging: %v", err)
	}
}
