package miner

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sampleInput is 3 relations with 10, 3 and 7 triples, interleaved; the
// triple's head is its position, so order and identity can be checked.
func sampleInput() []triple {
	var ts []triple
	for i := range 20 {
		r := int32(0)
		switch {
		case i%4 == 1 && i < 12:
			r = 1
		case i%2 == 0 && i >= 6:
			r = 2
		}
		ts = append(ts, triple{r: r, h: int32(i), t: int32(100 + i), edge: -1})
	}
	return ts
}

func TestSampleByRelation(t *testing.T) {
	ts := sampleInput()
	counts := countByRelation(ts, 3)
	for _, tc := range []struct {
		limit int
		want  []int // triples kept per relation
	}{
		{limit: 0, want: counts},
		{limit: 100, want: counts},
		{limit: counts[0], want: counts},
		{limit: 4, want: []int{4, min(counts[1], 4), 4}},
		{limit: 1, want: []int{1, 1, 1}},
	} {
		got := sampleByRelation(ts, 3, tc.limit, rand.New(rand.NewPCG(1, 2)))
		if n := countByRelation(got, 3); !slices.Equal(n, tc.want) {
			t.Errorf("limit %d: kept %v per relation, want %v", tc.limit, n, tc.want)
		}
		// A subsequence of ts, without repeats: strictly increasing heads,
		// each kept triple unchanged.
		for i, x := range got {
			if x != ts[x.h] {
				t.Errorf("limit %d: kept %v, not a triple of the input", tc.limit, x)
			}
			if i > 0 && got[i-1].h >= x.h {
				t.Errorf("limit %d: order broken at %d (%d after %d)", tc.limit, i, x.h, got[i-1].h)
			}
		}
		// Relations at or under the limit keep every triple.
		for r, c := range counts {
			if c <= tc.limit || tc.limit <= 0 {
				for _, x := range ts {
					if int(x.r) == r && !slices.Contains(got, x) {
						t.Errorf("limit %d: relation %d (%d triples) lost %v", tc.limit, r, c, x)
					}
				}
			}
		}
	}
	// Same generator state, same sample; the epochs' streams differ.
	a := sampleByRelation(ts, 3, 4, rand.New(rand.NewPCG(7, streamTrain+1<<40)))
	b := sampleByRelation(ts, 3, 4, rand.New(rand.NewPCG(7, streamTrain+1<<40)))
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different samples: %v and %v", a, b)
	}
	differ := false
	for epoch := uint64(2); epoch < 6; epoch++ {
		c := sampleByRelation(ts, 3, 4, rand.New(rand.NewPCG(7, streamTrain+epoch<<40)))
		differ = differ || !slices.Equal(a, c)
	}
	if !differ {
		t.Error("epochs 1 to 5 drew the same sample")
	}
}

