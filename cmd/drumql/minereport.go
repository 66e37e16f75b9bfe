package main

import (
	"fmt"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/report"
	"github.com/drumql/drumql/linkpred"
)

// buildReport assembles the HTML report of a mining run.
func buildReport(e *env, r *mineRun, took time.Duration) *report.Report {
	cfg, g, rules, hist, m, cov := r.cfg, r.g, r.res.Rules, r.history(), r.metrics, r.cov
	rep := &report.Report{
		Generated: time.Now().UTC().Format(time.RFC3339),
		Store:     e.cli.DB,
		Dataset:   e.cli.DB,
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
		Loss:      r.loss,
		ValidLoss: r.validLoss,
	}
	if cov != nil {
		rep.Summary = append(rep.Summary, report.KV{Name: "heads with rules", Value: fmt.Sprintf("%d of %d", cov.Covered, cov.Heads)})
		if cov.Queries > 0 {
			rep.Summary = append(rep.Summary,
				report.KV{Name: "valid queries reached by rules", Value: fmt.Sprintf("%.1f%% of %d", 100*cov.Reached, cov.Queries)},
				report.KV{Name: "reached: rules / model", Value: fmt.Sprintf("%.1f%% / %.1f%% of %d", 100*cov.RulesSampled, 100*cov.ModelSampled, cov.Sampled)})
		}
	}
	if r.stopped != nil {
		rep.Notes = append(rep.Notes, "Training was interrupted (Ctrl-C): the rules are those of the weights at that moment.")
	}
	for i, r := range rules {
		if i == 0 || r.Head != rules[i-1].Head {
			rep.Heads = append(rep.Heads, report.HeadRules{Head: datalog.QuoteName(r.Head)})
		}
		h := &rep.Heads[len(rep.Heads)-1]
		body := r.Rule
		body.Comment = ""
		body.Weight = 1
		support := -1 // not counted
		if r.Counted {
			support = r.Support
		}
		h.Rules = append(h.Rules, report.RuleRow{Text: body.String(), Weight: r.Rule.Weight, Score: r.Score, Support: support})
	}
	if m != nil {
		rep.Metrics = &report.Metrics{Split: "test", Queries: m.Queries, HeadQueries: m.HeadQueries, TailQueries: m.TailQueries,
			Optimistic: policyMetrics(&m.Optimistic), Pessimistic: policyMetrics(&m.Pessimistic), Expected: policyMetrics(&m.Expected)}
	}
	return rep
}

func policyMetrics(m *linkpred.Metrics) report.PolicyMetrics {
	conv := func(s linkpred.Summary) report.Scores {
		return report.Scores{MRR: s.MRR, MR: s.MR, Hits1: s.Hits1, Hits3: s.Hits3, Hits10: s.Hits10}
	}
	return report.PolicyMetrics{All: conv(m.Summary), Head: conv(m.Head), Tail: conv(m.Tail)}
}
