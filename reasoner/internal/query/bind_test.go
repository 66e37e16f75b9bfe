package query

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// numberChain is a chain of n nodes named by numbers, 0 -> 1 -> ... ->
// n-1, plus a node named 0 followed by the digits of n-10 (a second symbol
// equal to n-10 as a number) with one edge to `twin`.
func numberChain(n int) string {
	var b strings.Builder
	for i := range n - 1 {
		fmt.Fprintf(&b, "%d\te\t%d\n", i, i+1)
	}
	fmt.Fprintf(&b, "0%d\te\ttwin\n", n-10)
	return b.String()
}

const pathProgram = "path(X, Y) :- e(X, Y).\npath(X, Z) :- e(X, Y), path(Y, Z).\n"

// TestConstantsBindGoals checks that goal-directed evaluation binds every
// constant: a number constant in the query (path(1990, X)? reaches the 9
// nodes after 1990 and, through the symbol 01990, equal to it as a number,
// twin), a symbol constant written as a number ("01990" is that symbol
// only), a ground query with two numbers, and constants in a rule's body
// when the query has none (goal()?). The magic-set rewrite alone must
// derive a number of facts proportional to what the constants reach (the
// bound), where the bottom-up evaluation derives the closure of the chain
// (about 2,000²/2 facts); both give the answers the closure gives.
func TestConstantsBindGoals(t *testing.T) {
	ctx := context.Background()
	const bound = 400
	n := 2000
	if testing.Short() {
		n = 800 // the bottom-up runs derive the closure, n²/2 facts
	}
	st := testkit.NewStore(t, numberChain(n))
	num := func(k int) string { return fmt.Sprint(n - k) }
	after := func(from int) string { // the answers X of path(n-from, X): n-from+1 .. n-1
		var b strings.Builder
		for k := from - 1; k >= 1; k-- {
			fmt.Fprintf(&b, "%s 1\n", num(k))
		}
		return b.String()
	}
	cases := []struct {
		prog, query string
		want        string // the answers, independently worked out
	}{
		{pathProgram, "path(" + num(10) + ", X)?", after(10) + "twin 1\n"},
		{pathProgram, "path(" + num(10) + ".0, X)?", after(10) + "twin 1\n"},
		{pathProgram, `path("0` + num(10) + `", X)?`, "twin 1\n"},
		{pathProgram, "path(" + num(10) + ", " + num(1) + ")?", "true 1\n"},
		{pathProgram, "path(" + num(1) + ", " + num(10) + ")?", ""},
		{pathProgram + "goal() :- path(" + num(10) + ", " + num(1) + ").\n", "goal()?", "true 1\n"},
		{pathProgram + "goal() :- path(\"" + num(10) + "\", \"" + num(5) + "\").\n", "goal()?", "true 1\n"},
		{pathProgram + "goal() :- path(" + num(1) + ", " + num(10) + ").\n", "goal()?", ""},
		{pathProgram + "near(X) :- path(" + num(5) + ", X).\n", "near(X)?", after(5)},
	}
	for _, c := range cases {
		p := testkit.MustParse(t, c.prog)
		q := testkit.MustQuery(t, c.query)
		for _, mode := range []string{"alone", "race", "off"} {
			opt := eval.Options{Threads: 2, NoMagic: mode == "off", NoRace: mode == "alone", Work: &eval.WorkCounters{}}
			as, err := Query(ctx, st, p, q, opt)
			if err != nil {
				t.Fatalf("%s, magic %s: %v", c.query, mode, err)
			}
			if got := oracle.FormatAnswers(as); got != c.want {
				t.Fatalf("%s, magic %s:\n%s\nwant\n%s", c.query, mode, got, c.want)
			}
			d := opt.Work.Derived.Load()
			switch {
			case mode == "alone" && d > bound:
				t.Errorf("%s: the rewrite derived %d facts, more than %d", c.query, d, bound)
			case mode == "off" && d <= int64(n*(n-1)/4):
				t.Errorf("%s: bottom-up derived %d facts, not the closure", c.query, d)
			}
			if mode == "alone" {
				t.Logf("%s: %d facts derived", c.query, d)
			}
		}
	}
}
