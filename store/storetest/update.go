package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"testing"

	"github.com/drumql/drumql/store"
)

// allDerived is every derived fact of s, by relation name and then in
// scan order.
func allDerived(t *testing.T, s store.Store) []store.Derived {
	t.Helper()
	var out []store.Derived
	for _, r := range must[[]store.RelationStats](t)(s.Relations()) {
		out = append(out, collect(t, s.ScanDerived(r.Rel))...)
	}
	return out
}

// derivedCounts is the number of derived facts of each relation name in
// Relations, without the relations that have none.
func derivedCounts(t *testing.T, s store.Store) map[string]int {
	t.Helper()
	m := map[string]int{}
	for _, r := range must[[]store.RelationStats](t)(s.Relations()) {
		if r.Derived > 0 {
			m[r.Name] = r.Derived
		}
	}
	return m
}

// applyUpdate is the reference semantics of UpdateDerived: what the derived
// facts ds become (sorted as allDerived sorts them, given s's names).
func applyUpdate(t *testing.T, s store.Store, ds []store.Derived, u store.DerivedUpdate) []store.Derived {
	t.Helper()
	key := func(f store.Fact) string { return fmt.Sprint(f.Rel, len(f.Args), f.Args) }
	m := map[string]store.Derived{}
	for _, d := range ds {
		if r, ok := u.Renames[d.Prov.Rule]; ok {
			d.Prov.Rule = r
		}
		m[key(d.Fact)] = d
	}
	for _, f := range u.Delete {
		delete(m, key(f))
	}
	for _, d := range u.Put {
		m[key(d.Fact)] = d
	}
	out := make([]store.Derived, 0, len(m))
	for _, d := range m {
		out = append(out, d)
	}
	name := func(id store.ID) string { return must[string](t)(s.Name(id)) }
	less := func(a, b store.Fact) bool {
		if na, nb := name(a.Rel), name(b.Rel); na != nb || a.Rel != b.Rel {
			return na < nb || na == nb && a.Rel < b.Rel
		}
		if len(a.Args) != len(b.Args) {
			return len(a.Args) < len(b.Args)
		}
		for i := range a.Args {
			if a.Args[i] != b.Args[i] {
				return a.Args[i] < b.Args[i]
			}
		}
		return false
	}
	sort.Slice(out, func(i, j int) bool { return less(out[i].Fact, out[j].Fact) })
	return out
}

