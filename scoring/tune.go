package scoring

import (
	"context"
	"slices"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/policy"
	"github.com/drumql/drumql/store"
)

// TuneMinQueries is the number of held-out queries a relation needs before
// it may record a choice of its own (an aggregation, a rule set): fewer
// would choose by noise.
const TuneMinQueries = 20

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

// tuneThresholds are the overlaps at which the grouped candidates group a
// relation's rules (SAFRAN's clustering threshold, chosen per relation):
// each is a candidate grouped(threshold = t), with and without the slot
// prior, after tuneCandidates.
var tuneThresholds = []float64{0, 0.2, 0.4, 0.6, 0.8, 1}

// candidates returns the aggregations ChooseAggregation ranks by, simplest
// first: tuneCandidates, then grouped at each of tuneThresholds, without
// and with the slot prior.
func candidates() []datalog.Aggregate {
	out := slices.Clone(tuneCandidates)
	for _, t := range tuneThresholds {
		out = append(out,
			datalog.Aggregate{Method: "grouped", Params: []datalog.Param{{Name: "threshold", Value: t}}},
			datalog.Aggregate{Method: "grouped", Params: []datalog.Param{{Name: "threshold", Value: t}, {Name: "prior", Value: 1}}})
	}
	return out
}

// Tuning is what choosing the aggregation found.
type Tuning struct {
	// Directives are the @aggregate directives to record: one for every
	// relation, then one per relation that ranks better its own way.
	Directives []datalog.Aggregate
	// Queries is the number of held-out queries ranked.
	Queries int
	// Candidates are the aggregations ranked by, simplest first.
	Candidates []datalog.Aggregate
	// MRR is each candidate's MRR (expected ties), and Chosen the choice's.
	MRR    []float64
	Chosen float64
	// Reached holds the queries whose answer some rule reaches.
	Reached map[linkpred.Query]bool
	// Groups are the @groups directives of the relations Directives rank
	// grouped: their rules' groups at their overlap, as ranking them
	// found them, for eval, query and serve to read rather than find.
	Groups []datalog.RuleGroups
	// Ranks are the ranks of the queries (in the order given) under the
	// choice: their relation's own aggregation where it has one, the
	// overall one elsewhere.
	Ranks []linkpred.Rank
}

// ChooseAggregation applies prog's rules once to the queries qs (a held-out
// split, never test) and ranks them under every candidate aggregation
// (EvaluateVariants): max, noisy-or over the top 3 and 10, and grouped at
// each of tuneThresholds (each relation's rules grouped as the query policy
// groups them, policy.Grouper, their rules applied once per relation), each
// with and without the slot prior. The best overall is recorded for every
// relation, and a relation with at least TuneMinQueries queries whose own
// best beats it records that one. It also counts the queries whose answer
// some rule reaches (coverage). g is the graph mined from st.
//
// Its memory is kept off the graph's size where it can be: the filter holds
// the answers of qs only, the rules read g's snapshot (no second copy, no
// hash-indexed relations), and the queries are scored one at a time
// (RuleBatch), keeping their ranks only.
func ChooseAggregation(ctx context.Context, st store.Store, g *miner.Graph, prog *datalog.Program, qs []linkpred.Query) (*Tuning, error) {
	return ChooseAggregationSnapshot(ctx, st, g.Snapshot(), prog, qs)
}

// ChooseAggregationSnapshot is ChooseAggregation over snap, st's snapshot
// (nil: taken), for a caller without the mined graph.
func ChooseAggregationSnapshot(ctx context.Context, st store.Store, snap *store.Snapshot, prog *datalog.Program, qs []linkpred.Query) (*Tuning, error) {
	filter, err := linkpred.NewFilterFor(st, qs)
	if err != nil {
		return nil, err
	}
	rs, ents, err := NewRuleScorer(ctx, st, snap, prog, AggOverride{}, qs, filter)
	if err != nil {
		return nil, err
	}
	cands := candidates()
	if err := rs.setCandidates(ctx, cands, qs); err != nil {
		return nil, err
	}
	reps, err := linkpred.EvaluateVariants(ctx, qs, rs, len(cands), filter,
		linkpred.Options{Entities: ents, PerQuery: true, BatchSize: RuleBatch})
	if err != nil {
		return nil, err
	}
	ranks := make([][]linkpred.Rank, len(reps))
	for v, r := range reps {
		ranks[v] = r.Ranks
	}
	c := linkpred.Choose(qs, ranks, TuneMinQueries)
	reached := map[linkpred.Query]bool{}
	for i, ok := range reps[0].Scored { // every variant: the same rules' hits
		if ok {
			reached[qs[i]] = true
		}
	}
	t := &Tuning{Queries: len(qs), Candidates: cands, MRR: c.MRR, Chosen: c.Chosen, Reached: reached, Ranks: make([]linkpred.Rank, len(qs))}
	for i, q := range qs {
		v, ok := c.PerRelation[q.Rel]
		if !ok {
			v = c.Default
		}
		t.Ranks[i] = ranks[v][i]
	}
	t.Directives = append(t.Directives, cands[c.Default])
	rels := make([]store.ID, 0, len(c.PerRelation))
	for r := range c.PerRelation {
		rels = append(rels, r)
	}
	// Directives sorted by relation name: the file is deterministic.
	slices.SortFunc(rels, func(a, b store.ID) int {
		return strings.Compare(rs.names[a], rs.names[b])
	})
	for _, r := range rels {
		a := cands[c.PerRelation[r]]
		a.Pred = rs.names[r]
		t.Directives = append(t.Directives, a)
	}
	if t.Groups, err = rs.recordGroups(ctx, prog, t.Directives); err != nil {
		return nil, err
	}
	return t, nil
}

