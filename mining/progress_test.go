package mining

import (
	"slices"
	"testing"
	"time"

	"github.com/drumql/drumql/miner"
)

func TestProgressText(t *testing.T) {
	cfg := miner.Config{MaxEpochs: 20, MaxQueries: 500, MaxFanOut: 100}
	p := miner.Progress{Epoch: 3, Batch: 7, Batches: 120, Loss: 0.123456, QueriesPerSec: 849.6, Elapsed: 1234 * time.Millisecond}
	if got, want := EpochLine(p, cfg), "mine: epoch 3/20: 120 batches, train loss 0.1235 (1.2s)"; got != want {
		t.Errorf("EpochLine without valid figures = %q, want %q", got, want)
	}
	p.ValidHits10 = 0.5
	if got, want := EpochLine(p, cfg), "mine: epoch 3/20: 120 batches, train loss 0.1235, valid loss 0.0000, raw Hits@10 0.500 (1.2s)"; got != want {
		t.Errorf("EpochLine = %q, want %q", got, want)
	}
	if got, want := BatchText(p, cfg), "epoch 3/20 batch 7/120 loss 0.1235 850 q/s"; got != want {
		t.Errorf("BatchText = %q, want %q", got, want)
	}
	for _, c := range []struct {
		epoch, all, capped int
		want               []string
	}{
		{10, 10, 0, nil},
		{5, 10, 0, []string{"mine: an epoch trains on 5 of the 10 training triples (at most 500 per relation, drawn afresh each epoch; --max-queries)"}},
		{10, 10, 3, []string{"mine: 3 operator entries out of hubs (more than 100 neighbours through one relation direction) carry no mass in propagation (--max-fan-out)"}},
	} {
		p := miner.Progress{EpochTriples: c.epoch, Triples: c.all, CappedEntries: c.capped}
		if got := PlanNotes(p, cfg); !slices.Equal(got, c.want) {
			t.Errorf("PlanNotes(%d of %d, %d capped) = %q, want %q", c.epoch, c.all, c.capped, got, c.want)
		}
	}
}
