package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/mining"
	"github.com/drumql/drumql/scoring"
	"github.com/drumql/drumql/store"
)

// evalCmd is drumql eval.
type evalCmd struct {
	Data    string   `placeholder:"DIR" help:"DRUM dataset folder to evaluate on (loaded in memory; default: the store at --db)." type:"path"`
	Model   string   `placeholder:"FILE" help:"A model saved by drumql mine --save-model (with --head-groups: its manifest, each relation scored by the model of its group). With --rules too: the rules rank the candidates and the model breaks their ties." type:"path"`
	Rules   []string `placeholder:"FILE.dl" help:"Rule files applied by the reasoner, query by query."`
	Split   string   `enum:"test,valid" default:"test" help:"Split to evaluate: test or valid."`
	Combine string   `enum:",max,noisy-or,grouped,auto" default:"" help:"How the rules' confidences for a candidate combine (default: what the rule files' @aggregate directives say, max without one): max (ties broken by the next-best rules), noisy-or (over each candidate's top 5 rules), grouped (noisy-or across groups of redundant rules, max inside a group) or auto (chosen per relation on the store's valid split among what mine --aggregate auto chooses from, grouped at each threshold included, SAFRAN's combination; not with --split valid)."`
	Format  string   `enum:"table,json" default:"table" help:"Output format: table or json."`
	Limit   int      `placeholder:"N" help:"Evaluate only the first N triples of the split (for a quick look)."`
	Prior   *bool    `negatable:"" help:"With --rules: rank the candidates no rule reaches by how many facts of the query's relation they fill the asked slot of in the graph (the rule r(X, c) weighted by c's share of r), instead of leaving them tied (with --model too: after the model's score). Default: what the rule files' @aggregate directives say (prior = 1), off without one; --no-prior turns it off."`
}

// Help is shown under the command's usage.
func (evalCmd) Help() string {
	return `Filtered link prediction: for every triple (h, r, t) of the split, t is ranked
among all entities for (h, r, ?) and h for (?, r, t); the other known true
triples (facts, train, valid, test) are filtered out. Ties are reported three
ways: optimistic (the original DRUM code), pessimistic, and expected (the mean
position in the tied block: the honest number).

Examples:
  drumql eval --data examples/family --model family.model
  drumql eval --data examples/family --rules family.dl --format json`
}

func (c *evalCmd) Run(e *env) error {
	if c.Model == "" && len(c.Rules) == 0 {
		return inputErr(fmt.Errorf("eval: give --model FILE, --rules FILE.dl, or both"))
	}
	if c.Prior != nil && len(c.Rules) == 0 {
		return inputErr(fmt.Errorf("eval: --prior breaks the ties of --rules"))
	}
	if c.Combine == "auto" {
		switch {
		case c.Split == "valid":
			return inputErr(fmt.Errorf("eval: --combine auto chooses the combination on the valid split: evaluate another (--split test)"))
		case c.Model != "" || len(c.Rules) == 0:
			return inputErr(fmt.Errorf("eval: --combine auto chooses how --rules combine, without --model"))
		case c.Prior != nil:
			return inputErr(fmt.Errorf("eval: --combine auto chooses the slot prior too: drop --prior/--no-prior"))
		}
	}
	how := scoring.AggOverride{Method: strings.ReplaceAll(c.Combine, "-", "_"), Prior: c.Prior, Validated: true} // the rule files are validated when loaded
	var st store.Store
	if c.Data != "" {
		b, err := store.ReadDataset(c.Data)
		if err != nil {
			return inputErr(err)
		}
		mem := store.NewMemory()
		if _, err := mem.Load(e.ctx, b, nil); err != nil {
			return err
		}
		st = mem
	} else {
		s, err := e.openStore(true)
		if err != nil {
			return err
		}
		st = s
	}
	defer st.Close()
	start := time.Now()
	var rep *linkpred.Report
	var chosen *scoring.Chosen
	var err error
	if c.Model != "" {
		model, err := loadModel(c.Model)
		if err != nil {
			return err
		}
		g, err := miner.LoadGraph(e.ctx, st)
		if err != nil {
			return err
		}
		rep, err = evalModelLimit(e, st, g, model, c.Rules, how, c.Split, c.Limit, 0)
		if err != nil {
			return err
		}
	} else {
		rep, chosen, err = evalRules(e, st, c.Rules, c.Split, how, c.Limit)
		if err != nil {
			return err
		}
	}
	if c.Format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if chosen != nil {
			return enc.Encode(struct {
				*linkpred.Report
				Combination *scoring.Chosen `json:"combination"`
			}{rep, chosen})
		}
		return enc.Encode(rep)
	}
	if chosen != nil {
		fmt.Fprintf(e.stdout, "combination chosen on valid (%d queries): %s, %d relations their own; valid MRR %.4f\n",
			chosen.Queries, chosen.Directive, len(chosen.Relations), chosen.ValidMRR)
	}
	rep.WriteTable(e.stdout)
	if !e.cli.Quiet {
		fmt.Fprintf(e.stderr, "evaluated %d queries in %s\n", rep.Queries, time.Since(start).Round(10*time.Millisecond))
	}
	return nil
}

