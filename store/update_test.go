package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// recordSteps sets stepHook to collect the steps of the writes until the
// test ends.
func recordSteps(t *testing.T) *[]string {
	t.Helper()
	var steps []string
	stepHook = func(s string) {
		if len(steps) == 0 || steps[len(steps)-1] != s {
			steps = append(steps, s)
		}
	}
	t.Cleanup(func() { stepHook = nil })
	return &steps
}

// derivedFactsOf is n derived facts of relation rel with first argument
// from base on.
func derivedFactsOf(rel ID, base, n int, rule string) []Derived {
	ds := make([]Derived, n)
	for i := range ds {
		ds[i] = Derived{Fact: Fact{Rel: rel, Args: []ID{ID(base + i), ID(i % 7)}}, Confidence: float32(i%8) / 8,
			Prov: Provenance{Rule: fmt.Sprint(rule, i%3), Body: []Fact{{Rel: rel, Args: []ID{ID(i)}}}}}
	}
	return ds
}

// dumpDerived renders every derived fact of db.
func dumpDerived(t *testing.T, db *DB) []string {
	t.Helper()
	var out []string
	rels, err := db.Relations()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rels {
		for d, err := range db.ScanDerived(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(d))
		}
	}
	return out
}

// A small update is one transaction on the visible generation; one that
// does not fit in a transaction writes a new generation. Both persist, and
// the store verifies after them.
func TestUpdateDerivedPaths(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db := mustOpen(t, dir)
	if _, err := db.Load(ctx, syntheticBatch(300, "a"), nil); err != nil {
		t.Fatal(err)
	}
	if err := db.ReplaceDerived(ctx, derivedFactsOf(3, 0, 5000, "r")); err != nil {
		t.Fatal(err)
	}
	steps := recordSteps(t)
	for _, tc := range []struct {
		name     string
		u        DerivedUpdate
		newGen   bool
		wantStep []string
	}{
		{"small", DerivedUpdate{Program: []byte("p1"), Put: derivedFactsOf(3, 4990, 100, "s"), Delete: []Fact{{Rel: 3, Args: []ID{0, 0}}}},
			false, []string{"update:txn", "update:committed", "update:done"}},
		{"small with a large record", DerivedUpdate{Program: make([]byte, 3*recordPart+1), Put: derivedFactsOf(4, 0, 10, "t")},
			false, []string{"update:record", "update:txn", "update:committed", "update:done"}},
		{"large", DerivedUpdate{Program: []byte("p3"), Put: derivedFactsOf(3, 3000, 30000, "u"), Delete: []Fact{{Rel: 4, Args: []ID{1, 1}}}},
			true, []string{"derived:allocated", "update:copying", "update:written", "derived:flipped", "derived:done"}},
		{"too large for a transaction after all", DerivedUpdate{Program: []byte("p4"), Put: derivedFactsOf(5, 0, 30000, "v"), Delete: []Fact{{Rel: 3, Args: []ID{4990, 0}}}},
			true, []string{"derived:allocated", "update:copying", "update:written", "derived:flipped", "derived:done"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			*steps = nil
			gen := db.dgen
			if strings.HasSuffix(tc.name, "after all") {
				// The estimate lets the transaction be tried; Badger refuses it.
				db.txnCount, db.txnSize = 1<<40, 1<<40
			}
			if err := db.UpdateDerived(ctx, tc.u); err != nil {
				t.Fatal(err)
			}
			got := slices.Compact(slices.Clone(*steps))
			if !slices.Equal(got, tc.wantStep) {
				t.Errorf("steps %v, want %v", got, tc.wantStep)
			}
			if (db.dgen != gen) != tc.newGen {
				t.Errorf("derived generation %d -> %d", gen, db.dgen)
			}
			if _, err := db.Verify(ctx); err != nil {
				t.Fatal(err)
			}
			want := dumpDerived(t, db)
			wantRels, _ := db.Relations()
			wantMat, _ := db.Materialised()
			db.Close()
			db = mustOpen(t, dir)
			gotRels, _ := db.Relations()
			gotMat, _ := db.Materialised()
			if !slices.Equal(dumpDerived(t, db), want) || !reflect.DeepEqual(gotRels, wantRels) || !reflect.DeepEqual(gotMat, wantMat) {
				t.Error("the reopened store differs")
			}
			if string(gotMat.Program) != string(tc.u.Program) {
				t.Errorf("record of %d bytes, want %d", len(gotMat.Program), len(tc.u.Program))
			}
		})
	}
	db.Close()
	// Only the current generation, rule table, record and log are left.
	gens := map[byte]map[string]bool{}
	for k := range rawDumpDir(t, dir) {
		switch k[0] {
		case tagDerived, tagDCount, tagDRule, tagRecord, tagLog:
			if gens[k[0]] == nil {
				gens[k[0]] = map[string]bool{}
			}
			gens[k[0]][k[1:9]] = true
		}
	}
	for tag, g := range gens {
		if len(g) != 1 {
			t.Errorf("keys %c of %d generations or ids", tag, len(g))
		}
	}
}

