package scoring

import (
	"context"
	"errors"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// ErrNoValidSplit is the error of ChooseCombination over a store without
// a valid split.
var ErrNoValidSplit = errors.New("the store has no valid split to choose on")

// Chosen is what ChooseCombination chose, as drumql eval --combine auto
// reports it (JSON).
type Chosen struct {
	// Directive is the one for every relation (datalog.Aggregate.Describe).
	Directive string `json:"directive"`
	// Relations are the relations with one of their own: name to
	// directive.
	Relations map[string]string `json:"relations"`
	// Queries is the number of valid queries it was chosen on, ValidMRR
	// the MRR (expected ties) of the choice on them.
	Queries  int     `json:"valid_queries"`
	ValidMRR float64 `json:"valid_mrr"`
	// Candidates are the valid MRR of every candidate, applied to every
	// relation.
	Candidates []CandidateMRR `json:"candidates"`
}

// CandidateMRR is one candidate combination and its valid MRR.
type CandidateMRR struct {
	Directive string  `json:"directive"`
	ValidMRR  float64 `json:"valid_mrr"`
}

// ChooseCombination chooses on st's valid split how prog's rules combine,
// per relation, as drumql mine --aggregate auto does
// (ChooseAggregationSnapshot over ValidQueries), and returns a copy of
// prog whose @aggregate directives are the choice, with what was chosen.
// Without a valid split it returns ErrNoValidSplit.
func ChooseCombination(ctx context.Context, st store.Store, prog *datalog.Program) (*datalog.Program, *Chosen, error) {
	vq, err := ValidQueries(st)
	if err != nil {
		return nil, nil, err
	}
	if len(vq) == 0 {
		return nil, nil, ErrNoValidSplit
	}
	t, err := ChooseAggregationSnapshot(ctx, st, nil, prog, vq)
	if err != nil {
		return nil, nil, err
	}
	c := &Chosen{Directive: t.Directives[0].Describe(), Relations: map[string]string{}, Queries: t.Queries, ValidMRR: t.Chosen}
	for _, a := range t.Directives[1:] {
		c.Relations[a.Pred] = a.Describe()
	}
	for i, a := range t.Candidates {
		c.Candidates = append(c.Candidates, CandidateMRR{a.Describe(), t.MRR[i]})
	}
	p := *prog
	p.Aggregates, p.RuleGroups = t.Directives, t.Groups
	return &p, c, nil
}
