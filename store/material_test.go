package store

import (
	"context"
	"encoding/binary"
	"errors"
	"maps"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// formatOf reads the format version of the closed store in dir.
func formatOf(t *testing.T, dir string) uint32 {
	t.Helper()
	v := rawDumpDir(t, dir)[string(metaFormat)]
	if len(v) != 4 {
		t.Fatalf("format value %x", v)
	}
	return binary.BigEndian.Uint32([]byte(v))
}

// The record and change log survive a reopen, and only a record raises
// the format to 3: a store that never had one stays readable by builds
// that read format 2.
func TestRecordPersistsAndRaisesFormat(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db := mustOpen(t, dir)
	if _, err := db.Load(ctx, syntheticBatch(200, "a"), nil); err != nil {
		t.Fatal(err)
	}
	ds := []Derived{{Fact: Fact{Rel: 2, Args: []ID{1, 2}}, Confidence: 0.5, Prov: Provenance{Rule: "r"}}}
	if err := db.ReplaceDerived(ctx, ds); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if f := formatOf(t, dir); f != 2 {
		t.Fatalf("format %d after loads and a derived write, want 2", f)
	}
	if _, ok := rawDumpDir(t, dir)[string(metaMat)]; ok {
		t.Error("a store without a record has a material state key")
	}
	db = mustOpen(t, dir)
	if err := db.ReplaceDerivedRecord(ctx, 0, []byte("program"), func(yield func(Derived, error) bool) { yield(ds[0], nil) }); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Load(ctx, syntheticBatch(20, "b"), nil); err != nil {
		t.Fatal(err)
	}
	want, err := db.Materialised()
	if err != nil || len(want.Changes) == 0 {
		t.Fatalf("Materialised = %+v, %v", want, err)
	}
	db.Close()
	if f := formatOf(t, dir); f != 3 {
		t.Fatalf("format %d after a record, want 3", f)
	}
	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ro.Materialised()
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("after reopening, Materialised = %+v, %v; want %+v", got, err, want)
	}
	if err := ro.ReplaceDerivedRecord(ctx, 0, []byte("x"), func(func(Derived, error) bool) {}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("ReplaceDerivedRecord on a read-only store: %v, want ErrReadOnly", err)
	}
	ro.Close()
	// Without a record again, the store keeps format 3.
	db = mustOpen(t, dir)
	if err := db.ClearDerived(); err != nil {
		t.Fatal(err)
	}
	if ms, err := db.Materialised(); err != nil || ms.Program != nil || ms.Changes != nil {
		t.Errorf("after ClearDerived, Materialised = %+v, %v", ms, err)
	}
	db.Close()
	if f := formatOf(t, dir); f != 3 {
		t.Fatalf("format %d, want 3 still", f)
	}
	for k := range rawDumpDir(t, dir) {
		if k[0] == tagRecord || k[0] == tagLog {
			t.Errorf("key %x of the dropped record or log survived", k)
		}
	}
}

