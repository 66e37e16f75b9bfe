package maintain

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/query"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// hubTSV is a graph of n places in one country (in(p, k0)), each with one
// of three categories: the shape of FB15k-237's hub relations.
func hubTSV(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "p%d\tin\tk0\np%d\tcat\tcat%d\n", i, i, i%3)
	}
	return b.String()
}

// TestFactorisedChainWork checks that a three-atom chain rule through a hub
// is joined once per value of the variable it shares with the scanned atom,
// not once per path: a place's categories are those of the other places of
// its country, n - 1 paths each, 3 facts.
func TestFactorisedChainWork(t *testing.T) {
	ctx := context.Background()
	const n = 400
	p := testkit.MustParse(t, "0.5 :: h(A, B) :- in(A, C), in(D, C), cat(D, B), A != B, A != D, C != B.\n")
	joins := map[bool]int64{}
	for _, off := range []bool{false, true} {
		w := &eval.WorkCounters{}
		st := testkit.NewStore(t, hubTSV(n))
		stats, err := eval.Infer(ctx, st, p, eval.Options{Threads: 2, Work: w, NoFactor: off})
		if err != nil {
			t.Fatal(err)
		}
		if stats.Facts != 3*n {
			t.Fatalf("noFactor=%v: %d facts, want %d", off, stats.Facts, 3*n)
		}
		joins[off] = w.InferJoins.Load()
	}
	t.Logf("joins: factorised %d, atom by atom %d", joins[false], joins[true])
	// The tuples loaded (2n), the memo of k0 per worker (2n each) and three
	// far ends per place (3n).
	if bound := int64(10 * n); joins[false] > bound {
		t.Errorf("%d joins, more than %d: are chain rules joined path by path?", joins[false], bound)
	}
	if joins[true] < n*n {
		t.Errorf("atom by atom: %d joins, fewer than the %d paths: the bound above proves nothing", joins[true], n*n)
	}
}

