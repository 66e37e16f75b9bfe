package eval

import "testing"

// TestGroupBatches bounds the candidates one batch of same generation
// buffers: its factorised plan joins the delta in groups (one per node),
// and a batch counts the groups' tuples (groupsWithin), not the groups;
// counted by groups, a round's few hundred groups were one batch.
func TestGroupBatches(t *testing.T) {
	e := sgFixpoint(t, 700, nil)
	// 324,705 facts, about a million candidates: 126,148 in the largest
	// batch, 324,048 when a batch counted groups.
	if n := e.Rels[e.RelIdx[RelKey("sg", 2)]].Len(); n < 300_000 || e.maxBatch > 6*BatchItems {
		t.Errorf("sg: %d tuples, %d candidates in the largest batch, want at most %d", n, e.maxBatch, 6*BatchItems)
	}
}
