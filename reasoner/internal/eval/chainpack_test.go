package eval

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestPackedChainsNotStale: the contiguous copy of an ordered chain
// (chainpack.go) holds each tuple's confidence; after confidences rose and
// fell since the ordering (Relation.Set, as maintenance sets them), every
// join that reads the chains (atom by atom, the factorised scan, a middle
// delta's groups, an end delta's walk) must derive what the confidences
// now give: a tuple raised is not cut, a tuple lowered does not lend its
// old confidence.
func TestPackedChainsNotStale(t *testing.T) {
	cases := []struct {
		name    string
		opt     Options
		deltaAt int // body literal of the delta (all its tuples), -1 none
	}{
		{"join", Options{NoFactor: true}, -1},
		{"factorised", Options{}, -1},
		{"middle delta", Options{}, 1},
		{"end delta walked", Options{WalkAlways: true}, 0},
		{"far delta walked", Options{WalkAlways: true}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st := testkit.NewStore(t, "")
			syms, err := NewSymtab(st)
			if err != nil {
				t.Fatal(err)
			}
			tc.opt.Threads, tc.opt.Min = 1, 0.2
			e := NewEvaluator(ctx, st, syms, tc.opt)
			if err := e.Load(PlainUnit(testkit.MustParse(t, `h(X, W) :- a(X, Y), b(Y, Z), c(Z, W).`))); err != nil {
				t.Fatal(err)
			}
			id := func(name string) uint32 { return mustID(t, syms, name) }
			rel := func(name string) *Relation { return e.Rels[e.RelIdx[RelKey(name, 2)]] }
			confs := []float64{0.9, 0.6, 0.45, 0.3}
			// a(x_m, y_i), b(y_i, z_j), c(z_j, w_k): chains of four
			// tuples of distinct confidences each way.
			add := func(r *Relation, from, to string) {
				for i := range 4 {
					for j := range 4 {
						r.Add([]uint32{id(fmt.Sprint(from, i)), id(fmt.Sprint(to, j))}, confs[(i+j)%4], ProvBase)
					}
				}
			}
			add(rel("a"), "x", "y")
			add(rel("b"), "y", "z")
			add(rel("c"), "z", "w")
			var d []int32
			if tc.deltaAt >= 0 {
				for i := range int32(16) {
					d = append(d, i)
				}
			}
			p := e.MakePlan(e.Rules[0], 0, tc.deltaAt, d)
			if (p.fac == nil) != tc.opt.NoFactor {
				t.Fatal("the plan is not the one the case is about")
			}
			ordered := 0
			for _, name := range []string{"a", "b", "c"} {
				r := rel(name)
				for _, ix := range r.Idx {
					if ix.ordered > 0 {
						ordered++
					}
				}
				// In every chain each way, the strongest falls to 0.05 and
				// the weakest rises to 1.
				for i := range int32(16) {
					switch r.ConfAt(i) {
					case 0.9:
						r.Set(i, 0.05, ProvBase)
					case 0.3:
						r.Set(i, 1, ProvBase)
					}
				}
			}
			if ordered < 2 {
				t.Fatalf("%d ordered indexes read", ordered)
			}
			if err := e.round([]*Plan{p}, map[int32][]int32{}); err != nil {
				t.Fatal(err)
			}
			want := map[string]float64{}
			a, b, c := rel("a"), rel("b"), rel("c")
			for i := range int32(16) {
				for j := range int32(16) {
					if a.Tuple(i)[1] != b.Tuple(j)[0] {
						continue
					}
					for k := range int32(16) {
						if b.Tuple(j)[1] != c.Tuple(k)[0] {
							continue
						}
						conf := a.ConfAt(i) * b.ConfAt(j) * c.ConfAt(k)
						key := syms.mustName(a.Tuple(i)[0]) + " " + syms.mustName(c.Tuple(k)[1])
						if conf >= 0.2 && conf > want[key] {
							want[key] = conf
						}
					}
				}
			}
			h := rel("h")
			got := map[string]float64{}
			for i := range int32(h.Len()) {
				got[syms.mustName(h.Tuple(i)[0])+" "+syms.mustName(h.Tuple(i)[1])] = h.ConfAt(i)
			}
			if !maps.Equal(got, want) {
				keys := slices.Sorted(maps.Keys(want))
				t.Errorf("h = %v, want %v (keys %v)", got, want, keys)
			}
		})
	}
}

// BenchmarkWalkChains walks every chain of an index of 2M tuples by 2,048
// keys, reading each tuple's confidence and far value: "contiguous" over
// the index as ordering lays it out, "links" over the same tuples linked
// in insertion order and never ordered, as every walk read chains before
// the layout (see chainpack.go). ns/tuple is the time a tuple.
func BenchmarkWalkChains(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	r := NewRelation("c", 2)
	for i := range uint32(1 << 21) {
		r.Add([]uint32{uint32(rng.IntN(2048)), i}, rng.Float64(), ProvBase)
	}
	links := &hashIndex{mask: 1}
	links.Grow(r, 16)
	for i := range int32(r.N) {
		links.insert(r, i)
	}
	for _, bc := range []struct {
		name string
		ix   *hashIndex
	}{{"contiguous", r.Index(1)}, {"links", links}} {
		b.Run(bc.name, func(b *testing.B) {
			var s float64
			var f uint32
			for range b.N {
				for k := range uint32(2048) {
					var cw chainWalk
					for cw.start(bc.ix, r, []uint32{k, 0}); cw.T >= 0; cw.next() {
						s += cw.C
						f += cw.Far
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(r.N), "ns/tuple")
			if s == 0 || f == 0 {
				b.Fatal("nothing walked")
			}
		})
	}
}
