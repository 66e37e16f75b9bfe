package linkpred

import (
	"fmt"
	"testing"

	"github.com/drumql/drumql/store"
)

// cmpKnownCases are the edges of cmpKnown: prefixes that differ at the
// first or a later position, in both directions, a longer list whose next
// element is above t, equal to t or below it, and prefixes that agree.
var cmpKnownCases = []struct {
	ct, at []float32
	t      float32
	want   int
}{
	{nil, nil, 0.5, 2},
	{[]float32{0.9}, []float32{0.9}, 0.5, 2},
	{[]float32{0.9, 0.6}, []float32{0.9, 0.6}, 0.5, 2},
	{[]float32{0.9}, []float32{0.8}, 0.5, 1},
	{[]float32{0.8}, []float32{0.9}, 0.5, -1},
	{[]float32{0.9, 0.7}, []float32{0.9, 0.6}, 0.5, 1},
	{[]float32{0.9, 0.6}, []float32{0.9, 0.7}, 0.5, -1},
	{[]float32{0.9, 0.6}, []float32{0.9}, 0.5, 1},
	{[]float32{0.9}, []float32{0.9, 0.6}, 0.5, -1},
	{[]float32{0.9, 0.5}, []float32{0.9}, 0.5, 2}, // the next is t: the answer's may be t too
	{[]float32{0.9}, []float32{0.9, 0.5}, 0.5, 2},
	{[]float32{0.6}, nil, 0.5, 1},
	{nil, []float32{0.6}, 0.5, -1},
	{[]float32{0.5}, nil, 0.5, 2},
	{nil, []float32{0.5}, 0.5, 2},
	{[]float32{0.9, 0.6, 0.55}, []float32{0.9, 0.6}, 0.5, 1},
	{[]float32{0.6, 0.4}, []float32{0.6, 0.3}, 0.5, 1}, // known prefixes differ below t: still known
}

// TestCmpKnown checks cmpKnown on its edges, and that it never reports
// two keys equal.
func TestCmpKnown(t *testing.T) {
	for _, c := range cmpKnownCases {
		got := cmpKnown(c.ct, c.at, c.t)
		if got != c.want {
			t.Errorf("cmpKnown(%v, %v, %v) = %d, want %d", c.ct, c.at, c.t, got, c.want)
		}
		if got == 0 {
			t.Errorf("cmpKnown(%v, %v, %v) = 0: known prefixes never decide a tie", c.ct, c.at, c.t)
		}
	}
}

// prunedEdgeCases are rankings a pruned pass must leave to the full pass
// (decided false) or decide, at the boundaries of its bounds: candidate 0
// is the answer, every candidate's confidences by rule are given.
var prunedEdgeCases = []struct {
	name    string
	top     int
	tau     float64
	confs   map[store.ID][]float64
	want    Rank
	decided bool
}{
	// Max: equal scores, known tie-breakers that agree. Either list may go
	// on below tau, so neither order is known.
	{"tie, the candidate goes on", 0, 0.4, map[store.ID][]float64{0: {0.9, 0.5}, 1: {0.9, 0.5, 0.1}}, Rank{2, 2}, false},
	{"tie, the answer goes on", 0, 0.4, map[store.ID][]float64{0: {0.9, 0.5, 0.1}, 1: {0.9, 0.5}}, Rank{1, 1}, false},
	{"tie, neither goes on", 0, 0.4, map[store.ID][]float64{0: {0.9, 0.5}, 1: {0.9, 0.5}}, Rank{1, 2}, false},
	// Max: equal scores, known tie-breakers that differ above tau.
	{"tie-breaker above", 0, 0.4, map[store.ID][]float64{0: {0.9, 0.5}, 1: {0.9, 0.6}}, Rank{2, 2}, true},
	{"higher score", 0, 0.4, map[store.ID][]float64{0: {0.8}, 1: {0.9}, 2: {0.3}}, Rank{2, 2}, true},
	{"alone above", 0, 0.4, map[store.ID][]float64{0: {0.9}, 1: {0.8}, 2: {0.3}}, Rank{1, 1}, true},
	// Noisy-or over the top 3: the candidate knows two confidences, its
	// lower bound equals the answer's exact score (the answer's third
	// confidence is too small to change a float32), and the candidate's
	// third, below tau, puts it below the answer. A lower bound equal to
	// the answer's score does not put the candidate above it.
	{"lower bound at the score", 3, 1e-9, map[store.ID][]float64{0: {0.5, 0.25, 1e-8}, 1: {0.5, 0.25, 1e-10}}, Rank{1, 1}, false},
	// Noisy-or over the top 2: the answer knows exactly two confidences
	// (its score is exact) and ties in score with a candidate whose
	// tie-breakers are above it.
	{"exactly top known", 2, 0.1, map[store.ID][]float64{0: {0.5, 0.25}, 1: {0.53125, 0.2}}, Rank{2, 2}, true},
	{"lower bound above the score", 3, 1e-9, map[store.ID][]float64{0: {0.5, 0.25, 1e-8}, 1: {0.6, 0.25}}, Rank{2, 2}, true},
	// Sorted by their highest scores, 1 (.9764) comes before 2 (.9752):
	// both may reach the answer (.96875 to .9719), and 2 is above it, but 1
	// (.96 to .9764) may be below it, as it is (.962).
	{"a wide bound before a narrow one", 6, 0.1, map[store.ID][]float64{0: {0.5, 0.5, 0.5, 0.5, 0.5}, 1: {0.96, 0.05}, 2: {0.9, 0.6, 0.15, 0.1, 0.1}}, Rank{2, 2}, false},
}

// TestPrunedEdges ranks each case of prunedEdgeCases by a pruned pass
// and in full: the ranks must agree and equal want, and the pruned pass
// must decide exactly the cases marked decided.
func TestPrunedEdges(t *testing.T) {
	for _, c := range prunedEdgeCases {
		t.Run(c.name, func(t *testing.T) {
			k := relDir{1, true}
			f := &fakePruner{top: c.top, confs: map[relDir]map[store.ID]map[store.ID][]float64{k: {5: c.confs}},
				pos: map[store.ID]int32{0: 0, 1: 1, 2: 2, 5: 3}}
			q := Query{Rel: 1, Given: 5, Inverse: true, Answer: 0}
			ents := []store.ID{0, 1, 2, 5}
			decided := checkPruned(t, f, ents, []Query{q}, FilterOf([]store.Triple{q.Triple()}), c.tau)
			if got := decided > 0; got != c.decided {
				t.Errorf("decided by the pruned pass: %t, want %t", got, c.decided)
			}
			opt := Options{Entities: ents, PerQuery: true, Workers: 1}
			rep, err := EvaluateVariants(t.Context(), []Query{q}, fullScorer{f}, 1, FilterOf([]store.Triple{q.Triple()}), opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := rep[0].Ranks[0]; got != c.want {
				t.Errorf("rank %s, want %s", fmtRank(got), fmtRank(c.want))
			}
		})
	}
}

func fmtRank(r Rank) string { return fmt.Sprintf("[%d, %d]", r.L, r.H) }
