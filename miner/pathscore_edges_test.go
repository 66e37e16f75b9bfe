package miner

import (
	"math"
	"testing"
)

// TestPathMinScoreEdge: a rule only the path samples propose (gone
// when PathMinScore is above every score) is kept when PathMinScore equals
// its score, and dropped just above it.
func TestPathMinScoreEdge(t *testing.T) {
	st := datasetStore(t, "../examples/kinship")
	m, err := Train(t.Context(), st, Config{MaxEpochs: 1, Hidden: 8, Embed: 8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	extract := func(min float64) map[string]float64 {
		t.Helper()
		rules, err := m.Rules(ExtractOptions{MinScore: 1e-4, PathSamples: 200, PathMinScore: min})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, r := range rules {
			out[r.Rule.Key()] = r.Score
		}
		return out
	}
	all, beam := extract(0), extract(math.MaxFloat64)
	tried := 0
	for k, s := range all {
		if _, ok := beam[k]; ok || s <= 0 || tried == 5 {
			continue
		}
		tried++
		if _, ok := extract(s)[k]; !ok {
			t.Errorf("PathMinScore %v: rule %s of score %v dropped", s, k, s)
		}
		if _, ok := extract(math.Nextafter(s, 2))[k]; ok {
			t.Errorf("PathMinScore just above %v: rule %s of score %v kept", s, k, s)
		}
	}
	if tried == 0 {
		t.Fatalf("no rule came from the path samples alone (%d rules, %d from the beam): the case tests nothing", len(all), len(beam))
	}
}
