//go:build linux

package store

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"testing"

	"github.com/drumql/drumql/internal/tmpfs"
)

// An update that goes to a layer writes the old layer's entries again: on
// a file system with room for the update's own facts but not for those,
// it is refused with ErrNoSpace before it writes, and the store stays as
// it was.
func TestFullDiskLayer(t *testing.T) {
	mnt := tmpfs.Mount(t, 128<<20)
	dir := filepath.Join(mnt, "db")
	ctx := context.Background()
	db := mustOpen(t, dir)
	if _, err := db.Load(ctx, syntheticBatch(300, "a"), nil); err != nil {
		t.Fatal(err)
	}
	if err := db.ReplaceDerived(ctx, derivedFactsOf(3, 0, 170000, "old")); err != nil {
		t.Fatal(err)
	}
	db.txnCount = 100
	if err := db.UpdateDerived(ctx, DerivedUpdate{Program: []byte("p1"), Put: derivedFactsOf(3, 200000, 40000, "l1")}); err != nil {
		t.Fatal(err)
	}
	if db.layer.n != 40000 {
		t.Fatalf("layer %+v, want 40,000 entries", db.layer)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before := readOnlyDump(t, dir)

	// 1 MiB free past the margin: the 500 facts' three copies fit, the
	// old layer's 40,000 entries do not.
	fillTo(t, mnt, minFreeSpace+1<<20)
	db = mustOpen(t, dir)
	db.txnCount = 100
	u := DerivedUpdate{Program: []byte("p2"), Put: derivedFactsOf(3, 300000, 500, "l2")}
	if !db.layerFits(len(u.Put)) {
		t.Fatal("the update would not go to a layer")
	}
	if err := db.UpdateDerived(ctx, u); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("a layered update on a nearly full disk: got %v, want ErrNoSpace", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if after := readOnlyDump(t, dir); !maps.Equal(before, after) {
		t.Error("the refused update changed the store")
	}
}
