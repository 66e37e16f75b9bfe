package eval_test

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

// sharedSuffixTSV is a graph where chain rules of different first atoms
// share their last two: rels first relations a_k, each with ten places
// x in each of the ms values m (a_k(x, m)); every m reaches hubs hubs h
// (b(m, h)) and every hub the five ends y (c(h, y)).
func sharedSuffixTSV(rels, ms, hubs int) string {
	var b strings.Builder
	for k := range rels {
		for m := range ms {
			for x := range 10 {
				fmt.Fprintf(&b, "x%d_%d\ta%d\tm%d\n", k, 10*m+x, k, m)
			}
		}
	}
	for m := range ms {
		for h := range hubs {
			fmt.Fprintf(&b, "m%d\tb\th%d\n", m, h)
		}
	}
	for h := range hubs {
		for y := range 5 {
			fmt.Fprintf(&b, "h%d\tc\ty%d\n", h, y)
		}
	}
	return b.String()
}

// TestSharedMemoWork: chain rules that share their last two atoms share
// the far ends of each value of their middle variable for the round
// (factor_share.go). Twenty rules h(X, Y) :- a_k(X, M), b(M, H), c(H, Y)
// (one stratum, one round) each build, without sharing, the far ends of the twenty values m
// (200 hubs and 1,000 paths each); with it, each worker builds them once.
func TestSharedMemoWork(t *testing.T) {
	const rels, ms, hubs = 20, 20, 200
	var src strings.Builder
	for k := range rels {
		fmt.Fprintf(&src, "0.%d :: h(X, Y) :- a%d(X, M), b(M, H), c(H, Y).\n", 5+k%4, k)
	}
	p := testkit.MustParse(t, src.String())
	tsv := sharedSuffixTSV(rels, ms, hubs)
	for _, threads := range []int{1, 2} {
		joins := map[bool]int64{}
		var dumps []string
		for _, off := range []bool{false, true} {
			w := &eval.WorkCounters{}
			st := testkit.NewStore(t, tsv)
			stats, err := eval.Infer(context.Background(), st, p, eval.Options{Threads: threads, Work: w, NoShare: off})
			if err != nil {
				t.Fatal(err)
			}
			if want := rels * ms * 10 * 5; stats.Facts != want {
				t.Fatalf("threads %d, noShare=%v: %d facts, want %d", threads, off, stats.Facts, want)
			}
			joins[off] = w.InferJoins.Load()
			dumps = append(dumps, oracle.DerivedDump(t, st))
		}
		t.Logf("threads %d: joins shared %d, each plan its own %d", threads, joins[false], joins[true])
		if dumps[0] != dumps[1] {
			t.Fatalf("threads %d: the shared memos derive other facts", threads)
		}
		// Loading (2*rels*ms*10 + ms*hubs + 5*hubs), the memos once a
		// worker (ms*(hubs+5*hubs) each) and the emits (rels*ms*10*5).
		load := int64(rels*ms*10 + ms*hubs + 5*hubs)
		bound := load + int64(threads*ms*6*hubs) + int64(rels*ms*10*5) + int64(rels*ms*10)
		if joins[false] > bound {
			t.Errorf("threads %d: %d joins, more than %d: are the memos shared?", threads, joins[false], bound)
		}
		if joins[true] < int64(rels*ms*6*hubs) {
			t.Errorf("threads %d: each plan its own memo: %d joins, fewer than %d: the bound proves nothing", threads, joins[true], rels*ms*6*hubs)
		}
	}
}

// TestSharedMemoSameFixpoint compares the evaluation with shared memos
// against the join atom by atom and the factorised plans each with its own
// memo, on random recursive weighted programs whose chain rules share
// their last two atoms often (two relations in bodies, many rules), with every
// direction of each atom, inequalities, weighted facts and symbols equal
// as numbers: the same facts and confidences, on one thread and two.
func TestSharedMemoSameFixpoint(t *testing.T) {
	ctx := context.Background()
	syms := []string{"a", "b", "c", "d", "e", "7", "7.0", "f", "g", "h", "i", "j"}
	pairs := [][2]string{{"A", "C"}, {"A", "D"}, {"A", "B"}, {"C", "D"}, {"C", "B"}, {"D", "B"}}
	for seed := range 40 {
		rng := rand.New(rand.NewPCG(uint64(seed), 97))
		var tsv, src strings.Builder
		for range 60 {
			fmt.Fprintf(&tsv, "%s\tr%d\t%s\n", syms[rng.IntN(len(syms))], rng.IntN(3), syms[rng.IntN(len(syms))])
		}
		for range 20 {
			fmt.Fprintf(&src, "0.%d :: r%d(%q, %q).\n", 1+rng.IntN(9), rng.IntN(3), syms[rng.IntN(len(syms))], syms[rng.IntN(len(syms))])
		}
		fmt.Fprintf(&src, "@min 0.%d.\n", 1+rng.IntN(4))
		for range 16 {
			path := [][2]string{{"A", "C"}, {"C", "D"}, {"D", "B"}}
			var body []string
			for _, e := range path {
				if rng.IntN(2) == 0 {
					e[0], e[1] = e[1], e[0]
				}
				body = append(body, fmt.Sprintf("r%d(%s, %s)", rng.IntN(2), e[0], e[1]))
			}
			for _, q := range pairs {
				if rng.IntN(5) == 0 {
					body = append(body, q[0]+" != "+q[1])
				}
			}
			fmt.Fprintf(&src, "0.%d :: r%d(A, B) :- %s.\n", 2+rng.IntN(8), rng.IntN(3), strings.Join(body, ", "))
		}
		p := testkit.MustParse(t, src.String())
		var dumps []string
		for _, opt := range []eval.Options{
			{Threads: 1, NoFactor: true},
			{Threads: 1, NoShare: true},
			{Threads: 1},
			{Threads: 2},
			{Threads: 2, WalkNever: true},
		} {
			st := testkit.NewStore(t, tsv.String())
			if _, err := eval.Infer(ctx, st, p, opt); err != nil {
				t.Fatal(err)
			}
			dumps = append(dumps, oracle.DerivedDump(t, st))
		}
		for i, d := range dumps[1:] {
			if d != dumps[0] {
				t.Fatalf("seed %d, configuration %d: fixpoint differs from the join's\nprogram:\n%s\nbase:\n%s\njoin:\n%s\ngot:\n%s", seed, i+1, src.String(), tsv.String(), dumps[0], d)
			}
		}
	}
}