func TestUpdateDerivedReadOnly(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	db.Close()
	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.UpdateDerived(context.Background(), DerivedUpdate{Program: []byte("p")}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("UpdateDerived on a read-only store: %v, want ErrReadOnly", err)
	}
	if ms, err := ro.Materialised(); err != nil || ms.Program != nil {
		t.Errorf("Materialised on a read-only store: %+v, %v", ms, err)
	}
}

// A reader whose cached rule table is shorter than the values it reads
// (a reader of an older snapshot cached it after an update appended to
// it) reads the table again.
func TestRuleTableStaleCache(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	ctx := context.Background()
	if err := db.ReplaceDerived(ctx, derivedFactsOf(3, 0, 10, "r")); err != nil {
		t.Fatal(err)
	}
	for _, err := range db.ScanDerived(3) { // caches the table
		if err != nil {
			t.Fatal(err)
		}
	}
	u := DerivedUpdate{Put: derivedFactsOf(3, 100, 10, "new")}
	if err := db.UpdateDerived(ctx, u); err != nil {
		t.Fatal(err)
	}
	db.rmu.Lock()
	if len(db.rules.names) != 6 {
		t.Errorf("cached rule table %v, want the 3 rules and the 3 new ones", db.rules.names)
	}
	db.rules.names = db.rules.names[:3]
	db.rmu.Unlock()
	for _, d := range u.Put {
		got, ok, err := db.GetDerived(d.Fact)
		if err != nil || !ok || got.Prov.Rule != d.Prov.Rule {
			t.Fatalf("GetDerived(%v) = %+v, %v, %v; want rule %q", d.Fact, got, ok, err, d.Prov.Rule)
		}
	}
	want := map[string]string{}
	for _, d := range u.Put {
		want[fmt.Sprint(d.Fact)] = d.Prov.Rule
	}
	for d, err := range db.ScanDerived(3) { // reads the table again
		if r, ok := want[fmt.Sprint(d.Fact)]; err != nil || ok && d.Prov.Rule != r {
			t.Fatalf("ScanDerived: %+v, %v; want rule %q", d, err, r)
		}
	}
}

// Readers that run while updates add rules to the visible generation's
// table resolve every rule (run with -race).
func TestUpdateDerivedConcurrentReaders(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	ctx := context.Background()
	if err := db.ReplaceDerivedRecord(ctx, 0, []byte("p"), func(yield func(Derived, error) bool) {
		for _, d := range derivedFactsOf(3, 0, 200, "r") {
			if !yield(d, nil) {
				return
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				for d, err := range db.ScanDerived(3) {
					if err != nil {
						errs <- err
						return
					}
					if !strings.HasPrefix(d.Prov.Rule, "r") && !strings.HasPrefix(d.Prov.Rule, "u") {
						errs <- fmt.Errorf("%v has rule %q", d.Fact, d.Prov.Rule)
						return
					}
				}
				if _, err := db.Materialised(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 40 {
		u := DerivedUpdate{Program: []byte{byte(i)}, Put: derivedFactsOf(3, 10*i, 5, fmt.Sprintf("u%d-", i))}
		if err := db.UpdateDerived(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