// Records and logs other than the current ones, and the current log once
// it overflowed, are garbage that Open removes.
func TestMaterialGarbage(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db := mustOpen(t, dir)
	if _, err := db.Load(ctx, syntheticBatch(100, "a"), nil); err != nil {
		t.Fatal(err)
	}
	if err := db.ReplaceDerivedRecord(ctx, 0, []byte("p"), func(func(Derived, error) bool) {}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Load(ctx, syntheticBatch(10, "b"), nil); err != nil {
		t.Fatal(err)
	}
	id := db.mat.ID
	want, _ := db.rawDump()
	wantMat, _ := db.Materialised()
	db.Close()
	bdb := openRaw(t, dir)
	bdb.Update(func(txn *badger.Txn) error {
		txn.Set(recordKey(id+1, 0), []byte("leftover"))
		txn.Set(recordKey(id-1, 3), []byte("leftover"))
		txn.Set(logKey(nil, id+1, Fact{Rel: 1}), []byte{logAdded})
		return txn.Set(logKey(nil, id-1, Fact{Rel: 1}), []byte{logAdded})
	})
	bdb.Close()
	if got := rawDumpDir(t, dir); !maps.Equal(got, want) {
		t.Errorf("garbage survived Open: %d keys, want %d", len(got), len(want))
	}
	db = mustOpen(t, dir)
	if got, err := db.Materialised(); err != nil || !reflect.DeepEqual(got, wantMat) {
		t.Errorf("Materialised = %+v, %v; want %+v", got, err, wantMat)
	}
	db.Close()
	// An overflowed log whose entries were not dropped yet.
	bdb = openRaw(t, dir)
	bdb.Update(func(txn *badger.Txn) error {
		return txn.Set(metaMat, matState{ID: id, Last: id, RecLen: 1, Overflow: true}.encode())
	})
	bdb.Close()
	for k := range rawDumpDir(t, dir) {
		if k[0] == tagLog {
			t.Errorf("log key %x of an overflowed log survived Open", k)
		}
	}
	db = mustOpen(t, dir)
	defer db.Close()
	if got, err := db.Materialised(); err != nil || string(got.Program) != "p" || !got.Overflow || got.Changes != nil {
		t.Errorf("Materialised = %+v, %v; want the record, overflowed", got, err)
	}
}

// A retraction raises the format to 3 (a format 2 build would roll its
// undo log back the wrong way), counts as a generation, and persists; a
// read-only store refuses it.
func TestRetractPersists(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db := mustOpen(t, dir)
	b := syntheticBatch(500, "a")
	if _, err := db.Load(ctx, b, nil); err != nil {
		t.Fatal(err)
	}
	gen, _ := db.Generation()
	st, err := db.Retract(ctx, &Batch{Graph: b.Graph[:100], Facts: b.Facts[:2]})
	if err != nil || st.Removed == 0 {
		t.Fatalf("Retract = %+v, %v", st, err)
	}
	if g, _ := db.Generation(); g != gen+1 {
		t.Errorf("Generation %d after a retraction, want %d", g, gen+1)
	}
	want, _ := db.rawDump()
	wantRels, _ := db.Relations()
	if _, err := db.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if f := formatOf(t, dir); f != 3 {
		t.Errorf("format %d after a retraction, want 3", f)
	}
	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	got, _ := ro.rawDump()
	gotRels, _ := ro.Relations()
	if !maps.Equal(got, want) || !reflect.DeepEqual(gotRels, wantRels) {
		t.Error("reopened store differs")
	}
	if _, err := ro.Retract(ctx, &Batch{Graph: b.Graph[100:200]}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Retract on a read-only store: %v, want ErrReadOnly", err)
	}
}

// Verify reports the record and the change log, and finds them damaged.
func TestVerifyMaterial(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db := mustOpen(t, dir)
	b := syntheticBatch(300, "a")
	if _, err := db.Load(ctx, b, nil); err != nil {
		t.Fatal(err)
	}
	ds := derivedFactsOf(3, 0, 50, "r")
	program := make([]byte, recordPart+10)
	if err := db.ReplaceDerivedRecord(ctx, 0, program, func(yield func(Derived, error) bool) {
		for _, d := range ds {
			if !yield(d, nil) {
				return
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Load(ctx, syntheticBatch(20, "b"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Retract(ctx, &Batch{Graph: b.Graph[:5]}); err != nil {
		t.Fatal(err)
	}
	ms, _ := db.Materialised()
	st, err := db.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !st.HasRecord || st.RecordBytes != len(program) || st.Changes != len(ms.Changes) || st.Changes == 0 || st.ChangeLogOverflow {
		t.Errorf("VerifyStats %+v, want a record of %d bytes and %d changes", st, len(program), len(ms.Changes))
	}
	id := db.mat.ID
	var added, removed Fact
	for _, c := range ms.Changes {
		if c.Added {
			added = c.Fact
		} else {
			removed = c.Fact
		}
	}
	db.Close()
	for _, tc := range []struct {
		name, want string
		damage     func(txn *badger.Txn) error
	}{
		{"record part missing", "the record has", func(txn *badger.Txn) error { return txn.Delete(recordKey(id, 1)) }},
		{"record part too long", "the record has", func(txn *badger.Txn) error { return txn.Set(recordKey(id, 1), make([]byte, 11)) }},
		{"log entry of an absent fact logged as added", "was added, the base facts do not hold it", func(txn *badger.Txn) error { return txn.Delete(factKey(nil, added)) }},
		{"log entry of a present fact logged as removed", "was removed, the base facts hold it", func(txn *badger.Txn) error {
			v, err := getValue(txn, countKey(removed.Rel, 2))
			if err != nil {
				return err
			}
			n, _ := getU64(v)
			txn.Set(revKey(nil, removed.Rel, removed.Args[1], removed.Args[0]), nil)
			txn.Set(countKey(removed.Rel, 2), u64(n+1))
			return txn.Set(factKey(nil, removed), nil)
		}},
		{"log entry missing", "the change log has", func(txn *badger.Txn) error { return txn.Delete(logKey(nil, id, added)) }},
		{"log entry value", "has value 02", func(txn *badger.Txn) error { return txn.Set(logKey(nil, id, added), []byte{2}) }},
		{"derived counter", "the derived counter says", func(txn *badger.Txn) error { return txn.Set(dcountKey(db.dgen, 3, 2), u64(49)) }},
		{"derived fact without a counter", "derived facts without a counter", func(txn *badger.Txn) error {
			return txn.Set(derivedKey(nil, db.dgen, Fact{Rel: 4, Args: []ID{1}}), encodeDerivedValue(nil, 1, Provenance{}))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp := t.TempDir()
			if err := os.CopyFS(cp, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			bdb := openRaw(t, cp)
			if err := bdb.Update(tc.damage); err != nil {
				t.Fatal(err)
			}
			bdb.Close()
			db, err := Open(cp, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Verify(ctx); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Verify = %v, want ErrCorrupt saying %q", err, tc.want)
			}
		})
	}
}
