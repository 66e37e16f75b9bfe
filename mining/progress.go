package mining

import (
	"fmt"
	"time"

	"github.com/drumql/drumql/miner"
)

// The wording of training's progress under cfg, the run's configuration:
// what drumql mine prints on its progress bar, or, without one (a log
// file), a line per epoch.

// EpochLine says that the epoch of p ended, for a run without a progress
// bar: "mine: epoch 3/20: 120 batches, train loss 0.1234, valid loss
// 0.2345, raw Hits@10 0.456 (1.2s)", the valid figures only when there are.
func EpochLine(p miner.Progress, cfg miner.Config) string {
	line := fmt.Sprintf("mine: epoch %d/%d: %d batches, train loss %.4f", p.Epoch, cfg.MaxEpochs, p.Batches, p.Loss)
	if p.ValidLoss != 0 || p.ValidHits10 != 0 {
		line += fmt.Sprintf(", valid loss %.4f, raw Hits@10 %.3f", p.ValidLoss, p.ValidHits10)
	}
	return fmt.Sprintf("%s (%s)", line, p.Elapsed.Round(100*time.Millisecond))
}

// PlanNotes are what a run's first progress report p says about how it
// trains: that an epoch is a sample of the training triples
// (cfg.MaxQueries, --max-queries) and that hubs' entries carry no mass
// (cfg.MaxFanOut, --max-fan-out); none when neither applies.
func PlanNotes(p miner.Progress, cfg miner.Config) []string {
	var notes []string
	if p.EpochTriples < p.Triples {
		notes = append(notes, fmt.Sprintf("mine: an epoch trains on %d of the %d training triples (at most %d per relation, drawn afresh each epoch; --max-queries)",
			p.EpochTriples, p.Triples, cfg.MaxQueries))
	}
	if p.CappedEntries > 0 {
		notes = append(notes, fmt.Sprintf("mine: %d operator entries out of hubs (more than %d neighbours through one relation direction) carry no mass in propagation (--max-fan-out)",
			p.CappedEntries, cfg.MaxFanOut))
	}
	return notes
}

// BatchText is the progress bar's description of the batch of p: "epoch
// 3/20 batch 7/120 loss 0.1234 850 q/s".
func BatchText(p miner.Progress, cfg miner.Config) string {
	return fmt.Sprintf("epoch %d/%d batch %d/%d loss %.4f %.0f q/s", p.Epoch, cfg.MaxEpochs, p.Batch, p.Batches, p.Loss, p.QueriesPerSec)
}
