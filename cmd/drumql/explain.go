package main

import (
	"errors"
	"fmt"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner"
)

// explainCmd is drumql explain.
type explainCmd struct {
	Fact    string   `arg:"" help:"A ground atom, such as \"wife(alice_ortiz, marc_ueda)\"."`
	Rules   []string `placeholder:"FILE.dl" help:"Rule files to derive the fact with (default: the proofs stored by drumql infer)."`
	Min     float64  `default:"0.1" placeholder:"X" help:"Drop derivations whose confidence is below X, in (0, 1] (default 0.1, as infer)."`
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

Examples:
  drumql explain "wife(alice_ortiz, marc_ueda)"
  drumql explain --rules families.dl "wife(frida_varga, marc_ueda)"`
}

func (c *explainCmd) Run(e *env) error {
	if err := errors.Join(checkMin(c.Min), checkCount("threads", c.Threads)); err != nil {
		return err
	}
	q, prog, st, err := openQuery(e, c.Fact, c.Rules)
	if err != nil {
		return err
	}
	defer st.Close()
	check := prog
	if check == nil {
		check = &datalog.Program{}
	}
	hintCapitalised(e.stderr, st, q.Atom)
	p, err := reasoner.Explain(e.ctx, st, prog, q.Atom, reasoner.Options{Min: c.Min, Threads: c.Threads})
	if err != nil {
		switch {
		case errors.Is(err, reasoner.ErrNoProof):
			return fmt.Errorf("%s does not hold (no derivation with confidence >= %g)", q.Atom, c.Min)
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
		return writeJSON(e.stdout, newJSONProof(p))
	}
	printProof(e.stdout, p)
	if a := check.Aggregation(q.Atom.Pred); a.Method != "max" {
		fmt.Fprintf(e.stdout, "note: the rule files rank %s facts by %s over several rules' derivations; this is the best single derivation\n",
			datalog.QuoteName(q.Atom.Pred), a.Describe())
	}
	return nil
}
