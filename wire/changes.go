package wire

import (
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/maintain"
)

// ChangedFact is a derived fact an update changed: Old is 0 for a
// fact that appeared, New 0 for one that disappeared.
type ChangedFact struct {
	Fact string `json:"fact"`
	Old  Conf   `json:"old"`
	New  Conf   `json:"new"`
}

// Update is what an update changed, the answer of POST /v1/rules and
// /v1/facts: the derived facts added, removed and re-weighted, the first of
// them (as many as the server lists), and the time the update took.
type Update struct {
	Added      int           `json:"added"`
	Removed    int           `json:"removed"`
	Reweighted int           `json:"reweighted"`
	Full       bool          `json:"recomputed"`
	Facts      []ChangedFact `json:"facts"`
	MS         float64       `json:"ms"`
	// RulesAdded and RulesRemoved count the rules of the program edit;
	// BaseAdded and BaseRemoved the base facts of a fact edit.
	RulesAdded   int `json:"rules_added,omitempty"`
	RulesRemoved int `json:"rules_removed,omitempty"`
	BaseAdded    int `json:"base_added,omitempty"`
	BaseRemoved  int `json:"base_removed,omitempty"`
	// Warnings are about the added rules: a body predicate that neither
	// the store nor the program knows (the literal never holds), as infer
	// warns.
	Warnings []string `json:"warnings,omitempty"`
	// Version is the server's state after the update (its readers' from
	// then on: a client that got this answer reads its own write).
	Version uint64 `json:"version,omitempty"`
}

// NewUpdate describes the change ch, made in took, listing at most limit of
// its changed facts.
func NewUpdate(ch maintain.Change, took time.Duration, limit int) Update {
	out := Update{Added: ch.Added, Removed: ch.Removed, Reweighted: ch.Reweighted, Full: ch.Full,
		Facts: []ChangedFact{}, MS: float64(took.Microseconds()) / 1000}
	for i, f := range ch.Facts {
		if i == limit {
			break
		}
		out.Facts = append(out.Facts, ChangedFact{Fact: factText(f.Pred, f.Args), Old: Conf(f.Old), New: Conf(f.New)})
	}
	return out
}

// factText writes a fact as a program would.
func factText(pred string, args []string) string {
	a := datalog.Atom{Pred: pred}
	for _, x := range args {
		a.Args = append(a.Args, datalog.Term{Kind: datalog.Symbol, Value: x})
	}
	return a.String()
}