// TestFactorisedSameFixpoint compares the factorised evaluation with the
// join atom by atom on random recursive programs of chain rules: every
// direction of each atom, every subset of the inequalities between the
// path's variables, weighted facts, and symbols equal as numbers ("7",
// "7.0", "007"), which A != D must tell apart from a path's best middle
// value; deltas of end atoms walked always, never, or as chosen. Rules
// have copies with another weight and head, or another atom at one end of
// the path: plans with the same last two atoms share their memo
// (factor_share.go), and the proofs are those of a memo per plan.
func TestFactorisedSameFixpoint(t *testing.T) {
	ctx := context.Background()
	seeds := 60
	if testing.Short() {
		seeds = 15 // the race stage: the threads matter there, not the count
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 41))
		tsv, src := chainCase(rng, uint64(seed))
		p := testkit.MustParse(t, src)
		var dumps []string
		for _, opt := range []eval.Options{
			{Threads: 1, NoFactor: true},
			{Threads: 1},
			{Threads: 2},
			{Threads: 1, WalkAlways: true},
			{Threads: 2, WalkNever: true},
		} {
			st := testkit.NewStore(t, tsv)
			opt.Min = 1e-3
			if _, err := eval.Infer(ctx, st, p, opt); err != nil {
				t.Fatal(err)
			}
			dumps = append(dumps, oracle.DerivedDump(t, st))
		}
		// The factorised proofs hold and are worth their confidences.
		for _, opt := range []eval.Options{{Threads: 1, Min: 1e-3}, {Threads: 1, Min: 1e-3, WalkAlways: true}} {
			m, _, err := Materialise(ctx, testkit.NewStore(t, tsv), p, opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkProofs(m); err != nil {
				t.Fatalf("seed %d: %v\nprogram:\n%s", seed, err, src)
			}
		}
		for _, d := range dumps[1:] {
			if d != dumps[0] {
				t.Fatalf("seed %d: factorised fixpoint differs from the join's\nprogram:\n%s\nbase:\n%s\njoin:\n%s\nfactorised:\n%s", seed, src, tsv, dumps[0], d)
			}
		}
		// Shared memos give the proofs of a memo per plan, whatever the
		// threads, at thresholds that cut the weaker copies' paths.
		for _, min := range []float64{0.02, 0.1} {
			var proofs []string
			for _, opt := range []eval.Options{{Threads: 1, NoShare: true}, {Threads: 1}, {Threads: 2}} {
				st := testkit.NewStore(t, tsv)
				opt.Min = min
				if _, err := eval.Infer(ctx, st, p, opt); err != nil {
					t.Fatal(err)
				}
				proofs = append(proofs, oracle.ProofDump(t, st))
			}
			for i, d := range proofs[1:] {
				if d != proofs[0] {
					t.Fatalf("seed %d, min %g, configuration %d: proofs\n%s\nwith a memo per plan:\n%s\nprogram:\n%s\nbase:\n%s", seed, min, i+1, d, proofs[0], src, tsv)
				}
			}
		}
		// Goal-directed, the chain rules run under magic guards over one
		// end of the path (factorised from the guard's values, each with
		// its demand) or both (factor_pair.go), and the answers are the
		// bottom-up evaluation's.
		st := testkit.NewStore(t, tsv)
		for k := range 3 {
			c, c2 := chainSyms[rng.IntN(len(chainSyms))], chainSyms[rng.IntN(len(chainSyms))]
			for _, qs := range []string{fmt.Sprintf("r%d(%q, X)?", k, c), fmt.Sprintf("r%d(X, %q)?", k, c), fmt.Sprintf("r%d(%q, %q)?", k, c, c2)} {
				q := testkit.MustQuery(t, qs)
				var got []string
				for _, opt := range []eval.Options{
					{Threads: 1, NoMagic: true},
					{Threads: 1, NoRace: true, NoFactor: true},
					{Threads: 1, NoRace: true},
					{Threads: 2, NoRace: true},
				} {
					opt.Min = 0.05 // demands and confidences near it
					as, err := query.Query(ctx, st, p, q, opt)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, answerSet(as))
				}
				for i, g := range got[1:] {
					if g != got[0] {
						t.Fatalf("seed %d, %s, configuration %d: answers\n%s\nbottom-up:\n%s\nprogram:\n%s\nbase:\n%s", seed, qs, i+1, g, got[0], src, tsv)
					}
				}
			}
		}
	}
}

// chainSyms are the symbols of chainCase's graphs.
var chainSyms = []string{"a", "b", "c", "d", "e", "7", "7.0", "007", "f", "g"}

// chainCase returns a random graph of ten symbols (numbers among them)
// over three relations, with weighted facts, and a program of chain rules
// with random inequalities among their path's variables, some copied with
// another weight, head or end relation.
func chainCase(rng *rand.Rand, seed uint64) (tsv, src string) {
	syms := chainSyms
	pairs := [][2]string{{"A", "C"}, {"A", "D"}, {"A", "B"}, {"C", "D"}, {"C", "B"}, {"D", "B"}}
	var tb, sb strings.Builder
	rng2 := rand.New(rand.NewPCG(seed, 43)) // the copies
	for range 40 {
		fmt.Fprintf(&tb, "%s\tr%d\t%s\n", syms[rng.IntN(len(syms))], rng.IntN(3), syms[rng.IntN(len(syms))])
	}
	for range 15 {
		fmt.Fprintf(&sb, "0.%d :: r%d(%q, %q).\n", 1+rng.IntN(9), rng.IntN(3), syms[rng.IntN(len(syms))], syms[rng.IntN(len(syms))])
	}
	for range 6 {
		path := [][2]string{{"A", "C"}, {"C", "D"}, {"D", "B"}}
		var body []string
		var rels [3]int
		for k, e := range path {
			if rng.IntN(2) == 0 {
				e[0], e[1] = e[1], e[0]
			}
			path[k], rels[k] = e, rng.IntN(3)
			body = append(body, fmt.Sprintf("r%d(%s, %s)", rels[k], e[0], e[1]))
		}
		rng.Shuffle(len(body), func(i, j int) { body[i], body[j] = body[j], body[i] })
		var neqs []string
		for _, q := range pairs {
			if rng.IntN(2) == 0 {
				neqs = append(neqs, q[0]+" != "+q[1])
			}
		}
		fmt.Fprintf(&sb, "0.%d :: r%d(A, B) :- %s.\n", 3+rng.IntN(7), rng.IntN(3), strings.Join(append(body, neqs...), ", "))
		for range rng2.IntN(3) {
			// A copy: another weight and head, and another relation
			// at one end of the path or none.
			rs := rels
			if end := rng2.IntN(3); end < 2 {
				rs[2*end] = rng2.IntN(3)
			}
			var cb []string
			for k, e := range path {
				cb = append(cb, fmt.Sprintf("r%d(%s, %s)", rs[k], e[0], e[1]))
			}
			fmt.Fprintf(&sb, "0.%d :: r%d(A, B) :- %s.\n", 1+rng2.IntN(9), rng2.IntN(3), strings.Join(append(cb, neqs...), ", "))
		}
	}
	return tb.String(), sb.String()
}

