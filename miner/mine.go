package miner

import (
	"context"
	"runtime"
	"slices"

	"github.com/drumql/drumql/internal/pkgerr"
)

// Options are the settings of Mine, the whole pipeline of `drumql mine`:
// training, the chain rules read off the model, the rules with constants
// counted on the graph, and head groups. The zero value means the defaults
// (see WithDefaults). Options encode as JSON without the fields that are not
// data (the Threads, the graph, RulesWhenStopped), so that a cluster can
// ship them to the machines that mine a group.
type Options struct {
	// Config is the training configuration. Its Heads are the head
	// relations to mine (empty: every relation); its Threads bound the
	// goroutines of the whole pipeline and never change the result.
	Config Config `json:"config"`
	// Extract are the options of the chain rules (Model.Rules). Mine sets
	// its Heads (those of the model) and Graph (g); Threads, when zero, is
	// Config.Threads.
	Extract ExtractOptions `json:"extract"`
	// Constants are the options of the rules with constants
	// (Graph.ConstantRules). Mine sets its Heads (those of the chain
	// rules) and Seed (the model's); Threads, when zero, is Config.Threads.
	Constants ConstOptions `json:"constants"`
	// NoConstants learns no rules with constants (for the inductive
	// setting, where test entities are new).
	NoConstants bool `json:"no_constants,omitempty"`
	// HeadGroups, above 1, splits the head relations into that many groups
	// balanced by training queries (HeadGroups); each group trains its own
	// model over the whole graph, and the rules of the groups are merged in
	// head order. The rules of a head are then those of Mine with
	// Config.Heads = its group. 0 or 1: one model for Config.Heads.
	HeadGroups int `json:"head_groups,omitempty"`
	// RulesWhenStopped: when ctx is cancelled during training, Mine still
	// reads the rules off the weights of that moment (under a context that
	// is not cancelled) and returns them, together with an error wrapping
	// ctx.Err(). Otherwise it returns the error at once.
	RulesWhenStopped bool `json:"-"`
}

// Result is what Mine returns.
type Result struct {
	// Groups are the head groups (Options.HeadGroups above 1) in the order
	// they were mined; nil when one model was trained.
	Groups []Group
	// Models are the trained models, one per group (one without groups).
	// After an interruption they are those of the groups mined so far, the
	// last one with the weights of the moment training stopped.
	Models []*Model
	// Rules are the rules of all the models, sorted by head relation, then
	// by decreasing weight: those ExtractRules reads off the one model, or
	// the groups' merged with MergeRules.
	Rules []MinedRule
}

// Mine trains DRUM on the graph g read from src and reads its rules off the
// model: the chain rules of Model.Rules and, unless opt.NoConstants, the
// rules with constants of Graph.ConstantRules, merged with MergeRules (see
// ExtractRules). With opt.HeadGroups above 1 it does so for every head group
// in turn. progress, if not nil, sees every training report (TrainGraph's,
// with Group and Groups set for head groups) and, after each model's
// training, a report with Trained set.
//
// When ctx is cancelled, training stops after the current batch and Mine
// returns the models trained so far (the last of its current weights) with
// an error wrapping ctx.Err(); with opt.RulesWhenStopped, their rules too.
// The groups after the interrupted one are not mined.
func Mine(ctx context.Context, src Source, g *Graph, opt Options, progress func(Progress)) (*Result, error) {
	res := &Result{}
	if opt.HeadGroups <= 1 {
		model, rules, err := mineGroup(ctx, src, g, opt, opt.Config.Heads, progress)
		res.Models, res.Rules = appendModel(res.Models, model), rules
		return res, err
	}
	groups, err := HeadGroups(src, g, opt.Config.Heads, opt.HeadGroups)
	if err != nil {
		return nil, err
	}
	res.Groups = groups
	var lists [][]MinedRule
	for k, gr := range groups {
		pk := func(p Progress) {
			p.Group, p.Groups = k+1, len(groups)
			if progress != nil {
				progress(p)
			}
		}
		model, rules, err := mineGroup(ctx, src, g, opt, gr.Heads, pk)
		res.Models = appendModel(res.Models, model)
		lists = append(lists, rules)
		if err != nil {
			res.Rules = MergeRules(lists...)
			return res, pkgerr.Newf("miner: head group %d of %d: %w", k+1, len(groups), err)
		}
	}
	res.Rules = MergeRules(lists...)
	return res, nil
}

