package scoring

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
)

// coverageModelQueries bounds the valid queries the model scores for the
// coverage line: enough for a share to two digits, few enough to be quick
// on a large graph.
const coverageModelQueries = 1000

// CoverageBatch is the number of queries the model scores together for the
// coverage line: a quarter of training's default batch, so that its
// propagation blocks take a quarter of the memory.
const CoverageBatch = 16

// Coverage is what the rules cover: the head relations with training
// queries that have rules, and (when the aggregation was chosen on valid)
// the share of valid queries whose answer some rule reaches, beside the
// share the model gives a nonzero score, both on Sampled valid queries
// spread over the split.
type Coverage struct {
	Covered, Heads int // heads with rules, of the heads with training queries
	// Queries is the number of valid queries the rules were applied to, and
	// Reached the share of them whose answer some rule reaches (0 when the
	// aggregation was not chosen on valid).
	Queries int
	Reached float64
	// Sampled is the number of valid queries spread over the split on
	// which the rules' share (RulesSampled) and the model's (ModelSampled)
	// are compared.
	Sampled                    int
	RulesSampled, ModelSampled float64
}

// String is the line drumql mine prints.
func (c *Coverage) String() string {
	out := fmt.Sprintf("coverage: rules for %d of the %d head relations with training queries", c.Covered, c.Heads)
	if c.Queries == 0 {
		return out + "\n"
	}
	out += fmt.Sprintf("; some rule reaches the answer of %.1f%% of the %d valid queries", 100*c.Reached, c.Queries)
	return out + fmt.Sprintf(" (on %d of them spread over the split: rules %.1f%%, the model scores the answer above 0 for %.1f%%)\n",
		c.Sampled, 100*c.RulesSampled, 100*c.ModelSampled)
}

// MeasureCoverage measures what the rules mined from st's graph g cover
// (see Coverage). models are the models trained for the rules (heads as
// for NewModelScorer); t, if not nil, is what ChooseAggregation found on
// the valid split.
func MeasureCoverage(ctx context.Context, st store.Store, g *miner.Graph, models []*miner.Model, heads [][]string, rules []miner.MinedRule, t *Tuning) (*Coverage, error) {
	ms := NewModelScorer(g, g.Snapshot().Entities, models, heads)
	split := "train"
	names, err := st.Splits()
	if err != nil {
		return nil, err
	}
	if !slices.Contains(names, "train") {
		split = ""
	}
	withQueries := map[string]bool{}
	if split != "" {
		for tr, err := range st.Split(split) {
			if err != nil {
				return nil, err
			}
			name, err := st.Name(tr.R)
			if err != nil {
				return nil, err
			}
			withQueries[name] = true
		}
	} else {
		for _, r := range g.Relations() {
			withQueries[r] = true
		}
	}
	if hs := ms.Heads(); len(hs) > 0 {
		for r := range withQueries {
			if !slices.Contains(hs, r) {
				delete(withQueries, r)
			}
		}
	}
	c := &Coverage{Heads: len(withQueries)}
	for i, r := range rules {
		if (i == 0 || rules[i-1].Head != r.Head) && withQueries[r.Head] {
			c.Covered++
		}
	}
	if t == nil || t.Queries == 0 {
		return c, nil
	}
	c.Queries, c.Reached = t.Queries, float64(len(t.Reached))/float64(t.Queries)
	qs, err := ValidQueries(st)
	if err != nil {
		return nil, err
	}
	qs = spread(qs, coverageModelQueries)
	nonzero, err := modelReach(ctx, g, ms, qs)
	if err != nil {
		return nil, err
	}
	byRules := 0
	for _, q := range qs {
		if t.Reached[q] {
			byRules++
		}
	}
	c.Sampled = len(qs)
	c.RulesSampled, c.ModelSampled = float64(byRules)/float64(len(qs)), float64(nonzero)/float64(len(qs))
	return c, nil
}

// spread returns at most n of the queries qs, evenly spaced over the list
// (qs itself when it is short enough), so that a sample does not see only
// the first relations of a split.
func spread(qs []linkpred.Query, n int) []linkpred.Query {
	if len(qs) <= n {
		return qs
	}
	out := make([]linkpred.Query, n)
	for i := range out {
		out[i] = qs[i*len(qs)/n]
	}
	return out
}

// modelReach counts the queries of qs whose answer the model scores above
// zero.
func modelReach(ctx context.Context, g *miner.Graph, ms *ModelScorer, qs []linkpred.Query) (int, error) {
	snap := g.Snapshot()
	pos := make(map[store.ID]int32, len(snap.Entities))
	for i, id := range snap.Entities {
		pos[id] = int32(i)
	}
	var n atomic.Int64
	count := linkpred.ScorerFunc(func(ctx context.Context, qs []linkpred.Query, out []linkpred.Scores) error {
		if err := ms.Score(ctx, qs, out); err != nil {
			return err
		}
		for i, q := range qs {
			if p, ok := pos[q.Answer]; ok && out[i].Dense[p] > 0 {
				n.Add(1)
			}
		}
		return nil
	})
	// One scorer (it propagates the L ranks of a batch in parallel) and
	// narrow batches: a scorer holds L·(T+1) entity × batch blocks and
	// each query a dense score vector, far more than a count over 1,000
	// queries needs, and training's memory when the graph is large.
	opt := linkpred.Options{Entities: snap.Entities, Workers: 1, BatchSize: CoverageBatch}
	if _, err := linkpred.Evaluate(ctx, qs, count, nil, opt); err != nil {
		return 0, err
	}
	return int(n.Load()), nil
}
