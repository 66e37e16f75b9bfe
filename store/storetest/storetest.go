package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/drumql/drumql/store"
)

// Run runs the conformance suite. open must return a new, empty store for
// each call; Run closes it.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"Interning", testInterning},
		{"LoadAndScans", testLoadAndScans},
		{"ExactLookups", testExactLookups},
		{"Splits", testSplits},
		{"NaryFacts", testNary},
		{"IdempotentReload", testIdempotentReload},
		{"CanceledLoadLeavesStoreUnchanged", testCanceledLoad},
		{"EmptyBatch", testEmptyBatch},
		{"Derived", testDerived},
		{"DerivedCanceledReplaceKeepsPrevious", testDerivedCanceled},
		{"DerivedDuplicatesKeepBest", testDerivedDuplicates},
		{"Snapshot", testSnapshot},
		{"EarlyBreak", testEarlyBreak},
		{"Closed", testClosed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			closed := false
			t.Cleanup(func() {
				if !closed {
					s.Close()
				}
			})
			tc.fn(t, s)
			if tc.name == "Closed" {
				closed = true
			}
		})
	}
}

// family is a small graph used by several tests.
var family = []store.NamedTriple{
	{S: "bob", R: "husband", O: "alice"},
	{S: "carl", R: "husband", O: "dana"},
	{S: "alice", R: "mother", O: "erin"},
	{S: "bob", R: "father", O: "erin"},
	{S: "alice", R: "mother", O: "frank"},
	{S: "dana", R: "mother", O: "alice"},
}

func must[T any](t *testing.T) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func id(t *testing.T, s store.Store, name string) store.ID {
	t.Helper()
	v, ok, err := s.Lookup(name)
	if err != nil || !ok {
		t.Fatalf("Lookup(%q) = %v, %v, %v", name, v, ok, err)
	}
	return v
}

// collect drains a scan, failing the test on an error.
func collect[T any](t *testing.T, seq func(func(T, error) bool)) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		out = append(out, v)
	}
	return out
}

// names renders facts as rel(a,b) strings.
func names(t *testing.T, s store.Store, fs []store.Fact) []string {
	t.Helper()
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = FactString(s, f)
	}
	return out
}

// FactString renders f with symbol names, as rel(a,b).
func FactString(s store.Store, f store.Fact) string {
	name := func(id store.ID) string {
		n, err := s.Name(id)
		if err != nil {
			return fmt.Sprintf("#%d", id)
		}
		return n
	}
	args := make([]string, len(f.Args))
	for i, a := range f.Args {
		args[i] = name(a)
	}
	return name(f.Rel) + "(" + strings.Join(args, ",") + ")"
}

func load(t *testing.T, s store.Store, b *store.Batch) store.LoadStats {
	t.Helper()
	st, err := s.Load(context.Background(), b, nil)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return st
}

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

func derivedSet(t *testing.T, s store.Store) []store.Derived {
	load(t, s, &store.Batch{Graph: family, Facts: []store.NamedFact{{Rel: "person", Args: []string{"bob"}}}})
	bob, alice, carl, dana := id(t, s, "bob"), id(t, s, "alice"), id(t, s, "carl"), id(t, s, "dana")
	husband, person := id(t, s, "husband"), id(t, s, "person")
	return []store.Derived{
		{Fact: store.Fact{Rel: husband, Args: []store.ID{dana, carl}}, Confidence: 0.5,
			Prov: store.Provenance{Rule: "r2", Body: []store.Fact{{Rel: husband, Args: []store.ID{carl, dana}}}}},
		{Fact: store.Fact{Rel: husband, Args: []store.ID{alice, bob}}, Confidence: 0.25,
			Prov: store.Provenance{Rule: "husband(X, Y) :- husband(Y, X).", Body: []store.Fact{{Rel: husband, Args: []store.ID{bob, alice}}, {Rel: person, Args: []store.ID{bob}}}}},
		{Fact: store.Fact{Rel: person, Args: []store.ID{alice}}, Confidence: 1},
		{Fact: store.Fact{Rel: person}, Confidence: 0.125, Prov: store.Provenance{Rule: "zero", Body: []store.Fact{{Rel: person}}}},
	}
}

