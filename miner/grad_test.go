package miner

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"
)

// TestGradientCheck compares the hand-written gradient of a batch loss with
// central finite differences, for every parameter block, with every
// propagation path (engine.mode) and rule lengths 1 to 3.
func TestGradientCheck(t *testing.T) {
	st := memStore(t, tinySplits())
	g, err := LoadGraph(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	for _, T := range []int{1, 2, 3} {
		for _, mode := range []int{0, 1, 2, 3, 4} {
			// mode 0: last-step shortcut, paths chosen per step; 1–4: full
			// last step with the row-list kernels, the gather kernels, or
			// column masks (rows moved column by column, or whole).
			t.Run(fmt.Sprintf("T=%d/mode=%d", T, mode), func(t *testing.T) {
				cfg := Config{MaxLen: T, Rank: 2, Hidden: 3, Embed: 4, Batch: 8, Seed: 7, Threads: 1}.WithDefaults()
				m := newModel(cfg, g.Relations())
				// A gentler W0 keeps the softmax away from saturation so
				// the float32 propagation is not the limiting precision.
				for i := m.lay.w0; i < m.lay.b0; i++ {
					m.params[i] *= 0.5
				}
				tr := newTrainer(m, g)
				tr.eng.mode = mode
				tr.eng.fullLast = mode != 0
				ds, err := loadData(st, g, &cfg)
				if err != nil {
					t.Fatal(err)
				}
				seen := map[string]bool{}
				batches := ds.epochBatches(1)
				for bi := range batches {
					b := &batches[bi]
					if len(b.ts) < 2 {
						continue
					}
					t.Logf("batch %d: relation %s, %d triples", bi, g.relNames[b.r], len(b.ts))
					checkBatch(t, m, tr, b, seen)
				}
				for _, bl := range m.lay.blocks[1:] {
					if !seen[bl.Name] {
						t.Errorf("%s: never had a nonzero gradient", bl.Name)
					}
				}
			})
		}
	}
}

// checkBatch compares the analytic and the finite-difference gradient of
// batch b's loss block by block, recording the blocks with a gradient.
func checkBatch(t *testing.T, m *Model, tr *trainer, b *batch, seen map[string]bool) {
	x0 := append([]float64(nil), m.params...)
	an := make([]float64, len(x0))
	loss := tr.lossGrad(b, an)
	if math.IsNaN(loss) || loss <= 0 {
		t.Fatalf("loss %v", loss)
	}
	scratch := make([]float64, len(x0))
	f := func(x []float64) float64 {
		copy(m.params, x)
		return tr.lossGrad(b, scratch)
	}
	num := fd.Gradient(nil, f, x0, &fd.Settings{Formula: fd.Central, Step: 4e-3})
	copy(m.params, x0)
	for _, bl := range m.lay.blocks {
		n := bl.Rows * bl.Cols
		a, d := an[bl.off:bl.off+n], num[bl.off:bl.off+n]
		diff := make([]float64, n)
		floats.SubTo(diff, a, d)
		den := max(floats.Norm(a, 2), floats.Norm(d, 2))
		rel := floats.Norm(diff, 2) / max(den, 1e-12)
		if den < 1e-9 {
			t.Logf("%-18s zero gradient", bl.Name)
			continue
		}
		seen[bl.Name] = true
		t.Logf("%-18s |g|=%.3e rel.err=%.2e", bl.Name, den, rel)
		if rel > 2e-3 {
			t.Errorf("%s: relative error %.3e (|analytic| %.3e, |numeric| %.3e)", bl.Name, rel, floats.Norm(a, 2), floats.Norm(d, 2))
		}
	}
}
