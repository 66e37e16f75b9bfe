package mining

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/report"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// Report assembles the HTML report of the run, which took took, of the
// store db (its name); examples of the best rules' groundings are looked up
// in r.Store under ctx, within a time budget.
func (r *Run) Report(ctx context.Context, db string, took time.Duration) *report.Report {
	cfg, g, rules, hist, m, cov := r.Config, r.Graph, r.Result.Rules, r.History(), r.Metrics, r.Coverage
	rep := &report.Report{
		Generated: time.Now().UTC().Format(time.RFC3339),
		Store:     db,
		Dataset:   db,
		Config: []report.KV{
			{Name: "max rule length T", Value: fmt.Sprint(cfg.MaxLen)},
			{Name: "rank L", Value: fmt.Sprint(cfg.Rank)},
			{Name: "hidden", Value: fmt.Sprint(cfg.Hidden)},
			{Name: "embedding", Value: fmt.Sprint(cfg.Embed)},
			{Name: "batch", Value: fmt.Sprint(cfg.Batch)},
			{Name: "learning rate", Value: fmt.Sprint(cfg.LR)},
			{Name: "max epochs", Value: fmt.Sprint(cfg.MaxEpochs)},
			{Name: "seed", Value: fmt.Sprint(cfg.Seed)},
		},
		Summary: []report.KV{
			{Name: "entities", Value: fmt.Sprint(g.NumEntities())},
			{Name: "relations", Value: fmt.Sprint(len(g.Relations()))},
			{Name: "epochs run", Value: fmt.Sprint(len(hist))},
			{Name: "rules", Value: fmt.Sprint(len(rules))},
			{Name: "wall time", Value: took.Round(100 * time.Millisecond).String()},
		},
		Loss:      r.Loss,
		ValidLoss: r.ValidLoss,
	}
	if cov != nil {
		rep.Summary = append(rep.Summary, report.KV{Name: "heads with rules", Value: fmt.Sprintf("%d of %d", cov.Covered, cov.Heads)})
		if cov.Queries > 0 {
			rep.Summary = append(rep.Summary,
				report.KV{Name: "valid queries reached by rules", Value: fmt.Sprintf("%.1f%% of %d", 100*cov.Reached, cov.Queries)},
				report.KV{Name: "reached: rules / model", Value: fmt.Sprintf("%.1f%% / %.1f%% of %d", 100*cov.RulesSampled, 100*cov.ModelSampled, cov.Sampled)})
		}
	}
	if r.Stopped != nil {
		rep.Notes = append(rep.Notes, "Training was interrupted (Ctrl-C): the rules are those of the weights at that moment.")
	}
	first := r.reportFirst(ctx, rep)
	ex := newExampler(ctx, r.Store)
	for lo := 0; lo < len(rules); {
		hi := lo
		for hi < len(rules) && rules[hi].Head == rules[lo].Head {
			hi++
		}
		h := report.HeadRules{Head: datalog.QuoteName(rules[lo].Head)}
		// The rules a reader sees first (those of mine --top) get an
		// example from the graph.
		shown := map[string]bool{}
		for _, t := range miner.TopRules(rules[lo:hi], reportExamples) {
			shown[t.Rule.Key()] = true
		}
		for i := lo; i < hi; i++ {
			if first[rules[i].Rule.Key()] {
				h.Top++
			}
		}
		for i := lo; i < hi; i++ {
			mr := &rules[i]
			body := mr.Rule
			body.Comment = ""
			body.Weight = 1
			row := report.RuleRow{Text: body.String(), Weight: mr.Rule.Weight, Score: mr.Score, Support: -1, Confidence: -1, First: first[mr.Rule.Key()]}
			if mr.Counted {
				row.Support, row.Confidence = mr.Support, mr.Confidence
			}
			if ex != nil && mr.Counted && mr.Support > 0 && shown[mr.Rule.Key()] {
				row.Example = ex.example(&mr.Rule)
			}
			h.Rules = append(h.Rules, row)
		}
		rep.Heads = append(rep.Heads, h)
		lo = hi
	}
	if m != nil {
		rep.Metrics = &report.Metrics{Split: "test", Queries: m.Queries, HeadQueries: m.HeadQueries, TailQueries: m.TailQueries,
			Optimistic: policyMetrics(&m.Optimistic), Pessimistic: policyMetrics(&m.Pessimistic), Expected: policyMetrics(&m.Expected)}
	}
	return rep
}

