package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/drumql/drumql/store"
)

func testInterning(t *testing.T, s store.Store) {
	m := must[store.ID](t)
	for i, name := range []string{"a", "b", "a", "", "c", "b"} {
		want := map[string]store.ID{"a": 0, "b": 1, "": 2, "c": 3}[name]
		if got := m(s.Intern(name)); got != want {
			t.Errorf("step %d: Intern(%q) = %d, want %d", i, name, got, want)
		}
	}
	if n := must[int](t)(s.NumSymbols()); n != 4 {
		t.Errorf("NumSymbols = %d, want 4", n)
	}
	if got := must[string](t)(s.Name(3)); got != "c" {
		t.Errorf("Name(3) = %q", got)
	}
	if _, err := s.Name(4); err == nil {
		t.Error("Name(4) of a 4-symbol dictionary: no error")
	}
	if _, ok, err := s.Lookup("zz"); ok || err != nil {
		t.Errorf("Lookup(zz) = %v, %v", ok, err)
	}
	// Load continues the numbering in order of first appearance.
	load(t, s, &store.Batch{Symbols: []string{"d"}, Graph: []store.NamedTriple{{S: "x", R: "r", O: "a"}}})
	for name, want := range map[string]store.ID{"d": 4, "x": 5, "r": 6} {
		if got := id(t, s, name); got != want {
			t.Errorf("after load: id(%q) = %d, want %d", name, got, want)
		}
	}
}

func testLoadAndScans(t *testing.T, s store.Store) {
	st := load(t, s, &store.Batch{Graph: family})
	if st.NewFacts != 6 || st.Skipped != 0 || st.NewSymbols != 9 {
		t.Errorf("LoadStats = %+v, want 6 new facts, 9 new symbols", st)
	}
	// ids in order of first appearance: subject, relation, object
	wantIDs := []string{"bob", "husband", "alice", "carl", "dana", "mother", "erin", "father", "frank"}
	for i, name := range wantIDs {
		if got := id(t, s, name); got != store.ID(i) {
			t.Errorf("id(%q) = %d, want %d", name, got, i)
		}
	}
	mother := id(t, s, "mother")
	got := names(t, s, collect(t, s.Scan(mother)))
	// sorted by subject id, then object id: alice=2 (erin=6, frank=8), dana=4
	want := []string{"mother(alice,erin)", "mother(alice,frank)", "mother(dana,alice)"}
	if !slices.Equal(got, want) {
		t.Errorf("Scan(mother) = %v, want %v", got, want)
	}
	got = names(t, s, collect(t, s.ScanFirst(mother, id(t, s, "alice"))))
	if want := []string{"mother(alice,erin)", "mother(alice,frank)"}; !slices.Equal(got, want) {
		t.Errorf("ScanFirst(mother, alice) = %v, want %v", got, want)
	}
	got = names(t, s, collect(t, s.ScanObject(mother, id(t, s, "alice"))))
	if want := []string{"mother(dana,alice)"}; !slices.Equal(got, want) {
		t.Errorf("ScanObject(mother, alice) = %v, want %v", got, want)
	}
	load(t, s, &store.Batch{Graph: []store.NamedTriple{{S: "frank", R: "mother", O: "erin"}, {S: "bob", R: "mother", O: "erin"}}})
	got = names(t, s, collect(t, s.ScanObject(mother, id(t, s, "erin"))))
	if want := []string{"mother(bob,erin)", "mother(alice,erin)", "mother(frank,erin)"}; !slices.Equal(got, want) {
		t.Errorf("ScanObject(mother, erin) = %v, want %v (sorted by subject id)", got, want)
	}
	if n := must[int](t)(s.Count(mother)); n != 5 {
		t.Errorf("Count(mother) = %d, want 5", n)
	}
	if n := must[int](t)(s.Count(id(t, s, "alice"))); n != 0 {
		t.Errorf("Count(alice) = %d, want 0", n)
	}
	rels := must[[]store.RelationStats](t)(s.Relations())
	wantRels := []store.RelationStats{
		{Rel: id(t, s, "father"), Name: "father", Arity: 2, Base: 1},
		{Rel: id(t, s, "husband"), Name: "husband", Arity: 2, Base: 2},
		{Rel: mother, Name: "mother", Arity: 2, Base: 5},
	}
	if !reflect.DeepEqual(rels, wantRels) {
		t.Errorf("Relations = %+v, want %+v", rels, wantRels)
	}
	if got := collect(t, s.Scan(id(t, s, "alice"))); len(got) != 0 {
		t.Errorf("Scan of a non-relation = %v", got)
	}
}

