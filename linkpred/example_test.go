package linkpred_test

import (
	"context"
	"fmt"

	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// A scorer that gives every entity 0 gets MRR 1 under the optimistic policy
// of the original DRUM code, but only H_4/4 under expected tie order.
func ExampleEvaluate() {
	entities := []store.ID{10, 11, 12, 13}
	zero := linkpred.ScorerFunc(func(_ context.Context, qs []linkpred.Query, out []linkpred.Scores) error {
		for i := range qs {
			out[i].SetDense(len(entities))
		}
		return nil
	})
	t := store.Triple{S: 10, R: 1, O: 11}
	qs := []linkpred.Query{linkpred.HeadQuery(t), linkpred.TailQuery(t)}
	filter := linkpred.FilterOf([]store.Triple{t})
	rep, err := linkpred.Evaluate(context.Background(), qs, zero, filter, linkpred.Options{Entities: entities})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("optimistic MRR %.4f\n", rep.Optimistic.MRR)
	fmt.Printf("expected   MRR %.4f MR %.1f\n", rep.Expected.MRR, rep.Expected.MR)
	fmt.Printf("pessimistic MRR %.4f\n", rep.Pessimistic.MRR)
	// Output:
	// optimistic MRR 1.0000
	// expected   MRR 0.5208 MR 2.5
	// pessimistic MRR 0.2500
}

// Rule predictions per candidate become ranking keys; Max breaks ties by the
// next-best rule confidences.
func ExampleMax() {
	a := linkpred.Max(nil, []linkpred.RuleConf{{Rule: 0, Conf: 0.9}, {Rule: 1, Conf: 0.5}})
	b := linkpred.Max(nil, []linkpred.RuleConf{{Rule: 2, Conf: 0.9}, {Rule: 3, Conf: 0.6}})
	fmt.Println(a, b)
	// Output: [0.9 0.5] [0.9 0.6]
}

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
	rules, ents, err := linkpred.NewRuleScorer(ctx, st, nil, prog, linkpred.AggOverride{}, qs, filter)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := linkpred.Evaluate(ctx, qs, rules, filter, linkpred.Options{Entities: ents, BatchSize: linkpred.RuleBatch})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d queries, expected MRR %.2f\n", rep.Queries, rep.Expected.MRR)
	// Output: 2 queries, expected MRR 1.00
}
