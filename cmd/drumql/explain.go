package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/policy"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/remote"
	"github.com/drumql/drumql/wire"
)

// explainCmd is drumql explain.
type explainCmd struct {
	Fact    string   `arg:"" help:"A ground atom, such as \"wife(alice_ortiz, marc_ueda)\"."`
	Rules   []string `placeholder:"FILE.dl" help:"Rule files to derive the fact with (default: the proofs stored by drumql infer)."`
	Min     *float64 `placeholder:"X" help:"Drop derivations whose confidence is below X, in (0, 1], overriding the rule files' threshold. Default: the threshold the --rules files set (@min, which drumql mine writes: 0.1), and an exact evaluation when none does."`
	Format  string   `enum:"text,json" default:"text" help:"Output format: text or json."`
	Threads int      `placeholder:"N" help:"Worker goroutines (default 0: all cores)."`
}

// Help is shown under the command's usage.
func (explainCmd) Help() string {
	return `Prints the best proof of a fact as a tree: every derived fact with the rule
that derived it (file:line, weight) and its body facts, down to base facts, with
the confidence at each node. A negated literal that matched a fact shows as
"not p(...)  [1 - c]" over the proof of that fact. When the rule files record
another aggregation than max for the fact's relation (@aggregate), a line under
the tree says so: query ranks the fact by that aggregation of several rules'
derivations, while the tree is the best single derivation.

With --rules, derivations below the files' threshold (@min; --min overrides
it) are left out, and an exact evaluation is made without one; when the fact
has no proof and the threshold cut something, the error says the threshold may
be why.

Examples:
  drumql explain "wife(alice_ortiz, marc_ueda)"
  drumql explain --rules families.dl "wife(frida_varga, marc_ueda)"`
}

func (c *explainCmd) Run(e *env) error {
	minX, err := minFlag(c.Min)
	if err := errors.Join(err, checkCount("threads", c.Threads)); err != nil {
		return err
	}
	if ok, err := remote.Explain(e.ctx, e.cli.DB, remote.Fact{Text: c.Fact, Format: c.Format, Local: len(c.Rules) > 0 || c.Min != nil}, e.stdout); ok {
		return err // serve holds the store: it finds the proof
	}
	q, prog, st, err := openQuery(e, c.Fact, c.Rules)
	if err != nil {
		return err
	}
	defer st.Close()
	hintCapitalised(e.stderr, st, q.Atom)
	noteStale(e.stderr, st)
	th := policy.ResolveMin(minX, prog)
	if minX == 0 {
		warnThresholds(e.stderr, prog)
	}
	var stats reasoner.EvalStats
	p, err := reasoner.Explain(e.ctx, st, prog, q.Atom, reasoner.Options{Min: th.Min, Threads: c.Threads, Stats: &stats})
	if err != nil {
		switch {
		case errors.Is(err, reasoner.ErrNoProof):
			return noProofErr(q.Atom, prog, stats, th)
		case errors.Is(err, reasoner.ErrInvalidProgram):
			return programErr(err)
		case errors.Is(err, reasoner.ErrNotGround):
			return inputErr(fmt.Errorf("%s has variables: explain takes a fact (use query --explain for the best proof of each answer)", q.Atom))
		case errors.Is(err, reasoner.ErrUnknownPredicate):
			return inputErr(err)
		}
		return err
	}
	if c.Format == "json" {
		return writeJSON(e.stdout, wire.NewProof(p))
	}
	wire.WriteProof(e.stdout, p)
	if note := policy.ProofNote(prog, q.Atom.Pred); note != "" {
		fmt.Fprintln(e.stdout, note)
	}
	thresholdNote(e.stderr, stats, th, "derivations", "are left out")
	return nil
}

// noProofErr is explain's error for a fact without a proof: when the
// threshold cut derivations or left rules out, it says that it may be why
// and how to lower it.
func noProofErr(fact datalog.Atom, prog *datalog.Program, stats reasoner.EvalStats, th policy.Threshold) error {
	if prog == nil || len(prog.Rules)+len(prog.Facts) == 0 {
		what := "neither a base fact nor derived by the last infer"
		if th.Min > 0 {
			what += fmt.Sprintf(" with confidence >= %s", policy.FormatMin(th.Min))
		}
		return fmt.Errorf("%s does not hold: it is %s (pass the rule files with --rules to derive it)", fact, what)
	}
	if did := policy.CutText(stats); did != "" && th.Min > 0 {
		return fmt.Errorf("%s has no derivation with confidence >= %s, the threshold (%s), which %s: it may hold with a lower confidence; %s",
			fact, policy.FormatMin(th.Min), th.Source, did, strings.Replace(th.BringBack(), "brings them back", "would show it", 1))
	}
	return fmt.Errorf("%s does not hold (no derivation)", fact)
}
