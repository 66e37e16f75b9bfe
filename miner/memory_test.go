package miner

import "testing"

// TestEstimateMemory checks the estimate against sums worked out by hand
// from its documented terms.
func TestEstimateMemory(t *testing.T) {
	base := Config{Batch: 4, Rank: 1, MaxLen: 2, Hidden: 2, Embed: 2, Threads: 1}
	s := Shape{Entities: 10, Relations: 2, Facts: 20, Queries: 30}
	// graph: 2·2·11·4 + 12·20 + 4·11 + 8·20 + 8·11 + 24·20 + 16·20 + 20/8 = 1510
	// names 10·96 = 960; queries 30·96 = 2880
	// params: K = 5; embedding 5·2, per rank 2·((2+2)·8 + 8), W0 4·5, b0 5
	//   = 115 values, ·4 copies ·8 bytes = 3680
	// tasks: 2·1·(3·10·4·4 + 20·10) = 1360; workers: 1·(4·10 + 2·10·4·4) = 360
	// sum 10750, times the headroom 1.3 (integer tenths), plus 32 MB.
	sum := int64(1510 + 960 + 2880 + 3680 + 1360 + 360)
	est := func(extra int64) int64 { return 32<<20 + (sum+extra)*13/10 }
	for _, tc := range []struct {
		name string
		s    Shape
		cfg  func(Config) Config
		want int64
	}{
		{"hand", s, func(c Config) Config { return c }, 32<<20 + 13975},
		// One more step: one more entity × batch block per task (2·10·4·4).
		{"T+1", s, func(c Config) Config { c.MaxLen = 3; return c }, est(320)},
		// Two threads: a second worker's blocks.
		{"threads", s, func(c Config) Config { c.Threads = 2; return c }, est(360)},
		// A third relation: row pointers 2·11·4, parameters (K = 7: 2·2
		// more embedding values, 4·2 more W0, 2 more b0 = 14 values ·32).
		{"relation", Shape{Entities: 10, Relations: 3, Facts: 20, Queries: 30}, func(c Config) Config { return c }, est(88 + 14*32)},
	} {
		if got := EstimateMemory(tc.s, tc.cfg(base)); got != tc.want {
			t.Errorf("%s: EstimateMemory = %d, want %d", tc.name, got, tc.want)
		}
	}
}