// TestFactorisedGatedWork: a goal-directed query that demands a chain
// rule's relation with no argument bound (q(c0, X) reads h(X, _)) joins the
// rule under its magic guard as Infer does, factorised, not path by path.
func TestFactorisedGatedWork(t *testing.T) {
	ctx := context.Background()
	const n = 400
	p := testkit.MustParse(t, `0.5 :: h(A, B) :- in(A, C), in(D, C), cat(D, B), A != B, A != D, C != B.
0.9 :: q(c0, X) :- h(X, _).
`)
	st := testkit.NewStore(t, hubTSV(n))
	joins := map[bool]int64{}
	for _, off := range []bool{false, true} {
		w := &eval.WorkCounters{}
		as, err := query.Query(ctx, st, p, testkit.MustQuery(t, "q(c0, X)?"), eval.Options{Threads: 2, NoRace: true, Work: w, NoFactor: off})
		if err != nil {
			t.Fatal(err)
		}
		if len(as) != n {
			t.Fatalf("noFactor=%v: %d answers, want %d", off, len(as), n)
		}
		joins[off] = w.Joins.Load()
	}
	t.Logf("joins: factorised %d, atom by atom %d", joins[false], joins[true])
	if bound := int64(20 * n); joins[false] > bound {
		t.Errorf("%d joins, more than %d: is the guarded chain rule joined path by path?", joins[false], bound)
	}
	if joins[true] < n*n {
		t.Errorf("atom by atom: %d joins, fewer than the %d paths: the bound above proves nothing", joins[true], n*n)
	}
}

