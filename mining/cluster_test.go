package mining

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
)

func TestSnapshotData(t *testing.T) {
	ctx := context.Background()
	mem := store.NewMemory()
	defer mem.Close()
	b := &store.Batch{Graph: []store.NamedTriple{{S: "a", R: "r", O: "b"}, {S: "b", R: "s", O: "c"}}}
	if _, err := mem.Load(ctx, b, nil); err != nil {
		t.Fatal(err)
	}
	data, err := SnapshotData(ctx, mem, "")
	if err != nil {
		t.Fatal(err)
	}
	f, err := miner.ReadSnapshot(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("the snapshot written does not read back: %v", err)
	}
	if snap, err := f.Snapshot(ctx); err != nil || len(snap.Entities) != 3 {
		t.Errorf("snapshot read back: %v entities, error %v; want 3", snap, err)
	}
	file := filepath.Join(t.TempDir(), "g.snap")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// From a file, the file's bytes, whatever the source.
	got, err := SnapshotData(ctx, nil, file)
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("SnapshotData of the file: %d bytes, error %v; want the file's %d", len(got), err, len(data))
	}
}