func testExactLookups(t *testing.T, s store.Store) {
	load(t, s, &store.Batch{Graph: family})
	husband, bob, alice := id(t, s, "husband"), id(t, s, "bob"), id(t, s, "alice")
	for _, tc := range []struct {
		f    store.Fact
		want bool
	}{
		{store.Fact{Rel: husband, Args: []store.ID{bob, alice}}, true},
		{store.Fact{Rel: husband, Args: []store.ID{alice, bob}}, false},
		{store.Fact{Rel: husband, Args: []store.ID{bob}}, false},
		{store.Fact{Rel: husband, Args: []store.ID{bob, alice, alice}}, false},
		{store.Fact{Rel: 999, Args: []store.ID{bob, alice}}, false},
	} {
		if got := must[bool](t)(s.Has(tc.f)); got != tc.want {
			t.Errorf("Has(%v) = %v, want %v", tc.f, got, tc.want)
		}
	}
}

func testSplits(t *testing.T, s store.Store) {
	b := &store.Batch{
		Graph: family[:3],
		Splits: map[string][]store.NamedTriple{
			"train": family[:3],
			"test":  {family[5], family[4], family[3]},
			"valid": {},
		},
	}
	st := load(t, s, b)
	if !reflect.DeepEqual(st.Splits, map[string]int{"train": 3, "test": 3, "valid": 0}) {
		t.Errorf("LoadStats.Splits = %v", st.Splits)
	}
	if got := must[[]string](t)(s.Splits()); !slices.Equal(got, []string{"test", "train", "valid"}) {
		t.Errorf("Splits = %v", got)
	}
	var got []string
	for tr, err := range s.Split("test") {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, FactString(s, store.Fact{Rel: tr.R, Args: []store.ID{tr.S, tr.O}}))
	}
	if want := []string{"mother(dana,alice)", "mother(alice,frank)", "father(bob,erin)"}; !slices.Equal(got, want) {
		t.Errorf("Split(test) = %v, want file order %v", got, want)
	}
	// Test triples are not part of the graph unless also in Graph.
	if ok := must[bool](t)(s.Has(store.Fact{Rel: id(t, s, "father"), Args: []store.ID{id(t, s, "bob"), id(t, s, "erin")}})); ok {
		t.Error("a split-only triple became a base fact")
	}
	if n := len(collect(t, s.Split("valid"))); n != 0 {
		t.Errorf("Split(valid) has %d triples", n)
	}
	// A split in a later batch replaces the one of the same name.
	load(t, s, &store.Batch{Splits: map[string][]store.NamedTriple{"test": {family[0]}}})
	if n := len(collect(t, s.Split("test"))); n != 1 {
		t.Errorf("replaced Split(test) has %d triples, want 1", n)
	}
	for _, err := range s.Split("nope") {
		if !errors.Is(err, store.ErrUnknownSplit) {
			t.Errorf("Split(nope) error = %v, want ErrUnknownSplit", err)
		}
	}
}

