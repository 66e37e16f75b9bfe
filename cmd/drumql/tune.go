package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
)

// tuneMinQueries is the number of held-out queries a relation needs before
// it may record an aggregation of its own: fewer would choose by noise.
const tuneMinQueries = 20

// tuneCandidates are the aggregations drumql mine chooses among, simplest
// first (Choose prefers the lower index among equals).
var tuneCandidates = []datalog.Aggregate{
	{Method: "max"},
	{Method: "max", Params: []datalog.Param{{Name: "prior", Value: 1}}},
	{Method: "noisy_or", Params: []datalog.Param{{Name: "top", Value: 3}}},
	{Method: "noisy_or", Params: []datalog.Param{{Name: "top", Value: 3}, {Name: "prior", Value: 1}}},
	{Method: "noisy_or", Params: []datalog.Param{{Name: "top", Value: 10}}},
	{Method: "noisy_or", Params: []datalog.Param{{Name: "top", Value: 10}, {Name: "prior", Value: 1}}},
}

// tuning is what choosing the aggregation found.
type tuning struct {
	// Directives are the @aggregate directives to record: one for every
	// relation, then one per relation that ranks better its own way.
	Directives []datalog.Aggregate
	// Queries is the number of held-out queries ranked.
	Queries int
	// MRR is each candidate's MRR (expected ties), and Chosen the choice's.
	MRR    []float64
	Chosen float64
	// Reached holds the queries whose answer some rule reaches.
	Reached map[linkpred.Query]bool
}

// reachSet records, safely from several goroutines, the queries whose answer
// some rule reaches.
type reachSet struct {
	mu sync.Mutex
	m  map[linkpred.Query]bool
}

func (s *reachSet) add(q linkpred.Query) {
	s.mu.Lock()
	s.m[q] = true
	s.mu.Unlock()
}

// tuneAggregation applies prog's rules once to the queries qs (a held-out
// split, never test) and ranks them under every candidate aggregation
// (linkpred.EvaluateVariants): the best overall is recorded for every
// relation, and a relation with at least tuneMinQueries queries whose own
// best beats it records that one. It also counts the queries whose answer
// some rule reaches (coverage). g is the graph mined from st.
//
// Its memory is kept off the graph's size where it can be: the filter holds
// the answers of qs only, the rules read g's snapshot (no second copy, no
// hash-indexed relations), and the queries are scored one at a time
// (ruleBatch), keeping their ranks only.
func tuneAggregation(ctx context.Context, e *env, st store.Store, g *miner.Graph, prog *datalog.Program, qs []linkpred.Query) (*tuning, error) {
	filter, err := linkpred.NewFilterFor(st, qs)
	if err != nil {
		return nil, err
	}
	rs, ents, err := newRuleScorer(e, st, g.Snapshot(), prog, aggChoice{}, qs, filter)
	if err != nil {
		return nil, err
	}
	for _, a := range tuneCandidates {
		v, err := aggregatorOf(a, nil)
		if err != nil {
			return nil, err
		}
		rs.variants = append(rs.variants, v)
	}
	reached := &reachSet{m: map[linkpred.Query]bool{}}
	rs.reached = reached
	reps, err := linkpred.EvaluateVariants(ctx, qs, rs, len(rs.variants), filter,
		linkpred.Options{Entities: ents, PerQuery: true, BatchSize: ruleBatch})
	if err != nil {
		return nil, err
	}
	ranks := make([][]linkpred.Rank, len(reps))
	for v, r := range reps {
		ranks[v] = r.Ranks
	}
	c := linkpred.Choose(qs, ranks, tuneMinQueries)
	t := &tuning{Queries: len(qs), MRR: c.MRR, Chosen: c.Chosen, Reached: reached.m}
	t.Directives = append(t.Directives, tuneCandidates[c.Default])
	rels := make([]store.ID, 0, len(c.PerRelation))
	for r := range c.PerRelation {
		rels = append(rels, r)
	}
	// Directives sorted by relation name: the file is deterministic.
	slices.SortFunc(rels, func(a, b store.ID) int {
		return strings.Compare(rs.names[a], rs.names[b])
	})
	for _, r := range rels {
		a := tuneCandidates[c.PerRelation[r]]
		a.Pred = rs.names[r]
		t.Directives = append(t.Directives, a)
	}
	return t, nil
}