func testDerived(t *testing.T, s store.Store) {
	if _, err := s.Intern("wife"); err != nil {
		t.Fatal(err)
	}
	ds := derivedSet(t, s)
	baseBefore := dumpBase(t, s)
	if err := s.ReplaceDerived(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	husband, person := ds[0].Fact.Rel, ds[2].Fact.Rel
	got := collect(t, s.ScanDerived(husband))
	if want := []store.Derived{ds[1], ds[0]}; !reflect.DeepEqual(got, want) { // alice < dana
		t.Errorf("ScanDerived(husband) = %+v, want %+v", got, want)
	}
	got = collect(t, s.ScanDerived(person))
	if want := []store.Derived{ds[3], ds[2]}; !reflect.DeepEqual(got, want) { // arity 0 first
		t.Errorf("ScanDerived(person) = %+v, want %+v", got, want)
	}
	for _, d := range ds {
		g, ok, err := s.GetDerived(d.Fact)
		if err != nil || !ok || !reflect.DeepEqual(g, d) {
			t.Errorf("GetDerived(%v) = %+v, %v, %v; want %+v", d.Fact, g, ok, err, d)
		}
	}
	if _, ok, _ := s.GetDerived(ds[0].Prov.Body[0]); ok {
		t.Error("GetDerived of a base fact found it")
	}
	rels := must[[]store.RelationStats](t)(s.Relations())
	byName := map[string]store.RelationStats{}
	for _, r := range rels {
		byName[r.Name] = r
	}
	if r := byName["husband"]; r.Base != 2 || r.Derived != 2 || r.Arity != 2 {
		t.Errorf("Relations husband = %+v", r)
	}
	if r := byName["person"]; r.Base != 1 || r.Derived != 2 || r.Arity != -1 {
		t.Errorf("Relations person = %+v", r)
	}
	if after := dumpBase(t, s); after != baseBefore {
		t.Errorf("ReplaceDerived changed base facts:\n%s", diff(baseBefore, after))
	}
	// Replace: the old set disappears.
	if err := s.ReplaceDerived(context.Background(), ds[2:3]); err != nil {
		t.Fatal(err)
	}
	if got := collect(t, s.ScanDerived(husband)); len(got) != 0 {
		t.Errorf("after replace, ScanDerived(husband) = %v", got)
	}
	if got := collect(t, s.ScanDerived(person)); !reflect.DeepEqual(got, ds[2:3]) {
		t.Errorf("after replace, ScanDerived(person) = %v", got)
	}
	if err := s.ClearDerived(); err != nil {
		t.Fatal(err)
	}
	if got := collect(t, s.ScanDerived(person)); len(got) != 0 {
		t.Errorf("after clear, ScanDerived(person) = %v", got)
	}
	for _, r := range must[[]store.RelationStats](t)(s.Relations()) {
		if r.Derived != 0 {
			t.Errorf("after clear, Relations has %+v", r)
		}
	}
	if after := dumpBase(t, s); after != baseBefore {
		t.Errorf("ClearDerived changed base facts:\n%s", diff(baseBefore, after))
	}
}

func testDerivedCanceled(t *testing.T, s store.Store) {
	ds := derivedSet(t, s)
	if err := s.ReplaceDerived(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	before := Dump(t, s)
	many := make([]store.Derived, 50000)
	for i := range many {
		many[i] = store.Derived{Fact: store.Fact{Rel: ds[0].Fact.Rel, Args: []store.ID{store.ID(i), store.ID(i + 1)}}, Confidence: 0.5}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.ReplaceDerived(ctx, many); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReplaceDerived(canceled) = %v", err)
	}
	if after := Dump(t, s); after != before {
		t.Errorf("canceled ReplaceDerived changed the store:\n%s", diff(before, after))
	}
}

func testDerivedDuplicates(t *testing.T, s store.Store) {
	ds := derivedSet(t, s)
	f := ds[0].Fact
	dup := []store.Derived{
		{Fact: f, Confidence: 0.3, Prov: store.Provenance{Rule: "a"}},
		{Fact: f, Confidence: 0.7, Prov: store.Provenance{Rule: "b"}},
		{Fact: f, Confidence: 0.7, Prov: store.Provenance{Rule: "c"}},
		{Fact: f, Confidence: 0.1, Prov: store.Provenance{Rule: "d"}},
	}
	if err := s.ReplaceDerived(context.Background(), dup); err != nil {
		t.Fatal(err)
	}
	got := collect(t, s.ScanDerived(f.Rel))
	if len(got) != 1 || got[0].Prov.Rule != "b" {
		t.Errorf("duplicates: ScanDerived = %+v, want only rule b", got)
	}
	for _, r := range must[[]store.RelationStats](t)(s.Relations()) {
		if r.Rel == f.Rel && r.Derived != 1 {
			t.Errorf("duplicates counted: %+v", r)
		}
	}
}

func testSnapshot(t *testing.T, s store.Store) {
	b := bigBatch(3000)
	b.Symbols = []string{"unused"}
	b.Facts = append(b.Facts, store.NamedFact{Rel: "t", Args: []string{"only-ternary", "x", "y"}})
	load(t, s, b)
	snap := must[*store.Snapshot](t)(s.Snapshot(context.Background()))
	CheckSnapshot(t, s, snap)
	if _, ok, _ := s.Lookup("only-ternary"); !ok {
		t.Fatal("setup")
	}
	for _, e := range snap.Entities {
		if n, _ := s.Name(e); n == "only-ternary" || n == "unused" {
			t.Errorf("entity %q is in no binary fact", n)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Snapshot(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Snapshot(canceled) = %v", err)
	}
}

// CheckSnapshot verifies snap against the store's scans: entity and
// relation numbering, both CSRs, and the edge ids of In.
func CheckSnapshot(t *testing.T, s store.Store, snap *store.Snapshot) {
	t.Helper()
	if !slices.IsSorted(snap.Entities) || !slices.IsSorted(snap.Relations) {
		t.Fatal("Entities or Relations not sorted")
	}
	ent := map[store.ID]bool{}
	var rels []store.ID
	for _, r := range must[[]store.RelationStats](t)(s.Relations()) {
		fs := collect(t, s.Scan(r.Rel))
		has := false
		for _, f := range fs {
			if len(f.Args) == 2 {
				has = true
				ent[f.Args[0]], ent[f.Args[1]] = true, true
			}
		}
		if has {
			rels = append(rels, r.Rel)
		}
	}
	slices.Sort(rels)
	if !slices.Equal(rels, snap.Relations) {
		t.Fatalf("Relations = %v, want %v", snap.Relations, rels)
	}
	var ents []store.ID
	for e := range ent {
		ents = append(ents, e)
	}
	slices.Sort(ents)
	if !slices.Equal(ents, snap.Entities) {
		t.Fatalf("Entities (%d) differ from the binary facts' symbols (%d)", len(snap.Entities), len(ents))
	}
	idx := map[store.ID]int32{}
	for i, e := range snap.Entities {
		idx[e] = int32(i)
	}
	if len(snap.Out) != len(rels) || len(snap.In) != len(rels) {
		t.Fatalf("len(Out), len(In) = %d, %d, want %d", len(snap.Out), len(snap.In), len(rels))
	}
	n := len(snap.Entities)
	for r, rel := range rels {
		out, in := snap.Out[r], snap.In[r]
		if len(out.RowPtr) != n+1 || len(in.RowPtr) != n+1 || len(in.Edge) != len(in.Col) {
			t.Fatalf("relation %d: bad CSR shapes", rel)
		}
		var wantOut [][2]int32
		for f, err := range s.Scan(rel) {
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Args) == 2 {
				wantOut = append(wantOut, [2]int32{idx[f.Args[0]], idx[f.Args[1]]})
			}
		}
		var gotOut [][2]int32
		for i := range n {
			row := out.Col[out.RowPtr[i]:out.RowPtr[i+1]]
			if !slices.IsSorted(row) {
				t.Fatalf("relation %d: Out row %d not sorted", rel, i)
			}
			for _, c := range row {
				gotOut = append(gotOut, [2]int32{int32(i), c})
			}
		}
		if !slices.Equal(gotOut, wantOut) {
			t.Fatalf("relation %d: Out differs from Scan", rel)
		}
		count := 0
		for o := range n {
			row := in.Col[in.RowPtr[o]:in.RowPtr[o+1]]
			if !slices.IsSorted(row) {
				t.Fatalf("relation %d: In row %d not sorted", rel, o)
			}
			for k, sIdx := range row {
				e := in.Edge[int(in.RowPtr[o])+k]
				if out.Col[e] != int32(o) || e < out.RowPtr[sIdx] || e >= out.RowPtr[sIdx+1] {
					t.Fatalf("relation %d: In edge %d does not point at (%d, %d)", rel, e, sIdx, o)
				}
				count++
			}
		}
		if count != len(wantOut) {
			t.Fatalf("relation %d: In has %d entries, want %d", rel, count, len(wantOut))
		}
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

// Dump renders the whole visible state of s — dictionary, base facts,
// counts, splits and derived facts — as text, for comparing stores.
func Dump(t testing.TB, s store.Store) string {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(dumpBase(t, s))
	rels, err := s.Relations()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rels {
		fmt.Fprintf(&sb, "stats %+v\n", r)
		for d, err := range s.ScanDerived(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&sb, "derived %v %g %q %v\n", d.Fact, d.Confidence, d.Prov.Rule, d.Prov.Body)
		}
	}
	return sb.String()
}

func dumpBase(t testing.TB, s store.Store) string {
	t.Helper()
	var sb strings.Builder
	n, err := s.NumSymbols()
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		name, err := s.Name(store.ID(i))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sb, "sym %d %q\n", i, name)
	}
	rels, err := s.Relations()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rels {
		if r.Base == 0 {
			continue
		}
		c, err := s.Count(r.Rel)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sb, "rel %d %q base %d count %d\n", r.Rel, r.Name, r.Base, c)
		for f, err := range s.Scan(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&sb, "fact %v\n", f)
		}
	}
	splits, err := s.Splits()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range splits {
		fmt.Fprintf(&sb, "split %q\n", name)
		for tr, err := range s.Split(name) {
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&sb, "  %v\n", tr)
		}
	}
	return sb.String()
}

// diff shows the first differing line of two dumps.
func diff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n- %s\n+ %s\n(%d vs %d lines)", i+1, x, y, len(al), len(bl))
		}
	}
	return "(equal)"
}
