package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/goal"
	"github.com/drumql/drumql/reasoner/internal/oracle"
)

// componentsGraph is a graph of n disjoint communities of size people each,
// over relations r0..r2, and the hub relation in(x, hub) for everyone.
func componentsGraph(rng *rand.Rand, n, size int) string {
	var b strings.Builder
	for c := range n {
		for range 3 * size {
			fmt.Fprintf(&b, "c%dp%d\tr%d\tc%dp%d\n", c, rng.IntN(size), rng.IntN(3), c, rng.IntN(size))
		}
		for p := range size {
			fmt.Fprintf(&b, "c%dp%d\tin\thub\n", c, p)
		}
	}
	return b.String()
}

// componentsProgram is a mined-shaped program over componentsGraph: per
// head, chain rules of one to three atoms, rules with constants (of the
// first community: `h(X, c) :- b(X, _)` demands all of b once c is asked
// for), weak rules through the hub and rules over an absent relation, at
// the threshold 0.1. Rules over all of b have weight 0.11, as mined ones
// over a hub have low ones: nothing chains through the hub they make.
func componentsProgram(rng *rand.Rand, perHead int) string {
	weights := []string{"0.9", "0.6", "0.4", "0.2", "0.12", "0.05"}
	w := func() string { return weights[rng.IntN(len(weights))] }
	rel := func() string { return fmt.Sprint("r", rng.IntN(3)) }
	c0 := func() string { return fmt.Sprintf("c0p%d", rng.IntN(8)) }
	var src strings.Builder
	src.WriteString("@min 0.1.\n")
	for h := range 3 {
		head := fmt.Sprint("r", h)
		for range perHead {
			switch rng.IntN(8) {
			case 0:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s(B, A).\n", w(), head, rel())
			case 1, 2:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s(A, C), %s(C, B), A != B.\n", w(), head, rel(), rel())
			case 3:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s(A, C), %s(D, C), %s(D, B), A != B, A != D, C != B.\n", w(), head, rel(), rel(), rel())
			case 4:
				// Weak enough that nothing chains through the hub it makes
				// of c0p*: 0.11 times any other rule's weight is below 0.1.
				fmt.Fprintf(&src, "0.11 :: %s(X, %s) :- %s(X, _).\n", head, c0(), rel())
			case 5:
				fmt.Fprintf(&src, "%s :: %s(%s, X) :- %s(%s, X).\n", w(), head, c0(), rel(), c0())
			case 6:
				fmt.Fprintf(&src, "0.05 :: %s(A, B) :- in(A, H), in(B, H), A != B.\n", head)
			default:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- ghost(A, C), %s(C, B).\n", w(), head, rel())
			}
		}
	}
	return src.String()
}

// TestQueryWorkOverMinedProgram bounds the work of a goal-directed query
// over a mined-shaped program by that of Infer of the same program, in
// counted joins (and loaded tuples): on 300 disjoint communities, a query
// with a constant of one of them must cost at most a quarter of Infer
// (its goal-directed evaluation alone costs about a twenty-fifth, the race
// doubles it and adds its head start), and any query at most 1 + 1/raceRatio
// times Infer (the race's bound, the bottom-up evaluation doing no more than
// Infer). Both answer as the bottom-up evaluation does.
func TestQueryWorkOverMinedProgram(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 12))
	tsv := componentsGraph(rng, 300, 8)
	p := mustParse(t, componentsProgram(rng, 40))
	iw := &eval.WorkCounters{}
	if _, err := eval.Infer(ctx, newStore(t, tsv), p, eval.Options{Threads: 2, Work: iw}); err != nil {
		t.Fatal(err)
	}
	infer := iw.InferJoins.Load()
	st := newStore(t, tsv)
	for _, c := range []struct {
		query string
		part  float64 // the bound, as a part of Infer's work
	}{
		{"r0(X, c7p3)?", 0.25},
		{"r1(c9p2, Y)?", 0.25},
		{"r2(c12p1, c12p5)?", 0.25},
		{"r0(X, c0p1)?", 1 + 1.0/goal.RaceRatio},
		{"r1(X, Y)?", 1 + 1.0/goal.RaceRatio},
	} {
		q := mustQuery(t, c.query)
		qw := &eval.WorkCounters{}
		got, err := Query(ctx, st, p, q, eval.Options{Threads: 2, Work: qw})
		if err != nil {
			t.Fatal(err)
		}
		want, err := Query(ctx, st, p, q, eval.Options{Threads: 2, NoMagic: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := oracle.SameAnswers(got, want); err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		joins := qw.Joins.Load()
		t.Logf("%s: %d answers, %d joins; infer %d joins", c.query, len(got), joins, infer)
		if float64(joins) > c.part*float64(infer) {
			t.Errorf("%s: %d joins, more than %g of infer's %d", c.query, joins, c.part, infer)
		}
	}
}

// TestSemiNaiveWork bounds the joins of a recursive closure: on a chain of
// n nodes, path(X, Z) :- path(X, Y), e(Y, Z) derives n(n-1)/2 facts, and a
// semi-naive evaluation joins each with its one e successor once, when it
// is new: about n²/2 joins in all (plus the first rule's n and the loads).
// Joining the whole path relation every round instead of its delta costs
// about n³/6 (a million and a third here), which the bound rejects. The
// weighted variant re-joins a fact only when its confidence rises (never
// here: every fact has one derivation).
func TestSemiNaiveWork(t *testing.T) {
	ctx := context.Background()
	const n = 200
	facts := int64(n * (n - 1) / 2)
	for _, prog := range []string{
		"path(X, Y) :- e(X, Y).\npath(X, Z) :- path(X, Y), e(Y, Z).\n",
		"0.99 :: path(X, Y) :- e(X, Y).\n0.99 :: path(X, Z) :- path(X, Y), e(Y, Z).\n",
	} {
		p := mustParse(t, prog)
		w := &eval.WorkCounters{}
		st := newStore(t, chainTSV(n, "e"))
		stats, err := eval.Infer(ctx, st, p, eval.Options{Threads: 2, Work: w})
		if err != nil {
			t.Fatal(err)
		}
		if int64(stats.Facts) != facts {
			t.Fatalf("%d facts, want %d", stats.Facts, facts)
		}
		joins := w.InferJoins.Load()
		t.Logf("%d facts, %d joins", stats.Facts, joins)
		if bound := 3*facts + 4*n; joins > bound {
			t.Errorf("%d joins for %d facts, more than %d: is a round joining more than its delta?", joins, facts, bound)
		}
	}
}
