package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// An update too large for one transaction but small beside the visible
// facts goes to a layer over the visible generation, which later updates
// change in place or merge into a new layer, and which an update that
// would make it too large merges into a new generation. After each, the
// store holds what Mem holds, verifies, reopens the same, and a read view
// taken before a layer was replaced still reads it.
func TestUpdateDerivedLayer(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db := mustOpen(t, dir)
	defer func() { db.Close() }()
	mem := NewMemory()
	steps := recordSteps(t)
	both := func(what string, f func(s Store) error) {
		t.Helper()
		*steps = nil
		if err := f(db); err != nil {
			t.Fatalf("%s: DB: %v", what, err)
		}
		if err := f(mem); err != nil {
			t.Fatalf("%s: Mem: %v", what, err)
		}
		if _, err := db.Verify(ctx); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got, want := storeDerived(t, db), storeDerived(t, mem); !slices.Equal(got, want) {
			t.Fatalf("%s: the store holds %d lines, Mem %d, not the same", what, len(got), len(want))
		}
	}
	both("load", func(s Store) error { _, err := s.Load(ctx, syntheticBatch(300, "a"), nil); return err })
	old3, old4 := derivedFactsOf(3, 0, 20000, "old"), derivedFactsOf(4, 0, 1000, "old")
	both("replace", func(s Store) error { return s.ReplaceDerived(ctx, append(slices.Clone(old3), old4...)) })
	gen := db.dgen
	limit := db.txnCount
	// changed is ds with another rule and confidence.
	changed := func(ds []Derived, rule string) []Derived {
		out := slices.Clone(ds)
		for i := range out {
			out[i].Prov.Rule, out[i].Confidence = rule, 0.99
		}
		return out
	}
	wantSteps := func(want ...string) {
		t.Helper()
		if got := slices.Compact(slices.Clone(*steps)); !slices.Equal(got, want) {
			t.Errorf("steps %v, want %v", got, want)
		}
	}

	// A: 1,000 facts changed, 1,000 added, 500 deleted, 10 deletions of
	// facts the store does not hold.
	db.txnCount = 500
	newA := derivedFactsOf(3, 30000, 1000, "a")
	a := DerivedUpdate{Program: []byte("pA"), Put: append(changed(old3[:1000], "a"), newA...),
		Delete: append(keysOf(old3[1000:1500]), keysOf(derivedFactsOf(3, 50000, 10, "x"))...)}
	both("layer A", func(s Store) error { return s.UpdateDerived(ctx, a) })
	wantSteps("derived:allocated", "update:layered", "update:txn", "update:committed", "update:done")
	layerA := db.layer
	if db.dgen != gen || layerA.gen == 0 || layerA.n != 2500 {
		t.Fatalf("after A: generation %d (was %d), layer %+v, want a layer of 2,500 entries", db.dgen, gen, layerA)
	}
	view, err := db.ReadView()
	if err != nil {
		t.Fatal(err)
	}
	atA := storeDerived(t, view)

	// B, in place on the layer: deleted facts put back, facts only the
	// layer holds deleted, facts of the generation deleted, new facts.
	db.txnCount = limit
	b := DerivedUpdate{Program: []byte("pB"),
		Put:    append(changed(old3[1000:1010], "b"), derivedFactsOf(5, 0, 50, "b")...),
		Delete: append(append(keysOf(newA[:10]), keysOf(old3[5000:5010])...), keysOf(old4[:5])...)}
	both("in place B", func(s Store) error { return s.UpdateDerived(ctx, b) })
	wantSteps("update:txn", "update:committed", "update:done")
	// 10 tombstones became puts, 10 puts went, 10 + 5 tombstones and 50
	// puts came.
	if want := (layerState{layerA.gen, 2500 - 10 + 15 + 50}); db.dgen != gen || db.layer != want {
		t.Fatalf("after B: generation %d, layer %+v, want %d and %+v", db.dgen, db.layer, gen, want)
	}

	// C: a second layer, A's entries merged with C's.
	db.txnCount = 500
	c := DerivedUpdate{Program: []byte("pC"), Put: derivedFactsOf(3, 40000, 1500, "c"), Delete: keysOf(old3[6000:6100])}
	both("layer C", func(s Store) error { return s.UpdateDerived(ctx, c) })
	if db.dgen != gen || db.layer.gen == layerA.gen || db.layer.n != 2555+1600 {
		t.Fatalf("after C: generation %d, layer %+v (A's was %d), want %d entries", db.dgen, db.layer, layerA.gen, 2555+1600)
	}
	if got := storeDerived(t, view); !slices.Equal(got, atA) {
		t.Error("a read view taken after A reads another state after C")
	}
	view.Close()
	// Point reads see through the layer: facts changed, deleted, put
	// back, added, and never there.
	for _, f := range keysOf(slices.Concat(old3[995:1015], old3[5005:5015], newA[5:15], old4[:10], derivedFactsOf(3, 50000, 3, "x"))) {
		got, ok1, err1 := db.GetDerived(f)
		want, ok2, err2 := mem.GetDerived(f)
		if err1 != nil || err2 != nil || ok1 != ok2 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("GetDerived(%v) = %v %v %v, Mem says %v %v %v", f, got, ok1, err1, want, ok2, err2)
		}
	}
	db.Close()
	if got := keyIDs(t, dir, tagDerived); !slices.Equal(got, []uint64{gen, db.layer.gen}) {
		t.Errorf("derived keys of generations %v, want %d and its layer %d", got, gen, db.layer.gen)
	}
	layerC := db.layer
	db = mustOpen(t, dir)
	if db.layer != layerC || !slices.Equal(storeDerived(t, db), storeDerived(t, mem)) {
		t.Fatalf("reopened: layer %+v, want %+v, or facts not Mem's", db.layer, layerC)
	}
	// A build that reads no layer must refuse the store: its first record
	// and its layer came in one transaction.
	if db.format != formatLayer {
		t.Errorf("format %d on disk, want %d", db.format, formatLayer)
	}

	// D: too many for a layer of a quarter of the visible facts: a new
	// generation, without a layer.
	db.txnCount = 500
	d := DerivedUpdate{Program: []byte("pD"), Put: derivedFactsOf(3, 60000, 4000, "d"), Delete: keysOf(newA[100:110])}
	both("copy D", func(s Store) error { return s.UpdateDerived(ctx, d) })
	if db.dgen == gen || db.layer != (layerState{}) {
		t.Fatalf("after D: generation %d (was %d), layer %+v, want a new generation", db.dgen, gen, db.layer)
	}
	want := storeDerived(t, db)
	db.Close()
	if got := keyIDs(t, dir, tagDerived); len(got) != 1 {
		t.Errorf("derived keys of generations %v, want one", got)
	}
	db = mustOpen(t, dir)
	if !slices.Equal(storeDerived(t, db), want) || db.layer != (layerState{}) {
		t.Errorf("the reopened store differs, or has layer %+v", db.layer)
	}
	if _, err := db.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestSummarizeLayer: stats shows the layer of changes over the derived
