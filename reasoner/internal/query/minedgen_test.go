package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/store"
)

// minedGraph returns a random graph for minedProgram: entities e0.. (some
// named by numbers: 7, 007 and 7.0 are three symbols equal as numbers),
// relations r0.. and a hub relation in(x, hub0|hub1) that most entities
// have.
func minedGraph(rng *rand.Rand, ents, rels, facts int) ([]store.NamedTriple, []string) {
	names := make([]string, ents)
	numeric := []string{"7", "007", "7.0", "12", "3", "03"}
	for i := range names {
		names[i] = fmt.Sprint("e", i)
		if i < len(numeric) {
			names[i] = numeric[i]
		}
	}
	var base []store.NamedTriple
	seen := map[store.NamedTriple]bool{}
	add := func(tr store.NamedTriple) {
		if !seen[tr] {
			seen[tr] = true
			base = append(base, tr)
		}
	}
	for range facts {
		add(store.NamedTriple{S: names[rng.IntN(ents)], R: fmt.Sprint("r", rng.IntN(rels)), O: names[rng.IntN(ents)]})
	}
	for i := range ents {
		if rng.IntN(3) > 0 {
			add(store.NamedTriple{S: names[i], R: "in", O: fmt.Sprint("hub", rng.IntN(2))})
		}
	}
	return base, names
}

// minedProgram writes a program of the shape drumql mine writes, for heads
// r0..r(rels-1): per head, perHead rules of which most have constants
// (`h(X, c) :- b(X, d)`, `h(X, c) :- b(X, _)`, `h(c, X) :- b(d, X)`, with
// symbol and number constants: an unquoted number matches every symbol
// equal to it), chain rules of one to three atoms with the comparisons
// mine writes, rules through the hub relation, rules over a relation with
// no facts (ghost, and gone, which only such rules define), and weights
// below and above 0.1. A threshold directive is added when min > 0.
func minedProgram(rng *rand.Rand, names []string, rels, perHead int, min float64) string {
	weights := []string{"0.9", "0.75", "0.5", "0.3", "0.15", "0.12", "0.08", "0.02"}
	w := func() string { return weights[rng.IntN(len(weights))] }
	rel := func() string { return fmt.Sprint("r", rng.IntN(rels)) }
	constant := func() string {
		switch rng.IntN(5) {
		case 0:
			return "7" // a number: matches 7, 007 and 7.0
		case 1:
			return `"007"` // a symbol: 007 only
		}
		return names[rng.IntN(len(names))]
	}
	atom := func(b, x, y string) string {
		if rng.IntN(2) == 0 {
			x, y = y, x
		}
		return b + "(" + x + ", " + y + ")"
	}
	var src strings.Builder
	if min > 0 {
		fmt.Fprintf(&src, "@min %g.\n", min)
	}
	for h := range rels {
		head := fmt.Sprint("r", h)
		for range perHead {
			switch k := rng.IntN(20); {
			case k < 11: // a rule with constants
				c, d := constant(), constant()
				switch rng.IntN(4) {
				case 0:
					fmt.Fprintf(&src, "%s :: %s(X, %s) :- %s(X, %s).\n", w(), head, c, rel(), d)
				case 1:
					fmt.Fprintf(&src, "%s :: %s(X, %s) :- %s(X, _).\n", w(), head, c, rel())
				case 2:
					fmt.Fprintf(&src, "%s :: %s(%s, X) :- %s(%s, X).\n", w(), head, c, rel(), d)
				default:
					fmt.Fprintf(&src, "%s :: %s(%s, X) :- %s(X, Y), %s(Y, %s).\n", w(), head, c, rel(), rel(), d)
				}
			case k < 13:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s.\n", w(), head, atom(rel(), "A", "B"))
			case k < 16:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s, %s, A != B.\n", w(), head, atom(rel(), "A", "C"), atom(rel(), "C", "B"))
			case k < 17:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s, %s, %s, A != B, A != D, C != B.\n", w(), head,
					atom(rel(), "A", "C"), atom(rel(), "C", "D"), atom(rel(), "D", "B"))
			case k < 18: // through the hub: weak, as mine finds them
				fmt.Fprintf(&src, "0.05 :: %s(A, B) :- in(A, H), in(B, H), A != B.\n", head)
			case k < 19:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- ghost(A, C), %s(C, B).\n", w(), head, rel())
			default:
				fmt.Fprintf(&src, "%s :: %s(X, %s) :- gone(X, _).\n", w(), head, constant())
			}
		}
	}
	src.WriteString("0.9 :: gone(X, Y) :- ghost(Y, X).\n")
	fmt.Fprintf(&src, "goal() :- r0(%s, %s).\n", constant(), constant())
	fmt.Fprintf(&src, "near(X) :- r1(%s, X).\n", constant())
	return src.String()
}

// TestOracleMinedPrograms compares queries over generated programs of the
// shape drumql mine writes (minedProgram) with the naive oracle, exactly
// and at the threshold 0.1, in every configuration (magic alone, raced and
// off; chain fast path on and off; 1, 2 and 8 threads): Query, and
// Engine.Query for queries with constants; and Infer at the threshold
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
		base, names := minedGraph(rng, 11, 3, 30)
		for _, min := range []float64{0, 0.1} {
			src := minedProgram(rng, names, 3, perHead, min)
			p := mustParse(t, src)
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
				st := newStore(t, oracle.TripleTSV(base))
				en, err := Prepare(ctx, st, p, c.opt)
				if err != nil {
					t.Fatal(err)
				}
				for _, qs := range queries {
					q := mustQuery(t, qs)
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
			st := newStore(t, oracle.TripleTSV(base))
			if _, err := eval.Infer(ctx, st, p, eval.Options{Threads: 2}); err != nil {
				t.Fatal(err)
			}
			for _, qs := range queries {
				q := mustQuery(t, qs)
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
