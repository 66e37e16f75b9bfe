package query

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestBatchOfLookupPlans is the regression test of a panic (index out of
// range [-1]) in a round whose batch was filled by plans that are one task
// each (their first step is an index lookup, as in a rule whose first
// literal has a constant) and then went on with a plan sliced by tuples:
// the lookup plans counted towards the batch without flushing it, and the
// next slice started below zero. The program is the reproduction:
// a chain of batchItems-8 edges, twenty rules with constants and two rules
// that scan the chain; every configuration must count the same answers as
// a closed form does.
func TestBatchOfLookupPlans(t *testing.T) {
	n := eval.BatchItems - 8
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "n%d\te\tn%d\n", i, i+1)
	}
	var src strings.Builder
	src.WriteString("h(X, Y) :- e(X, Y).\n")
	for k := range 20 {
		fmt.Fprintf(&src, "h(X, c%d) :- e(n%d, X).\n", k, k)
	}
	src.WriteString("h(X, Y) :- e(Y, X).\n")
	prog := testkit.MustParse(t, src.String())
	// e(X, Y) and e(Y, X) give 2n distinct pairs (the chain has no
	// 2-cycle); h(X, cK) :- e(nK, X) gives one pair each.
	want := 2*n + 20
	for _, c := range configurations() {
		st := testkit.NewStore(t, b.String())
		got, err := Count(context.Background(), st, prog, testkit.MustQuery(t, "h(X, Y)?"), c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != want {
			t.Fatalf("%s: %d answers, want %d", c.name, got, want)
		}
	}
	st := testkit.NewStore(t, b.String())
	stats, err := eval.Infer(context.Background(), st, prog, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Derived["h"] != want {
		t.Fatalf("infer derived %d h facts, want %d", stats.Derived["h"], want)
	}
}
