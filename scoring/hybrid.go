package scoring

import (
	"context"

	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/store"
)

// HybridScorer ranks the candidates by the rules (their aggregated
// confidence) and breaks the rules' ties, among them those of the many
// candidates no rule reaches, by the model's score; the slot prior, where
// the rules' variant applies it, is the last tie-breaker.
type HybridScorer struct {
	rules sparseRules     // sparse scores; its prior, where it applies, is the last tie-breaker
	model linkpred.Scorer // dense scores over n entities
	n     int
}

// sparseRules is what a HybridScorer needs of the rules: their sparse
// scores, without the prior, and the prior of each relation.
type sparseRules interface {
	linkpred.Scorer
	// priorOf returns the slot prior that ranks relation rel's unreached
	// candidates, or nil.
	priorOf(rel store.ID) *linkpred.SlotPrior
}

// NewHybridScorer ranks by rules, then by model (dense scores over the n
// entities of the evaluation, as rules ranks them). rules then leaves the
// prior to the hybrid.
func NewHybridScorer(rules *RuleScorer, model linkpred.Scorer, n int) *HybridScorer {
	rules.hybrid = true
	return &HybridScorer{rules: rules, model: model, n: n}
}

// Score implements Scorer.
func (h *HybridScorer) Score(ctx context.Context, qs []linkpred.Query, out []linkpred.Scores) error {
	ms := make([]linkpred.Scores, len(qs))
	if err := h.model.Score(ctx, qs, ms); err != nil {
		return err
	}
	if err := h.rules.Score(ctx, qs, out); err != nil {
		return err
	}
	hit := make([]bool, h.n)
	for i, q := range qs {
		prior := h.rules.priorOf(q.Rel)
		w := 1
		if prior != nil {
			w = 2
		}
		// The key is (rule score, model score[, prior count]).
		dense := ms[i].Dense
		keys := make([]float32, w*len(dense))
		for p, m := range dense {
			keys[w*p] = m
		}
		var pents []int32
		if prior != nil {
			var counts []float32
			pents, counts = prior.Slot(q.Rel, q.Inverse)
			for k, p := range pents {
				keys[w*int(p)+1] = counts[k]
			}
		}
		key := func(p int32) []float32 { return keys[w*int(p) : w*int(p)+w : w*int(p)+w] }
		s := &out[i]
		for k := range s.Sparse {
			c := &s.Sparse[k]
			hit[c.Entity] = true
			c.Ties = key(c.Entity)
		}
		// Then the candidates only the model or only the prior reaches.
		add := func(p int32) {
			if !hit[p] {
				hit[p] = true
				s.Sparse = append(s.Sparse, linkpred.Candidate{Entity: p, Ties: key(p)})
			}
		}
		for p, m := range dense {
			if m != 0 {
				add(int32(p))
			}
		}
		for _, p := range pents {
			add(p)
		}
		for _, c := range s.Sparse {
			hit[c.Entity] = false
		}
	}
	return nil
}
