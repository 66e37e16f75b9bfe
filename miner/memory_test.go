package miner

import "testing"

// TestEstimateMemory checks the estimate against sums worked out by hand
// from its documented terms.
func TestEstimateMemory(t *testing.T) {
	base := Config{Batch: 4, Rank: 1, MaxLen: 2, Hidden: 2, Embed: 2, Threads: 1}
	s := Shape{Entities: 10, Relations: 2, Facts: 20, Queries: 30}
	// graph: 2·2·11·4 + 12·20 + 8·11 + 8·20 + 16·11 + 24·20 + 16·20 + 8·11 +
	//   24·20 + 20/8 = 2210 (the offsets of the lists over all relations
	//   are 64-bit)
	// names 10·96 = 960; queries 30·96 = 2880
	// params: K = 5; embedding 5·2, per rank 2·((2+2)·8 + 8), W0 4·5, b0 5
	//   = 115 values, ·4 copies ·8 bytes = 3680
	// tasks: 2·1·(3·10·(4·4 + 8) + 20·10) = 1840 (blocks, masks, scratch);
	// workers: 1·(4·10 + 2·10·4·4) = 360
	// sum 11930, times the headroom 1.3 (integer tenths), plus 32 MB.
	sum := int64(2210 + 960 + 2880 + 3680 + 1840 + 360)
	est := func(extra int64) int64 { return 32<<20 + (sum+extra)*13/10 }
	for _, tc := range []struct {
		name string
		s    Shape
		cfg  func(Config) Config
		want int64
	}{
		{"hand", s, func(c Config) Config { return c }, 32<<20 + 15509},
		// Hypersparse adjacencies: 10 row pointers and ids in all instead
		// of the dense 2·2·11 = 44, 34·4 bytes less.
		{"hypersparse", Shape{Entities: 10, Relations: 2, Facts: 20, Queries: 30, RowPointers: 10}, func(c Config) Config { return c }, est(-136)},
		// One more step: one more entity × batch block and mask per task
		// (2·10·(4·4 + 8)).
		{"T+1", s, func(c Config) Config { c.MaxLen = 3; return c }, est(480)},
		// Two threads: a second worker's blocks.
		{"threads", s, func(c Config) Config { c.Threads = 2; return c }, est(360)},
		// A third relation: row pointers 2·11·4, parameters (K = 7: 2·2
		// more embedding values, 4·2 more W0, 2 more b0 = 14 values ·32).
		{"relation", Shape{Entities: 10, Relations: 3, Facts: 20, Queries: 30}, func(c Config) Config { return c }, est(88 + 14*32)},
	} {
		if got := EstimateMemory(tc.s, tc.cfg(base), RuleStep{}); got != tc.want {
			t.Errorf("%s: EstimateMemory = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestEstimateMemoryRuleStep checks the rule step's terms against sums
// worked out by hand, on the shape and configuration of TestEstimateMemory
// (graph 2210, names 960 and parameters 3680 bytes throughout: 6850;
// training's own queries, tasks and workers: 2880 + 1840 + 360 = 5080).
func TestEstimateMemoryRuleStep(t *testing.T) {
	cfg := Config{Batch: 4, Rank: 1, MaxLen: 2, Hidden: 2, Embed: 2, Threads: 1}
	s := Shape{Entities: 10, Relations: 2, Facts: 20, Queries: 30}
	est := func(step int64) int64 { return 32<<20 + (6850+step)*13/10 }
	for _, tc := range []struct {
		name string
		rs   RuleStep
		want int64
	}{
		// A rule is 600 bytes per step of T = 2: 1200. Rules: 2 relations ·
		// (3 + 2) · 1200 = 12000. Extraction, one worker: 2·10 proposals ·
		// 300 + 5 candidates · 1200 = 12000. Applying: (150 + 1·100)·10
		// entities + 16·20 facts = 2820. Scoring 2 columns (the batch is 4):
		// (1·3 task blocks + 2·1 worker blocks + 2)·10·2·4 = 560, the tasks'
		// masks 1·3·10·8 = 240, plus the CSR 2·2·11·4 + 12·20 = 416: 1216.
		// The step is 12000 + max(12000, 2820, 1216) = 24000, above
		// training's 5080.
		{"extraction", RuleStep{Beam: 10, Candidates: 5, MaxRules: 3, ConstantRules: 2, Apply: true, ScoreBatch: 2}, est(24000)},
		// One rule per head, no constants: 2·1·1200 = 2400; extraction
		// 2·1·300 + 1·1200 = 1800; step 4200, below training: its estimate.
		{"training", RuleStep{Beam: 1, Candidates: 1, MaxRules: 1, NoConstants: true}, est(5080)},
		// The same applied to queries: 2400 + max(1800, 2820) = 5220.
		{"applying", RuleStep{Beam: 1, Candidates: 1, MaxRules: 1, NoConstants: true, Apply: true}, est(5220)},
		// Defaults: beam 4000, 200 rules and 1000 candidates, 300 rules
		// with constants per head. Rules 2·500·1200 = 1200000; extraction
		// 8000·300 + 1000·1200 = 3600000; step 4800000.
		{"defaults", RuleStep{Apply: true}, est(4800000)},
		// No rule step: training alone.
		{"none", RuleStep{}, est(5080)},
		// Rules for one head of the two (--heads): rules 1·(3 + 2)·1200 =
		// 6000, step 6000 + 12000 = 18000.
		{"one head", RuleStep{Beam: 10, Candidates: 5, MaxRules: 3, ConstantRules: 2, Heads: 1}, est(18000)},
		// From a saved model: no training, the parameters once (3680/4 =
		// 920 instead of 3680): the rule step alone, 4200.
		{"from model", RuleStep{Beam: 1, Candidates: 1, MaxRules: 1, NoConstants: true, FromModel: true}, est(4200 - 2760)},
	} {
		if got := EstimateMemory(s, cfg, tc.rs); got != tc.want {
			t.Errorf("%s: EstimateMemory = %d, want %d", tc.name, got, tc.want)
		}
	}
}
