package miner

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/drumql/drumql/internal/pkgerr"
)

// Progress reports training progress after every batch and at the end of
// every epoch.
type Progress struct {
	Epoch         int     // 1-based epoch
	Batch         int     // batches done in this epoch
	Batches       int     // batches per epoch
	Loss          float64 // mean training loss over this epoch's batches so far
	Queries       int     // queries (both directions) done in this epoch
	Elapsed       time.Duration
	QueriesPerSec float64
	// EpochDone is set on the report sent after the validation pass of an
	// epoch; ValidLoss and ValidHits10 (raw, ties counted as hits, like the
	// original code) are then set when there is a validation split.
	EpochDone   bool
	ValidLoss   float64
	ValidHits10 float64
	// Plan: the training triples of an epoch (fewer than Triples when
	// Config.MaxQueries samples), all training triples, and the operator
	// entries that Config.MaxFanOut removed from propagation (hubs).
	EpochTriples, Triples, CappedEntries int
	// Trained is set on the one report Mine sends when a model's training
	// is over, before its rules are read (the other fields but Group and
	// Groups are then zero).
	Trained bool
	// Group is the head group being trained (Options.HeadGroups), from 1,
	// of Groups; both 0 when one model is trained.
	Group, Groups int
}

// ErrNoQueries is returned by Train when there is nothing to train on.
var ErrNoQueries = errors.New("miner: no training queries")

// Train learns a DRUM model from st: the graph is st's binary base facts, the
// queries its "train" split (every graph fact when there is none), early
// stopping uses its "valid" split. progress, if not nil, is called after
// every batch and every epoch.
//
// When ctx is cancelled, training stops after the current batch and Train
// returns the model with its current weights together with an error wrapping
// ctx.Err(); callers can still extract rules from it.
func Train(ctx context.Context, st GraphSource, cfg Config, progress func(Progress)) (*Model, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	g, err := LoadGraph(ctx, st)
	if err != nil {
		return nil, err
	}
	return TrainGraph(ctx, st, g, cfg, progress)
}

// TrainGraph is Train on a graph already loaded from st.
func TrainGraph(ctx context.Context, st Source, g *Graph, cfg Config, progress func(Progress)) (*Model, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	ds, err := loadData(st, g, &cfg)
	if err != nil {
		return nil, err
	}
	if ds.nTrain == 0 {
		return nil, ErrNoQueries
	}
	m := newModel(cfg, g.Relations())
	m.graph = g
	tr := newTrainer(m, g)
	var bestLoss, bestHits float64 = math.Inf(1), math.Inf(-1)
	for epoch := 1; epoch <= cfg.MaxEpochs; epoch++ {
		start := time.Now()
		var sum float64
		queries := 0
		batches := ds.epochBatches(epoch)
		for bi := range batches {
			if err := ctx.Err(); err != nil {
				return m, pkgerr.Newf("miner: training stopped in epoch %d after %d of %d batches: %w", epoch, bi, len(batches), err)
			}
			b := &batches[bi]
			loss := tr.step(b)
			n := 2 * len(b.ts)
			sum += loss * float64(n)
			queries += n
			if progress != nil {
				el := time.Since(start)
				progress(Progress{Epoch: epoch, Batch: bi + 1, Batches: len(batches), Loss: sum / float64(queries),
					Queries: queries, Elapsed: el, QueriesPerSec: float64(queries) / max(el.Seconds(), 1e-9),
					EpochTriples: ds.epochQueries(), Triples: ds.nTrain, CappedEntries: tr.eng.g.capped})
			}
		}
		es := EpochStats{Epoch: epoch, TrainLoss: sum / float64(queries)}
		stop := false
		if ds.nValid > 0 {
			vl, vh, err := tr.validPass(ctx, ds)
			if err != nil {
				m.history = append(m.history, es)
				return m, pkgerr.Newf("miner: training stopped in epoch %d during validation: %w", epoch, err)
			}
			es.ValidLoss, es.ValidHits10 = vl, vh
			bestLoss, bestHits = min(bestLoss, vl), max(bestHits, vh)
			// Original early stop: continue while either metric equals its
			// best so far, or before MinEpochs.
			if vl != bestLoss && vh != bestHits && epoch >= cfg.MinEpochs {
				stop = true
			}
		}
		m.history = append(m.history, es)
		if progress != nil {
			el := time.Since(start)
			progress(Progress{Epoch: epoch, Batch: len(batches), Batches: len(batches), Loss: es.TrainLoss,
				Queries: queries, Elapsed: el, QueriesPerSec: float64(queries) / max(el.Seconds(), 1e-9),
				EpochDone: true, ValidLoss: es.ValidLoss, ValidHits10: es.ValidHits10})
		}
		if stop {
			break
		}
	}
	return m, nil
}
