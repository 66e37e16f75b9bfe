package miner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteSnapshotFile: the file holds WriteSnapshot's bytes, the steps
// come in order, a file that cannot be created is a SnapshotFileError,
// and a failed write leaves the target as it was.
func TestWriteSnapshotFile(t *testing.T) {
	st := memStore(t, tinySplits())
	want := snapshotBytes(t, st.(GraphSource))
	path := filepath.Join(t.TempDir(), "g.snap")
	var steps []string
	n, err := WriteSnapshotFile(context.Background(), path, st.(GraphSource), func(s string) { steps = append(steps, s) })
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want) || n != int64(len(want)) {
		t.Errorf("wrote %d bytes (reported %d), want the %d of WriteSnapshot", len(got), n, len(want))
	}
	last := len(steps) - 1
	if last < 2 || steps[0] != StepWriting || steps[last-1] != StepWritten || steps[last] != StepRenamed {
		t.Errorf("steps %v, want %s..., %s, %s", steps, StepWriting, StepWritten, StepRenamed)
	}
	if _, err := WriteSnapshotFile(context.Background(), filepath.Join(t.TempDir(), "no", "g.snap"), st.(GraphSource), nil); !errors.As(err, new(*SnapshotFileError)) {
		t.Errorf("missing directory: %v, want a *SnapshotFileError", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = WriteSnapshotFile(ctx, path, st.(GraphSource), nil)
	if err == nil || errors.As(err, new(*SnapshotFileError)) {
		t.Errorf("cancelled: %v, want the snapshot's error", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Error("a failed write changed the target")
	}
}
