package combine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/combine"
	"github.com/drumql/drumql/store"
)

// below is the float64 just below 0.5: 1 - below rounds to 0.5, so the
// noisy-or of a rule of weight below equals that of one of weight 0.5.
const below = "0.49999999999999994"

// bestCases are QueryBest's decisions at the boundaries of its thresholds
// (1, 1/2, 1/4, 1/16, ...) and of its noisy-or bounds, over the base facts
// q e1 b, q e2 a, q e3 c: want is the answers of s(q, Y) in order, as
// "value confidence"; min, when not 0, the threshold that decided them
// (Best.Min).
var bestCases = []struct {
	name string
	prog string
	n    int
	sc   combine.Scoring
	want string
	min  float64
	// explain asks for proofs (QueryBest then reads every answer out).
	explain bool
}{
	{
		// At 1/2 the answer b is known at 0.5; the answer a, not found, has
		// a rule below 1/2 whose noisy-or is 0.5 too, and comes first by
		// its value: the bound of an answer not found must count as a tie.
		name: "noisy-or, an answer not found at the bound",
		prog: "0.5 :: s(X, Y) :- e1(X, Y).\n" + below + " :: s(X, Y) :- e2(X, Y).\n",
		n:    1, sc: combine.Scoring{NoisyOr: true, Top: 1},
		want: "a 0.5", min: 0.25,
	},
	{
		name: "noisy-or top 2, an answer not found at the bound",
		prog: "0.5 :: s(X, Y) :- e1(X, Y).\n0.5 :: s(X, Y) :- e1(X, Y), e3(X, c).\n" + below + " :: s(X, Y) :- e2(X, Y).\n" + below + " :: s(X, Y) :- e2(X, Y), e3(X, c).\n",
		n:    1, sc: combine.Scoring{NoisyOr: true, Top: 2},
		want: "a 0.75", min: 0.25,
	},
	{
		// At 1/2 the answer a is found by one rule of 0.6, its other rule
		// unknown: its upper bound, noisy-or of 0.6 and 1/2, equals b's
		// exact score, and its rule below 1/2 gives it that score too:
		// a found answer's bound must count as a tie.
		name: "noisy-or, a found answer's bound at the n-th",
		prog: "0.6 :: s(X, Y) :- e1(X, Y).\n0.5 :: s(X, Y) :- e1(X, Y), e3(X, c).\n0.6 :: s(X, Y) :- e2(X, Y).\n" + below + " :: s(X, Y) :- e2(X, Y), e3(X, c).\n",
		n:    1, sc: combine.Scoring{NoisyOr: true, Top: 2},
		want: "a 0.8", min: 0.25,
	},
	{
		name: "noisy-or, decided above the bound",
		prog: "0.9 :: s(X, Y) :- e1(X, Y).\n0.2 :: s(X, Y) :- e2(X, Y).\n",
		n:    1, sc: combine.Scoring{NoisyOr: true, Top: 1},
		want: "b 0.9", min: 0.5,
	},
	{
		name: "max, an answer exactly at a threshold is known",
		prog: "0.5 :: s(X, Y) :- e1(X, Y).\n0.3 :: s(X, Y) :- e2(X, Y).\n",
		n:    1,
		want: "b 0.5", min: 0.5,
	},
	{
		name:    "max with proofs, an answer exactly at a threshold is known",
		prog:    "0.5 :: s(X, Y) :- e1(X, Y).\n0.3 :: s(X, Y) :- e2(X, Y).\n",
		n:       1,
		explain: true,
		want:    "b 0.5", min: 0.5,
	},
	{
		name: "max, an answer just below a threshold is not",
		prog: below + " :: s(X, Y) :- e1(X, Y).\n0.3 :: s(X, Y) :- e2(X, Y).\n",
		n:    1,
		want: "b " + below, min: 0.25,
	},
	{
		name: "max, equal confidences in the order of their values",
		prog: "0.5 :: s(X, Y) :- e1(X, Y).\n0.5 :: s(X, Y) :- e2(X, Y).\n0.5 :: s(X, Y) :- e3(X, Y).\n",
		n:    2,
		want: "a 0.5\nb 0.5", min: 0.5,
	},
	{
		name: "max, an answer at 1",
		prog: "s(X, Y) :- e1(X, Y).\n0.3 :: s(X, Y) :- e2(X, Y).\n",
		n:    1,
		want: "b 1", min: 1,
	},
	{
		name: "max, two answers, the second below every threshold but the last",
		prog: "0.5 :: s(X, Y) :- e1(X, Y).\n0.01 :: s(X, Y) :- e2(X, Y).\n",
		n:    2,
		want: "b 0.5\na 0.01",
	},
	{
		name: "max, the program's threshold cuts",
		prog: "@min 0.5.\n0.5 :: s(X, Y) :- e1(X, Y).\n" + below + " :: s(X, Y) :- e2(X, Y).\n",
		n:    5,
		want: "b 0.5", min: 0.5,
	},
}

// TestQueryBestEdges runs each case of bestCases by QueryBest and by
// Query (and NoisyOrTop) cut to n, which must agree with want.
func TestQueryBestEdges(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	if _, err := st.Load(ctx, &store.Batch{Graph: []store.NamedTriple{{S: "q", R: "e1", O: "b"}, {S: "q", R: "e2", O: "a"}, {S: "q", R: "e3", O: "c"}}}, nil); err != nil {
		t.Fatal(err)
	}
	q, err := parser.ParseQuery("s(q, Y)?")
	if err != nil {
		t.Fatal(err)
	}
	format := func(as []reasoner.Answer) string {
		var b strings.Builder
		for i, a := range as {
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "%s %v", strings.Join(a.Values, " "), a.Confidence)
		}
		return b.String()
	}
	for _, c := range bestCases {
		t.Run(c.name, func(t *testing.T) {
			prog, err := parser.ParseString("best.dl", c.prog)
			if err != nil {
				t.Fatal(err)
			}
			b, err := combine.QueryBest(ctx, st, prog, q.Atom, c.n, c.sc, reasoner.Options{Explain: c.explain})
			if err != nil {
				t.Fatal(err)
			}
			if got := format(b.Answers); got != c.want {
				t.Errorf("QueryBest:\n%s\nwant\n%s", got, c.want)
			}
			if c.min != 0 && b.Min != c.min {
				t.Errorf("QueryBest decided at %v, want %v", b.Min, c.min)
			}
			as, err := reasoner.Query(ctx, st, prog, q.Atom, reasoner.Options{})
			if err == nil && c.sc.NoisyOr {
				as, err = combine.NoisyOrTop(ctx, st, prog, q.Atom, as, c.sc.Top, reasoner.Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := format(as[:min(c.n, len(as))]); got != c.want {
				t.Errorf("Query:\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}
