package mining

import (
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
)

// ValidTriples counts the triples of src's valid split, 0 when it has
// none (or it cannot be read): the rule step's part of the memory estimate
// depends on it.
func ValidTriples(src miner.GraphSource) int {
	valid := 0
	for _, err := range src.Split("valid") {
		if err != nil {
			break // no valid split
		}
		valid++
	}
	return valid
}

// EstimateMemory returns the bytes a run needs at its peak to mine the
// graph of snap, whose valid split has valid triples
// ([miner.EstimateMemory]): training with cfg, then the rule step rs. With
// models read instead of trained (from is not nil), it is the rule step's
// alone, with the models' rule length, rank and batch.
func EstimateMemory(snap *store.Snapshot, valid int, cfg miner.Config, rs miner.RuleStep, from *ModelSet) int64 {
	if from != nil {
		mc := from.Models[0].Config()
		cfg.MaxLen, cfg.Rank, cfg.Batch = mc.MaxLen, mc.Rank, mc.Batch
		rs.FromModel = true
	}
	return miner.EstimateMemory(miner.ShapeOf(snap, valid), cfg, rs)
}

// NewGraph builds the graph of snap, read from src ([miner.NewGraph]), with
// need, the run's estimate, as the collector's soft memory limit
// ([miner.SoftMemoryLimit]) from now until the returned function restores
// the previous one; on error the limit is restored already.
func NewGraph(src miner.GraphSource, snap *store.Snapshot, need int64) (*miner.Graph, func(), error) {
	restore := miner.SoftMemoryLimit(need)
	g, err := miner.NewGraph(src, snap)
	if err != nil {
		restore()
		return nil, nil, err
	}
	return g, restore, nil
}
