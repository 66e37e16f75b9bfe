package storetest

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/drumql/drumql/store"
)

// countdown is a context whose Err is nil for its first n calls and
// context.Canceled from then on: a cancellation at the n-th point where a
// store checks its context, whatever the store.
type countdown struct {
	context.Context
	n atomic.Int64
}

func newCountdown(n int) *countdown {
	c := &countdown{Context: context.Background()}
	c.n.Store(int64(n))
	return c
}

// Err implements context.Context.
func (c *countdown) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func retract(t *testing.T, s store.Store, b *store.Batch) store.RetractStats {
	t.Helper()
	st, err := s.Retract(context.Background(), b)
	if err != nil {
		t.Fatalf("Retract: %v", err)
	}
	return st
}

func testRetract(t *testing.T, s store.Store) {
	load(t, s, &store.Batch{
		Graph:  family,
		Facts:  []store.NamedFact{{Rel: "rain"}, {Rel: "person", Args: []string{"bob"}}, {Rel: "p", Args: []string{"a", "b", "c"}}, {Rel: "husband", Args: []string{"bob", "alice", "x"}}},
		Splits: map[string][]store.NamedTriple{"test": family[:2]},
	})
	if err := s.ReplaceDerived(context.Background(), derivedSet(t, s)); err != nil {
		t.Fatal(err)
	}
	nsym := must[int](t)(s.NumSymbols())
	husband, mother := id(t, s, "husband"), id(t, s, "mother")
	splitBefore := collect(t, s.Split("test"))
	derivedBefore := collect(t, s.ScanDerived(husband))
	st := retract(t, s, &store.Batch{
		Symbols: []string{"brand-new"},
		Graph: []store.NamedTriple{
			family[0],                               // present
			{S: "bob", R: "husband", O: "dana"},     // absent
			{S: "nobody", R: "husband", O: "alice"}, // unknown name
			family[0],                               // repeated
			family[2],                               // present
		},
		Facts: []store.NamedFact{
			{Rel: "rain"},                          // arity 0
			{Rel: "person", Args: []string{"bob"}}, // arity 1
			{Rel: "p", Args: []string{"a", "b"}},   // absent arity
			{Rel: "husband", Args: []string{"bob", "alice", "x"}},
			{Rel: "mother", Args: []string{"alice", "frank"}}, // a binary fact as Facts
		},
		Splits: map[string][]store.NamedTriple{"test": nil},
	})
	if want := (store.RetractStats{Removed: 6, Missing: 4}); st != want {
		t.Errorf("RetractStats = %+v, want %+v", st, want)
	}
	if n := must[int](t)(s.NumSymbols()); n != nsym {
		t.Errorf("NumSymbols = %d after Retract, want %d", n, nsym)
	}
	if _, ok, _ := s.Lookup("brand-new"); ok {
		t.Error("Retract interned a symbol")
	}
	if got := names(t, s, collect(t, s.Scan(husband))); !slices.Equal(got, []string{"husband(carl,dana)"}) {
		t.Errorf("Scan(husband) = %v", got)
	}
	if got := names(t, s, collect(t, s.Scan(mother))); !slices.Equal(got, []string{"mother(dana,alice)"}) {
		t.Errorf("Scan(mother) = %v", got)
	}
	if got := collect(t, s.ScanObject(mother, id(t, s, "erin"))); len(got) != 0 {
		t.Errorf("ScanObject(mother, erin) = %v: the reverse index kept a retracted fact", got)
	}
	if got := names(t, s, collect(t, s.ScanFirst(husband, id(t, s, "bob")))); len(got) != 0 {
		t.Errorf("ScanFirst(husband, bob) = %v", got)
	}
	if got := collect(t, s.Scan(id(t, s, "rain"))); len(got) != 0 {
		t.Errorf("Scan(rain) = %v", got)
	}
	if ok := must[bool](t)(s.Has(store.Fact{Rel: id(t, s, "person"), Args: []store.ID{id(t, s, "bob")}})); ok {
		t.Error("Has(person(bob)) after retracting it")
	}
	wantRels := []store.RelationStats{
		{Rel: id(t, s, "father"), Name: "father", Arity: 2, Base: 1},
		{Rel: husband, Name: "husband", Arity: 2, Base: 1, Derived: 2},
		{Rel: mother, Name: "mother", Arity: 2, Base: 1},
		{Rel: id(t, s, "p"), Name: "p", Arity: 3, Base: 1},
		{Rel: id(t, s, "person"), Name: "person", Arity: -1, Derived: 2},
	}
	if rels := must[[]store.RelationStats](t)(s.Relations()); !reflect.DeepEqual(rels, wantRels) {
		t.Errorf("Relations = %+v, want %+v", rels, wantRels)
	}
	if n := must[int](t)(s.Count(mother)); n != 1 {
		t.Errorf("Count(mother) = %d, want 1", n)
	}
	if got := collect(t, s.Split("test")); !reflect.DeepEqual(got, splitBefore) {
		t.Errorf("Split(test) = %v, want it unchanged %v", got, splitBefore)
	}
	if got := collect(t, s.ScanDerived(husband)); !reflect.DeepEqual(got, derivedBefore) {
		t.Errorf("ScanDerived(husband) = %v, want it unchanged", got)
	}
	CheckSnapshot(t, s, must[*store.Snapshot](t)(s.Snapshot(context.Background())))
	// Nothing to remove: nothing changes.
	before := Dump(t, s)
	for _, b := range []*store.Batch{nil, {}, {Graph: family[:1]}} {
		st, err := s.Retract(context.Background(), b)
		if err != nil || st.Removed != 0 {
			t.Errorf("Retract(nothing present) = %+v, %v", st, err)
		}
	}
	if after := Dump(t, s); after != before {
		t.Errorf("Retract of absent facts changed the store:\n%s", diff(before, after))
	}
	// Retracted facts load again; the retraction is undone.
	st2 := load(t, s, &store.Batch{Graph: family})
	if st2.NewFacts != 3 || st2.NewSymbols != 0 {
		t.Errorf("reload: %+v, want 3 new facts", st2)
	}
	CheckSnapshot(t, s, must[*store.Snapshot](t)(s.Snapshot(context.Background())))
}

