package reasoner_test

import (
	"context"
	"fmt"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

func Example() {
	ctx := context.Background()
	st := store.NewMemory()
	_, err := st.Load(ctx, &store.Batch{Graph: []store.NamedTriple{
		{S: "bob", R: "husband", O: "alice"},
		{S: "dan", R: "husband", O: "eve"},
	}}, nil)
	if err != nil {
		panic(err)
	}
	prog, err := parser.ParseString("family.dl", `
wife(X, Y) :- husband(Y, X).
0.9 :: spouse(X, Y) :- wife(X, Y).
`)
	if err != nil {
		panic(err)
	}
	q, _ := parser.ParseQuery("spouse(alice, X)?")
	answers, err := reasoner.Query(ctx, st, prog, q.Atom, reasoner.Options{Explain: true})
	if err != nil {
		panic(err)
	}
	for _, a := range answers {
		fmt.Println(a.Values, a.Confidence)
		fmt.Print(a.Proof)
	}
	stats, err := reasoner.Infer(ctx, st, prog, reasoner.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(stats.Derived)
	// Output:
	// [bob] 0.9
	// spouse(alice, bob)  [0.9]  by 0.9 :: spouse(X, Y) :- wife(X, Y). (family.dl:3:1)
	//   wife(alice, bob)  [1]  by wife(X, Y) :- husband(Y, X). (family.dl:2:1)
	//     husband(bob, alice)  [1]  base fact
	// map[spouse:2 wife:2]
}
