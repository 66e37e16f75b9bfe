package miner

import (
	"slices"
	"testing"
)

// TestMinSupportEdge: rules extracted with MinSupport k all have a
// support of at least k, and those of support exactly k are kept, for k
// the supports the rules extracted without a bound have.
func TestMinSupportEdge(t *testing.T) {
	st := datasetStore(t, "../examples/kinship")
	m, err := Train(t.Context(), st, Config{MaxEpochs: 1, Hidden: 8, Embed: 8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	all, err := m.Rules(ExtractOptions{MinScore: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	var sups []int
	for _, r := range all {
		if r.Counted {
			sups = append(sups, int(r.Support))
		}
	}
	slices.Sort(sups)
	sups = slices.Compact(sups)
	if len(sups) < 3 {
		t.Fatalf("supports %v: too few to test the edge", sups)
	}
	for _, k := range sups[1:min(len(sups), 6)] {
		rules, err := m.Rules(ExtractOptions{MinScore: 1e-4, MinSupport: k})
		if err != nil {
			t.Fatal(err)
		}
		atK := 0
		for _, r := range rules {
			if !r.Counted || int(r.Support) < k {
				t.Errorf("MinSupport %d: rule %s of support %d (counted %t)", k, r.Rule, r.Support, r.Counted)
			}
			if int(r.Support) == k {
				atK++
			}
		}
		if atK == 0 {
			t.Errorf("MinSupport %d: no rule of support %d kept", k, k)
		}
	}
}
