package storetest

import (
	"context"
	"errors"
	"iter"
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

// reusing yields copies of ds through one Derived whose slices are
// overwritten for every fact, as a streaming writer does; after the first
// stop facts it yields err instead (stop < 0: never), or stops when yield
// says so.
func reusing(ds []store.Derived, stop int, err error) iter.Seq2[store.Derived, error] {
	return func(yield func(store.Derived, error) bool) {
		var cur store.Derived
		args := make([]store.ID, 0, 8)
		body := make([]store.Fact, 0, 4)
		for i, d := range ds {
			if i == stop {
				yield(store.Derived{}, err)
				return
			}
			args = append(args[:0], d.Fact.Args...)
			body = body[:0]
			for _, f := range d.Prov.Body {
				n := len(args)
				args = append(args, f.Args...)
				body = append(body, store.Fact{Rel: f.Rel, Args: args[n:len(args):len(args)]})
			}
			cur.Fact = store.Fact{Rel: d.Fact.Rel, Args: args[:len(d.Fact.Args):len(d.Fact.Args)]}
			cur.Confidence = d.Confidence
			cur.Prov = store.Provenance{Rule: d.Prov.Rule, Body: body}
			if !yield(cur, nil) {
				return
			}
		}
		if stop == len(ds) {
			yield(store.Derived{}, err)
		}
	}
}

func testDerivedSeq(t *testing.T, s store.Store) {
	ds := derivedSet(t, s)
	if err := s.ReplaceDerivedSeq(context.Background(), 0, reusing(ds, -1, nil)); err != nil {
		t.Fatal(err)
	}
	husband, person := ds[0].Fact.Rel, ds[2].Fact.Rel
	if got, want := collect(t, s.ScanDerived(husband)), []store.Derived{ds[1], ds[0]}; !reflect.DeepEqual(got, want) {
		t.Errorf("ScanDerived(husband) = %+v, want %+v", got, want)
	}
	if got, want := collect(t, s.ScanDerived(person)), []store.Derived{ds[3], ds[2]}; !reflect.DeepEqual(got, want) {
		t.Errorf("ScanDerived(person) = %+v, want %+v", got, want)
	}
	for _, r := range must[[]store.RelationStats](t)(s.Relations()) {
		if (r.Name == "husband" || r.Name == "person") && r.Derived != 2 {
			t.Errorf("Relations %s = %+v, want 2 derived", r.Name, r)
		}
	}
	// A second stream replaces the first.
	if err := s.ReplaceDerivedSeq(context.Background(), 0, reusing(ds[1:2], -1, nil)); err != nil {
		t.Fatal(err)
	}
	if got := collect(t, s.ScanDerived(person)); len(got) != 0 {
		t.Errorf("after replace, ScanDerived(person) = %v", got)
	}
	if got, want := collect(t, s.ScanDerived(husband)), ds[1:2]; !reflect.DeepEqual(got, want) {
		t.Errorf("after replace, ScanDerived(husband) = %+v, want %+v", got, want)
	}
}

func testDerivedSeqFailure(t *testing.T, s store.Store) {
	ds := derivedSet(t, s)
	if err := s.ReplaceDerived(context.Background(), ds[:2]); err != nil {
		t.Fatal(err)
	}
	before := Dump(t, s)
	many := make([]store.Derived, 50000)
	for i := range many {
		many[i] = store.Derived{Fact: store.Fact{Rel: ds[0].Fact.Rel, Args: []store.ID{store.ID(i), store.ID(i + 1)}}, Confidence: 0.5}
	}
	boom := errors.New("boom")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tests := []struct {
		name string
		ctx  context.Context
		seq  iter.Seq2[store.Derived, error]
		want error
	}{
		{"error at the start", context.Background(), reusing(many, 0, boom), boom},
		{"error after 30000 facts", context.Background(), reusing(many, 30000, boom), boom},
		{"error after the last fact", context.Background(), reusing(many, len(many), boom), boom},
		{"canceled", ctx, func(yield func(store.Derived, error) bool) {
			for i, d := range many {
				if i == 20000 {
					cancel()
				}
				if !yield(d, nil) {
					return
				}
			}
		}, context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.ReplaceDerivedSeq(tc.ctx, 0, tc.seq); !errors.Is(err, tc.want) {
				t.Fatalf("ReplaceDerivedSeq = %v, want %v", err, tc.want)
			}
			if after := Dump(t, s); after != before {
				t.Errorf("failed ReplaceDerivedSeq changed the store:\n%s", diff(before, after))
			}
		})
	}
}
