package miner

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// TestSharedColumns checks that queries sharing a column of the block (the
// same given entity) give the loss, gradient and validation metrics of one
// column per query, on every propagation path, and that the tiny graph's
// batches do share columns (or the test would check nothing).
func TestSharedColumns(t *testing.T) {
	// The tiny graph, with a training and a validation triple whose given
	// entities repeat within their batch (e, g as father's; f as mother's).
	sp := tinySplits()
	sp["train"] = append(sp["train"], [3]string{"g", "father", "e"})
	sp["valid"] = append(sp["valid"], [3]string{"j", "mother", "f"})
	st := memStore(t, sp)
	g, err := LoadGraph(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	shared := 0
	for _, T := range []int{1, 2, 3} {
		for _, mode := range []int{0, 1, 2, 3, 4} {
			t.Run(fmt.Sprintf("T=%d/mode=%d", T, mode), func(t *testing.T) {
				cfg := Config{MaxLen: T, Rank: 2, Hidden: 3, Embed: 4, Batch: 8, Seed: 5, Threads: 2}.WithDefaults()
				m := newModel(cfg, g.Relations())
				ds, err := loadData(st, g, &cfg)
				if err != nil {
					t.Fatal(err)
				}
				var trs [2]*trainer
				for i := range trs {
					trs[i] = newTrainer(m, g)
					trs[i].eng.mode, trs[i].noShare = mode, i == 1
				}
				batches := ds.epochBatches(1)
				for bi := range batches {
					b := &batches[bi]
					var loss [2]float64
					var grad [2][]float64
					for i, tr := range trs {
						grad[i] = make([]float64, m.lay.size)
						loss[i] = tr.lossGrad(b, grad[i])
					}
					if w := trs[0].chunk[0].width() + trs[0].chunk[1].width(); w < 2*len(b.ts) {
						shared++
					}
					if math.Abs(loss[0]-loss[1]) > 1e-9*max(1, math.Abs(loss[1])) {
						t.Errorf("batch %d: loss %.12g shared, %.12g one column per query", bi, loss[0], loss[1])
					}
					var diff, norm float64
					for k := range grad[0] {
						diff = max(diff, math.Abs(grad[0][k]-grad[1][k]))
						norm = max(norm, math.Abs(grad[1][k]))
					}
					if diff > 1e-6*max(norm, 1e-12) {
						t.Errorf("batch %d: gradients differ by %.3g (largest %.3g)", bi, diff, norm)
					}
				}
				var vl, vh [2]float64
				for i, tr := range trs {
					vl[i], vh[i], err = tr.validPass(context.Background(), ds)
					if err != nil {
						t.Fatal(err)
					}
				}
				if math.Abs(vl[0]-vl[1]) > 1e-9*max(1, math.Abs(vl[1])) || vh[0] != vh[1] {
					t.Errorf("validation: loss %.12g hits %.6g shared, %.12g %.6g one column per query", vl[0], vh[0], vl[1], vh[1])
				}
			})
		}
	}
	if shared == 0 {
		t.Error("no batch shared a column: the test checks nothing")
	}
}