// splitQueries returns the queries of a split, both directions, at most
// limit triples (0: all).
func splitQueries(st store.Store, split string, limit int) ([]linkpred.Query, error) {
	qs, err := linkpred.Queries(st, split)
	if err != nil {
		return nil, inputErr(fmt.Errorf("eval: split %q: %w", split, err))
	}
	if limit > 0 && 2*limit < len(qs) {
		qs = qs[:2*limit]
	}
	return qs, nil
}

// evalModel evaluates a DRUM model on a split of st with one scorer, for
// drumql mine --eval: a scorer holds L·(T+1) entity × batch blocks, so one
// per core would take more memory than training did (the scorer runs the L
// ranks of a batch in parallel).
func evalModel(e *env, st store.Store, g *miner.Graph, model *mining.ModelSet, split string) (*linkpred.Report, error) {
	return evalModelLimit(e, st, g, model, nil, scoring.AggOverride{}, split, 0, 1)
}

// evalModelLimit evaluates a DRUM model on a split of st (the first limit
// triples when limit > 0) with at most workers scorers (0: one per core);
// with rule files, the rules rank the candidates and the model breaks their
// ties (scoring.EvaluateModel).
func evalModelLimit(e *env, st store.Store, g *miner.Graph, model *mining.ModelSet, ruleFiles []string, how scoring.AggOverride, split string, limit, workers int) (*linkpred.Report, error) {
	qs, err := splitQueries(st, split, limit)
	if err != nil {
		return nil, err
	}
	prog, err := loadRuleFlags(e, ruleFiles)
	if err != nil {
		return nil, err
	}
	rep, unseen, err := scoring.EvaluateModel(e.ctx, st, g, model.Models, model.Heads, prog, how, qs, workers)
	if err == nil && unseen > 0 {
		what := "they score 0 (unreached)"
		if prog != nil {
			what = "the rules alone rank them"
		}
		fmt.Fprintf(e.stderr, "eval: %d of the %d queries ask relations the model never learnt: %s\n", unseen, len(qs), what)
	}
	return rep, err
}

// evalRules evaluates rule files applied by the reasoner
// (scoring.EvaluateRules); with how.Method "auto", under the combination
// chosen on the store's valid split (scoring.ChooseCombination).
func evalRules(e *env, st store.Store, files []string, split string, how scoring.AggOverride, limit int) (*linkpred.Report, *scoring.Chosen, error) {
	qs, err := splitQueries(st, split, limit)
	if err != nil {
		return nil, nil, err
	}
	prog, err := loadRuleFlags(e, files)
	if err != nil {
		return nil, nil, err
	}
	var chosen *scoring.Chosen
	if how.Method == "auto" {
		if prog, chosen, err = scoring.ChooseCombination(e.ctx, st, prog); errors.Is(err, scoring.ErrNoValidSplit) {
			return nil, nil, inputErr(fmt.Errorf("eval: --combine auto: %w", err))
		} else if err != nil {
			return nil, nil, err
		}
		how = scoring.AggOverride{Validated: true}
	}
	rep, err := scoring.EvaluateRules(e.ctx, st, prog, how, qs)
	return rep, chosen, err
}