// facts (its entries, and the count past which an update merges it, a
// quarter of the visible facts), and nothing once an update merged it.
func TestSummarizeLayer(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	summary := func() *Summary {
		t.Helper()
		s, err := Summarize(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if _, err := db.Load(ctx, syntheticBatch(300, "a"), nil); err != nil {
		t.Fatal(err)
	}
	old := derivedFactsOf(3, 0, 20000, "old")
	if err := db.ReplaceDerived(ctx, old); err != nil {
		t.Fatal(err)
	}
	if s := summary(); s.Layer != nil {
		t.Fatalf("a new generation has layer %+v", *s.Layer)
	}
	db.txnCount = 500
	if err := db.UpdateDerived(ctx, DerivedUpdate{Program: []byte("pA"), Put: derivedFactsOf(3, 30000, 1000, "a"), Delete: keysOf(old[:500])}); err != nil {
		t.Fatal(err)
	}
	s := summary()
	if want := (LayerStatus{Entries: 1500, MergeAt: 20500 / 4}); s.Layer == nil || *s.Layer != want || s.DerivedFacts != 20500 {
		t.Fatalf("after a layered update: layer %v of %d facts, want %+v of 20,500", s.Layer, s.DerivedFacts, want)
	}
	if err := db.UpdateDerived(ctx, DerivedUpdate{Program: []byte("pB"), Put: derivedFactsOf(3, 40000, 6000, "b")}); err != nil {
		t.Fatal(err)
	}
	if s := summary(); s.Layer != nil || s.DerivedFacts != 26500 {
		t.Fatalf("after a merging update: layer %+v, %d facts, want none and 26,500", s.Layer, s.DerivedFacts)
	}
}

// keysOf returns the facts of ds.
func keysOf(ds []Derived) []Fact {
	fs := make([]Fact, len(ds))
	for i, d := range ds {
		fs[i] = d.Fact
	}
	return fs
}