// describeTuning is the line drumql mine prints about the aggregation it
// chose.
func describeTuning(t *tuning) string {
	return fmt.Sprintf("aggregation %s chosen on %d valid queries (MRR %.3f; %d relations rank better their own way)",
		t.Directives[0].Describe(), t.Queries, t.Chosen, len(t.Directives)-1)
}

// tuneMaxQueries bounds the valid queries the aggregation is chosen on: a
// large valid split is thinned to every k-th triple (both directions), so
// choosing stays a matter of seconds on large graphs.
const tuneMaxQueries = 10000

// validQueries returns the queries of the store's valid split, both
// directions (at most tuneMaxQueries: every k-th triple of a larger split),
// or none when it has no valid split.
func validQueries(st store.Store) ([]linkpred.Query, error) {
	names, err := st.Splits()
	if err != nil {
		return nil, err
	}
	if !slices.Contains(names, "valid") {
		return nil, nil
	}
	qs, err := linkpred.Queries(st, "valid")
	if err != nil || len(qs) <= tuneMaxQueries {
		return qs, err
	}
	// Queries come in pairs (head, tail) of one triple: keep whole pairs.
	k := (len(qs) + tuneMaxQueries - 1) / tuneMaxQueries
	var out []linkpred.Query
	for i := 0; i+1 < len(qs); i += 2 * k {
		out = append(out, qs[i], qs[i+1])
	}
	return out, nil
}

// coverageModelQueries bounds the valid queries the model scores for the
// coverage line: enough for a share to two digits, few enough to be quick
// on a large graph.
const coverageModelQueries = 1000

// coverageBatch is the number of queries the model scores together for the
// coverage line: a quarter of training's default batch, so that its
// propagation blocks take a quarter of the memory.
const coverageBatch = 16

// coverageInfo is what the rules cover: the head relations with training
// queries that have rules, and (when the aggregation was chosen on valid)
// the share of valid queries whose answer some rule reaches, beside the
// share the model gives a nonzero score, both on Sampled valid queries
// spread over the split.
type coverageInfo struct {
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
func (c *coverageInfo) String() string {
	out := fmt.Sprintf("coverage: rules for %d of the %d head relations with training queries", c.Covered, c.Heads)
	if c.Queries == 0 {
		return out + "\n"
	}
	out += fmt.Sprintf("; some rule reaches the answer of %.1f%% of the %d valid queries", 100*c.Reached, c.Queries)
	return out + fmt.Sprintf(" (on %d of them spread over the split: rules %.1f%%, the model scores the answer above 0 for %.1f%%)\n",
		c.Sampled, 100*c.RulesSampled, 100*c.ModelSampled)
}

// coverage measures what the rules cover (see coverageInfo).
func coverage(e *env, st store.Store, g *miner.Graph, model *modelSet, rules []miner.MinedRule, t *tuning) (*coverageInfo, error) {
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
	if hs := model.configHeads(); len(hs) > 0 {
		for r := range withQueries {
			if !slices.Contains(hs, r) {
				delete(withQueries, r)
			}
		}
	}
	c := &coverageInfo{Heads: len(withQueries)}
	for i, r := range rules {
		if (i == 0 || rules[i-1].Head != r.Head) && withQueries[r.Head] {
			c.Covered++
		}
	}
	if t == nil || t.Queries == 0 {
		return c, nil
	}
	c.Queries, c.Reached = t.Queries, float64(len(t.Reached))/float64(t.Queries)
	qs, err := validQueries(st)
	if err != nil {
		return nil, err
	}
	qs = spread(qs, coverageModelQueries)
	nonzero, err := modelReach(e, st, g, model, qs)
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
func modelReach(e *env, st store.Store, g *miner.Graph, model *modelSet, qs []linkpred.Query) (int, error) {
	snap := g.Snapshot()
	pos := make(map[store.ID]int32, len(snap.Entities))
	gpos := make([]int32, len(snap.Entities))
	for i, id := range snap.Entities {
		pos[id] = int32(i)
		gpos[i] = int32(i)
	}
	ms := newSetScorer(model, g, gpos, len(snap.Entities))
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
	opt := linkpred.Options{Entities: snap.Entities, Workers: 1, BatchSize: coverageBatch}
	if _, err := linkpred.Evaluate(e.ctx, qs, count, nil, opt); err != nil {
		return 0, err
	}
	return int(n.Load()), nil
}
