package miner

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// TestCapHubs: with hubs capped, the engine's loss matches the dense
// reference that drops the hubs' operator inputs, on every kernel path and
// with the last-step shortcut; its gradient matches finite differences; and
// a graph without hubs is left as it is.
func TestCapHubs(t *testing.T) {
	st := memStore(t, tinySplits())
	g, err := LoadGraph(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if g.capHubs(100) != g || g.capHubs(-1) != g {
		t.Error("capHubs copied a graph without hubs")
	}
	if g.capHubs(2) != g {
		t.Error("cap 2 copied the tiny graph, whose largest fan-out is 2")
	}
	changed := 0
	for _, H := range []int{1} {
		cg := g.capHubs(H)
		if cg == g || cg.capped == 0 {
			t.Fatalf("cap %d: nothing capped on the tiny graph", H)
		}
		// Entries removed, by brute force over the exact matrices: an entry
		// (h, t) of r leaves operator r when t has more than H heads, and
		// operator inv_r when h has more than H tails.
		want := 0
		for r := range g.fwd {
			f, b := g.fwd[r], g.bwd[r]
			for h := range f.Rows {
				for _, tl := range f.Row(int32(h)) {
					if int(b.Degree(int32(tl))) > H {
						want++
					}
					if int(f.Degree(int32(h))) > H {
						want++
					}
				}
			}
		}
		if cg.capped != want {
			t.Errorf("cap %d: %d operator entries removed, want %d", H, cg.capped, want)
		}
		for _, T := range []int{1, 2, 3} {
			for _, mode := range []int{0, 1, 2, 3, 4} {
				cfg := Config{MaxLen: T, Rank: 2, Hidden: 3, Embed: 4, Batch: 8, Seed: 7, Threads: 1, MaxFanOut: H}.WithDefaults()
				m := newModel(cfg, g.Relations())
				tr := newTrainer(m, g)
				tr.eng.mode, tr.eng.fullLast = mode, mode != 0
				ds, err := loadData(st, g, &cfg)
				if err != nil {
					t.Fatal(err)
				}
				batches := ds.epochBatches(1)
				for bi := range batches {
					b := &batches[bi]
					want := refLossCap(m, g, b, H)
					got := tr.lossGrad(b, make([]float64, m.lay.size))
					if math.Abs(got-want) > 1e-5*max(1, math.Abs(want)) {
						t.Errorf("cap %d T=%d mode %d batch %d (%s): loss %.8g, reference %.8g", H, T, mode, bi, g.relNames[b.r], got, want)
					}
					if math.Abs(refLoss(m, g, b)-want) > 1e-6 {
						changed++
					}
				}
				if H == 1 && !testing.Short() {
					t.Run(fmt.Sprintf("grad/T=%d/mode=%d", T, mode), func(t *testing.T) {
						for i := m.lay.w0; i < m.lay.b0; i++ {
							m.params[i] *= 0.5
						}
						seen := map[string]bool{}
						for bi := range batches {
							if len(batches[bi].ts) >= 2 {
								checkBatch(t, m, tr, &batches[bi], seen)
							}
						}
					})
				}
			}
		}
	}
	if changed == 0 {
		t.Error("the cap changed no batch's loss: the test checks nothing")
	}
}