// TestGatedDemandCut: a chain rule under a magic guard over one end of
// its path cuts by the guard's demand, neither more nor less: h(x, Y)?
// demands g(z, _) at 0.5, through which g's rule of weight 0.25 still gives
// an answer of 0.125 (at least 0.1), and the rule of weight 0.15 gives
// 0.075, below it. Nor is g(z, y2) derived: the join atom by atom drops
// it by the demand, and the factorised one derives what it derives.
func TestGatedDemandCut(t *testing.T) {
	p := testkit.MustParse(t, `@min 0.1.
0.5 :: h(X, Y) :- e(X, Z), g(Z, Y).
0.25 :: g(A, B) :- a(A, C), b(C, D), c(D, B).
0.15 :: g(A, B) :- a(A, C), b(C, D), d(D, B).
`)
	st := testkit.NewStore(t, "x\te\tz\nz\ta\tm\nm\tb\tn\nn\tc\ty1\nn\td\ty2\n")
	var derived []int64
	for _, opt := range []eval.Options{{Threads: 1, NoRace: true}, {Threads: 1, NoRace: true, NoFactor: true}, {Threads: 1, NoMagic: true}} {
		opt.Work = &eval.WorkCounters{}
		as, err := query.Query(context.Background(), st, p, testkit.MustQuery(t, "h(x, Y)?"), opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := oracle.FormatAnswers(as); got != "y1 0.125\n" {
			t.Errorf("%+v: answers\n%s", opt, got)
		}
		derived = append(derived, opt.Work.Derived.Load())
	}
	if derived[0] != derived[1] {
		t.Errorf("the factorised rewrite derived %d facts, the join atom by atom %d", derived[0], derived[1])
	}
}

// TestFactorisedWalkWork: a delta of a chain rule's end atom whose far
// variable has few values is walked from each of them, each value of the
// path once: the n new currency facts of the places of one country reach
// the country once, then its n places, where a memo per place D (the
// delta's near variable) joins the country's n places once per D.
func TestFactorisedWalkWork(t *testing.T) {
	const n = 300
	var tsv strings.Builder
	for i := range n {
		fmt.Fprintf(&tsv, "p%d\tin\tk0\np%d\tcur0\teur\n", i, i)
	}
	p := testkit.MustParse(t, `0.5 :: h(A, B) :- in(A, C), in(D, C), cur(D, B), A != D.
cur(X, Y) :- cur0(X, Y).
0.5 :: cur(X, Y) :- h(X, Y), cur0(X, Y).
`)
	joins := map[bool]int64{}
	for _, never := range []bool{false, true} {
		w := &eval.WorkCounters{}
		st := testkit.NewStore(t, tsv.String())
		stats, err := eval.Infer(context.Background(), st, p, eval.Options{Threads: 1, Work: w, WalkNever: never})
		if err != nil {
			t.Fatal(err)
		}
		if stats.Facts != 2*n {
			t.Fatalf("walkNever=%v: %d facts, want %d", never, stats.Facts, 2*n)
		}
		joins[never] = w.InferJoins.Load()
	}
	t.Logf("joins: walked %d, memo per place %d", joins[false], joins[true])
	if bound := int64(20 * n); joins[false] > bound {
		t.Errorf("%d joins, more than %d: is the currency delta walked?", joins[false], bound)
	}
	if joins[true] < n*n {
		t.Errorf("without the walk: %d joins, fewer than %d: the bound above proves nothing", joins[true], n*n)
	}
}

// TestSharedMemoWork: n chain rules with the same last two atoms and
// different weights (and first atoms) share their memo, built with the
// largest weight: the far ends of each of the m middle values are built
// once in one thread (at most once per worker in two), not once per rule.
func TestSharedMemoWork(t *testing.T) {
	const n, m, r = 8, 50, 4
	var tsv, src strings.Builder
	for j := range m {
		fmt.Fprintf(&tsv, "m%d\tb\td%d\n", j, j)
		for l := range 3 {
			fmt.Fprintf(&tsv, "d%d\tc\te%d\n", j, (j+l)%7)
		}
		for k := range n {
			for i := range r {
				fmt.Fprintf(&tsv, "p%d\ta%d\tm%d\n", (i+j)%20, k, j)
			}
		}
	}
	for k := range n {
		fmt.Fprintf(&src, "0.%d :: h(A, B) :- a%d(A, C), b(C, D), c(D, B), A != B.\n", 9-k, k)
	}
	p := testkit.MustParse(t, src.String())
	var dumps []string
	for _, opt := range []eval.Options{{Threads: 1, NoShare: true}, {Threads: 1}, {Threads: 2}} {
		w := &eval.WorkCounters{}
		opt.Work = w
		st := testkit.NewStore(t, tsv.String())
		if _, err := eval.Infer(context.Background(), st, p, opt); err != nil {
			t.Fatal(err)
		}
		dumps = append(dumps, oracle.ProofDump(t, st))
		builds, want := w.InferMemoBuilds.Load(), int64(m*opt.Threads)
		switch {
		case opt.NoShare && builds < n*m:
			t.Errorf("a memo per plan built %d far ends, fewer than %d: the bound below proves nothing", builds, n*m)
		case !opt.NoShare && builds > want:
			t.Errorf("%d threads: the memos built %d far ends, more than %d: are they shared?", opt.Threads, builds, want)
		}
	}
	for _, d := range dumps[1:] {
		if d != dumps[0] {
			t.Fatalf("proofs\n%s\nwith a memo per plan:\n%s", d, dumps[0])
		}
	}
}
