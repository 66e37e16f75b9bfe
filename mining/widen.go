package mining

import (
	"context"
	"fmt"
	"slices"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/scoring"
)

// The wide rule set's bounds (see [WideOptions]): what the rules with
// constants may grow to when the valid split says they rank better.
const (
	WideConstantRules = 5000
	WidePerConstant   = 5000
)

// WideOptions returns the options of the wide rule set of a run mined with
// opt: the path samples also propose bodies of length miner.MaxPathLen, and
// up to WideConstantRules rules with constants are kept per head relation,
// from a pool of WidePerConstant per constant (opt's own where larger). It
// reports whether they differ from opt's: when they do not, there is no
// second set to choose.
func WideOptions(opt miner.Options) (miner.Options, bool) {
	w := opt
	w.Extract = opt.Extract.WithDefaults()
	w.Constants = opt.Constants.WithDefaults()
	if w.Extract.Weight == miner.WeightConfidence && w.Extract.PathSamples > 0 {
		w.Extract.PathLen = max(w.Extract.PathLen, miner.MaxPathLen)
	}
	if !opt.NoConstants {
		w.Constants.PerHead = max(w.Constants.PerHead, WideConstantRules)
		w.Constants.PerConstant = max(w.Constants.PerConstant, WidePerConstant)
	}
	base := opt.Extract.WithDefaults()
	pathLonger := w.Extract.PathLen > max(base.PathLen, opt.Config.WithDefaults().MaxLen)
	wider := !opt.NoConstants && (w.Constants.PerHead != opt.Constants.WithDefaults().PerHead ||
		w.Constants.PerConstant != opt.Constants.WithDefaults().PerConstant)
	return w, pathLonger || wider
}

// Widening is what choosing between the run's rule set and the wide one
// found on the valid split.
type Widening struct {
	// Queries is the number of valid queries ranked.
	Queries int
	// Heads is the number of head relations; Wide those that keep the wide
	// set's rules.
	Heads, Wide int
	// BaseMRR and WideMRR are the valid MRR (expected ties) of each set
	// under its own chosen aggregation; Chosen the choice's.
	BaseMRR, WideMRR, Chosen float64
	// BaseRules and WideRules are the sizes of the two sets.
	BaseRules, WideRules int
	// BaseTuning and WideTuning are the two sets' aggregations chosen on
	// the valid split, with the ranks the choice compares.
	BaseTuning, WideTuning *scoring.Tuning
}

// Describe is the line of the mined file's header about the choice.
func (w *Widening) Describe() string {
	return fmt.Sprintf("rule sets chosen on %d valid queries: the wide set (paths of length %d, up to %d rules with constants per head) for %d of %d head relations (valid MRR %.3f; %d rules: %.3f; %d wide rules: %.3f)",
		w.Queries, miner.MaxPathLen, WideConstantRules, w.Wide, w.Heads, w.Chosen, w.BaseRules, w.BaseMRR, w.WideRules, w.WideMRR)
}

// Summary is the line drumql mine prints about the choice.
func (w *Widening) Summary() string {
	return fmt.Sprintf("wide rule set kept for %d of %d head relations (valid MRR %.3f, %d rules: %.3f; %d wide rules: %.3f)",
		w.Wide, w.Heads, w.Chosen, w.BaseRules, w.BaseMRR, w.WideRules, w.WideMRR)
}

// Widen reads a second, wider rule set off the run's models (WideOptions
// of opt, for heads as the run's were read) and keeps, for each head
// relation, the rules of the set that ranks the store's valid split better,
// each set under the aggregation scoring.ChooseAggregation chooses for it:
// per relation with at least scoring.TuneMinQueries valid queries, and the
// better set overall for the others (the run's own set among equals, and
// where neither reaches a query). It does nothing, and returns nil, for an
// interrupted run, a store without a valid split, or when the wide options
// are the run's. The rules chosen replace r.Result.Rules, and r.Widened
// records the choice.
func (r *Run) Widen(ctx context.Context, opt miner.Options, heads []string) (*Widening, error) {
	wopt, differ := WideOptions(opt)
	if !differ || r.Stopped != nil || len(r.Result.Rules) == 0 {
		return nil, nil
	}
	vq, err := scoring.ValidQueries(r.Store)
	if err != nil || len(vq) == 0 {
		return nil, err
	}
	wide, err := ReadRules(ctx, r.Graph, r.ModelSet(), heads, wopt)
	if err != nil {
		return nil, err
	}
	base := r.Result.Rules
	p, err := choosePerRelation(ctx, r, vq, base, wide.Rules)
	if err != nil {
		return nil, err
	}
	w := &Widening{Queries: len(vq), BaseMRR: p.a.Chosen, WideMRR: p.b.Chosen, Chosen: p.chosen,
		BaseRules: len(base), WideRules: len(wide.Rules), BaseTuning: p.a, WideTuning: p.b,
		Heads: CountHeads(p.rules), Wide: p.fromB}
	r.Result.Rules = p.rules
	r.Widened = w
	return w, nil
}

