package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestDeadRulesCostNothing: rules over a relation with no facts and no
// live rule (nothing, and gone, which only dead rules define) derive
// nothing, so adding two hundred of them to a program changes neither its
// answers nor its work: the same joins and facts for queries (goal-directed
// and bottom-up), the same facts for Infer, the same rule scores. A rule
// whose relation has facts is not dead, even through a chain of rules.
func TestDeadRulesCostNothing(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for range 300 {
		fmt.Fprintf(&b, "v%d\tr%d\tv%d\n", rng.IntN(40), rng.IntN(3), rng.IntN(40))
	}
	const live = `0.9 :: h(X, Y) :- r0(X, Y).
0.8 :: h(X, Y) :- r1(X, Z), r2(Z, Y), X != Y.
0.7 :: h(X, v3) :- r2(X, v5).
0.6 :: k(X, Y) :- h(Y, X).
0.5 :: h(X, Y) :- k(X, Z), r0(Z, Y).
`
	var dead strings.Builder
	dead.WriteString(live)
	for i := range 100 {
		fmt.Fprintf(&dead, "0.9 :: h(X, Y) :- nothing(X, Z), r%d(Z, Y).\n", i%3)
		fmt.Fprintf(&dead, "0.9 :: h(X, v%d) :- gone(X, _).\n", i%40)
	}
	dead.WriteString("0.9 :: gone(X, Y) :- nothing(Y, X).\n0.9 :: gone(X, Y) :- gone(Y, X), r0(X, Y).\n")
	pl, pd := testkit.MustParse(t, live), testkit.MustParse(t, dead.String())
	st := testkit.NewStore(t, b.String())
	marks, n, err := eval.DeadRules(st, pd, true)
	if err != nil {
		t.Fatal(err)
	}
	if n != 202 || marks[0] || marks[4] || !marks[5] || !marks[len(marks)-1] {
		t.Fatalf("%d dead rules, want 202 (the live ones first)", n)
	}
	for _, qs := range []string{"h(v1, Y)?", "h(X, v3)?", "k(v2, Y)?", "h(X, Y)?"} {
		q := testkit.MustQuery(t, qs)
		for _, mode := range []string{"alone", "race", "off"} {
			run := func(p string) (string, int64, int64) {
				opt := eval.Options{Threads: 2, NoMagic: mode == "off", NoRace: mode == "alone", Work: &eval.WorkCounters{}}
				as, err := Query(ctx, st, testkit.MustParse(t, p), q, opt)
				if err != nil {
					t.Fatal(err)
				}
				return oracle.FormatAnswers(as), opt.Work.Joins.Load(), opt.Work.Derived.Load()
			}
			a1, j1, d1 := run(live)
			a2, j2, d2 := run(dead.String())
			if a1 != a2 || j1 != j2 || d1 != d2 {
				t.Errorf("%s, magic %s: with the dead rules %d joins and %d facts, without %d and %d (answers equal: %v)",
					qs, mode, j2, d2, j1, d1, a1 == a2)
			}
		}
	}
	s1, s2 := testkit.NewStore(t, b.String()), testkit.NewStore(t, b.String())
	i1, err := eval.Infer(ctx, s1, pl, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	i2, err := eval.Infer(ctx, s2, pd, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if i1.Facts != i2.Facts || i1.Iterations != i2.Iterations || oracle.DerivedDump(t, s1) != oracle.DerivedDump(t, s2) {
		t.Errorf("infer: %d facts in %d rounds with the dead rules, %d in %d without", i2.Facts, i2.Iterations, i1.Facts, i1.Iterations)
	}
	e1, err := Prepare(ctx, st, pl, eval.Options{BaseOnly: true, Min: eval.RankMin})
	if err != nil {
		t.Fatal(err)
	}
	e2, err := Prepare(ctx, st, pd, eval.Options{BaseOnly: true, Min: eval.RankMin})
	if err != nil {
		t.Fatal(err)
	}
	cd, err := e2.chainInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h := cd.heads["h"]; len(h.lpChain)+len(h.lpConst)+len(h.lpAux)+len(h.lpOther) != 4 {
		t.Errorf("rule scores apply %d rules of h, want its 4 live ones", len(h.lpChain)+len(h.lpConst)+len(h.lpAux)+len(h.lpOther))
	}
	for e := range 40 {
		for _, inverse := range []bool{false, true} {
			h1, err := e1.RuleScores(ctx, "h", fmt.Sprint("v", e), inverse)
			if err != nil {
				t.Fatal(err)
			}
			h2, err := e2.RuleScores(ctx, "h", fmt.Sprint("v", e), inverse)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(h1) != fmt.Sprint(h2) {
				t.Fatalf("v%d inverse=%v: rule scores differ with the dead rules", e, inverse)
			}
		}
	}
}
