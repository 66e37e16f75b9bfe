package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