// perRelation is what choosePerRelation found.
type perRelation struct {
	rules  []miner.MinedRule // the merged rules
	a, b   *scoring.Tuning   // each set's aggregation chosen on valid
	chosen float64           // the valid MRR of the choice
	fromB  int               // the head relations that keep b's rules
}

// choosePerRelation merges two rule sets of the same run: each head
// relation keeps the rules of the set whose aggregation, chosen on the
// valid queries vq (scoring.ChooseAggregation), ranks its queries better:
// per relation with at least scoring.TuneMinQueries queries, and the
// better set overall for the others (a among equals, and for relations
// without valid queries unless b is better overall).
func choosePerRelation(ctx context.Context, r *Run, vq []linkpred.Query, a, b []miner.MinedRule) (*perRelation, error) {
	p, err := chooseAmong(ctx, r, vq, a, b)
	if err != nil {
		return nil, err
	}
	return &perRelation{rules: p.rules, a: p.tunings[0], b: p.tunings[1], chosen: p.chosen, fromB: p.from[1]}, nil
}

// amongSets is what chooseAmong found.
type amongSets struct {
	rules   []miner.MinedRule // the merged rules
	tunings []*scoring.Tuning // each set's aggregation chosen on valid
	chosen  float64           // the valid MRR of the choice
	from    []int             // per set, the head relations that keep its rules
}

// chooseAmong merges rule sets of the same run: each head relation keeps
// the rules of the set whose aggregation, chosen on the valid queries vq
// (scoring.ChooseAggregation), ranks its queries best: per relation with
// at least scoring.TuneMinQueries queries, and the best set overall for
// the others (the first among equals; relations without valid queries
// follow the overall choice).
func chooseAmong(ctx context.Context, r *Run, vq []linkpred.Query, sets ...[]miner.MinedRule) (*amongSets, error) {
	p := &amongSets{from: make([]int, len(sets))}
	ranks := make([][]linkpred.Rank, len(sets))
	for k, set := range sets {
		t, err := scoring.ChooseAggregation(ctx, r.Store, r.Graph, &datalog.Program{Rules: miner.DatalogRules(set)}, vq)
		if err != nil {
			return nil, err
		}
		p.tunings, ranks[k] = append(p.tunings, t), t.Ranks
	}
	c := linkpred.Choose(vq, ranks, scoring.TuneMinQueries)
	set := map[string]int{} // the set each queried head relation keeps
	for _, q := range vq {
		name, err := r.Store.Name(q.Rel)
		if err != nil {
			return nil, err
		}
		v, ok := c.PerRelation[q.Rel]
		if !ok {
			v = c.Default
		}
		set[name] = v
	}
	keep := func(k int) []miner.MinedRule {
		return slices.DeleteFunc(slices.Clone(sets[k]), func(m miner.MinedRule) bool {
			v, ok := set[m.Head]
			if !ok {
				v = c.Default // relations without valid queries
			}
			return v != k
		})
	}
	lists := make([][]miner.MinedRule, len(sets))
	for k := range sets {
		lists[k] = keep(k)
	}
	p.rules, p.chosen = miner.MergeRules(lists...), c.Chosen
	for i, m := range p.rules {
		if i == 0 || p.rules[i-1].Head != m.Head {
			v, ok := set[m.Head]
			if !ok {
				v = c.Default
			}
			p.from[v]++
		}
	}
	return p, nil
}
