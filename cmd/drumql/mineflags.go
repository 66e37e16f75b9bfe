package main

import (
	"errors"
	"fmt"

	"github.com/alecthomas/kong"
	"github.com/drumql/drumql/cluster"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/mining"
)

// minerVars are the miner's defaults, which mine's flags left out take,
// for their help (${miner_beam}, …): the library is the one source
// (mining.Defaults).
func minerVars() kong.Vars {
	vars := kong.Vars{}
	for name, val := range mining.Defaults() {
		vars["miner_"+name] = val
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
	for _, err := range c.settings().Check() {
		bad("--%w", err)
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

// settings are the mining settings of the flags.
func (c *mineCmd) settings() *mining.Settings {
	return &mining.Settings{Len: c.Len, Rank: c.Rank, Epochs: c.Epochs, Batch: c.Batch, Seed: c.Seed, Heads: c.Heads,
		Threads: c.Threads, MaxFanOut: c.MaxFanOut, MaxQueries: c.MaxQueries, MaxRules: c.MaxRules, Candidates: c.Candidates,
		MinScore: c.MinScore, Beam: c.Beam, PathSamples: c.PathSamples, PathLen: c.PathLen, NoConstants: c.NoConstants, ConstantLen: c.ConstantLen,
		ConstantRules: c.ConstantRules, PerConstant: c.PerConstant, ConstantsBy: c.ConstantsBy, Budget: c.Budget,
		HeadBudget: c.HeadBudget, MinSupport: c.MinSupport, Weight: c.Weight, HeadGroups: c.HeadGroups, Top: c.Top}
}

// options are the mining options of the flags (mining.Settings.Options).
func (c *mineCmd) options() miner.Options { return c.settings().Options() }
