package scoring

import (
	"context"
	"fmt"
	"slices"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
)

// EvaluateModel ranks the queries qs of st with DRUM models (heads as for
// NewModelScorer) over g, st's graph, with at most workers scorers (0: one
// per core; a scorer holds L·(T+1) entity × batch blocks). With prog, the
// program's rules rank the candidates (as how says) and the models break
// their ties (HybridScorer). unseen is the number of queries over
// relations the models never learnt: without rules they score 0, with
// rules the rules alone rank them.
func EvaluateModel(ctx context.Context, st store.Store, g *miner.Graph, models []*miner.Model, heads [][]string, prog *datalog.Program, how AggOverride, qs []linkpred.Query, workers int) (rep *linkpred.Report, unseen int64, err error) {
	filter, err := linkpred.NewFilterFor(st, qs)
	if err != nil {
		return nil, 0, err
	}
	snap := g.Snapshot()
	ents := linkpred.UnionEntities(snap.Entities, filter.Entities())
	scorer := NewModelScorer(g, ents, models, heads)
	var s linkpred.Scorer = scorer
	if prog != nil {
		rules, rents, err := NewRuleScorer(ctx, st, snap, prog, how, qs, filter)
		if err != nil {
			return nil, 0, err
		}
		if !slices.Equal(rents, ents) {
			return nil, 0, fmt.Errorf("eval: the rules and the model rank different entity lists (%d and %d entities)", len(rents), len(ents))
		}
		// The hybrid applies the prior itself, after the model's score.
		s = NewHybridScorer(rules, scorer, len(ents))
	}
	rep, err = linkpred.Evaluate(ctx, qs, s, filter, linkpred.Options{Entities: ents, Workers: workers})
	if err != nil {
		return nil, 0, err
	}
	return rep, scorer.Unseen(), nil
}

// EvaluateRules ranks the queries qs of st with the rules of prog applied
// by the reasoner: every query is answered goal-directed from its given
// entity, and each candidate is scored by the aggregator over the
// confidences each rule gives it (as the program's @aggregate directives
// say, unless how overrides them).
func EvaluateRules(ctx context.Context, st store.Store, prog *datalog.Program, how AggOverride, qs []linkpred.Query) (*linkpred.Report, error) {
	filter, err := linkpred.NewFilterFor(st, qs)
	if err != nil {
		return nil, err
	}
	rs, ents, err := NewRuleScorer(ctx, st, nil, prog, how, qs, filter)
	if err != nil {
		return nil, err
	}
	return linkpred.Evaluate(ctx, qs, rs, filter, linkpred.Options{Entities: ents, BatchSize: RuleBatch})
}
