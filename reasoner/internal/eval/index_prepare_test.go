package eval

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestPrepareIndexes: the indexes PrepareIndexes builds on two threads are
// the ones Relation.Index builds (slots, chains, their layout), for the
// masks asked of weighted binary relations; it leaves alone what it is not
// asked, an index already built, a relation without weights and one of
// another arity.
func TestPrepareIndexes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	fill := func(r *Relation, n, keys int, weighted bool) {
		for range n {
			args := make([]uint32, r.Arity)
			for p := range args {
				args[p] = uint32(rng.IntN(keys))
			}
			if r.Find(args) >= 0 {
				continue
			}
			c := 1.0
			if weighted {
				c = []float64{0.2, 0.5, 0.5, 0.9, 1}[rng.IntN(5)]
			}
			r.Add(args, c, ProvBase)
		}
	}
	// Each relation twice: one for Index, one for PrepareIndexes.
	var want, got []*Relation
	for i, spec := range []struct {
		n, keys, arity int
		weighted       bool
	}{{20000, 300, 2, true}, {5000, 40, 2, true}, {3000, 50, 2, false}, {2000, 30, 3, true}, {10, 3, 2, true}} {
		seed := uint64(100 + i)
		for _, to := range []*[]*Relation{&want, &got} {
			rng = rand.New(rand.NewPCG(seed, 1))
			r := NewRelation("r", spec.arity)
			fill(r, spec.n, spec.keys, spec.weighted)
			*to = append(*to, r)
		}
	}
	// Relation 1 has its index on position 0 already; relation 4 is not
	// asked for.
	want[1].Index(1)
	before := got[1].Index(1)
	ask := map[int32]uint32{0: 3, 1: 3, 2: 3, 3: 3}
	e := &Evaluator{Rels: got, threads: 2}
	e.PrepareIndexes(ask)
	for ri, r := range got {
		for _, m := range []uint32{1, 2} {
			asked := ask[int32(ri)]&m != 0 && r.weighted && r.Arity == 2
			built := r.builtIndex(m)
			switch {
			case asked && built == nil:
				t.Fatalf("relation %d: index %d not built", ri, m)
			case !asked && built != nil && !(ri == 1 && m == 1):
				t.Fatalf("relation %d: index %d built unasked", ri, m)
			case asked && !reflect.DeepEqual(built, want[ri].Index(m)):
				t.Fatalf("relation %d: index %d differs from Relation.Index's", ri, m)
			}
		}
	}
	if got[1].builtIndex(1) != before {
		t.Fatal("relation 1: the index built before was replaced")
	}
}
