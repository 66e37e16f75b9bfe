package policy

import (
	"context"
	"fmt"
	"sync"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/combine"
	"github.com/drumql/drumql/store"
)

// The combination methods, as queries name them.
const (
	Max     = "max"
	NoisyOr = "noisy-or"
	Grouped = "grouped"
)

// Combination is how the confidences an answer has through several rules
// combine into its score.
type Combination struct {
	// Method is Max, NoisyOr or Grouped.
	Method string
	// Top is, for NoisyOr, how many of an answer's best rules count (0: all
	// of them).
	Top int
	// Overlap is, for Grouped, the Jaccard overlap of two rules'
	// predictions that links them into one group.
	Overlap float64
	// Prior is the directive's slot prior (eval ranks the candidates no
	// rule reaches by it; a query has no such candidates).
	Prior bool
	// Directive describes the @aggregate directive that chose the
	// combination, as datalog.Aggregate.Describe does; empty when it was
	// asked for.
	Directive string
}

// Combine returns the combination of the answers of a query over pred:
// the one asked for when asked is not empty (Max; NoisyOr, over all of an
// answer's rules; Grouped, at the grouped method's default overlap), else
// what prog's @aggregate directives record for pred (noisy_or(top = k):
// NoisyOr over the k best; grouped(threshold = t): Grouped at t; max or no
// directive: Max). prog may be nil.
func Combine(asked string, prog *datalog.Program, pred string) (Combination, error) {
	a := datalog.Aggregate{Method: "max"}
	if prog != nil {
		a = prog.Aggregation(pred)
	}
	switch asked {
	case "":
	case Max:
		return Combination{Method: Max}, nil
	case NoisyOr:
		return Combination{Method: NoisyOr}, nil
	case Grouped:
		return Combination{Method: Grouped, Overlap: datalog.Aggregate{Method: "grouped"}.Value("threshold")}, nil
	default:
		return Combination{}, fmt.Errorf("policy: combination %q: must be %s, %s or %s", asked, Max, NoisyOr, Grouped)
	}
	c := FromDirective(a)
	if !hasDirective(prog, pred) {
		c.Directive = ""
	}
	return c, nil
}

// hasDirective reports whether an @aggregate directive of prog applies to
// pred: one of its own, or one for every relation.
func hasDirective(prog *datalog.Program, pred string) bool {
	if prog == nil {
		return false
	}
	for _, a := range prog.Aggregates {
		if a.Pred == "" || a.Pred == pred {
			return true
		}
	}
	return false
}

// FromDirective returns the combination an @aggregate directive records:
// noisy_or(top = k) is NoisyOr over the k best rules, grouped(threshold = t)
// Grouped at overlap t, max (or any other method) Max; the slot prior as
// its prior parameter says.
func FromDirective(a datalog.Aggregate) Combination {
	c := Combination{Method: Max, Prior: a.Value("prior") == 1, Directive: a.Describe()}
	switch a.Method {
	case "noisy_or":
		c.Method, c.Top = NoisyOr, int(a.Value("top"))
	case "grouped":
		c.Method, c.Overlap = Grouped, a.Value("threshold")
	}
	return c
}

// Threshold is the threshold of an evaluation and where it comes from.
type Threshold struct {
	// Min is the threshold; 0 for none (an exact evaluation).
	Min float64
	// Source is "--min" for one asked for, "@min in FILE" for the
	// program's, or empty for none.
	Source string
}

// ResolveMin returns the threshold of an evaluation of prog (nil: none)
// with asked (0: not asked): asked when given, else the program's threshold
// (the smallest of its @min directives), else none, as the reasoner
// resolves Options.Min. Passing the resolved threshold to every evaluation
// of one query (its answers, their rescoring) makes them all apply the same
// one.
func ResolveMin(asked float64, prog *datalog.Program) Threshold {
	m := reasoner.Options{Min: asked}.WithProgram(prog).Min
	switch {
	case m <= 0:
		return Threshold{}
	case asked > 0:
		return Threshold{Min: m, Source: "--min"}
	}
	for _, t := range prog.Thresholds {
		if t.Min == m {
			return Threshold{Min: m, Source: "@min in " + t.Pos.File}
		}
	}
	return Threshold{Min: m, Source: "@min"}
}

// Policy is the query policy of one program over one state of a store: it
// holds what the rescoring of answers prepares once (the rules' groups per
// relation, the rule application that finds them). It is safe for
// concurrent use; a change to the store or the program needs a new Policy.
type Policy struct {
	st   store.Store
	prog *datalog.Program

	mu      sync.Mutex
	grouper *Grouper
	groups  map[groupKey][]int32
}

type groupKey struct {
	pred    string
	overlap float64
}

// New returns the policy of prog over st.
func New(st store.Store, prog *datalog.Program) *Policy {
	return &Policy{st: st, prog: prog, groups: map[groupKey][]int32{}}
}

// Groups returns the groups of the rules of head pred at overlap, as
// a [Grouper] finds them, prepared once per predicate and overlap.
func (p *Policy) Groups(ctx context.Context, pred string, overlap float64) ([]int32, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := groupKey{pred, overlap}
	if g, ok := p.groups[k]; ok {
		return g, nil
	}
	if rules, local, ok := Recorded(p.prog, pred, overlap, nil); ok {
		g := numberGroups(len(p.prog.Rules), rules, local)
		p.groups[k] = g
		return g, nil
	}
	if p.grouper == nil {
		eng, err := PrepareRules(ctx, p.st, p.prog, nil)
		if err != nil {
			return nil, err
		}
		p.grouper = NewGrouper(p.st, eng, p.prog)
	}
	g, err := p.grouper.Groups(ctx, pred, overlap)
	if err != nil {
		return nil, err
	}
	p.groups[k] = g
	return g, nil
}

// Rescore returns answers, the answers of q over the policy's program and
// store with opt, scored as c says, sorted best first, then by values:
// max leaves them as they are; noisy-or and grouped combine each answer's
// confidences through the rules of q's predicate, and an answer keeps its
// confidence when that is higher. stored, when not nil, is the noisy-or
// rescoring over the fixpoint the store holds for the program at opt's
// threshold: noisy-or then applies the rules once to it, and only the first
// `first` answers are rescored (first <= 0: all). Without it, the program
// is evaluated again, at opt's threshold.
func (p *Policy) Rescore(ctx context.Context, q datalog.Atom, answers []reasoner.Answer, c Combination, opt reasoner.Options, stored *combine.StoredNoisyOr, first int) ([]reasoner.Answer, error) {
	switch c.Method {
	case NoisyOr:
		if stored != nil {
			return stored.RescoreFirst(ctx, q, answers, c.Top, first)
		}
		return combine.NoisyOrTop(ctx, p.st, p.prog, q, answers, c.Top, opt)
	case Grouped:
		g, err := p.Groups(ctx, q.Pred, c.Overlap)
		if err != nil {
			return nil, err
		}
		return combine.Grouped(ctx, p.st, p.prog, q, answers, g, opt)
	}
	return answers, nil
}
