package scoring

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/internal/workpool"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/policy"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// ruleVariant is one way of ranking a query's candidates from its rules'
// confidences: an aggregator, and whether the slot prior ranks the
// candidates no rule reaches.
type ruleVariant struct {
	agg   linkpred.Aggregator
	red   linkpred.Reduction     // agg as a reduction, or nil
	lazy  linkpred.LazyReduction // red from unsorted confidences, or nil
	prior bool
	desc  datalog.Aggregate // what it is, for messages and directives
	// top is how many confidences the score combines: 0 for max (the
	// best), k for noisy-or over the k best, -1 for all of them.
	top int
}

// RuleBatch is the number of queries per Score call when rules alone rank
// them. A batch only shares the work of a model's attention: the rules
// answer each query on its own, and every query of a batch holds its
// candidate lists (one per variant, up to every entity each) until the
// batch is ranked, so one query at a time keeps that memory to one query's
// worth per worker. The ranks do not depend on it.
const RuleBatch = 1

// AggOverride overrides the @aggregate directives of a program: Method
// ("max", "noisy_or" or "grouped"; empty: the directives'), and Prior (nil:
// the directives'). Validated says that the caller validated the program
// (reasoner.Options.Validated: it is not validated again).
type AggOverride struct {
	Method    string
	Prior     *bool
	Validated bool
}

// NewRuleScorer prepares the program's rules, applied by the reasoner to
// st's base facts, for the queries qs and returns the scorer with its
// entity list (the graph's and filter's entities, for Options.Entities):
// every query is answered goal-directed from its given entity, and each
// candidate is scored by an aggregator over the confidences each rule
// gives it. Each relation is ranked as the program's @aggregate directives
// say, unless how overrides them; the slot prior, where it applies, ranks
// the candidates no rule reaches. The grouped aggregator groups a
// relation's rules as the query policy does (policy.Grouper: by their
// predictions on the relation's group triples, never on qs, so that
// eval, query and serve group them alike). snap is st's snapshot
// when the caller holds one (nil: take it). Score one query per call
// (Options.BatchSize RuleBatch) to keep the memory of the candidate lists
// to one query's per worker.
func NewRuleScorer(ctx context.Context, st store.Store, snap *store.Snapshot, prog *datalog.Program, how AggOverride, qs []linkpred.Query, filter *linkpred.Filter) (*RuleScorer, []store.ID, error) {
	if snap == nil {
		var err error
		if snap, err = st.Snapshot(ctx); err != nil {
			return nil, nil, err
		}
	}
	ents := linkpred.UnionEntities(snap.Entities, filter.Entities())
	rs := &RuleScorer{eng: nil, pos: newEntityPos(ents), names: map[store.ID]string{}, byRel: map[store.ID]ruleVariant{}, heads: map[string]int{}}
	for _, r := range prog.Rules {
		rs.heads[r.Head.Pred]++
	}
	for _, q := range qs {
		for _, id := range []store.ID{q.Rel, q.Given} {
			if _, ok := rs.names[id]; !ok {
				name, err := st.Name(id)
				if err != nil {
					return nil, nil, err
				}
				rs.names[id] = name
			}
		}
	}
	rs.slot = linkpred.NewSlotPrior(snap, ents)
	var err error
	rs.eng, err = reasoner.Prepare(ctx, st, prog, reasoner.Options{Min: reasoner.RankMin, BaseOnly: true, Snapshot: snap, LazyLoad: true, Validated: how.Validated})
	if err != nil {
		return nil, nil, err
	}
	// variantOf is the variant of directive a for relation rel; grouped
	// groups rel's rules as the query policy does (policy.Grouper: by their
	// predictions on rel's group triples, never on qs).
	rs.grouper = policy.NewGrouper(st, rs.eng, prog)
	rs.nrules = len(prog.Rules)
	override := func(a datalog.Aggregate) datalog.Aggregate {
		switch how.Method {
		case "max":
			a = datalog.Aggregate{Method: "max", Params: a.Params}
		case "noisy_or":
			a = datalog.Aggregate{Method: "noisy_or", Params: []datalog.Param{{Name: "prior", Value: a.Value("prior")}}}
		case "grouped":
			a = datalog.Aggregate{Method: "grouped", Params: []datalog.Param{{Name: "prior", Value: a.Value("prior")}}}
		}
		if how.Prior != nil {
			p := 0.0
			if *how.Prior {
				p = 1
			}
			a.Params = append(slices.DeleteFunc(slices.Clone(a.Params), func(p datalog.Param) bool { return p.Name == "prior" }),
				datalog.Param{Name: "prior", Value: p})
		}
		return a
	}
	variantOf := func(a datalog.Aggregate, rel string) (ruleVariant, error) {
		return aggregatorOf(override(a), func(threshold float64) (ruleGroups, error) {
			gs, err := rs.groupsAt(ctx, rel, []float64{threshold})
			if err != nil {
				return ruleGroups{}, err
			}
			return gs[0], nil
		})
	}
	if rs.def, err = variantOf(prog.Aggregation(""), ""); err != nil {
		return nil, nil, err
	}
	// The grouped relations' groups, found on every core before the
	// variants take them in order.
	var rels []string
	var overlaps [][]float64
	seen := map[store.ID]bool{}
	for _, q := range qs {
		if seen[q.Rel] {
			continue
		}
		seen[q.Rel] = true
		name := rs.names[q.Rel]
		if c := policy.FromDirective(override(prog.Aggregation(name))); c.Method == policy.Grouped {
			rels, overlaps = append(rels, name), append(overlaps, []float64{c.Overlap})
		}
	}
	if err := rs.prefetchGroups(ctx, rels, overlaps); err != nil {
		return nil, nil, err
	}
	for _, q := range qs {
		if _, ok := rs.byRel[q.Rel]; ok {
			continue
		}
		a := prog.Aggregation(rs.names[q.Rel])
		if a.Pred == "" && a.Method != "grouped" && how.Method != "grouped" {
			rs.byRel[q.Rel] = rs.def
			continue
		}
		v, err := variantOf(a, rs.names[q.Rel])
		if err != nil {
			return nil, nil, err
		}
		rs.byRel[q.Rel] = v
	}
	return rs, ents, nil
}

