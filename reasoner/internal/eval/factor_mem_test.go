package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// sgFixpoint evaluates same generation, lean, over a random graph of n
// nodes and 2n edges, calling round (when not nil) after every round.
func sgFixpoint(t *testing.T, n int, round func(e *Evaluator)) *Evaluator {
	t.Helper()
	ctx := context.Background()
	prog, err := parser.ParseString("p.dl", `
sg(X, Y) :- edge(P, X), edge(P, Y), X != Y.
sg(X, Y) :- edge(A, X), sg(A, B), edge(B, Y).
`)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 49))
	st := store.NewMemory()
	var b store.Batch
	for range 2 * n {
		b.Graph = append(b.Graph, store.NamedTriple{S: fmt.Sprint("n", rng.IntN(n)), R: "edge", O: fmt.Sprint("n", rng.IntN(n))})
	}
	if _, err := st.Load(ctx, &b, nil); err != nil {
		t.Fatal(err)
	}
	e, _, _, err := runFixpoint(ctx, st, prog, Options{Threads: 2}, "test", func(e *Evaluator) {
		e.lean = true
		if round != nil {
			e.Progress = func(Progress) { round(e) }
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestChainMiddleUnindexed checks that same generation keeps no index of
// sg beside its unique one: its recursive rule reads sg as the middle
// atom of a chain, whose delta plans take sg's tuples grouped, and whose
// first-round plan, over an empty sg, derives nothing. Either plan used to
// build an index of sg by its first position, which every tuple sg gained
// went into (4 bytes a tuple of chain links: 10 MB on sg-2k).
func TestChainMiddleUnindexed(t *testing.T) {
	indexes, links, rounds := 0, 0, 0
	e := sgFixpoint(t, 300, func(e *Evaluator) {
		rounds++
		sg := e.Rels[e.RelIdx[RelKey("sg", 2)]]
		indexes = max(indexes, len(sg.Idx))
		for _, ix := range sg.Idx {
			links = max(links, len(ix.Next))
		}
	})
	if n := e.Rels[e.RelIdx[RelKey("sg", 2)]].Len(); n < 10_000 || rounds < 3 {
		t.Fatalf("sg: %d tuples in %d rounds, want a fixpoint of more than 10,000 in several", n, rounds)
	}
	if indexes != 0 {
		t.Errorf("sg had %d indexes besides its unique one (%d chain links) over %d rounds", indexes, links, rounds)
	}
}

// TestMiddleDeltaGroupedOnce checks that a delta plan of the chain's
// middle atom groups the delta once, by the position it reads it by: the
// plan compares the number of values at both positions, which a bit set
// counts, where both groupings used to be built and held while the round
// planned (sg-2k's largest delta: 14 MB with their sort keys).
func TestMiddleDeltaGroupedOnce(t *testing.T) {
	e := sgFixpoint(t, 300, nil)
	for _, rel := range e.Rels {
		rel.Idx = map[uint32]*hashIndex{} // the fixpoint dropped them
	}
	si := e.RelIdx[RelKey("sg", 2)]
	sg := e.Rels[si]
	d := make([]int32, sg.Len())
	for i := range d {
		d[i] = int32(i)
	}
	var r *Crule
	at := -1
	for _, cr := range e.Rules {
		for j := range cr.Body {
			if l := &cr.Body[j]; l.Kind == datalog.Positive && l.Atom.Rel == si {
				r, at = cr, j
			}
		}
	}
	if r == nil || r.fac == nil {
		t.Fatal("no chain rule reads sg")
	}
	e.roundDelta, e.facGroups = map[int32][]int32{si: d}, map[deltaKey]*facGrouping{}
	fp := e.facPlanOf(r, at, d)
	if fp == nil || fp.groups == nil {
		t.Fatal("the delta plan of sg is not grouped")
	}
	grouped := 0
	for _, g := range e.facGroups {
		if g.tuples != nil {
			grouped += 4 * len(g.tuples)
		}
	}
	if want := 4 * len(d); grouped != want {
		t.Errorf("planning grouped %d bytes of tuples for a delta of %d, want %d (one grouping)", grouped, len(d), want)
	}
}

// TestGroupByBytes counts what groupBy allocates for a delta whose values
// are below its length: the order made (4 bytes a tuple), a count a value
// and the spans, no sort keys (8 bytes a tuple more).
func TestGroupByBytes(t *testing.T) {
	r := NewRelation("r", 2)
	r.MakeLean()
	const n, values = 200_000, 1000
	for i := range n {
		r.Add([]uint32{uint32(i % values), uint32(i)}, 1, ProvBase)
	}
	d := make([]int32, n)
	for i := range d {
		d[i] = int32(i)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, groups := groupBy(r, d, 0)
	runtime.ReadMemStats(&after)
	if len(s) != n || len(groups) != values {
		t.Fatalf("%d tuples in %d groups, want %d in %d", len(s), len(groups), n, values)
	}
	got := after.TotalAlloc - before.TotalAlloc
	if bound := uint64(4*n + 4*(values+2) + 2*8*2*values + 4096); got > bound {
		t.Errorf("groupBy of %d tuples with %d values allocated %d bytes, want at most %d", n, values, got, bound)
	}
}

// TestDistinctAt checks the count of values that decides a middle delta's
// grouping against the groups groupBy makes, and that the bit set is
// declined when the values are far above the tuples' number.
func TestDistinctAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	r := NewRelation("r", 2)
	for range 3000 {
		tu := []uint32{rng.Uint32N(700), rng.Uint32N(40)}
		if r.Find(tu) < 0 {
			r.Add(tu, 1, ProvBase)
		}
	}
	r.Add([]uint32{1 << 30, 0}, 1, ProvBase)
	var d []int32
	for i := range int32(r.Len() - 1) {
		if rng.IntN(2) == 0 {
			d = append(d, i)
		}
	}
	for pos := range 2 {
		n, ok := distinctAt(r, d, pos)
		if _, groups := groupBy(r, d, pos); !ok || n != len(groups) {
			t.Errorf("position %d: %d values (counted: %v), groupBy makes %d groups", pos, n, ok, len(groups))
		}
	}
	if _, ok := distinctAt(r, append(d, int32(r.Len()-1)), 0); ok {
		t.Error("a bit set of 2^30 values for a few thousand tuples")
	}
}
