package combine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/query"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// sameBest reports how got, QueryBest's n best, differs from want, the
// first n of every answer sorted: the same number, each confidence equal
// to want's at its rank within 1e-9 (a product's rounding may differ
// between evaluations that join a body in another order), and the same
// answers wherever the confidence is not tied, within that tolerance,
// with the n-th.
func sameBest(got, want []eval.Answer) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d answers, want %d:\n%s\nwant\n%s", len(got), len(want), oracle.FormatAnswers(got), oracle.FormatAnswers(want))
	}
	if len(want) == 0 {
		return nil
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(a, b) }
	last := want[len(want)-1].Confidence
	var g, w []string
	for i := range want {
		if !near(got[i].Confidence, want[i].Confidence) {
			return fmt.Errorf("rank %d: confidence %g, want %g:\n%s\nwant\n%s", i, got[i].Confidence, want[i].Confidence, oracle.FormatAnswers(got), oracle.FormatAnswers(want))
		}
		if !near(got[i].Confidence, last) {
			g = append(g, strings.Join(got[i].Values, " "))
		}
		if !near(want[i].Confidence, last) {
			w = append(w, strings.Join(want[i].Values, " "))
		}
	}
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		return fmt.Errorf("answers above the n-th differ:\n%s\nwant\n%s", oracle.FormatAnswers(got), oracle.FormatAnswers(want))
	}
	return nil
}

// TestQueryBestSameAnswers compares QueryBest with every answer sorted and
// cut, over generated programs of the shape drumql mine writes, exactly
// and at the threshold 0.1: by max and by noisy-or over each answer's
// best rule or 3 best, for 1 and 4 answers, raced and without magic. The
// programs mix weights from 0.02 to 0.9, so the first thresholds decide
// some queries and not others.
func TestQueryBestSameAnswers(t *testing.T) {
	ctx := context.Background()
	seeds := 5
	if testing.Short() {
		seeds = 2
	}
	early, passes := 0, 0
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 41))
		base, names := testkit.MinedGraph(rng, 14, 3, 45)
		for _, th := range []float64{0, 0.1} {
			src := testkit.MinedProgram(rng, names, 3, 10, th)
			p := testkit.MustParse(t, src)
			st := testkit.NewStore(t, oracle.TripleTSV(base))
			var queries []string
			for range 3 {
				a := names[rng.IntN(len(names))]
				h := fmt.Sprint("r", rng.IntN(3))
				queries = append(queries, h+"(X, "+a+")?", h+"("+a+", Y)?", h+"(7, Y)?")
			}
			queries = append(queries, "r0(X, Y)?", "near(X)?", "goal()?")
			for _, mode := range []string{"race", "off"} {
				opt := eval.Options{Threads: 2, NoMagic: mode == "off", NoRace: mode == "alone"}
				for _, qs := range queries {
					q := testkit.MustQuery(t, qs)
					all, err := query.Query(ctx, st, p, q, opt)
					if err != nil {
						t.Fatal(err)
					}
					for _, sc := range []Scoring{{}, {NoisyOr: true, Top: 1}, {NoisyOr: true, Top: 3}} {
						want := all
						if sc.NoisyOr {
							if want, err = NoisyOrTop(ctx, st, p, q, all, sc.Top, opt); err != nil {
								t.Fatal(err)
							}
						}
						for _, n := range []int{1, 4} {
							b, err := QueryBest(ctx, st, p, q, n, sc, opt)
							if err != nil {
								t.Fatal(err)
							}
							if err := sameBest(b.Answers, want[:min(n, len(want))]); err != nil {
								t.Fatalf("seed %d, min %g, %s, %s, %+v, n %d (decided at %g after %d passes): %v\nprogram:\n%s\nbase:\n%s",
									seed, th, mode, qs, sc, n, b.Min, b.Passes, err, src, oracle.TripleTSV(base))
							}
							passes++
							if b.Min > max(th, eval.Exact) {
								early++
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d of %d decided above the program's threshold", early, passes)
	if early == 0 || early == passes {
		t.Errorf("%d of %d decided early: the cases do not exercise both outcomes", early, passes)
	}
}

// TestQueryBestNegation: a program that reads a negated literal is
// evaluated at its own threshold only. At a threshold of 1 the weak s(a)
// is cut, and not s(a) would count fully: p(a) 1 instead of 0.7.
func TestQueryBestNegation(t *testing.T) {
	ctx := context.Background()
	st := testkit.NewStore(t, "a\te\tb\n")
	for _, src := range []string{
		"0.3 :: s(X) :- e(X, _).\np(X) :- e(X, _), not s(X).\n",
		"0.3 :: s(X) :- e(X, _).\nq(X) :- e(X, _), not s(X).\np(X) :- q(X).\n",
	} {
		p := testkit.MustParse(t, src)
		b, err := QueryBest(ctx, st, p, testkit.MustQuery(t, "p(X)?"), 1, Scoring{}, eval.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if f := oracle.FormatAnswers(b.Answers); f != "a 0.7\n" || b.Passes != 1 {
			t.Errorf("%s: %d passes, answers\n%swant a 0.7 in one pass", src, b.Passes, f)
		}
	}
}

// TestQueryBestWork bounds the work of the n best answers, in counted
// joins: on the communities of TestQueryWorkOverMinedProgram, whose
// program's rules with constants of the first community make its
// entities hubs, a query about one of them costs about what Infer does;
// its 3 best answers, which the graph's own facts give, must cost under a
// tenth of every answer's evaluation, and be its first 3.
func TestQueryBestWork(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 12))
	tsv := testkit.ComponentsGraph(rng, 300, 8)
	p := testkit.MustParse(t, testkit.ComponentsProgram(rng, 40))
	st := testkit.NewStore(t, tsv)
	for _, qs := range []string{"r0(X, c0p1)?", "r1(c0p3, Y)?"} {
		q := testkit.MustQuery(t, qs)
		fw := &eval.WorkCounters{}
		all, err := query.Query(ctx, st, p, q, eval.Options{Threads: 2, Work: fw})
		if err != nil {
			t.Fatal(err)
		}
		bw := &eval.WorkCounters{}
		b, err := QueryBest(ctx, st, p, q, 3, Scoring{}, eval.Options{Threads: 2, Work: bw})
		if err != nil {
			t.Fatal(err)
		}
		if err := sameBest(b.Answers, all[:3]); err != nil {
			t.Fatalf("%s: %v", qs, err)
		}
		full, best := fw.Joins.Load(), bw.Joins.Load()
		t.Logf("%s: %d answers in %d joins; the 3 best in %d joins, %d passes, decided at %g", qs, len(all), full, best, b.Passes, b.Min)
		if best*10 > full {
			t.Errorf("%s: the 3 best cost %d joins, more than a tenth of every answer's %d", qs, best, full)
		}
	}
}