// appendModel appends m to models unless it is nil.
func appendModel(models []*Model, m *Model) []*Model {
	if m == nil {
		return models
	}
	return append(models, m)
}

// mineGroup trains the model of heads (opt.Config with Heads = heads) and
// reads its rules off it (see Mine).
func mineGroup(ctx context.Context, src Source, g *Graph, opt Options, heads []string, progress func(Progress)) (*Model, []MinedRule, error) {
	cfg := opt.Config
	cfg.Heads = slices.Clone(heads)
	model, trainErr := TrainGraph(ctx, src, g, cfg, progress)
	if progress != nil {
		progress(Progress{Trained: true})
	}
	if trainErr != nil && (model == nil || ctx.Err() == nil || !opt.RulesWhenStopped) {
		return model, nil, trainErr
	}
	// Training's propagation blocks are garbage now. Collect them before
	// the rule step allocates: the collector would otherwise let the heap
	// grow to twice training's live heap first, and the rule step's
	// allocations would come on top of the dead blocks.
	runtime.GC()
	if trainErr != nil {
		// Stopped: the rules of the current weights are still read.
		ctx = context.WithoutCancel(ctx)
	}
	opt.Extract.Heads = heads
	rules, err := ExtractRules(ctx, g, model, opt)
	if err != nil {
		return model, nil, err
	}
	return model, rules, trainErr
}

// ExtractRules reads the rules off a trained model: the chain rules of
// model.Rules(opt.Extract), their support counted on g, and, unless
// opt.NoConstants, the rules with constants of g.ConstantRules(opt.Constants)
// for the same head relations, seeded with the model's seed; the two lists
// are merged with MergeRules. The head relations are opt.Extract.Heads,
// or when empty the model's Config.Heads (or every relation). opt.Config
// and opt.HeadGroups are not used. This is how Mine reads the rules of
// every model, and how rules are read again off a saved model with other
// options.
func ExtractRules(ctx context.Context, g *Graph, model *Model, opt Options) ([]MinedRule, error) {
	xo := opt.Extract
	xo.Graph = g
	if xo.Threads == 0 {
		xo.Threads = opt.Config.Threads
	}
	rules, err := model.Rules(xo)
	if err != nil {
		return nil, err
	}
	if opt.NoConstants {
		return rules, nil
	}
	co := opt.Constants
	co.Heads = xo.Heads
	if len(co.Heads) == 0 {
		co.Heads = model.Config().Heads
	}
	co.Seed = model.Config().Seed
	if co.Threads == 0 {
		co.Threads = opt.Config.Threads
	}
	consts, err := g.ConstantRules(ctx, co)
	if err != nil {
		return nil, err
	}
	return MergeRules(rules, consts), nil
}

// RuleStep describes the rule step of opt for EstimateMemory.
func (opt Options) RuleStep() RuleStep {
	return RuleStep{Beam: opt.Extract.Beam, Candidates: opt.Extract.Candidates, MaxRules: opt.Extract.MaxRules,
		ConstantRules: opt.Constants.PerHead, NoConstants: opt.NoConstants, Heads: len(opt.Config.Heads)}
}

// WithDefaults returns opt with the defaults of its Config, Extract and
// Constants applied; the Threads of Extract and Constants, when zero, are
// Config's.
func (opt Options) WithDefaults() Options {
	opt.Config = opt.Config.WithDefaults()
	if opt.Extract.Threads == 0 {
		opt.Extract.Threads = opt.Config.Threads
	}
	if opt.Constants.Threads == 0 {
		opt.Constants.Threads = opt.Config.Threads
	}
	opt.Extract = opt.Extract.WithDefaults()
	opt.Constants = opt.Constants.WithDefaults()
	return opt
}
