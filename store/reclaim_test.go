//go:build unix

package store

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// Replacing many derived facts by a few gives the space back: the old
// generation's tables are dropped, not buried under deletion markers
// (issue 31: 183 MB grew to 268 MB when 4M derived facts were replaced by
// 16k).
func TestReplaceDerivedReclaims(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db := mustOpen(t, dir)
	if _, err := db.Load(ctx, syntheticBatch(2000, "a"), nil); err != nil {
		t.Fatal(err)
	}
	base := allocated(t, dir)
	if err := db.ReplaceDerived(ctx, derivedFacts(300000)); err != nil {
		t.Fatal(err)
	}
	big := allocated(t, dir) - base
	if err := db.ReplaceDerived(ctx, derivedFacts(1000)); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	after := allocated(t, dir) - base
	t.Logf("300000 derived facts took %s; after replacing them by 1000: %s", mib(big), mib(after))
	if after > big/10 {
		t.Errorf("after replacing 300000 derived facts by 1000 the store takes %s more than before them (%s with them): the old ones were not reclaimed", mib(after), mib(big))
	}
}

// allocated is the space the files of dir take on disk.
func allocated(t *testing.T, dir string) int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range ents {
		var st syscall.Stat_t
		if err := syscall.Stat(filepath.Join(dir, e.Name()), &st); err == nil {
			n += st.Blocks * 512
		}
	}
	return n
}

// derivedFacts returns n distinct derived facts with a two-fact proof.
func derivedFacts(n int) []Derived {
	ds := make([]Derived, n)
	for i := range ds {
		ds[i] = Derived{
			Fact:       Fact{Rel: 7, Args: []ID{ID(i), ID(i % 997)}},
			Confidence: 0.5,
			Prov:       Provenance{Rule: "r(X, Y) :- b(X, Z), c(Z, Y).", Body: []Fact{{Rel: 3, Args: []ID{ID(i), 40000}}, {Rel: 4, Args: []ID{40000, ID(i % 997)}}}},
		}
	}
	return ds
}

// DiskUsage counts the store's own files, not a stranger's file beside
// them (the quick start's marker), and never more reclaimable than used.
func TestDiskUsage(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	defer db.Close()
	if _, err := db.Load(context.Background(), syntheticBatch(2000, "a"), nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".created-by-quickstart"), make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := db.DiskUsage()
	if err != nil {
		t.Fatal(err)
	}
	all := allocated(t, dir)
	if u.Bytes <= 0 || u.Bytes > all-(1<<20) || u.Reclaimable < 0 || u.Reclaimable > u.Bytes {
		t.Errorf("DiskUsage = %+v; the directory takes %d bytes, 1 MiB of them a marker file", u, all)
	}
}

// A load killed halfway gives its space back when the next Open rolls it
// back: the store takes about what it took before the load, and holds
// exactly what it held (issue 31, item 8: a killed load's 50 MiB grew to
// 130 MiB with its rollback's deletion markers, and stayed until Badger's
// compactions reached them). The load is a chain, whose keys the rollback
// deletes in key order, with a small memtable: the first deletion markers
// reach the last level while the rollback still runs, in tables that
// no later write of the rollback overlaps (one compaction after the
// rollback left 8.5 MiB here, where the store took 2.3 MiB before).
func TestKilledLoadReclaims(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	ctx := context.Background()
	db := mustOpen(t, dir)
	if _, err := db.Load(ctx, syntheticBatch(20000, "small"), nil); err != nil {
		t.Fatal(err)
	}
	if err := db.ReplaceDerived(ctx, derivedFacts(20000)); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	want := rawDumpDir(t, dir)
	before := allocated(t, dir)
	bound := max(1<<20, before/10)

	t.Setenv(helperLoadEnv, "400000")
	cmd := startHelper(t, "load", dir, "HALF")
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
	killed := allocated(t, dir)
	if killed-before <= bound {
		t.Fatalf("the killed load took %s, not more than the %s the test allows after its rollback: it tests nothing", mib(killed-before), mib(bound))
	}

	db, err := Open(dir, Options{MemTableSize: chainMemTable}) // rolls the load back
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	after := allocated(t, dir)
	t.Logf("before the load: %s; killed: %s; rolled back: %s", mib(before), mib(killed), mib(after))
	if after-before > bound {
		t.Errorf("after the rollback the store takes %s, %s more than before the killed load (at most %s allowed)", mib(after), mib(after-before), mib(bound))
	}
	if got := rawDumpDir(t, dir); !maps.Equal(got, want) {
		t.Errorf("after the rollback the store holds %d keys, not the %d it held before the load", len(got), len(want))
	}
}

// A load and a retraction drop their undo log whole once committed: no
// version of it, value or deletion marker, is left (a load of 1.5M facts
// left 20 MiB of it, 173 MiB where 153 MiB do).
func TestUndoLogDropped(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	b := chainBatch(200000)
	if _, err := db.Load(ctx, b, nil); err != nil {
		t.Fatal(err)
	}
	undoVersions(t, db, "load")
	if _, err := db.Retract(ctx, &Batch{Graph: b.Graph[:100000]}); err != nil {
		t.Fatal(err)
	}
	undoVersions(t, db, "retraction")
}

// undoVersions fails the test if db holds a version of an undo log key
// after the write what.
func undoVersions(t *testing.T, db *DB, what string) {
	t.Helper()
	var n, size int64
	err := db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{AllVersions: true, Prefix: []byte{tagUndo}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
			size += int64(len(it.Item().Key())) + it.Item().ValueSize()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		t.Errorf("after the %s the store holds %d versions of undo log keys (%s)", what, n, mib(size))
	}
}
