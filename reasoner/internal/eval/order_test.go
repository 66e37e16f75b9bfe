package eval

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestWeakChainsNotRead: a join step whose chain holds, after a few strong
// tuples, many too weak to add anything stops at the first weak one
// (order.go) and counts the rest as cut without reading them. w(z, Y)
// holds ten base facts and a thousand program facts of confidence 0.2;
// through the rule of weight 0.4 the weak ones give 0.08, below @min 0.1.
// Each of the hundred s(Xi, z) reads the ten strong tuples and one weak
// one; reading the whole chain would be 101,000 tuples.
func TestWeakChainsNotRead(t *testing.T) {
	const xs, strong, weak = 100, 10, 1000
	var tsv, src strings.Builder
	for i := range xs {
		fmt.Fprintf(&tsv, "x%d\ts\tz\n", i)
	}
	for i := range strong {
		fmt.Fprintf(&tsv, "z\tw\tb%d\n", i)
	}
	src.WriteString("@min 0.1.\n")
	for i := range weak {
		fmt.Fprintf(&src, "0.2 :: w(z, y%d).\n", i)
	}
	src.WriteString("0.4 :: h(X, Y) :- s(X, Z), w(Z, Y).\n")
	p := testkit.MustParse(t, src.String())
	for _, threads := range []int{1, 2} {
		w := &WorkCounters{}
		var es EvalStats
		st, err := Infer(context.Background(), testkit.NewStore(t, tsv.String()), p, Options{Threads: threads, Work: w, Stats: &es})
		if err != nil {
			t.Fatal(err)
		}
		if st.Derived["h"] != xs*strong {
			t.Fatalf("threads %d: derived %d h facts, want %d", threads, st.Derived["h"], xs*strong)
		}
		if es.Cut != xs*weak {
			t.Errorf("threads %d: cut %d derivations, want %d", threads, es.Cut, xs*weak)
		}
		// the first step (s, or w's strong and first weak tuple when the
		// planner starts there) and the chains' strong tuples, twice over
		if got, bound := w.InferReads.Load(), int64(2*(xs+strong+1+xs*(strong+1))); got > bound {
			t.Errorf("threads %d: the joins read %d tuples, want at most %d", threads, got, bound)
		}
	}
}

// TestOrderedChainsInvariant checks, under random additions, confidence
// rises and falls and reorderings, what the join relies on (order.go,
// chainpack.go): a chain's walk gives the tuples its links give, each
// with its confidence now and its far value; wherever weakRest says a
// tuple ends its chain's strong part, no later tuple of the chain is more
// confident, and the count it gives is the rest of the chain.
func TestOrderedChainsInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	r := NewRelation("w", 2)
	ix := r.Index(1)
	seen := map[[2]uint32]bool{}
	for step := range 4000 {
		switch op := rng.IntN(10); {
		case op < 6 || r.N == 0:
			tup := [2]uint32{uint32(rng.IntN(8)), uint32(rng.IntN(400))}
			if !seen[tup] {
				seen[tup] = true
				c := 1.0
				if rng.IntN(4) > 0 {
					c = rng.Float64()
				}
				r.Add(tup[:], c, ProvUnknown)
			}
		case op < 9:
			i := int32(rng.IntN(r.N))
			switch c := r.ConfAt(i); {
			case rng.IntN(3) == 0:
				r.Set(i, c*rng.Float64(), ProvUnknown) // a fall (maintenance)
			case c < 1:
				r.Set(i, c+(1-c)*rng.Float64(), ProvUnknown)
			}
		default:
			r.reorderIndexes()
		}
		for key := range uint32(8) {
			probe := []uint32{key, 0}
			var chain []int32
			for u := ix.First(r, probe); u >= 0; u = ix.After(u) {
				chain = append(chain, u)
			}
			var cw chainWalk
			k := 0
			for cw.start(ix, r, probe); cw.T >= 0; cw.next() {
				u := cw.T
				if k >= len(chain) || u != chain[k] {
					t.Fatalf("step %d, chain %d: the walk's tuple %d is %d, the links' %v", step, key, k, u, chain)
				}
				if cw.C != r.ConfAt(u) || cw.Far != r.Tuple(u)[1] {
					t.Fatalf("step %d, chain %d: the walk reads tuple %d as %.3f, %d; it is %.3f, %d",
						step, key, u, cw.C, cw.Far, r.ConfAt(u), r.Tuple(u)[1])
				}
				j := k
				k++
				n, ok := cw.weakRest()
				if !ok {
					continue
				}
				if int(n) != len(chain)-j {
					t.Fatalf("step %d, chain %d: rest of tuple %d is %d, the chain has %d more", step, key, u, n, len(chain)-k)
				}
				for _, v := range chain[j+1:] {
					if r.ConfAt(v) > r.ConfAt(u) {
						t.Fatalf("step %d, chain %d: tuple %d (%.3f) ends the strong part, but %d after it has %.3f",
							step, key, u, r.ConfAt(u), v, r.ConfAt(v))
					}
				}
			}
			if k != len(chain) {
				t.Fatalf("step %d, chain %d: the walk read %d tuples, the links %d", step, key, k, len(chain))
			}
		}
	}
	if ix.ordered == 0 {
		t.Fatal("the index was never ordered")
	}
}

