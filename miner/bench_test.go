package miner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// datasetsDir is where the large benchmark datasets live: $DRUMQL_DATASETS,
// by default ../shared/datasets next to the repository.
func datasetsDir() string {
	if d := os.Getenv("DRUMQL_DATASETS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "datasets")
}

// benchTrain runs full training (defaults except maxLen) on a dataset once
// per iteration; run it with -benchtime=1x.
func benchTrain(b *testing.B, dir string, maxLen int) {
	st := datasetStore(b, dir)
	b.ReportAllocs()
	for b.Loop() {
		m, err := Train(context.Background(), st, Config{MaxLen: maxLen}, nil)
		if err != nil {
			b.Fatal(err)
		}
		h := m.History()
		last := h[len(h)-1]
		b.ReportMetric(float64(len(h)), "epochs")
		b.ReportMetric(last.ValidHits10, "valid-hits10")
		b.ReportMetric(last.ValidLoss, "valid-loss")
	}
}

// BenchmarkTrainKinship is full training on kinship (T=2, L=3).
func BenchmarkTrainKinship(b *testing.B) { benchTrain(b, "../examples/kinship", 2) }

// BenchmarkTrainFamily is full training on family (T=2, L=3).
func BenchmarkTrainFamily(b *testing.B) { benchTrain(b, "../examples/family", 2) }

// BenchmarkTrainUMLS is full training on umls (T=2, L=3).
func BenchmarkTrainUMLS(b *testing.B) { benchTrain(b, "../examples/umls", 2) }

// BenchmarkTrainWN18RR is full training on wn18rr (T=3).
func BenchmarkTrainWN18RR(b *testing.B) { benchTrain(b, filepath.Join(datasetsDir(), "wn18rr"), 3) }

// BenchmarkTrainFB15k237 is full training on fb15k-237 (T=3).
func BenchmarkTrainFB15k237(b *testing.B) {
	benchTrain(b, filepath.Join(datasetsDir(), "fb15k-237"), 3)
}

// epochBench prepares a trainer over a dataset with the default config.
func epochBench(b *testing.B, dir string) (*trainer, *dataset) {
	st := datasetStore(b, dir)
	g, err := LoadGraph(context.Background(), st)
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{}.WithDefaults()
	ds, err := loadData(st, g, &cfg)
	if err != nil {
		b.Fatal(err)
	}
	return newTrainer(newModel(cfg, g.Relations()), g), ds
}

// BenchmarkBatchFamily is one training step on a full family batch.
func BenchmarkBatchFamily(b *testing.B) {
	tr, ds := epochBench(b, "../examples/family")
	bt := &ds.epochBatches(1)[0]
	tr.step(bt)
	b.ReportAllocs()
	for b.Loop() {
		tr.step(bt)
	}
}

// BenchmarkEpochKinship is one training epoch on kinship.
func BenchmarkEpochKinship(b *testing.B) {
	tr, ds := epochBench(b, "../examples/kinship")
	b.ReportAllocs()
	for b.Loop() {
		batches := ds.epochBatches(1)
		for i := range batches {
			tr.step(&batches[i])
		}
	}
}