// aggregatorOf turns an @aggregate directive into a ranking variant, with
// the meaning the query policy gives it (policy.FromDirective); group
// returns the rule groups of the grouped method for an overlap.
func aggregatorOf(a datalog.Aggregate, group func(overlap float64) (ruleGroups, error)) (ruleVariant, error) {
	if _, ok := datalog.AggregateMethods[a.Method]; !ok {
		return ruleVariant{}, pkgerr.Newf("linkpred: unknown aggregation %q", a.Method)
	}
	c := policy.FromDirective(a)
	v := ruleVariant{prior: c.Prior, desc: a}
	switch c.Method {
	case policy.Max:
		v.agg, v.red, v.lazy = linkpred.Max, linkpred.MaxReduction, linkpred.MaxLazy
	case policy.NoisyOr:
		top := c.Top
		v.agg, v.red, v.lazy = linkpred.NoisyOr(top), linkpred.NoisyOrReduction(top), linkpred.NoisyOrLazy(top)
		v.top = top
		if top <= 0 {
			v.top = -1
		}
	case policy.Grouped:
		if group == nil {
			return v, pkgerr.Newf("linkpred: grouped aggregation needs the rules' groups")
		}
		g, err := group(c.Overlap)
		if err != nil {
			return v, err
		}
		v.agg, v.top = linkpred.GroupedNoisyOrBy(g.key), g.count
	}
	return v, nil
}

// ruleGroups are the groups of one relation's rules at one overlap (see
// policy.Grouper.GroupsAt): rules are the rules with a prediction, in
// order, group[k] the group of rules[k]; every other rule is a group of
// its own. slot, shared by every relation of a scorer, maps a rule to its
// position in its relation's rules.
type ruleGroups struct {
	rules []int32
	group []int32
	slot  []int32
	// count is the number of groups of the relation's rules, a bound on
	// the confidences a candidate's key combines (RuleScorer.PruneTop); -1
	// when unknown.
	count int
}

// key returns the group key of rule: the same for two rules exactly when
// they are in one group.
func (g ruleGroups) key(rule int32) int64 {
	if rule >= 0 && int(rule) < len(g.slot) {
		k := g.slot[rule]
		if k < 0 {
			return -1 - int64(rule) // in no relation's rules: alone
		}
		if int(k) < len(g.rules) && g.rules[k] == rule {
			return int64(g.group[k])
		}
	}
	if k, ok := slices.BinarySearch(g.rules, rule); ok {
		return int64(g.group[k])
	}
	return -1 - int64(rule)
}

// foundGroups are a relation's groups as policy.Grouper.GroupsAt returns
// them, found ahead (RuleScorer.prefetchGroups).
type foundGroups struct {
	overlaps []float64
	rules    []int32
	local    [][]int32
}

