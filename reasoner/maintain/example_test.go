package maintain_test

import (
	"context"
	"fmt"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/maintain"
	"github.com/drumql/drumql/store"
)

func Example() {
	ctx := context.Background()
	st := store.NewMemory()
	if _, err := st.Load(ctx, &store.Batch{Graph: []store.NamedTriple{
		{S: "a", R: "edge", O: "b"},
	}}, nil); err != nil {
		panic(err)
	}
	prog, err := parser.ParseString("path.dl", `
path(X, Y) :- edge(X, Y).
0.5 :: path(X, Z) :- path(X, Y), edge(Y, Z).
`)
	if err != nil {
		panic(err)
	}
	m, _, err := maintain.Materialise(ctx, st, prog, reasoner.Options{})
	if err != nil {
		panic(err)
	}
	// The store gets a new edge; the materialisation follows.
	if _, err := st.Load(ctx, &store.Batch{Graph: []store.NamedTriple{
		{S: "b", R: "edge", O: "c"},
	}}, nil); err != nil {
		panic(err)
	}
	ids := func(names ...string) []store.ID {
		var out []store.ID
		for _, n := range names {
			id, _, err := st.Lookup(n)
			if err != nil {
				panic(err)
			}
			out = append(out, id)
		}
		return out
	}
	id := ids("edge", "b", "c")
	ch, err := m.Apply(ctx, maintain.Delta{Base: []maintain.FactChange{
		{Fact: store.Fact{Rel: id[0], Args: id[1:]}, Added: true},
	}})
	if err != nil {
		panic(err)
	}
	// Each changed fact with its old and new confidence.
	for _, f := range ch.Facts {
		fmt.Println(f.Pred, f.Args, f.Old, f.New)
	}
	// Output:
	// path [b c] 0 1
	// path [a c] 0 0.5
}
