package mining

import (
	"fmt"

	"github.com/drumql/drumql/miner"
)

// Settings are a mining run's settings as `drumql mine` takes them, each
// named as its flag and its key in a configuration file (Len is --len and
// "len", MaxFanOut --max-fan-out and "max-fan-out"). A nil pointer is a
// setting left out: the miner's default.
type Settings struct {
	Len, Rank, Epochs, Batch *int
	Seed                     *uint64
	Heads                    []string
	Threads                  int
	MaxFanOut, MaxQueries    *int
	MaxRules, Candidates     *int
	MinScore                 *float64
	Beam, PathSamples        *int
	PathLen                  *int
	NoConstants              bool
	ConstantLen              *int
	ConstantRules            *int
	PerConstant              *int
	ConstantsBy              string // "coverage" (the default) or "confidence"
	Budget, HeadBudget       *int
	MinSupport               *int
	Weight                   string // "confidence" (the default) or "score"
	// HeadGroups is the number of head groups (at least 1) and Top the
	// rules kept per head relation (0: all; see [Run.KeepTop]); [Settings.Options]
	// leaves both to the caller.
	HeadGroups, Top int
}

// deref is *p, or the zero value (the miner's default) when the setting was
// left out.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// Check returns what is wrong with the settings, one error a setting, in
// the order of mine's flags, each worded "NAME VALUE: want ...": a value
// the miner would silently replace by its default (0 for a count) or
// reject only after the graph is read. The caller says which flag or key
// NAME is.
func (s *Settings) Check() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	// Counts of at least 1 (nil: left out).
	for _, f := range []struct {
		name string
		v    *int
		what string
	}{
		{"len", s.Len, "a rule length"},
		{"rank", s.Rank, "a rank"},
		{"epochs", s.Epochs, "a number of epochs"},
		{"batch", s.Batch, "a number of triples per batch"},
		{"constant-rules", s.ConstantRules, "a number of rules"},
		{"per-constant", s.PerConstant, "a number of rules"},
		{"budget", s.Budget, "a number of edge visits"},
		{"head-budget", s.HeadBudget, "a number of edge visits"},
		{"max-rules", s.MaxRules, "a number of rules"},
		{"candidates", s.Candidates, "a number of bodies"},
		{"beam", s.Beam, "a number of partial bodies"},
		{"head-groups", &s.HeadGroups, "a number of groups"},
	} {
		if f.v != nil && *f.v < 1 {
			bad("%s %d: want %s of at least 1", f.name, *f.v, f.what)
		}
	}
	if s.Top < 0 {
		bad("top %d: want a number of rules of at least 1 (0, the default, keeps them all)", s.Top)
	}
	// Counts of at least 1, or -1 to switch the bound off.
	for _, f := range []struct {
		name string
		v    *int
		what string
		off  string
	}{
		{"max-queries", s.MaxQueries, "a number of triples", "no bound"},
		{"max-fan-out", s.MaxFanOut, "a number of neighbours", "no cap"},
		{"path-samples", s.PathSamples, "a number of facts", "bodies from DRUM's attention only"},
		{"min-support", s.MinSupport, "a number of facts", "keep every rule"},
	} {
		if f.v != nil && *f.v < 1 && *f.v != -1 {
			bad("%s %d: want %s of at least 1, or -1 for %s", f.name, *f.v, f.what, f.off)
		}
	}
	if s.Len != nil && *s.Len > miner.MaxRuleLen {
		bad("len %d: want a rule length of at most %d", *s.Len, miner.MaxRuleLen)
	}
	if s.Seed != nil && *s.Seed == 0 {
		bad("seed 0: want a seed of at least 1 (leave it out for the default, %d)", miner.DefaultSeed)
	}
	if s.Threads < 0 {
		bad("threads %d: want a number of goroutines of at least 1, or 0 for all cores", s.Threads)
	}
	if s.MinScore != nil {
		// A score is a sum over the L ranks of products of attention
		// weights (each at most 1): at most L.
		L := miner.DefaultRank
		if s.Rank != nil {
			L = *s.Rank
		}
		switch x := *s.MinScore; {
		case !(x > 0):
			bad("min-score %g: want a score in (0, %d]", x, L)
		case x > float64(L):
			bad("min-score %g: want a score in (0, %d]: a raw DRUM score is at most the rank L = %d, so no chain rule would be kept", x, L, L)
		}
	}
	if n := s.PathLen; n != nil && (*n < 1 || *n > miner.MaxPathLen) {
		bad("path-len %d: want a body length of 1 to %d", *n, miner.MaxPathLen)
	}
	if n := s.ConstantLen; n != nil && *n != 1 && *n != 2 {
		bad("constant-len %d: want 1 (one body atom) or 2 (also h(X, c) :- b1(X, Y), b2(Y, d).)", *n)
	}
	return errs
}

// Options are the miner's options of the settings (miner.Mine's), the
// training configuration's defaults applied; settings left out take the
// miner's defaults. One MinSupport and one Budget apply to both kinds of
// rules. HeadGroups is left 0: a run in one
// process sets it, and each job of a run on a cluster mines one group.
func (s *Settings) Options() miner.Options {
	cfg := miner.Config{MaxLen: deref(s.Len), Rank: deref(s.Rank), MaxEpochs: deref(s.Epochs), Batch: deref(s.Batch), Seed: deref(s.Seed),
		Threads: s.Threads, Heads: s.Heads, MaxQueries: deref(s.MaxQueries), MaxFanOut: deref(s.MaxFanOut)}
	if n := deref(s.Epochs); n > 0 && n < miner.DefaultMinEpochs {
		cfg.MinEpochs = n
	}
	weight := miner.WeightConfidence
	if s.Weight == "score" {
		weight = miner.WeightScore
	}
	opt := miner.Options{
		Config: cfg.WithDefaults(),
		Extract: miner.ExtractOptions{Beam: deref(s.Beam), MaxRules: deref(s.MaxRules), Candidates: deref(s.Candidates),
			MinSupport: deref(s.MinSupport), Weight: weight, SupportBudget: deref(s.Budget), PathSamples: deref(s.PathSamples),
			PathLen: deref(s.PathLen), HeadBudget: deref(s.HeadBudget)},
		Constants: miner.ConstOptions{PerHead: deref(s.ConstantRules), PerConstant: deref(s.PerConstant),
			ByConfidence: s.ConstantsBy == "confidence", Len: deref(s.ConstantLen), MinSupport: deref(s.MinSupport), Budget: deref(s.Budget)},
		NoConstants: s.NoConstants,
	}
	if s.MinScore != nil {
		// Set: every chain rule, the path samples' too.
		opt.Extract.MinScore, opt.Extract.PathMinScore = *s.MinScore, *s.MinScore
	}
	return opt
}
