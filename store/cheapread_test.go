package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// StalenessOf, read from memory for a DB, says what Materialised says, for
// a DB (also reopened read-only) and for a Mem, through every state: no
// record, a record, changes since it, more changes than the log holds, and
// the record cleared.
func TestStalenessOf(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := mustOpen(t, dir)
	mem := NewMemory()
	check := func(step string, want Staleness) {
		t.Helper()
		for _, st := range []Store{db, mem} {
			got, err := StalenessOf(st)
			ms, merr := st.Materialised()
			if err != nil || merr != nil || got != want || StalenessOfState(ms) != want {
				t.Errorf("%s, %T: StalenessOf = %+v, %v; Materialised says %+v, %v; want %+v", step, st, got, err, StalenessOfState(ms), merr, want)
			}
		}
	}
	ds := []Derived{{Fact: Fact{Rel: 2, Args: []ID{1, 2}}, Confidence: 0.5, Prov: Provenance{Rule: "r"}}}
	both := func(f func(Store) error) {
		t.Helper()
		for _, st := range []Store{db, mem} {
			if err := f(st); err != nil {
				t.Fatal(err)
			}
		}
	}
	both(func(st Store) error { _, err := st.Load(ctx, syntheticBatch(200, "a"), nil); return err })
	check("loaded", Staleness{})
	both(func(st Store) error { return st.ReplaceDerived(ctx, ds) })
	check("derived facts without a record", Staleness{})
	both(func(st Store) error {
		return st.ReplaceDerivedRecord(ctx, 0, []byte{}, func(yield func(Derived, error) bool) { yield(ds[0], nil) })
	})
	check("an empty record", Staleness{Record: true})
	both(func(st Store) error { _, err := st.Load(ctx, syntheticBatch(7, "b"), nil); return err })
	check("7 facts loaded since", Staleness{Record: true, Changes: 7})
	both(func(st Store) error {
		SetChangeLogCap(st, 10)
		_, err := st.Load(ctx, syntheticBatch(7, "c"), nil)
		return err
	})
	check("14 facts loaded since, the log holds 10", Staleness{Record: true, Overflow: true})
	both(func(st Store) error {
		return st.ReplaceDerivedRecord(ctx, 0, []byte("p"), func(yield func(Derived, error) bool) { yield(ds[0], nil) })
	})
	both(func(st Store) error { _, err := st.Load(ctx, syntheticBatch(3, "d"), nil); return err })
	check("a new record, 3 facts loaded since", Staleness{Record: true, Changes: 3})
	db.Close()
	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := StalenessOf(ro); err != nil || got != (Staleness{Record: true, Changes: 3}) {
		t.Errorf("reopened: %+v, %v", got, err)
	}
	ro.Close()
	if _, err := StalenessOf(ro); !errors.Is(err, ErrClosed) {
		t.Errorf("closed: %v, want ErrClosed", err)
	}
}

// GetDerived on a store just opened reads the one rule of the fact, not
// the generation's rule table; its rules are right before and after the
// table is read (by a scan).
func TestGetDerivedReadsOneRule(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := mustOpen(t, dir)
	var ds []Derived
	for i := range 50 {
		ds = append(ds, Derived{Fact: Fact{Rel: 2, Args: []ID{ID(i), 1}}, Confidence: 0.5,
			Prov: Provenance{Rule: fmt.Sprintf("r%d(X, Y) :- b(X, Y).", i%7)}})
	}
	if err := db.ReplaceDerivedRecord(ctx, 0, []byte("p"), func(yield func(Derived, error) bool) {
		for _, d := range ds {
			if !yield(d, nil) {
				return
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	get := func(when string) {
		t.Helper()
		for _, i := range []int{0, 13, 49} {
			got, ok, err := ro.GetDerived(ds[i].Fact)
			if err != nil || !ok || got.Prov.Rule != ds[i].Prov.Rule || got.Confidence != 0.5 {
				t.Errorf("%s: GetDerived of fact %d = %+v, %v, %v; want rule %q", when, i, got, ok, err, ds[i].Prov.Rule)
			}
		}
	}
	get("just opened")
	if ro.rules.ok {
		t.Error("GetDerived read the rule table")
	}
	n := 0
	for _, err := range ro.ScanDerived(2) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != len(ds) || !ro.rules.ok {
		t.Fatalf("scan: %d facts, rule table read %v", n, ro.rules.ok)
	}
	get("after a scan")
}
