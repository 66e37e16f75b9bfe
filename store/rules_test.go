package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// manyRules is n derived facts of relation rel proved by rules rules
// apart, named as name says.
func manyRules(rel ID, n, rules int, name func(i int) string) []Derived {
	ds := make([]Derived, n)
	for i := range ds {
		ds[i] = Derived{Fact: Fact{Rel: rel, Args: []ID{ID(i), ID(i % 5)}}, Confidence: float32(i%4+1) / 4,
			Prov: Provenance{Rule: name(i % rules), Body: []Fact{{Rel: rel, Args: []ID{ID(i)}}}}}
	}
	return ds
}

// movedName is the reference of rule i after a line moved: long, as a
// mined rule's text.
func movedName(i int) string { return fmt.Sprintf("f\t%d\t1\t0.5\t%s", i+1, strings.Repeat("x", 200)) }

// renameAll renames the rules of manyRules(name) to those of to.
func renameAll(rules int, from, to func(i int) string) map[string]string {
	r := make(map[string]string, rules)
	for i := range rules {
		r[from(i)] = to(i)
	}
	return r
}

// storeDerived renders every derived fact of st with its rule.
func storeDerived(t *testing.T, st Store) []string {
	t.Helper()
	var out []string
	rels, err := st.Relations()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rels {
		for d, err := range st.ScanDerived(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(d))
		}
	}
	return out
}