func testNary(t *testing.T, s store.Store) {
	b := &store.Batch{
		Facts: []store.NamedFact{
			{Rel: "p", Args: []string{"x", "y", "z"}},
			{Rel: "p", Args: []string{"a"}},
			{Rel: "p", Args: []string{"x", "a"}},
			{Rel: "p", Args: []string{"x"}},
			{Rel: "p", Args: []string{"a", "b", "c"}},
			{Rel: "p", Args: []string{"x", "a", "b", "c"}},
			{Rel: "rain"},
			{Rel: "person", Args: []string{"x"}},
			{Rel: "person", Args: []string{"x"}},
		},
	}
	st := load(t, s, b)
	if st.NewFacts != 8 || st.Skipped != 1 {
		t.Errorf("LoadStats = %+v, want 8 new, 1 skipped", st)
	}
	p, x := id(t, s, "p"), id(t, s, "x")
	got := names(t, s, collect(t, s.Scan(p)))
	want := []string{"p(x)", "p(a)", "p(x,a)", "p(x,y,z)", "p(a,b,c)", "p(x,a,b,c)"}
	if !slices.Equal(got, want) {
		t.Errorf("Scan(p) = %v, want %v (by arity, then argument ids)", got, want)
	}
	got = names(t, s, collect(t, s.ScanFirst(p, x)))
	want = []string{"p(x)", "p(x,a)", "p(x,y,z)", "p(x,a,b,c)"}
	if !slices.Equal(got, want) {
		t.Errorf("ScanFirst(p, x) = %v, want %v", got, want)
	}
	if got := names(t, s, collect(t, s.Scan(id(t, s, "rain")))); !slices.Equal(got, []string{"rain()"}) {
		t.Errorf("Scan(rain) = %v", got)
	}
	if ok := must[bool](t)(s.Has(store.Fact{Rel: id(t, s, "rain")})); !ok {
		t.Error("Has(rain) = false")
	}
	if ok := must[bool](t)(s.Has(store.Fact{Rel: p, Args: []store.ID{x, id(t, s, "y"), id(t, s, "z")}})); !ok {
		t.Error("Has(p(x,y,z)) = false")
	}
	if n := must[int](t)(s.Count(p)); n != 6 {
		t.Errorf("Count(p) = %d", n)
	}
	rels := must[[]store.RelationStats](t)(s.Relations())
	wantRels := []store.RelationStats{
		{Rel: p, Name: "p", Arity: -1, Base: 6},
		{Rel: id(t, s, "person"), Name: "person", Arity: 1, Base: 1},
		{Rel: id(t, s, "rain"), Name: "rain", Arity: 0, Base: 1},
	}
	if !reflect.DeepEqual(rels, wantRels) {
		t.Errorf("Relations = %+v, want %+v", rels, wantRels)
	}
	if got := names(t, s, collect(t, s.ScanObject(p, id(t, s, "a")))); !slices.Equal(got, []string{"p(x,a)"}) {
		t.Errorf("ScanObject(p, a) = %v, want only the binary fact", got)
	}
}

// bigBatch is a batch with n graph triples, more than one progress step.
func bigBatch(n int) *store.Batch {
	b := &store.Batch{Splits: map[string][]store.NamedTriple{}}
	for i := range n {
		t := store.NamedTriple{S: fmt.Sprintf("e%d", i%997), R: fmt.Sprintf("r%d", i%7), O: fmt.Sprintf("e%d", (i*31+5)%1009)}
		b.Graph = append(b.Graph, t)
		if i%10 == 0 {
			b.Splits["test"] = append(b.Splits["test"], t)
		}
	}
	b.Facts = []store.NamedFact{{Rel: "u", Args: []string{"new-symbol"}}}
	return b
}

func testIdempotentReload(t *testing.T, s store.Store) {
	b := bigBatch(5000)
	st1 := load(t, s, b)
	before := Dump(t, s)
	st2 := load(t, s, b)
	if st2.NewFacts != 0 || st2.NewSymbols != 0 || st2.Skipped != st1.Skipped+st1.NewFacts {
		t.Errorf("second load stats = %+v (first %+v), want 0 new and all skipped", st2, st1)
	}
	if after := Dump(t, s); after != before {
		t.Errorf("reload changed the store:\n%s", diff(before, after))
	}
}