// TestMaxQueries: on a graph where no relation has more
// triples than the bound, the bound changes nothing (same model bytes as no
// bound at all); a bound below the relations' sizes trains on that many
// triples per relation each epoch and stays deterministic across threads.
func TestMaxQueries(t *testing.T) {
	if testing.Short() {
		t.Skip("trains kinship several times; skipped with -short (the race run)")
	}
	st := datasetStore(t, "../examples/kinship")
	train := func(maxQ, threads int) ([]byte, *Model) {
		t.Helper()
		m, err := Train(context.Background(), st, Config{MaxLen: 2, Rank: 1, MaxEpochs: 2, MinEpochs: 2, MaxQueries: maxQ, Threads: threads}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := m.Save(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes(), m
	}
	g, err := LoadGraph(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{}.WithDefaults()
	ds, err := loadData(st, g, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	largest := slices.Max(countByRelation(ds.triples, ds.R))
	if ds.bounded || largest > DefaultMaxQueries {
		t.Fatalf("kinship's largest relation has %d training triples: the default bound %d should not apply", largest, DefaultMaxQueries)
	}
	_, def := train(0, 1)
	_, none := train(-1, 1)
	// The model files differ in the recorded config; compare parameters.
	if !slices.Equal(def.params, none.params) {
		t.Error("the default bound changed the parameters on kinship, where no relation reaches it")
	}

	cfg.MaxQueries = 40
	ds, err = loadData(st, g, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !ds.bounded {
		t.Fatal("a bound of 40 should apply to kinship")
	}
	counts := countByRelation(ds.triples, ds.R)
	for epoch := 1; epoch <= 3; epoch++ {
		got := make([]int, ds.R)
		for _, b := range ds.epochBatches(epoch) {
			got[b.r] += len(b.ts)
			if len(b.ts) > cfg.Batch {
				t.Errorf("epoch %d: batch of %d triples", epoch, len(b.ts))
			}
		}
		for r, c := range counts {
			if got[r] != min(c, 40) {
				t.Errorf("epoch %d relation %s: %d triples, want %d", epoch, g.relNames[r], got[r], min(c, 40))
			}
		}
	}
	sum := 0
	for _, c := range counts {
		sum += min(c, 40)
	}
	if ds.epochQueries() != sum {
		t.Errorf("epochQueries %d, want %d", ds.epochQueries(), sum)
	}
	one, m40 := train(40, 1)
	two, _ := train(40, 2)
	if !bytes.Equal(one, two) {
		t.Error("a bounded run differs between 1 and 2 threads")
	}
	if slices.Equal(m40.params, def.params) {
		t.Error("a bound of 40 triples per relation trained the same parameters as no bound")
	}
}

// TestChunkedBatches: propagating a batch in chunks of columns (what large
// graphs do to bound memory) gives the loss, gradient and validation
// metrics of propagating it whole, up to rounding.
func TestChunkedBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("trains kinship several times; skipped with -short (the race run)")
	}
	st := datasetStore(t, "../examples/kinship")
	g, err := LoadGraph(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	for _, T := range []int{1, 2, 3} {
		cfg := Config{MaxLen: T, Rank: 2, Seed: 5, Threads: 2}.WithDefaults()
		m := newModel(cfg, g.Relations())
		tr := newTrainer(m, g)
		ds, err := loadData(st, g, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		batches := ds.epochBatches(1)
		per := 2 * cfg.Rank * (T + 1) * g.NumEntities() * 4
		for _, W := range []int{1, 3, 8, 40} {
			if got := chunkWidth(per*W, g.NumEntities(), cfg.Rank, T, cfg.Batch); got != W && W < 8 || W >= 8 && got != W&^7 {
				t.Errorf("chunkWidth for %d columns' worth: %d", W, got)
			}
		}
		nonzero := false
		for _, bi := range []int{0, len(batches) / 2, len(batches) - 1} {
			b := &batches[bi]
			tr.eng.budget = blockBudget
			wantGrad := make([]float64, m.lay.size)
			want := tr.lossGrad(b, wantGrad)
			tr.setGroups(b)
			tr.attention()
			wantL, wantH := tr.evalGroups()
			for _, W := range []int{1, 3, 8} {
				tr.eng.budget = per * W
				grad := make([]float64, m.lay.size)
				got := tr.lossGrad(b, grad)
				if math.Abs(got-want) > 1e-6*math.Abs(want) {
					t.Errorf("T=%d batch %d, %d columns at a time: loss %.10g, whole %.10g", T, bi, W, got, want)
				}
				var diff, norm float64
				for i := range grad {
					diff += (grad[i] - wantGrad[i]) * (grad[i] - wantGrad[i])
					norm += wantGrad[i] * wantGrad[i]
				}
				nonzero = nonzero || norm > 0
				if diff > 1e-10*norm {
					t.Errorf("T=%d batch %d, %d columns at a time: gradient differs (|Δ|² %.3g, |g|² %.3g)", T, bi, W, diff, norm)
				}
				tr.setGroups(b)
				tr.attention()
				l, h := tr.evalGroups()
				if math.Abs(l-wantL) > 1e-6*math.Abs(wantL) || h != wantH {
					t.Errorf("T=%d batch %d, %d columns at a time: validation loss %.10g hits %v, whole %.10g %v", T, bi, W, l, h, wantL, wantH)
				}
			}
		}
		if !nonzero {
			t.Errorf("T=%d: every gradient compared was zero", T)
		}
	}
}

// TestEvalGroupsRanks checks the validation pass's loss and raw Hits@10
// against a direct count over every entity, column by column.
func TestEvalGroupsRanks(t *testing.T) {
	st := datasetStore(t, "../examples/kinship")
	g, err := LoadGraph(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{MaxLen: 2, Rank: 3, Seed: 9, Threads: 2}.WithDefaults()
	m := newModel(cfg, g.Relations())
	tr := newTrainer(m, g)
	ds, err := loadData(st, g, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.valid) == 0 {
		t.Fatal("kinship has no valid batches")
	}
	var hitsAll float64
	shared := 0
	for bi, b := range ds.valid {
		tr.setGroups(&b)
		tr.attention()
		loss, hits := tr.evalGroups()
		var wantLoss, wantHits float64
		e, L, T := tr.eng, m.lay.L, m.lay.nT
		for gi := range 2 {
			// The batch is one chunk; its queries share columns by given
			// entity.
			gr := &tr.chunk[gi]
			if W := gr.width(); W < len(gr.given) {
				shared++
			}
			for col, y := range gr.answer {
				score := func(x int) float64 {
					var v float64
					for j := range L {
						v += float64(e.tasks[gi*L+j].v[T][x*gr.width()+gr.col(col)])
					}
					return v
				}
				s := score(int(y))
				wantLoss -= math.Log(max(s, thr))
				higher := 0
				for x := range e.E {
					if score(x) > s {
						higher++
					}
				}
				if higher < topK {
					wantHits++
				}
			}
		}
		if math.Abs(loss-wantLoss) > 1e-9*math.Abs(wantLoss) || hits != wantHits {
			t.Errorf("valid batch %d: loss %.10g hits %v, direct count %.10g %v", bi, loss, hits, wantLoss, wantHits)
		}
		hitsAll += hits
	}
	if hitsAll == 0 {
		t.Error("no validation hit at all: the comparison checks little")
	}
	if shared == 0 {
		t.Error("no validation batch shared a column: the shared columns are not checked")
	}
}