// keyIDs lists the generations or ids (the 8 bytes after the tag) of the
// keys with tag in the store in dir (closed): with tagDRule, the rule
// tables that have entries; with tagDerived, the derived generations and
// layers that have facts.
func keyIDs(t *testing.T, dir string, tag byte) []uint64 {
	t.Helper()
	var ids []uint64
	for k := range rawDumpDir(t, dir) {
		if k[0] == tag {
			ids = append(ids, binary.BigEndian.Uint64([]byte(k[1:9])))
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// An update whose renames take more than one transaction holds (a line
// removed near the top of a mined file) stays in place: the renamed rule
// table is written under an id of its own, and the update's transaction
// switches to it; no derived fact is copied. The store says what the
// in-memory store does, verifies, and keeps one rule table after Open.
func TestUpdateRenamesInPlace(t *testing.T) {
	const rules = 500
	ctx := context.Background()
	dir := t.TempDir()
	db := mustOpen(t, dir)
	mem := NewMemory()
	old := func(i int) string { return fmt.Sprintf("f\t%d\t1\t0.5\t%s", i+2, strings.Repeat("x", 200)) }
	for _, st := range []Store{db, mem} {
		if _, err := st.Load(ctx, syntheticBatch(100, "a"), nil); err != nil {
			t.Fatal(err)
		}
		if err := st.ReplaceDerived(ctx, manyRules(3, 3000, rules, old)); err != nil {
			t.Fatal(err)
		}
	}
	// The renames alone (500 entries, 113 KB) exceed the transaction.
	db.txnSize = 64 << 10
	gen, format := db.dgen, db.format
	steps := recordSteps(t)
	updates := []DerivedUpdate{
		{Program: []byte("p1"), Renames: renameAll(rules, old, movedName),
			Put: manyRules(3, 10, 3, func(i int) string { return movedName(i + 7) }), Delete: []Fact{{Rel: 3, Args: []ID{20, 0}}}},
		// Back, and a new rule.
		{Program: []byte("p2"), Renames: renameAll(rules, movedName, old),
			Put: manyRules(4, 5, 1, func(int) string { return "new rule" })},
		// Few renames: in the transaction, on the switched table.
		{Program: []byte("p3"), Renames: map[string]string{old(1): "one", old(2): "two"}},
	}
	wantSteps := [][]string{
		{"update:rules", "update:txn", "update:committed", "update:done"},
		{"update:rules", "update:txn", "update:committed", "update:done"},
		{"update:txn", "update:committed", "update:done"},
	}
	for i, u := range updates {
		*steps = nil
		if err := db.UpdateDerived(ctx, u); err != nil {
			t.Fatal(err)
		}
		if err := mem.UpdateDerived(ctx, u); err != nil {
			t.Fatal(err)
		}
		if got := slices.Compact(slices.Clone(*steps)); !slices.Equal(got, wantSteps[i]) {
			t.Errorf("update %d: steps %v, want %v", i, got, wantSteps[i])
		}
		if db.dgen != gen {
			t.Fatalf("update %d: derived generation %d -> %d: the facts were copied", i, gen, db.dgen)
		}
		if got, want := storeDerived(t, db), storeDerived(t, mem); !slices.Equal(got, want) {
			t.Fatalf("update %d: the store has %d derived facts, the in-memory store %d; first %q, want %q", i, len(got), len(want), got[:1], want[:1])
		}
		if _, err := db.Verify(ctx); err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
	}
	if db.format != formatRuleTables || format >= formatRuleTables {
		t.Errorf("format %d -> %d, want %d", format, db.format, formatRuleTables)
	}
	want := storeDerived(t, mem)
	table := db.rtable
	db.Close()
	if got := keyIDs(t, dir, tagDRule); !slices.Equal(got, []uint64{table}) || table == gen {
		t.Errorf("rule tables %v after the updates, want only %d (not the generation %d)", got, table, gen)
	}
	db = mustOpen(t, dir)
	if got := storeDerived(t, db); !slices.Equal(got, want) {
		t.Fatal("the reopened store differs")
	}
	if db.format != formatRuleTables {
		t.Errorf("format %d on disk, want %d", db.format, formatRuleTables)
	}
	d, ok, err := db.GetDerived(Fact{Rel: 3, Args: []ID{15, 0}})
	if err != nil || !ok || d.Prov.Rule != old(15) {
		t.Errorf("GetDerived = %+v, %v, %v; want rule %q", d, ok, err, old(15))
	}
	// A full write gives the new generation its own table again.
	if err := db.ReplaceDerived(ctx, manyRules(3, 10, 2, old)); err != nil {
		t.Fatal(err)
	}
	gen = db.dgen
	if _, err := db.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if got := keyIDs(t, dir, tagDRule); !slices.Equal(got, []uint64{gen}) {
		t.Errorf("rule tables %v after a full write, want only %d", got, gen)
	}
	db = mustOpen(t, dir)
	defer db.Close()
	if got := storeDerived(t, db); len(got) != 10 || !strings.Contains(got[1], old(1)) {
		t.Errorf("after a full write: %q", got)
	}
}

// A read view taken before an update that switches rule tables reads the
// names of its version (the old table stays until it closes); the store
// reads the new ones.
func TestReadViewKeepsRenamedTable(t *testing.T) {
	const rules = 300
	ctx := context.Background()
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	old := func(i int) string { return fmt.Sprintf("f\t%d\t1\t0.5\t%s", i+2, strings.Repeat("y", 200)) }
	if _, err := db.Load(ctx, syntheticBatch(100, "a"), nil); err != nil {
		t.Fatal(err)
	}
	if err := db.ReplaceDerived(ctx, manyRules(3, 1000, rules, old)); err != nil {
		t.Fatal(err)
	}
	db.txnSize = 32 << 10
	before := storeDerived(t, db)
	view, err := db.ReadView()
	if err != nil {
		t.Fatal(err)
	}
	oldTable := db.rtable
	if err := db.UpdateDerived(ctx, DerivedUpdate{Renames: renameAll(rules, old, movedName)}); err != nil {
		t.Fatal(err)
	}
	if db.rtable == oldTable {
		t.Fatal("the update did not switch rule tables")
	}
	if got := storeDerived(t, view); !slices.Equal(got, before) {
		t.Fatalf("the view reads %d facts, first %q; want its version's %q", len(got), got[:min(1, len(got))], before[:1])
	}
	d, ok, err := view.GetDerived(Fact{Rel: 3, Args: []ID{7, 2}})
	if err != nil || !ok || d.Prov.Rule != old(7) {
		t.Errorf("the view's GetDerived = %+v, %v, %v; want rule %q", d, ok, err, old(7))
	}
	d, ok, err = db.GetDerived(Fact{Rel: 3, Args: []ID{7, 2}})
	if err != nil || !ok || d.Prov.Rule != movedName(7) {
		t.Errorf("GetDerived = %+v, %v, %v; want rule %q", d, ok, err, movedName(7))
	}
	if err := view.Close(); err != nil {
		t.Fatal(err)
	}
	// The old table goes once the view is closed (in the background).
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := 0
		db.view(func(txn *badger.Txn) error {
			n = countPrefix(txn, tablePrefix(oldTable))
			return nil
		})
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d entries of the replaced rule table left after the view closed", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// countPrefix counts the keys under prefix that txn sees.
func countPrefix(txn *badger.Txn, prefix []byte) int {
	n := 0
	scanPrefix(txn, prefix, nil, false, func([]byte, []byte) (bool, error) {
		n++
		return true, nil
	})
	return n
}

// Verify reads the derived facts through the rule table mrules names: one
// that names a table without the entries is corrupt, as is one that names
// another generation.
func TestVerifyRuleTableSwitch(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	old := func(i int) string { return fmt.Sprintf("r%d %s", i, strings.Repeat("z", 300)) }
	if _, err := db.Load(ctx, syntheticBatch(100, "a"), nil); err != nil {
		t.Fatal(err)
	}
	if err := db.ReplaceDerived(ctx, manyRules(3, 500, 100, old)); err != nil {
		t.Fatal(err)
	}
	db.txnSize = 16 << 10
	if err := db.UpdateDerived(ctx, DerivedUpdate{Renames: renameAll(100, old, movedName)}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	for _, v := range [][]byte{rulesValue(db.dgen, db.dnext+100), rulesValue(db.dgen+1, db.rtable)} {
		if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Set(metaRules, v) }); err != nil {
			t.Fatal(err)
		}
		db.rmu.Lock()
		db.rules.ok = false
		db.rmu.Unlock()
		if _, err := db.Verify(ctx); err == nil {
			t.Errorf("Verify with mrules %x: no error", v)
		}
	}
}

// A reader whose transaction began before an update renamed entries in
// place reads its own version of the table, and does not leave its names
// in the cache for the readers after the update.
func TestRuleTableOldReader(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	if _, err := db.Load(ctx, syntheticBatch(100, "a"), nil); err != nil {
		t.Fatal(err)
	}
	if err := db.ReplaceDerived(ctx, derivedFactsOf(3, 0, 30, "r")); err != nil {
		t.Fatal(err)
	}
	old := db.bdb.NewTransaction(false)
	defer old.Discard()
	if err := db.UpdateDerived(ctx, DerivedUpdate{Renames: map[string]string{"r0": "s0"}}); err != nil {
		t.Fatal(err)
	}
	names, err := db.ruleTable(old, db.rtable, false)
	if err != nil || !slices.Contains(names, "r0") {
		t.Fatalf("the old reader's table %q, %v; want r0 in it", names, err)
	}
	f := Fact{Rel: 3, Args: []ID{0, 0}}
	if d, ok, err := db.GetDerived(f); err != nil || !ok || d.Prov.Rule != "s0" {
		t.Errorf("GetDerived after the old reader = %+v, %v, %v; want rule s0", d, ok, err)
	}
	for d, err := range db.ScanDerived(3) {
		if err != nil || strings.HasPrefix(d.Prov.Rule, "r0") {
			t.Fatalf("ScanDerived after the old reader: %+v, %v", d, err)
		}
	}
}

// An update that fails after writing its renamed rule table (cancelled
// there) leaves the store as it was, without the new table.
func TestRenamedTableFailure(t *testing.T) {
	const rules = 200
	dir := t.TempDir()
	db := mustOpen(t, dir)
	ctx := context.Background()
	old := func(i int) string { return fmt.Sprintf("r%d %s", i, strings.Repeat("w", 300)) }
	if _, err := db.Load(ctx, syntheticBatch(100, "a"), nil); err != nil {
		t.Fatal(err)
	}
	if err := db.ReplaceDerived(ctx, manyRules(3, 1000, rules, old)); err != nil {
		t.Fatal(err)
	}
	before, table := storeDerived(t, db), db.rtable
	db.txnSize = 32 << 10
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stepHook = func(s string) {
		if s == "update:rules" {
			cancel()
		}
	}
	t.Cleanup(func() { stepHook = nil })
	err := db.UpdateDerived(cctx, DerivedUpdate{Program: []byte("p"), Renames: renameAll(rules, old, movedName), Put: manyRules(3, 5, 1, old)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("UpdateDerived cancelled after its rule table: %v", err)
	}
	if got := storeDerived(t, db); !slices.Equal(got, before) || db.rtable != table {
		t.Error("the failed update changed the store")
	}
	var tables []uint64
	db.view(func(txn *badger.Txn) error {
		_, err := scanPrefix(txn, []byte{tagDRule}, nil, false, func(k, _ []byte) (bool, error) {
			if id := binary.BigEndian.Uint64(k[1:9]); !slices.Contains(tables, id) {
				tables = append(tables, id)
			}
			return true, nil
		})
		return err
	})
	db.Close()
	if !slices.Equal(tables, []uint64{table}) {
		t.Errorf("rule tables %v after the failed update, want only %d", tables, table)
	}
}
