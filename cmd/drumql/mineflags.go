package main

import (
	"errors"
	"fmt"

	"github.com/alecthomas/kong"
	"github.com/drumql/drumql/cluster"
	"github.com/drumql/drumql/miner"
)

// minerVars are the miner's defaults, which mine's flags left out take,
// for their help (${miner_beam}, …): the library is the one source.
func minerVars() kong.Vars {
	x, k := miner.ExtractOptions{}.WithDefaults(), miner.ConstOptions{}.WithDefaults()
	v := map[string]any{
		"max_len": miner.MaxRuleLen, "len": miner.DefaultMaxLen, "rank": miner.DefaultRank, "epochs": miner.DefaultMaxEpochs,
		"batch": miner.DefaultBatch, "seed": miner.DefaultSeed, "max_fan_out": miner.DefaultMaxFanOut, "max_queries": miner.DefaultMaxQueries,
		"max_rules": x.MaxRules, "candidates": x.Candidates, "min_score": x.MinScore, "beam": x.Beam, "path_samples": x.PathSamples,
		"budget": x.SupportBudget, "head_budget": x.HeadBudget, "min_support": x.MinSupport, "smoothing": x.Smoothing,
		"const_len": k.Len, "constant_rules": k.PerHead, "per_constant": k.PerConstant, "const_min_support": k.MinSupport,
	}
	vars := kong.Vars{}
	for name, val := range v {
		vars["miner_"+name] = fmt.Sprint(val)
	}
	return vars
}

// deref is *p, or the zero value (the miner's default) when the flag was
// not given.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// validate checks mine's flags before any work: a value the miner would
// silently replace by its default (0 for a count) or reject only after the
// graph is read is a usage error naming the flag. Flags left out are nil
// (the miner's default).
func (c *mineCmd) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	// Counts of at least 1 (nil: not given).
	for _, f := range []struct {
		name string
		v    *int
		what string
	}{
		{"len", c.Len, "a rule length"},
		{"rank", c.Rank, "a rank"},
		{"epochs", c.Epochs, "a number of epochs"},
		{"batch", c.Batch, "a number of triples per batch"},
		{"constant-rules", c.ConstantRules, "a number of rules"},
		{"per-constant", c.PerConstant, "a number of rules"},
		{"budget", c.Budget, "a number of edge visits"},
		{"head-budget", c.HeadBudget, "a number of edge visits"},
		{"max-rules", c.MaxRules, "a number of rules"},
		{"candidates", c.Candidates, "a number of bodies"},
		{"beam", c.Beam, "a number of partial bodies"},
		{"head-groups", &c.HeadGroups, "a number of groups"},
	} {
		if f.v != nil && *f.v < 1 {
			bad("--%s %d: want %s of at least 1", f.name, *f.v, f.what)
		}
	}
	if c.Top < 0 {
		bad("--top %d: want a number of rules of at least 1 (0, the default, keeps them all)", c.Top)
	}
	// Counts of at least 1, or -1 to switch the bound off.
	for _, f := range []struct {
		name string
		v    *int
		what string
		off  string
	}{
		{"max-queries", c.MaxQueries, "a number of triples", "no bound"},
		{"max-fan-out", c.MaxFanOut, "a number of neighbours", "no cap"},
		{"path-samples", c.PathSamples, "a number of facts", "bodies from DRUM's attention only"},
		{"min-support", c.MinSupport, "a number of facts", "keep every rule"},
	} {
		if f.v != nil && *f.v < 1 && *f.v != -1 {
			bad("--%s %d: want %s of at least 1, or -1 for %s", f.name, *f.v, f.what, f.off)
		}
	}
	if c.Len != nil && *c.Len > miner.MaxRuleLen {
		bad("--len %d: want a rule length of at most %d", *c.Len, miner.MaxRuleLen)
	}
	if c.Seed != nil && *c.Seed == 0 {
		bad("--seed 0: want a seed of at least 1 (leave it out for the default, %d)", miner.DefaultSeed)
	}
	if c.Threads < 0 {
		bad("--threads %d: want a number of goroutines of at least 1, or 0 for all cores", c.Threads)
	}
	if c.MinScore != nil {
		// A score is a sum over the L ranks of products of attention
		// weights (each at most 1): at most L.
		L := miner.DefaultRank
		if c.Rank != nil {
			L = *c.Rank
		}
		switch x := *c.MinScore; {
		case !(x > 0):
			bad("--min-score %g: want a score in (0, %d]", x, L)
		case x > float64(L):
			bad("--min-score %g: want a score in (0, %d]: a raw DRUM score is at most the rank L = %d, so no chain rule would be kept", x, L, L)
		}
	}
	if n := c.ConstantLen; n != nil && *n != 1 && *n != 2 {
		bad("--constant-len %d: want 1 (one body atom) or 2 (also h(X, c) :- b1(X, Y), b2(Y, d).)", *n)
	}
	if !(c.Threshold > 0 && c.Threshold <= 1) {
		bad("--threshold %g: the threshold written as @min must be in (0, 1]", c.Threshold)
	}
	if c.Cluster != "" {
		if err := cluster.CheckURL(c.Cluster); err != nil {
			bad("--cluster: %w", err)
		}
	}
	if c.Expire < 0 {
		bad("--expire %s: want a positive duration", c.Expire)
	}
	if len(errs) > 0 {
		return inputErr(fmt.Errorf("mine: %w", errors.Join(errs...)))
	}
	return nil
}

// options are the mining options of the flags (miner.Mine's), the training
// configuration with its defaults applied; flags left out take the miner's
// defaults. One --min-support and one --budget apply to both kinds of
// rules.
func (c *mineCmd) options() miner.Options {
	cfg := miner.Config{MaxLen: deref(c.Len), Rank: deref(c.Rank), MaxEpochs: deref(c.Epochs), Batch: deref(c.Batch), Seed: deref(c.Seed),
		Threads: c.Threads, Heads: c.Heads, MaxQueries: deref(c.MaxQueries), MaxFanOut: deref(c.MaxFanOut)}
	if n := deref(c.Epochs); n > 0 && n < miner.DefaultMinEpochs {
		cfg.MinEpochs = n
	}
	weight := miner.WeightConfidence
	if c.Weight == "score" {
		weight = miner.WeightScore
	}
	opt := miner.Options{
		Config: cfg.WithDefaults(),
		Extract: miner.ExtractOptions{Beam: deref(c.Beam), MaxRules: deref(c.MaxRules), Candidates: deref(c.Candidates),
			MinSupport: deref(c.MinSupport), Weight: weight, SupportBudget: deref(c.Budget), PathSamples: deref(c.PathSamples),
			HeadBudget: deref(c.HeadBudget)},
		Constants: miner.ConstOptions{PerHead: deref(c.ConstantRules), PerConstant: deref(c.PerConstant),
			ByConfidence: c.ConstantsBy == "confidence", Len: deref(c.ConstantLen), MinSupport: deref(c.MinSupport), Budget: deref(c.Budget)},
		NoConstants: c.NoConstants,
	}
	if c.MinScore != nil {
		// Set: every chain rule, the path samples' too.
		opt.Extract.MinScore, opt.Extract.PathMinScore = *c.MinScore, *c.MinScore
	}
	return opt
}
