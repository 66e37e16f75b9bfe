package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/drumql/drumql/store"
)

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
