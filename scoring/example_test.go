package scoring_test

import (
	"context"
	"fmt"

	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/scoring"
	"github.com/drumql/drumql/store"
)

// Rules applied by the reasoner rank the candidates: wife(A, B) :-
// husband(B, A) answers both test queries of wife(dana, carl) first.
func ExampleNewRuleScorer() {
	ctx := context.Background()
	graph := []store.NamedTriple{{S: "alice", R: "husband", O: "bob"}, {S: "bob", R: "wife", O: "alice"},
		{S: "carl", R: "husband", O: "dana"}, {S: "erin", R: "husband", O: "fred"}}
	test := []store.NamedTriple{{S: "dana", R: "wife", O: "carl"}}
	st := store.NewMemory()
	if _, err := st.Load(ctx, &store.Batch{Graph: graph, Splits: map[string][]store.NamedTriple{"test": test}}, nil); err != nil {
		fmt.Println(err)
		return
	}
	prog, err := parser.ParseString("rules.dl", "0.9 :: wife(A, B) :- husband(B, A).")
	if err != nil {
		fmt.Println(err)
		return
	}
	qs, err := linkpred.Queries(st, "test")
	if err != nil {
		fmt.Println(err)
		return
	}
	filter, err := linkpred.NewFilterFor(st, qs)
	if err != nil {
		fmt.Println(err)
		return
	}
	rules, ents, err := scoring.NewRuleScorer(ctx, st, nil, prog, scoring.AggOverride{}, qs, filter)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := linkpred.Evaluate(ctx, qs, rules, filter, linkpred.Options{Entities: ents, BatchSize: scoring.RuleBatch})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d queries, expected MRR %.2f\n", rep.Queries, rep.Expected.MRR)
	// Output: 2 queries, expected MRR 1.00
}
