package miner_test

import (
	"context"
	"fmt"

	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
)

// Mine does what `drumql mine` does: train DRUM on a store's graph and read
// the weighted rules off the model (and, unless NoConstants, learn rules
// with constants from the graph), sorted by head, then by the model's score.
// A rule's weight is its smoothed confidence on the graph,
// support/(body+smoothing). Here 12 couples each have a child.
func ExampleMine() {
	ctx := context.Background()
	var graph []store.NamedTriple
	for i := range 12 {
		h, w, c := fmt.Sprint("h", i), fmt.Sprint("w", i), fmt.Sprint("c", i)
		graph = append(graph,
			store.NamedTriple{S: h, R: "husband", O: w},
			store.NamedTriple{S: w, R: "wife", O: h},
			store.NamedTriple{S: w, R: "mother", O: c},
			store.NamedTriple{S: h, R: "father", O: c})
	}
	st := store.NewMemory()
	if _, err := st.Load(ctx, &store.Batch{Graph: graph}, nil); err != nil {
		fmt.Println(err)
		return
	}
	g, err := miner.LoadGraph(ctx, st)
	if err != nil {
		fmt.Println(err)
		return
	}
	opt := miner.Options{Config: miner.Config{Heads: []string{"wife", "father"}, MaxEpochs: 5, Threads: 1}, NoConstants: true}
	res, err := miner.Mine(ctx, st, g, opt, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Rules {
		fmt.Printf("%v  (support %d, body %d)\n", r.Rule, r.Support, r.Body)
	}
	// Output:
	// 0.7059 :: father(A, B) :- wife(C, A), mother(C, B), A != B.  (support 12, body 12)
	// 0.7059 :: father(A, B) :- husband(A, C), mother(C, B), A != B.  (support 12, body 12)
	// 0.7059 :: wife(A, B) :- husband(B, A).  (support 12, body 12)
	// 0.7059 :: wife(A, B) :- mother(A, C), father(B, C), A != B.  (support 12, body 12)
}
