package scoring

import (
	"context"
	"fmt"
	"testing"

	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/store"
)

// TestHybridScorerKeys: with rules and a model, a candidate's key is (rule
// score; model score, then the prior's count when asked), and candidates
// that only the model or only the prior reaches are listed with score 0.
func TestHybridScorerKeys(t *testing.T) {
	rules := linkpred.ScorerFunc(func(_ context.Context, qs []linkpred.Query, out []linkpred.Scores) error {
		for i := range qs {
			out[i].AddRules(linkpred.Max, 0, []linkpred.RuleConf{{Rule: 0, Conf: .5}})
		}
		return nil
	})
	model := linkpred.ScorerFunc(func(_ context.Context, qs []linkpred.Query, out []linkpred.Scores) error {
		for i := range qs {
			copy(out[i].SetDense(4), []float32{.1, 0, 0, .2})
		}
		return nil
	})
	// Relation 7: entity 11 is the object of one fact, entity 12 of five;
	// they are the candidates at positions 1 and 2.
	snap := &store.Snapshot{Entities: []store.ID{11, 12}, Relations: []store.ID{7},
		In:  []store.CSR{{RowPtr: []int32{0, 1, 6}, Col: make([]int32, 6)}},
		Out: []store.CSR{{RowPtr: []int32{0, 0, 0}}}}
	prior := linkpred.NewSlotPrior(snap, []store.ID{10, 11, 12, 13})
	q := []linkpred.Query{{Rel: 7, Given: 9, Inverse: true}}
	for _, tc := range []struct {
		prior *linkpred.SlotPrior
		want  map[int32][]float32 // entity -> score, ties...
	}{
		{nil, map[int32][]float32{0: {.5, .1}, 3: {0, .2}}},
		{prior, map[int32][]float32{0: {.5, .1, 0}, 3: {0, .2, 0}, 1: {0, 0, 1}, 2: {0, 0, 5}}},
	} {
		h := &HybridScorer{rules: fixedPrior{rules, tc.prior}, model: model, n: 4}
		out := make([]linkpred.Scores, 1)
		if err := h.Score(context.Background(), q, out); err != nil {
			t.Fatal(err)
		}
		got := map[int32][]float32{}
		for _, c := range out[0].Sparse {
			if _, dup := got[c.Entity]; dup {
				t.Errorf("entity %d listed twice", c.Entity)
			}
			got[c.Entity] = append([]float32{c.Score}, c.Ties...)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("prior=%v: keys %v, want %v", tc.prior != nil, got, tc.want)
		}
	}
}

// fixedPrior gives a scorer one prior for every relation.
type fixedPrior struct {
	linkpred.Scorer
	prior *linkpred.SlotPrior
}

func (f fixedPrior) priorOf(store.ID) *linkpred.SlotPrior { return f.prior }
