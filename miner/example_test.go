package miner_test

import (
	"context"
	"fmt"
	"log"

	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
)

// Mine does what `drumql mine` does: train DRUM on a store's graph and
// read the weighted rules off the model, here in two head groups.
func ExampleMine() {
	ctx := context.Background()
	st, err := store.Open("drumql.db", store.Options{ReadOnly: true})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	g, err := miner.LoadGraph(ctx, st)
	if err != nil {
		log.Fatal(err)
	}
	opt := miner.Options{Config: miner.Config{MaxEpochs: 5}, HeadGroups: 2}
	res, err := miner.Mine(ctx, st, g, opt, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Rules {
		fmt.Println(r.Datalog())
	}
}