// sameDerived compares derived facts, an empty body or argument list
// equal to a nil one.
func sameDerived(a, b []store.Derived) bool {
	if len(a) != len(b) {
		return false
	}
	norm := func(f store.Fact) store.Fact {
		if len(f.Args) == 0 {
			f.Args = nil
		}
		return f
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Fact, y.Fact = norm(x.Fact), norm(y.Fact)
		if len(x.Prov.Body) == 0 {
			x.Prov.Body = nil
		}
		if len(y.Prov.Body) == 0 {
			y.Prov.Body = nil
		}
		for j := range x.Prov.Body {
			x.Prov.Body[j] = norm(x.Prov.Body[j])
		}
		for j := range y.Prov.Body {
			y.Prov.Body[j] = norm(y.Prov.Body[j])
		}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

func updateDerived(t *testing.T, s store.Store, u store.DerivedUpdate) {
	t.Helper()
	if err := s.UpdateDerived(context.Background(), u); err != nil {
		t.Fatalf("UpdateDerived: %v", err)
	}
}

func testUpdateDerived(t *testing.T, s store.Store) {
	ctx := context.Background()
	ds := derivedSet(t, s)
	if err := s.ReplaceDerivedRecord(ctx, 0, []byte("p1"), seqOf(ds)); err != nil {
		t.Fatal(err)
	}
	husband, person, mother := ds[0].Fact.Rel, ds[2].Fact.Rel, id(t, s, "mother")
	alice, bob, erin := id(t, s, "alice"), id(t, s, "bob"), id(t, s, "erin")
	load(t, s, &store.Batch{Facts: []store.NamedFact{{Rel: "mother", Args: []string{"bob", "erin"}}}})
	wantState(t, s, []byte("p1"), false, "+mother(bob,erin)")
	baseBefore := dumpBase(t, s)
	u := store.DerivedUpdate{
		Program: []byte("p2"),
		Put: []store.Derived{
			// a new fact of a relation without derived facts, a new rule
			{Fact: store.Fact{Rel: mother, Args: []store.ID{erin, alice}}, Confidence: 0.75,
				Prov: store.Provenance{Rule: "mother(X, Y) :- new.", Body: []store.Fact{{Rel: mother, Args: []store.ID{bob, erin}}}}},
			// ds[0] replaced, with the rule of ds[1]
			{Fact: ds[0].Fact, Confidence: 0.875, Prov: store.Provenance{Rule: ds[1].Prov.Rule}},
			// a new person fact of arity 2, put twice: the later wins
			{Fact: store.Fact{Rel: person, Args: []store.ID{alice, bob}}, Confidence: 0.1, Prov: store.Provenance{Rule: "first"}},
			{Fact: store.Fact{Rel: person, Args: []store.ID{alice, bob}}, Confidence: 0.2, Prov: store.Provenance{Rule: "second"}},
			// deleted and put: put
			{Fact: ds[3].Fact, Confidence: 0.5, Prov: store.Provenance{Rule: "zero", Body: []store.Fact{{Rel: person}}}},
		},
		Delete: []store.Fact{
			ds[1].Fact,
			ds[2].Fact,
			ds[3].Fact,
			{Rel: husband, Args: []store.ID{erin, erin}}, // absent
			{Rel: 12345}, // absent, unknown relation
		},
	}
	want := applyUpdate(t, s, allDerived(t, s), u)
	updateDerived(t, s, u)
	if got := allDerived(t, s); !sameDerived(got, want) {
		t.Errorf("after UpdateDerived: %+v, want %+v", got, want)
	}
	if got, want := derivedCounts(t, s), map[string]int{"husband": 1, "mother": 1, "person": 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("derived counts %v, want %v", got, want)
	}
	for _, d := range want {
		g, ok, err := s.GetDerived(d.Fact)
		if err != nil || !ok || !sameDerived([]store.Derived{g}, []store.Derived{d}) {
			t.Errorf("GetDerived(%v) = %+v, %v, %v; want %+v", d.Fact, g, ok, err, d)
		}
	}
	for _, f := range []store.Fact{ds[1].Fact, ds[2].Fact} {
		if _, ok, _ := s.GetDerived(f); ok {
			t.Errorf("GetDerived(%v) found a deleted fact", f)
		}
	}
	wantState(t, s, []byte("p2"), false)
	if after := dumpBase(t, s); after != baseBefore {
		t.Errorf("UpdateDerived changed base facts:\n%s", diff(baseBefore, after))
	}
	// Changes are logged again after the update.
	load(t, s, &store.Batch{Facts: []store.NamedFact{{Rel: "mother", Args: []string{"erin", "bob"}}}})
	wantState(t, s, []byte("p2"), false, "+mother(erin,bob)")
	// All facts of a relation deleted: no derived count left.
	u2 := store.DerivedUpdate{Program: []byte{}, Delete: []store.Fact{ds[0].Fact}}
	want = applyUpdate(t, s, want, u2)
	updateDerived(t, s, u2)
	if got := allDerived(t, s); !sameDerived(got, want) {
		t.Errorf("after the second UpdateDerived: %+v, want %+v", got, want)
	}
	if got, want := derivedCounts(t, s), map[string]int{"mother": 1, "person": 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("derived counts %v, want %v", got, want)
	}
	wantState(t, s, []byte{}, false)
	// A nil Program leaves no record: no log is kept.
	updateDerived(t, s, store.DerivedUpdate{})
	load(t, s, &store.Batch{Facts: []store.NamedFact{{Rel: "mother", Args: []string{"frank", "bob"}}}})
	wantState(t, s, nil, false)
	if got := allDerived(t, s); !sameDerived(got, want) {
		t.Errorf("an empty UpdateDerived changed the derived facts: %+v, want %+v", got, want)
	}
	// An update with no record before it sets one.
	if err := s.ReplaceDerived(ctx, ds); err != nil {
		t.Fatal(err)
	}
	updateDerived(t, s, store.DerivedUpdate{Program: []byte("p3"), Delete: []store.Fact{ds[0].Fact}})
	wantState(t, s, []byte("p3"), false)
	if n := derivedCounts(t, s)["husband"]; n != 1 {
		t.Errorf("husband derived count %d, want 1", n)
	}
	// A large record.
	updateDerived(t, s, store.DerivedUpdate{Program: largeProgram()})
	wantState(t, s, largeProgram(), false)
}

func testUpdateDerivedInvalid(t *testing.T, s store.Store) {
	ds := derivedSet(t, s)
	if err := s.ReplaceDerivedRecord(context.Background(), 0, []byte("p"), seqOf(ds)); err != nil {
		t.Fatal(err)
	}
	before := Dump(t, s)
	long := make([]store.ID, 256)
	for _, u := range []store.DerivedUpdate{
		{Program: []byte("q"), Put: []store.Derived{ds[0], {Fact: ds[1].Fact, Confidence: float32(math.NaN())}}},
		{Program: []byte("q"), Put: []store.Derived{ds[0], {Fact: ds[1].Fact, Confidence: -1}}},
		{Program: []byte("q"), Put: []store.Derived{{Fact: store.Fact{Rel: 1, Args: long}, Confidence: 1}}},
	} {
		if err := s.UpdateDerived(context.Background(), u); err == nil {
			t.Errorf("UpdateDerived(%v...) accepted an invalid fact", u.Put[len(u.Put)-1].Confidence)
		}
		if after := Dump(t, s); after != before {
			t.Errorf("a failed UpdateDerived changed the store:\n%s", diff(before, after))
		}
	}
	// Deleting a fact of arity above the limit deletes nothing.
	updateDerived(t, s, store.DerivedUpdate{Program: []byte("p"), Delete: []store.Fact{{Rel: 1, Args: long}}})
	if after := Dump(t, s); after != before {
		t.Errorf("deleting an impossible fact changed the store:\n%s", diff(before, after))
	}
}

// manyDerived is n derived facts of rel over ids from base, with rules
// from a set of the given size (prefixed by tag).
func manyDerived(rel store.ID, base, n, rules int, tag string) []store.Derived {
	ds := make([]store.Derived, n)
	for i := range ds {
		ds[i] = store.Derived{
			Fact:       store.Fact{Rel: rel, Args: []store.ID{store.ID(base + i/100), store.ID(i % 100)}},
			Confidence: float32(i%16) / 16,
			Prov:       store.Provenance{Rule: fmt.Sprintf("%s%d", tag, i%rules), Body: []store.Fact{{Rel: rel, Args: []store.ID{store.ID(i)}}}},
		}
	}
	return ds
}

// Rules new to the visible generation are added to its rule table;
// readers that cached the table before the update resolve them.
func testUpdateDerivedRules(t *testing.T, s store.Store) {
	ctx := context.Background()
	ds := derivedSet(t, s)
	if err := s.ReplaceDerived(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rel := ds[0].Fact.Rel
	cur := allDerived(t, s) // reads (and caches) the rule table
	for round := range 4 {
		u := store.DerivedUpdate{
			Program: []byte(fmt.Sprint("p", round)),
			Put:     manyDerived(rel, 1000+round*7, 40, 5+round, fmt.Sprintf("r%d-", round%2)),
			Delete:  []store.Fact{cur[round].Fact},
		}
		u.Put = append(u.Put, store.Derived{Fact: ds[round].Fact, Confidence: 0.5, Prov: store.Provenance{Rule: ds[(round+1)%len(ds)].Prov.Rule}})
		if round >= 2 {
			// References that trade places, and one renamed to a
			// reference the table has.
			u.Renames = map[string]string{"r0-1": "r0-2", "r0-2": "r0-1", "r1-3": "r0-4"}
		}
		want := applyUpdate(t, s, cur, u)
		for _, d := range u.Put[:3] {
			if _, _, err := s.GetDerived(d.Fact); err != nil {
				t.Fatal(err)
			}
		}
		updateDerived(t, s, u)
		for _, d := range u.Put {
			g, ok, err := s.GetDerived(d.Fact)
			if err != nil || !ok || g.Prov.Rule != d.Prov.Rule {
				t.Fatalf("round %d: GetDerived(%v) = %+v, %v, %v; want rule %q", round, d.Fact, g, ok, err, d.Prov.Rule)
			}
		}
		if cur = allDerived(t, s); !sameDerived(cur, want) {
			t.Fatalf("round %d: derived facts differ from the reference", round)
		}
	}
	// A replacement after updates starts a table of its own.
	if err := s.ReplaceDerived(ctx, ds[:1]); err != nil {
		t.Fatal(err)
	}
	if got := allDerived(t, s); !sameDerived(got, ds[:1]) {
		t.Errorf("after ReplaceDerived: %+v", got)
	}
}

// largeUpdate is an update of about 30000 facts (more than one Badger
// transaction holds) of the store of derivedSet.
func largeUpdate(t *testing.T, s store.Store, ds []store.Derived) store.DerivedUpdate {
	rel := ds[0].Fact.Rel
	u := store.DerivedUpdate{Program: []byte("large"), Put: manyDerived(rel, 5, 30000, 50, "big"),
		Renames: map[string]string{"old3": "moved3", "old4": "old5", "old5": "old4"}}
	for i := range u.Put {
		if i%3 == 0 {
			u.Put[i].Prov.Rule = ds[i%len(ds)].Prov.Rule
		}
	}
	for i := 0; i < 6000; i += 2 {
		u.Delete = append(u.Delete, store.Fact{Rel: rel, Args: []store.ID{store.ID(i / 100), store.ID(i % 100)}})
	}
	u.Delete = append(u.Delete, ds[1].Fact)
	return u
}

func testUpdateDerivedLarge(t *testing.T, s store.Store) {
	ctx := context.Background()
	ds := derivedSet(t, s)
	old := append(manyDerived(ds[0].Fact.Rel, 0, 20000, 30, "old"), ds...)
	if err := s.ReplaceDerivedRecord(ctx, 0, []byte("p"), seqOf(old)); err != nil {
		t.Fatal(err)
	}
	load(t, s, &store.Batch{Facts: facts("q", 0, 3)})
	u := largeUpdate(t, s, ds)
	want := applyUpdate(t, s, allDerived(t, s), u)
	updateDerived(t, s, u)
	if got := allDerived(t, s); !sameDerived(got, want) {
		t.Fatalf("after a large UpdateDerived: %d facts, want %d", len(got), len(want))
	}
	wantCounts := map[string]int{}
	for _, d := range want {
		wantCounts[must[string](t)(s.Name(d.Fact.Rel))]++
	}
	if got := derivedCounts(t, s); !reflect.DeepEqual(got, wantCounts) {
		t.Errorf("derived counts %v, want %v", got, wantCounts)
	}
	wantState(t, s, []byte("large"), false)
	// A small update after a large one.
	u2 := store.DerivedUpdate{Program: []byte("small"), Put: manyDerived(ds[0].Fact.Rel, 9000, 3, 2, "tiny"), Delete: []store.Fact{want[0].Fact}}
	want = applyUpdate(t, s, want, u2)
	updateDerived(t, s, u2)
	if got := allDerived(t, s); !sameDerived(got, want) {
		t.Fatalf("after a small UpdateDerived: %d facts, want %d", len(got), len(want))
	}
	wantState(t, s, []byte("small"), false)
}

func testUpdateDerivedCanceled(t *testing.T, s store.Store) {
	ctx := context.Background()
	ds := derivedSet(t, s)
	if err := s.ReplaceDerivedRecord(ctx, 0, []byte("p"), seqOf(append(manyDerived(ds[0].Fact.Rel, 0, 5000, 30, "old"), ds...))); err != nil {
		t.Fatal(err)
	}
	load(t, s, &store.Batch{Facts: facts("q", 0, 3)})
	small := store.DerivedUpdate{Program: []byte("small"), Put: manyDerived(ds[0].Fact.Rel, 20, 5000, 7, "new"), Delete: []store.Fact{ds[0].Fact, ds[3].Fact}}
	for _, tc := range []struct {
		name string
		u    store.DerivedUpdate
		step int
	}{{"small", small, 1}, {"large", largeUpdate(t, s, ds), 3}} {
		t.Run(tc.name, func(t *testing.T) {
			before := Dump(t, s)
			want := applyUpdate(t, s, allDerived(t, s), tc.u)
			c, cancel := context.WithCancel(ctx)
			cancel()
			if err := s.UpdateDerived(c, tc.u); !errors.Is(err, context.Canceled) {
				t.Fatalf("UpdateDerived(canceled) = %v", err)
			}
			if after := Dump(t, s); after != before {
				t.Fatalf("canceled UpdateDerived changed the store:\n%s", diff(before, after))
			}
			for n := 1; ; n += tc.step {
				if n > 10000 {
					t.Fatal("UpdateDerived never completed")
				}
				err := s.UpdateDerived(newCountdown(n), tc.u)
				if err == nil {
					break
				}
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("UpdateDerived canceled at check %d = %v", n, err)
				}
				if after := Dump(t, s); after != before {
					t.Fatalf("UpdateDerived canceled at check %d changed the store:\n%s", n, diff(before, after))
				}
			}
			if got := allDerived(t, s); !sameDerived(got, want) {
				t.Fatalf("after UpdateDerived: %d facts, want %d", len(got), len(want))
			}
			wantState(t, s, tc.u.Program, false)
			// The next case starts from a store with a log.
			load(t, s, &store.Batch{Facts: facts("q", 3, 4)})
		})
	}
}
