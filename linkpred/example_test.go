package linkpred_test

import (
	"context"
	"fmt"

	"github.com/drumql/drumql/linkpred"
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