// reportTop is the number of rules per head the report lists first: those
// mine --top reportTop keeps.
const reportTop = 20

// reportFirst returns the rules the report lists first, by key: the ones
// mine --top reportTop would keep of the run's rules (KeepTop's choice:
// for a --top run, every rule it kept), or none when the choice fails (a
// note on rep says so).
func (r *Run) reportFirst(ctx context.Context, rep *report.Report) map[string]bool {
	rules := r.Result.Rules // a --top run's: what it kept
	if r.Top <= 0 || r.Top > reportTop {
		var err error
		if rules, _, _, err = r.topSets(ctx, r.Result.Rules, reportTop); err != nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("The rules mine --top %d keeps are not marked: %v", reportTop, err))
			return nil
		}
	}
	first := make(map[string]bool, len(rules))
	for _, m := range rules {
		first[m.Rule.Key()] = true
	}
	return first
}

// policyMetrics converts the metrics of one tie policy for the report.
func policyMetrics(m *linkpred.Metrics) report.PolicyMetrics {
	conv := func(s linkpred.Summary) report.Scores {
		return report.Scores{MRR: s.MRR, MR: s.MR, Hits1: s.Hits1, Hits3: s.Hits3, Hits10: s.Hits10}
	}
	return report.PolicyMetrics{All: conv(m.Summary), Head: conv(m.Head), Tail: conv(m.Tail)}
}

// reportExamples is how many rules per head, the best by support ×
// confidence, the report shows an example of.
const reportExamples = 10

// exampler finds, for the report, a grounding of a rule in the store whose
// head holds, within a time budget for the whole report.
type exampler struct {
	ctx      context.Context
	st       store.Store
	deadline time.Time
}

// exampleBudget bounds the time the report spends looking for examples,
// and exampleEach the time of one rule.
const (
	exampleBudget = 20 * time.Second
	exampleEach   = 200 * time.Millisecond
)

// newExampler returns the exampler of st, or nil without a store.
func newExampler(ctx context.Context, st store.Store) *exampler {
	if st == nil {
		return nil
	}
	return &exampler{ctx: ctx, st: st, deadline: time.Now().Add(exampleBudget)}
}

// example returns "head ⇐ body" for the first grounding of r (in the
// evaluator's order) whose head fact holds, or "" when there is none or
// the budget is spent.
func (x *exampler) example(r *datalog.Rule) string {
	if time.Now().After(x.deadline) {
		return ""
	}
	// ex(V1, ..., Vk) :- body, head: every variable of the rule is an
	// argument, so one answer is one grounding.
	var vars []datalog.Term
	seen := map[string]bool{}
	add := func(t datalog.Term) {
		if t.Kind == datalog.Var && t.Value != "_" && !seen[t.Value] {
			seen[t.Value] = true
			vars = append(vars, datalog.Term{Kind: datalog.Var, Value: t.Value})
		}
	}
	for _, t := range r.Head.Args {
		add(t)
	}
	for i := range r.Body {
		r.Body[i].Vars(add)
	}
	q := datalog.Atom{Pred: "\x00example", Args: vars}
	body := append(append([]datalog.Literal(nil), r.Body...), datalog.Literal{Kind: datalog.Positive, Atom: r.Head})
	prog := &datalog.Program{Rules: []datalog.Rule{{Weight: 1, Head: q, Body: body}}}
	ctx, cancel := context.WithTimeout(x.ctx, exampleEach)
	defer cancel()
	var values []string
	err := reasoner.QueryFunc(ctx, x.st, prog, q, reasoner.Options{Min: 1e-9, Threads: 1}, func(a reasoner.Answer) bool {
		values = slices.Clone(a.Values)
		return false
	})
	if err != nil || values == nil {
		return ""
	}
	sub := map[string]string{}
	for i, v := range vars {
		sub[v.Value] = values[i]
	}
	ground := func(a datalog.Atom) string {
		g := datalog.Atom{Pred: a.Pred}
		for _, t := range a.Args {
			if t.Kind == datalog.Var && sub[t.Value] != "" {
				t = datalog.Term{Kind: datalog.Symbol, Value: sub[t.Value]}
			}
			g.Args = append(g.Args, t)
		}
		return g.String()
	}
	var parts []string
	for _, l := range r.Body {
		if l.Kind == datalog.Positive {
			parts = append(parts, ground(l.Atom))
		}
	}
	return ground(r.Head) + " ⇐ " + strings.Join(parts, ", ")
}