// TestByConfidence checks byConfidence's radix sort against a comparison
// sort (increasing confidence, ties by increasing index; ConfOrder.Down,
// its buffers reused from sort to sort: decreasing, ties by increasing
// index) on relations
// whose confidences are few and repeated (every digit but the top shared),
// zero (removed tuples), negative zero, tiny or all distinct.
func TestByConfidence(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	draws := map[string]func() float64{
		"few":      func() float64 { return []float64{0, 1, 0.5, 1}[rng.IntN(4)] },
		"zeros":    func() float64 { return []float64{0, math.Copysign(0, -1), 1}[rng.IntN(3)] },
		"distinct": func() float64 { return rng.Float64() },
		"tiny":     func() float64 { return math.Ldexp(rng.Float64(), -rng.IntN(1070)) },
		"one":      func() float64 { return 1 },
	}
	var o ConfOrder
	for name, draw := range draws {
		for _, n := range []int{0, 1, 2, 17, 5000} {
			r := NewRelation("r", 1)
			for i := range n {
				r.Add([]uint32{uint32(i)}, 1, ProvBase)
				r.Set(int32(i), draw(), ProvBase)
			}
			want := make([]int32, n)
			for i := range want {
				want[i] = int32(i)
			}
			slices.SortFunc(want, func(a, b int32) int {
				return cmp.Or(cmp.Compare(r.ConfAt(a), r.ConfAt(b)), cmp.Compare(a, b))
			})
			if got := r.ByConfidence(); !slices.Equal(got, want) {
				t.Fatalf("%s, %d tuples: byConfidence differs from a comparison sort", name, n)
			}
			slices.SortFunc(want, func(a, b int32) int {
				return cmp.Or(cmp.Compare(r.ConfAt(b), r.ConfAt(a)), cmp.Compare(a, b))
			})
			if got := o.Down(r); !slices.Equal(got, want) {
				t.Fatalf("%s, %d tuples: ConfOrder.Down differs from a comparison sort", name, n)
			}
		}
	}
}

// TestOrderChainsSizedForKeys: ordering the chains of an index sizes its
// slots for the keys, not the tuples (30,000 tuples of 3,000 keys: 8,192
// slots, the 2,048 it had grown to before the ordering doubling as keys
// arrive, where sizing for the tuples took 65,536), and every tuple is in
// its key's chain, by decreasing confidence.
func TestOrderChainsSizedForKeys(t *testing.T) {
	const keys, per = 3000, 10
	r := NewRelation("w", 2)
	ix := r.Index(1)
	rng := rand.New(rand.NewPCG(5, 6))
	// The first 1,000 keys before the index is ordered, the rest after
	// its last ordering: OrderChains starts from 2,048 slots and grows.
	for k := range uint32(keys) {
		for j := range uint32(per) {
			r.Add([]uint32{k, j}, 0.1+0.9*rng.Float64(), ProvUnknown)
		}
		if k == 999 {
			ix.OrderChains(r, r.ByConfidence())
			if len(ix.Slots) != 2048 {
				t.Fatalf("1,000 keys ordered in %d slots, want 2048", len(ix.Slots))
			}
		}
	}
	ix.OrderChains(r, r.ByConfidence())
	// And an index made after the tuples (fill, ordering from 16 slots:
	// nine doublings while the chains are built).
	r2 := NewRelation("w2", 2)
	for u := range int32(r.N) {
		r2.Add(r.Tuple(u), r.ConfAt(u), ProvUnknown)
	}
	for _, ix := range []*hashIndex{ix, r2.Index(1)} {
		checkKeyChains(t, r, ix, keys, per)
	}
}

// checkKeyChains checks that ix, an index of r by its first position,
// holds keys keys (0..keys-1) in 8,192 slots, each key's chain its per
// tuples by decreasing confidence.
func checkKeyChains(t *testing.T, r *Relation, ix *hashIndex, keys, per int) {
	t.Helper()
	if len(ix.Slots) != 8192 || ix.count != keys {
		t.Fatalf("%d keys of %d tuples in %d slots, want %d in 8192", ix.count, r.N, len(ix.Slots), keys)
	}
	for k := range uint32(keys) {
		var chain []int32
		for u := ix.First(r, []uint32{k, 0}); u >= 0; u = ix.After(u) {
			if r.Tuple(u)[0] != k {
				t.Fatalf("key %d: tuple %d of key %d in its chain", k, u, r.Tuple(u)[0])
			}
			chain = append(chain, u)
		}
		if len(chain) != per {
			t.Fatalf("key %d: %d tuples in its chain, want %d", k, len(chain), per)
		}
		for i := 1; i < len(chain); i++ {
			if r.ConfAt(chain[i]) > r.ConfAt(chain[i-1]) {
				t.Fatalf("key %d: chain not by decreasing confidence at %d", k, i)
			}
		}
	}
}
