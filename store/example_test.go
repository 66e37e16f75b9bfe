package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/drumql/drumql/store"
)

// A store on disk: a load is atomic and loading the same facts again
// changes nothing; facts are scanned by relation and kept across a reopen.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "store-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	db, err := store.Open(filepath.Join(dir, "kg.db"), store.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	batch := &store.Batch{
		Graph: []store.NamedTriple{{S: "bob", R: "husband", O: "alice"}, {S: "dan", R: "husband", O: "eve"}},
		Facts: []store.NamedFact{{Rel: "born", Args: []string{"alice", "1990", "lyon"}}},
	}
	for range 2 {
		st, err := db.Load(ctx, batch, nil)
		fmt.Printf("new symbols %d, new facts %d, skipped %d, %v\n", st.NewSymbols, st.NewFacts, st.Skipped, err)
	}
	if err := db.Close(); err != nil {
		fmt.Println(err)
		return
	}

	db, err = store.Open(filepath.Join(dir, "kg.db"), store.Options{ReadOnly: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	rels, _ := db.Relations()
	for _, r := range rels {
		fmt.Printf("%s/%d: %d facts\n", r.Name, r.Arity, r.Base)
		for f, err := range db.Scan(r.Rel) {
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Print("  ", r.Name, "(")
			for i, a := range f.Args {
				name, _ := db.Name(a)
				if i > 0 {
					fmt.Print(", ")
				}
				fmt.Print(name)
			}
			fmt.Println(")")
		}
	}
	// Output:
	// new symbols 8, new facts 3, skipped 0, <nil>
	// new symbols 0, new facts 0, skipped 3, <nil>
	// born/3: 1 facts
	//   born(alice, 1990, lyon)
	// husband/2: 2 facts
	//   husband(bob, alice)
	//   husband(dan, eve)
}

// ReadTSV reads a file of head<TAB>relation<TAB>tail lines into a batch; a
// malformed line is an error that names every such line.
func ExampleReadTSV() {
	dir, err := os.MkdirTemp("", "store-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	good, bad := filepath.Join(dir, "good.tsv"), filepath.Join(dir, "bad.tsv")
	_ = os.WriteFile(good, []byte("bob\thusband\talice\ndan\thusband\teve\n"), 0o644)
	_ = os.WriteFile(bad, []byte("bob\thusband\talice\ndan husband eve\n"), 0o644)
	b, err := store.ReadTSV(good)
	fmt.Println(b.Graph, err)
	_, err = store.ReadTSV(bad)
	fmt.Println(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""))
	// Output:
	// [{bob husband alice} {dan husband eve}] <nil>
	// bad.tsv:2: want 3 tab-separated fields (head, relation, tail), got 1
}
