package combine_test

import (
	"context"
	"fmt"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/combine"
	"github.com/drumql/drumql/store"
)

func Example() {
	ctx := context.Background()
	st := store.NewMemory()
	if _, err := st.Load(ctx, &store.Batch{Graph: []store.NamedTriple{
		{S: "ann", R: "colleague", O: "bea"},
		{S: "ann", R: "neighbour", O: "bea"},
		{S: "ann", R: "colleague", O: "cid"},
	}}, nil); err != nil {
		panic(err)
	}
	prog, err := parser.ParseString("friends.dl", `
0.6 :: friend(X, Y) :- colleague(X, Y).
0.5 :: friend(X, Y) :- neighbour(X, Y).
`)
	if err != nil {
		panic(err)
	}
	q, _ := parser.ParseQuery("friend(ann, Y)?")
	// Max-product keeps each answer's best derivation ...
	answers, err := reasoner.Query(ctx, st, prog, q.Atom, reasoner.Options{})
	if err != nil {
		panic(err)
	}
	for _, a := range answers {
		fmt.Println("max", a.Values, a.Confidence)
	}
	// ... noisy-or combines the rules that derive it: 1 - 0.4·0.5 for bea.
	rescored, err := combine.NoisyOr(ctx, st, prog, q.Atom, answers, reasoner.Options{})
	if err != nil {
		panic(err)
	}
	for _, a := range rescored {
		fmt.Printf("noisy-or %v %.2f\n", a.Values, a.Confidence)
	}
	// The best answer only, found without evaluating what cannot beat it.
	best, err := combine.QueryBest(ctx, st, prog, q.Atom, 1, combine.Scoring{NoisyOr: true}, reasoner.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("best %v %.2f\n", best.Answers[0].Values, best.Answers[0].Confidence)
	// Output:
	// max [bea] 0.6
	// max [cid] 0.6
	// noisy-or [bea] 0.80
	// noisy-or [cid] 0.60
	// best [bea] 0.80
}