func testRetractCanceled(t *testing.T, s store.Store) {
	b := bigBatch(10000)
	load(t, s, &store.Batch{Graph: family})
	load(t, s, b)
	before := Dump(t, s)
	gone := &store.Batch{Graph: b.Graph[:9000], Facts: b.Facts}
	c, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Retract(c, gone); !errors.Is(err, context.Canceled) {
		t.Fatalf("Retract(canceled) = %v", err)
	}
	if after := Dump(t, s); after != before {
		t.Fatalf("canceled Retract changed the store:\n%s", diff(before, after))
	}
	// Canceled at each point where the store checks, the retraction
	// changes nothing; past the last one it completes.
	var want store.RetractStats
	for n := 1; ; n++ {
		if n > 10000 {
			t.Fatal("Retract never completed")
		}
		st, err := s.Retract(newCountdown(n), gone)
		if err == nil {
			want = st
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Retract canceled at check %d = %v", n, err)
		}
		if after := Dump(t, s); after != before {
			t.Fatalf("Retract canceled at check %d changed the store:\n%s", n, diff(before, after))
		}
	}
	if want.Removed == 0 || want.Removed+want.Missing != len(gone.Graph)+len(gone.Facts) {
		t.Errorf("RetractStats = %+v for %d facts", want, len(gone.Graph)+len(gone.Facts))
	}
	for _, tr := range gone.Graph[:50] {
		if ok := must[bool](t)(s.Has(store.Fact{Rel: id(t, s, tr.R), Args: []store.ID{id(t, s, tr.S), id(t, s, tr.O)}})); ok {
			t.Fatalf("%v still present after Retract", tr)
		}
	}
	CheckSnapshot(t, s, must[*store.Snapshot](t)(s.Snapshot(context.Background())))
	load(t, s, gone)
	if after := Dump(t, s); after != before {
		t.Errorf("retracting and loading again changed the store:\n%s", diff(before, after))
	}
}

func testChangeLogRetract(t *testing.T, s store.Store) {
	ctx := context.Background()
	load(t, s, &store.Batch{Graph: family})
	if err := s.ReplaceDerivedRecord(ctx, 0, []byte("prog"), seqOf(nil)); err != nil {
		t.Fatal(err)
	}
	x := store.NamedFact{Rel: "mother", Args: []string{"x"}}
	load(t, s, &store.Batch{Facts: []store.NamedFact{x}})
	wantState(t, s, []byte("prog"), false, "+mother(x)")
	// The log holds net changes since the record. Added then removed:
	// as when the record was made, no entry; a fact present before the
	// record: removed; absent facts: nothing.
	retract(t, s, &store.Batch{Graph: []store.NamedTriple{family[3], {S: "bob", R: "father", O: "nobody"}}, Facts: []store.NamedFact{x}})
	wantState(t, s, []byte("prog"), false, "-father(bob,erin)")
	// Removed then added: no entry either; added again: logged again.
	load(t, s, &store.Batch{Graph: family, Facts: []store.NamedFact{x}})
	wantState(t, s, []byte("prog"), false, "+mother(x)")
	// A canceled retraction logs nothing.
	c, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Retract(c, &store.Batch{Graph: family}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Retract(canceled) = %v", err)
	}
	wantState(t, s, []byte("prog"), false, "+mother(x)")
	// Without a record nothing is logged.
	if err := s.ReplaceDerived(ctx, nil); err != nil {
		t.Fatal(err)
	}
	retract(t, s, &store.Batch{Graph: family[:1]})
	wantState(t, s, nil, false)
}

func testCapRetract(t *testing.T, s store.Store) {
	ctx := context.Background()
	load(t, s, &store.Batch{Facts: facts("q", 0, 10)})
	if err := s.ReplaceDerivedRecord(ctx, 0, []byte("p"), seqOf(nil)); err != nil {
		t.Fatal(err)
	}
	load(t, s, &store.Batch{Facts: facts("q", 10, 13)})
	retract(t, s, &store.Batch{Facts: facts("q", 0, 2)})
	want := []string{"-q(c00)", "-q(c01)", "+q(c10)", "+q(c11)", "+q(c12)"}
	wantState(t, s, []byte("p"), false, want...)
	// Changes undone leave the log (net changes), making room.
	retract(t, s, &store.Batch{Facts: facts("q", 10, 11)})
	load(t, s, &store.Batch{Facts: facts("q", 0, 1)})
	want = []string{"-q(c01)", "+q(c11)", "+q(c12)"}
	wantState(t, s, []byte("p"), false, want...)
	retract(t, s, &store.Batch{Facts: facts("q", 2, 4)})
	want = []string{"-q(c01)", "-q(c02)", "-q(c03)", "+q(c11)", "+q(c12)"}
	wantState(t, s, []byte("p"), false, want...)
	// Facts already logged do not count twice.
	retract(t, s, &store.Batch{Facts: facts("q", 1, 2)})
	wantState(t, s, []byte("p"), false, want...)
	// The sixth overflows.
	retract(t, s, &store.Batch{Facts: facts("q", 4, 5)})
	wantState(t, s, []byte("p"), true)
	retract(t, s, &store.Batch{Facts: facts("q", 5, 6)})
	wantState(t, s, []byte("p"), true)
}
