package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestOracleMinedPrograms compares queries over generated programs of the
// shape drumql mine writes (testkit.MinedProgram) with the naive oracle,
// exactly and at the threshold 0.1, in every configuration (magic alone,
// raced and off; chain fast path on and off; 1, 2 and 8 threads): Query,
// and Engine.Query for queries with constants; and Infer at the threshold
// against the oracle's facts.
func TestOracleMinedPrograms(t *testing.T) {
	ctx := context.Background()
	seeds, perHead := 6, 12
	if testing.Short() {
		seeds = 1
	}
	if testing.Short() {
		seeds = 3
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 29))
		base, names := testkit.MinedGraph(rng, 11, 3, 30)
		for _, min := range []float64{0, 0.1} {
			src := testkit.MinedProgram(rng, names, 3, perHead, min)
			p := testkit.MustParse(t, src)
			want := eval.Exact
			if min > 0 {
				want = min
			}
			db := oracle.Naive(t, base, p, want)
			var queries []string
			for range 2 {
				a := names[rng.IntN(len(names))]
				h := fmt.Sprint("r", rng.IntN(3))
				queries = append(queries, h+"(X, "+a+")?", h+"("+a+", Y)?", h+"(7, Y)?", h+`(X, "007")?`,
					h+"("+a+", "+names[rng.IntN(len(names))]+")?")
			}
			queries = append(queries, "goal()?", "near(X)?", "r2(X, Y)?")
			for _, c := range configurations() {
				st := testkit.NewStore(t, oracle.TripleTSV(base))
				en, err := Prepare(ctx, st, p, c.opt)
				if err != nil {
					t.Fatal(err)
				}
				for _, qs := range queries {
					q := testkit.MustQuery(t, qs)
					w := oracle.Answers(db, q)
					got, err := Query(ctx, st, p, q, c.opt)
					if err != nil {
						t.Fatalf("seed %d, min %g, %s, %s: %v", seed, min, c.name, qs, err)
					}
					if err := oracle.SameAnswers(got, w); err != nil {
						t.Fatalf("seed %d, min %g, %s, Query %s: %v\nprogram:\n%s\nbase:\n%s", seed, min, c.name, qs, err, src, oracle.TripleTSV(base))
					}
					got, err = en.Query(ctx, q)
					if err != nil {
						t.Fatalf("seed %d, min %g, %s, %s: %v", seed, min, c.name, qs, err)
					}
					if err := oracle.SameAnswers(got, w); err != nil {
						t.Fatalf("seed %d, min %g, %s, Engine.Query %s: %v\nprogram:\n%s\nbase:\n%s", seed, min, c.name, qs, err, src, oracle.TripleTSV(base))
					}
				}
			}
			if min == 0 {
				continue
			}
			st := testkit.NewStore(t, oracle.TripleTSV(base))
			if _, err := eval.Infer(ctx, st, p, eval.Options{Threads: 2}); err != nil {
				t.Fatal(err)
			}
			for _, qs := range queries {
				q := testkit.MustQuery(t, qs)
				got, err := Query(ctx, st, nil, q, eval.Options{})
				if err != nil {
					continue // a predicate with no facts is unknown to the store
				}
				w := oracle.Answers(db, q)
				for i := range w {
					w[i].Confidence = float64(float32(w[i].Confidence))
				}
				if err := oracle.SameAnswers(got, w); err != nil {
					t.Fatalf("seed %d, stored %s after Infer: %v", seed, qs, err)
				}
			}
		}
	}
}