// tunedGroups are a relation's groups at each overlap of the grouped
// candidates, as setCandidates found them.
type tunedGroups struct {
	overlaps []float64
	groups   []ruleGroups
}

// recordGroups returns the @groups directives of the relations that
// directives rank grouped, by name: every head relation of prog whose
// directive (its own, else the one for every relation) is grouped, its
// groups at the directive's overlap as the tuning found them (or, for a
// relation without valid queries, as policy.Grouper finds them).
func (r *RuleScorer) recordGroups(ctx context.Context, prog *datalog.Program, directives []datalog.Aggregate) ([]datalog.RuleGroups, error) {
	chosen := &datalog.Program{Aggregates: directives}
	var preds []string
	var overlaps []float64
	for pred := range r.heads {
		if a := chosen.Aggregation(pred); a.Method == "grouped" {
			preds = append(preds, pred)
		}
	}
	slices.Sort(preds)
	for _, pred := range preds {
		overlaps = append(overlaps, chosen.Aggregation(pred).Value("threshold"))
	}
	idx := prog.HeadRules(preds)
	out := make([]datalog.RuleGroups, len(preds))
	for i, pred := range preds {
		var rules, local []int32
		if tg, ok := r.tuned[pred]; ok && slices.Contains(tg.overlaps, overlaps[i]) {
			g := tg.groups[slices.Index(tg.overlaps, overlaps[i])]
			rules, local = g.rules, g.group
		} else {
			rs, ls, err := r.grouper.GroupsAt(ctx, pred, overlaps[i:i+1])
			if err != nil {
				return nil, err
			}
			r.grouper.Drop(pred)
			rules, local = rs, ls[0]
		}
		out[i] = policy.Record(prog, pred, overlaps[i], idx[pred], rules, local)
	}
	return out, nil
}

// setCandidates makes rs rank every query under each of cands
// (ScoreVariants): the grouped ones with the groups of the query's
// relation, found for every overlap of cands from one application of its
// rules (policy.Grouper.GroupsAt).
func (r *RuleScorer) setCandidates(ctx context.Context, cands []datalog.Aggregate, qs []linkpred.Query) error {
	var overlaps []float64
	at := map[float64]int{}
	for _, a := range cands {
		if a.Method == "grouped" {
			if _, ok := at[a.Value("threshold")]; !ok {
				at[a.Value("threshold")] = len(overlaps)
				overlaps = append(overlaps, a.Value("threshold"))
			}
		}
	}
	r.variants = make([]ruleVariant, len(cands))
	for i, a := range cands {
		if a.Method == "grouped" {
			continue // per relation
		}
		v, err := aggregatorOf(a, nil)
		if err != nil {
			return err
		}
		r.variants[i] = v
	}
	if len(overlaps) == 0 {
		return nil
	}
	r.relVariants = map[store.ID][]ruleVariant{}
	var rels []string
	var each [][]float64 // the same overlaps for every relation
	seen := map[store.ID]bool{}
	for _, q := range qs {
		if !seen[q.Rel] {
			seen[q.Rel] = true
			rels, each = append(rels, r.names[q.Rel]), append(each, overlaps)
		}
	}
	if err := r.prefetchGroups(ctx, rels, each); err != nil {
		return err
	}
	for _, q := range qs {
		if _, ok := r.relVariants[q.Rel]; ok {
			continue
		}
		rel := r.names[q.Rel]
		gs, err := r.groupsAt(ctx, rel, overlaps)
		if err != nil {
			return err
		}
		if r.tuned == nil {
			r.tuned = map[string]tunedGroups{}
		}
		r.tuned[rel] = tunedGroups{overlaps: overlaps, groups: gs}
		vs := slices.Clone(r.variants)
		for i, a := range cands {
			if a.Method != "grouped" {
				continue
			}
			v, err := aggregatorOf(a, func(t float64) (ruleGroups, error) { return gs[at[t]], nil })
			if err != nil {
				return err
			}
			vs[i] = v
		}
		r.relVariants[q.Rel] = vs
	}
	return nil
}

// tuneMaxQueries bounds the valid queries the aggregation is chosen on: a
// larger valid split is thinned to every k-th triple (both directions), so
// that choosing stays a matter of minutes on large graphs. It holds
// FB15k-237's whole valid split (35,070 queries): per relation, more
// queries let more relations choose their own way, and by less noise.
const tuneMaxQueries = 40000

// ValidQueries returns the queries of the store's valid split, both
// directions (at most tuneMaxQueries: every k-th triple of a larger split),
// or none when it has no valid split.
func ValidQueries(st store.Store) ([]linkpred.Query, error) {
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
