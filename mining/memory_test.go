package mining

import (
	"context"
	"testing"

	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
)

func TestMemory(t *testing.T) {
	ctx := context.Background()
	mem := store.NewMemory()
	defer mem.Close()
	a, b := store.NamedTriple{S: "a", R: "r", O: "b"}, store.NamedTriple{S: "b", R: "r", O: "c"}
	if got := ValidTriples(mem); got != 0 {
		t.Errorf("ValidTriples of a store without a valid split = %d, want 0", got)
	}
	if _, err := mem.Load(ctx, &store.Batch{Graph: []store.NamedTriple{a, b}, Splits: map[string][]store.NamedTriple{"valid": {a, b}}}, nil); err != nil {
		t.Fatal(err)
	}
	valid := ValidTriples(mem)
	if valid != 2 {
		t.Errorf("ValidTriples = %d, want 2", valid)
	}
	snap, err := mem.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg, rs := miner.Config{MaxLen: 2}, miner.RuleStep{Apply: true}
	need := EstimateMemory(snap, valid, cfg, rs, nil)
	if want := miner.EstimateMemory(miner.ShapeOf(snap, valid), cfg, rs); need != want || need <= 0 {
		t.Errorf("EstimateMemory = %d, want miner's %d", need, want)
	}
	g, restore, err := NewGraph(mem, snap, need)
	if err != nil {
		t.Fatal(err)
	}
	restore()
	if g == nil {
		t.Error("NewGraph returned no graph")
	}
}
