package store

import (
	"context"
	"errors"
	"testing"
)

func TestOpenReadOnlyRollsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	db := mustOpen(t, dir)
	if _, err := db.Load(context.Background(), syntheticBatch(2000, "small"), nil); err != nil {
		t.Fatal(err)
	}
	n, err := db.NumSymbols()
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := startHelper(t, "load", dir, "HALF")
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := Open(dir, Options{ReadOnly: true}); !errors.Is(err, ErrIncomplete) {
		t.Fatalf("read-only Open after a killed load: %v, want ErrIncomplete", err)
	}
	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatalf("OpenReadOnly after a killed load: %v, want the load rolled back", err)
	}
	defer ro.Close()
	if m, err := ro.NumSymbols(); err != nil || m != n {
		t.Errorf("after the rollback: %d symbols (error %v), want the %d before the killed load", m, err, n)
	}
}
