package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// A load rolled back after its data was written removes its facts of any
// arity: the undo log holds keys longer than 255 bytes (arity 63 and up).
func TestRollbackLongKeys(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	defer db.Close()
	ctx := context.Background()
	if _, err := db.Load(ctx, syntheticBatch(100, "a"), nil); err != nil {
		t.Fatal(err)
	}
	before, err := db.rawDump()
	if err != nil {
		t.Fatal(err)
	}
	for _, arity := range []int{62, 63, 100, maxArity} {
		args := make([]string, arity)
		for i := range args {
			args[i] = fmt.Sprintf("a-e%d", i%7)
		}
		b := &Batch{Facts: []NamedFact{{Rel: "long", Args: args}, {Rel: "p", Args: args[:3]}}}
		cctx, cancel := context.WithCancel(ctx)
		_, err := db.Load(cctx, b, func(done, total int) {
			if done == total {
				cancel()
			}
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("arity %d: Load = %v, want context.Canceled", arity, err)
		}
		after, err := db.rawDump()
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(before, after) {
			t.Errorf("arity %d: the rolled-back load left %d keys, %d before", arity, len(after), len(before))
		}
	}
}

// A writer killed between creating a memtable or value-log file and
// sizing it leaves a file of length 0, which Badger refuses to open: Open
// removes it, and the store opens with its facts, read-write or (after the
// one read-write open that OpenReadOnly makes to recover) read-only.
func TestEmptyLogFiles(t *testing.T) {
	for _, name := range []string{"00009.mem", "000009.vlog"} {
		for _, readOnly := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/readonly=%v", name, readOnly), func(t *testing.T) {
				dir := t.TempDir()
				db := mustOpen(t, dir)
				ctx := context.Background()
				if _, err := db.Load(ctx, syntheticBatch(100, "a"), nil); err != nil {
					t.Fatal(err)
				}
				want, err := db.rawDump()
				if err != nil {
					t.Fatal(err)
				}
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
				empty := filepath.Join(dir, name)
				if err := os.WriteFile(empty, nil, 0o644); err != nil {
					t.Fatal(err)
				}
				if readOnly {
					db, err = OpenReadOnly(dir)
				} else {
					db, err = Open(dir, Options{})
				}
				if err != nil {
					t.Fatalf("open with an empty %s: %v", name, err)
				}
				defer db.Close()
				got, err := db.rawDump()
				if err != nil {
					t.Fatal(err)
				}
				if !maps.Equal(got, want) {
					t.Errorf("after the reopen: %d keys, want %d", len(got), len(want))
				}
			})
		}
	}
}
