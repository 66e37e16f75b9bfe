package miner

import (
	"context"
	"strings"
	"testing"

	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/store/storetest"
)

// layoutSource serves a store's snapshot with every adjacency in one
// layout: hypersparse (compact) or dense.
type layoutSource struct {
	GraphSource
	compact bool
}

func (s layoutSource) Snapshot(ctx context.Context) (*store.Snapshot, error) {
	snap, err := s.GraphSource.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	if s.compact {
		return storetest.Hypersparse(snap), nil
	}
	out := *snap
	out.Out, out.In = make([]store.CSR, len(snap.Out)), make([]store.CSR, len(snap.In))
	for r := range snap.Out {
		out.Out[r], out.In[r] = snap.Out[r].Expand(len(snap.Entities)), snap.In[r].Expand(len(snap.Entities))
	}
	return &out, nil
}

// TestLayoutsMineIdentically trains and extracts rules (chain rules with
// their support counts, rules with constants, hubs capped or not) from the
// same graph stored in each layout, and requires the same bytes: the layout
// is a memory choice, never a result.
func TestLayoutsMineIdentically(t *testing.T) {
	st := datasetStore(t, "../examples/umls").(GraphSource)
	ctx := context.Background()
	for _, fan := range []int{-1, 8} {
		var outs [2]string
		var hyper [2]int
		for i, compact := range []bool{false, true} {
			src := layoutSource{st, compact}
			g, err := LoadGraph(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			for r := range g.fwd {
				if g.fwd[r].RowIDs != nil && g.bwd[r].RowIDs != nil {
					hyper[i]++
				}
			}
			cfg := Config{MaxLen: 2, Rank: 2, MaxEpochs: 2, MinEpochs: 2, Hidden: 8, Embed: 8, MaxFanOut: fan}
			outs[i] = mineBytes(t, src, g, cfg, true)
		}
		if hyper[0] != 0 || hyper[1] == 0 {
			t.Fatalf("fan %d: hypersparse relations %v, want none then all", fan, hyper)
		}
		if outs[0] != outs[1] {
			t.Errorf("fan %d: the hypersparse layout mines differently from the dense one", fan)
		}
		if !strings.Contains(outs[0], ":-") {
			t.Fatalf("fan %d: no rules were mined; the comparison proves nothing", fan)
		}
	}
}