func testCanceledLoad(t *testing.T, s store.Store) {
	load(t, s, &store.Batch{Graph: family, Splits: map[string][]store.NamedTriple{"test": family[:2]}})
	before := Dump(t, s)
	for _, at := range []string{"before", "midway", "end"} {
		t.Run(at, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if at == "before" {
				cancel()
			}
			calls := 0
			progress := func(done, total int) {
				calls++
				if at == "midway" && done >= total/2 || at == "end" && done == total {
					cancel()
				}
			}
			_, err := s.Load(ctx, bigBatch(40000), progress)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Load with canceled ctx: err = %v, want context.Canceled", err)
			}
			if at != "before" && calls == 0 {
				t.Error("progress never called")
			}
			if after := Dump(t, s); after != before {
				t.Errorf("failed load changed the store:\n%s", diff(before, after))
			}
		})
	}
	// The store still works after failed loads.
	st := load(t, s, bigBatch(100))
	if st.NewFacts == 0 {
		t.Error("load after failed loads added nothing")
	}
}

func testEmptyBatch(t *testing.T, s store.Store) {
	for _, b := range []*store.Batch{nil, {}} {
		st, err := s.Load(context.Background(), b, nil)
		if err != nil || st.NewFacts != 0 || st.NewSymbols != 0 {
			t.Errorf("Load(empty) = %+v, %v", st, err)
		}
	}
	if n := must[int](t)(s.NumSymbols()); n != 0 {
		t.Errorf("NumSymbols = %d after empty loads", n)
	}
}

func testEarlyBreak(t *testing.T, s store.Store) {
	load(t, s, bigBatch(2000))
	rels := must[[]store.RelationStats](t)(s.Relations())
	n := 0
	for _, err := range s.Scan(rels[0].Rel) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			break
		}
	}
	for range s.Split("test") {
		break
	}
	// The store is still usable (no leaked transaction blocks writers).
	if _, err := s.Intern("after-break"); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceDerived(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}

func testClosed(t *testing.T, s store.Store) {
	load(t, s, &store.Batch{Graph: family, Splits: map[string][]store.NamedTriple{"test": family}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	f := store.Fact{Rel: 1, Args: []store.ID{0, 2}}
	errs := map[string]error{}
	errs["Close"] = s.Close()
	_, errs["Load"] = s.Load(ctx, &store.Batch{Graph: family}, nil)
	_, errs["Retract"] = s.Retract(ctx, &store.Batch{Graph: family})
	_, errs["Materialised"] = s.Materialised()
	errs["UpdateDerived"] = s.UpdateDerived(ctx, store.DerivedUpdate{})
	errs["ReplaceDerivedRecord"] = s.ReplaceDerivedRecord(ctx, 0, []byte("p"), func(func(store.Derived, error) bool) {})
	_, _, errs["Lookup"] = s.Lookup("bob")
	_, errs["Intern"] = s.Intern("new")
	_, errs["Name"] = s.Name(0)
	_, errs["NumSymbols"] = s.NumSymbols()
	_, errs["Relations"] = s.Relations()
	_, errs["Has"] = s.Has(f)
	_, errs["Count"] = s.Count(1)
	_, errs["Splits"] = s.Splits()
	errs["ReplaceDerived"] = s.ReplaceDerived(ctx, nil)
	errs["ClearDerived"] = s.ClearDerived()
	_, _, errs["GetDerived"] = s.GetDerived(f)
	_, errs["Snapshot"] = s.Snapshot(ctx)
	scanErr := func(seq func(func(store.Fact, error) bool)) (err error) {
		for _, e := range seq {
			err = e
		}
		return err
	}
	errs["Scan"] = scanErr(s.Scan(1))
	errs["ScanFirst"] = scanErr(s.ScanFirst(1, 0))
	errs["ScanObject"] = scanErr(s.ScanObject(1, 2))
	for _, e := range s.Split("test") {
		errs["Split"] = e
	}
	for _, e := range s.ScanDerived(1) {
		errs["ScanDerived"] = e
	}
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !errors.Is(errs[k], store.ErrClosed) {
			t.Errorf("%s after Close: err = %v, want ErrClosed", k, errs[k])
		}
	}
}
