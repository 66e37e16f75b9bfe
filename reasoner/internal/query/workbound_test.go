package query

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/goal"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

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
	tsv := testkit.ComponentsGraph(rng, 300, 8)
	p := testkit.MustParse(t, testkit.ComponentsProgram(rng, 40))
	iw := &eval.WorkCounters{}
	if _, err := eval.Infer(ctx, testkit.NewStore(t, tsv), p, eval.Options{Threads: 2, Work: iw}); err != nil {
		t.Fatal(err)
	}
	infer := iw.InferJoins.Load()
	st := testkit.NewStore(t, tsv)
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
		q := testkit.MustQuery(t, c.query)
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
		p := testkit.MustParse(t, prog)
		w := &eval.WorkCounters{}
		st := testkit.NewStore(t, chainTSV(n, "e"))
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