// prefetchGroups finds the groups of each relation rels[i] at overlaps[i]
// on every core (policy.Grouper is safe for concurrent use, each relation
// grouped by one goroutine), dropping each one's sketches once grouped,
// for groupsAt to take. The groups do not depend on the order.
func (r *RuleScorer) prefetchGroups(ctx context.Context, rels []string, overlaps [][]float64) error {
	found := make([]foundGroups, len(rels))
	errs := make([]error, len(rels))
	workpool.Run(runtime.GOMAXPROCS(0), len(rels), func(_, i int) bool {
		rules, local, err := r.grouper.GroupsAt(ctx, rels[i], overlaps[i])
		r.grouper.Drop(rels[i])
		found[i], errs[i] = foundGroups{overlaps: overlaps[i], rules: rules, local: local}, err
		return err == nil
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if r.found == nil {
		r.found = map[string]foundGroups{}
	}
	for i, rel := range rels {
		r.found[rel] = found[i]
	}
	return nil
}

// groupsAt returns the groups of rel's rules at each overlap (policy
// Grouper.GroupsAt), each rule application done once per relation: those
// prefetchGroups found when it found them at these overlaps.
func (r *RuleScorer) groupsAt(ctx context.Context, rel string, overlaps []float64) ([]ruleGroups, error) {
	f, ok := r.found[rel]
	if ok && slices.Equal(f.overlaps, overlaps) {
		delete(r.found, rel)
	} else {
		var err error
		if f.rules, f.local, err = r.grouper.GroupsAt(ctx, rel, overlaps); err != nil {
			return nil, err
		}
	}
	rules, local := f.rules, f.local
	if r.ruleSlot == nil {
		r.ruleSlot = make([]int32, r.nrules)
		for i := range r.ruleSlot {
			r.ruleSlot[i] = -1
		}
	}
	for k, rule := range rules {
		if r.ruleSlot[rule] < 0 {
			r.ruleSlot[rule] = int32(k)
		}
	}
	out := make([]ruleGroups, len(overlaps))
	for t, group := range local {
		count := -1
		if n := r.heads[rel]; n >= len(rules) {
			distinct := map[int32]bool{}
			for _, g := range group {
				distinct[g] = true
			}
			count = max(n-len(rules)+len(distinct), 1)
		}
		out[t] = ruleGroups{rules: rules, group: group, slot: r.ruleSlot, count: count}
	}
	return out, nil
}

// entityPos maps a symbol id to its position in an entity list, or -1. A
// slice indexed by the id: the store's ids are dense (the symbols in order
// of interning), and a map of a million entities cost more, looked up
// once per candidate of every query, than applying the rules.
type entityPos []int32

func newEntityPos(ents []store.ID) entityPos {
	n := 0
	for _, id := range ents {
		n = max(n, int(id)+1)
	}
	p := make(entityPos, n)
	for i := range p {
		p[i] = -1
	}
	for i, id := range ents {
		p[id] = int32(i)
	}
	return p
}

// of returns id's position, or -1 when id is not in the list.
func (p entityPos) of(id store.ID) int32 {
	if int(id) >= len(p) {
		return -1
	}
	return p[id]
}

// RuleScorer ranks candidates by the reasoner's per-rule scores: a Scorer
// (each relation ranked by its variant, see NewRuleScorer) and a
// VariantScorer (every query ranked by each of its variants, see
// ChooseAggregation).
type RuleScorer struct {
	eng      *reasoner.Engine
	pos      entityPos
	names    map[store.ID]string
	slot     *linkpred.SlotPrior
	def      ruleVariant
	byRel    map[store.ID]ruleVariant
	variants []ruleVariant // for ScoreVariants
	// relVariants, for ScoreVariants, replaces variants for a relation
	// (its grouped variants need its own groups).
	relVariants map[store.ID][]ruleVariant
	grouper     *policy.Grouper
	found       map[string]foundGroups // see prefetchGroups
	tuned       map[string]tunedGroups // see setCandidates
	nrules      int                    // the program's rules
	ruleSlot    []int32                // see ruleGroups.slot
	hybrid      bool                   // a HybridScorer applies the prior itself
	heads       map[string]int         // the number of rules of each head predicate
}

// variant returns the ranking variant of relation rel.
func (r *RuleScorer) variant(rel store.ID) ruleVariant {
	if v, ok := r.byRel[rel]; ok {
		return v
	}
	return r.def
}

func (r *RuleScorer) priorOf(rel store.ID) *linkpred.SlotPrior {
	if r.variant(rel).prior {
		return r.slot
	}
	return nil
}

// hitsAbove calls fn with the rules' evidence of at least min (see
// reasoner.Engine.EachRuleHitAbove) for each candidate of q. linkpred's
// Inverse is tail prediction (Given, Rel, ?): the given entity is the head's
// first argument, which EachRuleHit calls inverse=false.
func (r *RuleScorer) hitsAbove(ctx context.Context, q linkpred.Query, min float64, fn func(id store.ID, hits []reasoner.RuleScore)) error {
	return r.eng.EachRuleHitAbove(ctx, r.names[q.Rel], r.names[q.Given], !q.Inverse, min, fn)
}

// Score implements Scorer.
func (r *RuleScorer) Score(ctx context.Context, qs []linkpred.Query, out []linkpred.Scores) error {
	return r.score(ctx, qs, [][]linkpred.Scores{out}, r.variantAt, 0)
}

// ScoreVariants ranks every query under each of r.variants.
func (r *RuleScorer) ScoreVariants(ctx context.Context, qs []linkpred.Query, out [][]linkpred.Scores) error {
	return r.score(ctx, qs, out, r.variantAt, 0)
}

// variantAt is variant v of q: r.variants[v] when r ranks by variants (a
// VariantScorer, see ChooseAggregation), else the variant of q's relation
// (a Scorer, whose only variant is 0).
func (r *RuleScorer) variantAt(v int, q linkpred.Query) ruleVariant {
	if vs, ok := r.relVariants[q.Rel]; ok {
		return vs[v]
	}
	if r.variants != nil {
		return r.variants[v]
	}
	return r.variant(q.Rel)
}

// PruneTop implements linkpred.Pruner: max's score is the best
// confidence, noisy-or's combines the top k, and noisy-or over all of them
// or across groups combines at most one per rule of the head.
func (r *RuleScorer) PruneTop(v int, q linkpred.Query) (int, bool) {
	top := r.variantAt(v, q).top
	if top < 0 {
		top = max(r.heads[r.names[q.Rel]], 1)
	}
	return top, !r.hybrid
}

// ScorePruned implements linkpred.Pruner: q's candidates scored from the
// rules' confidences of at least tau alone, which the reasoner finds
// without walking the rules that cannot give tau (EachRuleHitAbove). It
// declines a tau no higher than the threshold of the full scores
// (reasoner.RankMin), and a HybridScorer's rules.
func (r *RuleScorer) ScorePruned(ctx context.Context, q linkpred.Query, tau float64, out []linkpred.Scores) (bool, error) {
	if r.hybrid || !(tau > reasoner.RankMin) {
		return false, nil
	}
	outs := make([][]linkpred.Scores, len(out))
	for v := range out {
		outs[v] = out[v : v+1]
	}
	return true, r.score(ctx, []linkpred.Query{q}, outs, func(v int, q linkpred.Query) ruleVariant {
		rv := r.variantAt(v, q)
		rv.prior = false
		return rv
	}, tau)
}

// bestScratch holds the scratch memory of RuleScorer.score's calls, which
// run concurrently.
var bestScratch = sync.Pool{New: func() any { return new(linkpred.BestScratch) }}

// score fills outs[v][i] with the scores of qs[i] under variant(v, qs[i]),
// from the rules' confidences of at least min (0: all of them).
func (r *RuleScorer) score(ctx context.Context, qs []linkpred.Query, outs [][]linkpred.Scores, variant func(v int, q linkpred.Query) ruleVariant, min float64) error {
	var conf []linkpred.RuleConf
	var best []float32
	bs := bestScratch.Get().(*linkpred.BestScratch)
	defer bestScratch.Put(bs)
	vrs := make([]ruleVariant, len(outs))
	// Each variant takes the cheapest path its aggregator has: lazy (its
	// candidates' confidences sorted only if the ranking compares them; not
	// for a HybridScorer, which replaces the tie-breakers), a reduction of
	// the best confidence per rule, or the aggregator over every hit.
	const (
		pathLazy = iota
		pathReduce
		pathRules
	)
	paths := make([]int, len(outs))
	for i, q := range qs {
		anyLazy, anyReduce := false, false
		for v := range outs {
			vrs[v] = variant(v, q)
			switch {
			case vrs[v].lazy != nil && !r.hybrid:
				paths[v], anyLazy = pathLazy, true
			case vrs[v].red != nil:
				paths[v], anyReduce = pathReduce, true
			default:
				paths[v] = pathRules
			}
		}
		err := r.hitsAbove(ctx, q, min, func(id store.ID, hits []reasoner.RuleScore) {
			p := r.pos.of(id)
			if p < 0 {
				return
			}
			conf = conf[:0]
			for _, h := range hits {
				conf = append(conf, linkpred.RuleConf{Rule: h.Rule, Conf: float32(h.Score)})
			}
			if anyLazy {
				best = bs.Distinct(best[:0], conf)
				for v, out := range outs {
					if paths[v] == pathLazy {
						score, ties := vrs[v].lazy(best)
						out[i].AddLazy(p, score, ties)
					}
				}
			}
			if anyReduce {
				// The lazy variants copied their ties: best may be re-sorted.
				best = bs.BestPerRule(best[:0], conf)
			}
			for v, out := range outs {
				switch paths[v] {
				case pathReduce:
					out[i].AddBest(vrs[v].red, p, best)
				case pathRules:
					out[i].AddRules(vrs[v].agg, p, conf)
				}
			}
		})
		if err != nil {
			return err
		}
		for v, out := range outs {
			if vrs[v].prior && !r.hybrid {
				r.slot.Extend(q, &out[i])
			}
		}
	}
	return nil
}
