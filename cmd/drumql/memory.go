package main

import (
	"fmt"

	"github.com/drumql/drumql/internal/sysmem"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/mining"
	"github.com/drumql/drumql/scoring"
)

// loadGraph takes the snapshot that drumql mine trains on, prints the
// estimate of the memory that the command will need (training, then the
// rule step; the rule step alone with --from-model) and refuses, before the graph is prepared, when it exceeds the
// available memory (the smaller of MemAvailable and the cgroup limit) or
// --max-memory. Otherwise the estimate becomes the collector's soft memory
// limit until the command ends (see miner.SoftMemoryLimit); the returned function
// restores the previous one.
func (c *mineCmd) loadGraph(e *env, src miner.GraphSource) (*miner.Graph, func(), error) {
	snap, err := src.Snapshot(e.ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("mine: snapshot: %w", err)
	}
	valid := mining.ValidTriples(src)
	cfg := miner.Config{MaxLen: deref(c.Len), Rank: deref(c.Rank), Batch: deref(c.Batch), Threads: c.Threads}
	need := mining.EstimateMemory(snap, valid, cfg, c.ruleStep(e, valid), c.fromSet)
	if err := c.checkMemory(e, need); err != nil {
		return nil, nil, err
	}
	return mining.NewGraph(src, snap, need)
}

// ruleStep describes, for the memory estimate, the rule step that follows
// training: extraction, and with the store's valid split (valid triples)
// the choice of the aggregation and the coverage line.
func (c *mineCmd) ruleStep(e *env, valid int) miner.RuleStep {
	rs := c.options().RuleStep()
	if c.Aggregate == "auto" && valid > 0 {
		rs.Apply = true
		if !e.cli.Quiet {
			rs.ScoreBatch = scoring.CoverageBatch
		}
	}
	return rs
}

// checkMemory compares need with --max-memory, or with the available memory.
func (c *mineCmd) checkMemory(e *env, need int64) error {
	lim, known, err := sysmem.ParseCap(c.MaxMemory, "--max-memory")
	if err != nil {
		return inputErr(fmt.Errorf("mine: --max-memory: %w", err))
	}
	if !e.cli.Quiet && miner.Kernel() == "generic" {
		fmt.Fprintln(e.stderr, "mine: sparse kernels: generic Go (a build with GOEXPERIMENT=simd uses AVX2/AVX-512 where the CPU has them)")
	}
	if !e.cli.Quiet {
		if known {
			fmt.Fprintf(e.stderr, "mine: estimated peak memory %s (%s %s)\n", sysmem.Format(need), lim.Source, sysmem.Format(lim.Bytes))
		} else {
			fmt.Fprintf(e.stderr, "mine: estimated peak memory %s\n", sysmem.Format(need))
		}
	}
	if known && need > lim.Bytes {
		return fmt.Errorf("mine: mining would need about %s of memory, more than the %s (%s); lower --batch, --len or --rank, mine fewer --heads, or pass --max-memory SIZE (or --max-memory off) to train anyway",
			sysmem.Format(need), lim.Source, sysmem.Format(lim.Bytes))
	}
	return nil
}
