package main

import (
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// sample writes n of db's derived facts to w, one a line in the syntax
// `drumql explain` takes, chosen uniformly by a reservoir over the facts
// in the store's order with the given seed: the same store and seed give
// the same facts. A store with n derived facts or fewer gives them all.
func sample(w io.Writer, db *store.DB, n int, seed uint64) error {
	if n <= 0 {
		return fmt.Errorf("-sample %d: must be more than 0", n)
	}
	rels, err := db.Relations()
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 0x5a4d))
	var kept []store.Fact
	seen := 0
	for _, r := range rels {
		for d, err := range db.ScanDerived(r.Rel) {
			if err != nil {
				return err
			}
			seen++
			switch {
			case len(kept) < n:
				kept = append(kept, d.Fact)
			default:
				if k := rng.IntN(seen); k < n {
					kept[k] = d.Fact
				}
			}
		}
	}
	for _, f := range kept {
		a, err := atomOf(db, f)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintln(w, a); err != nil {
			return err
		}
	}
	return nil
}

// atomOf is f as a ground atom of names.
func atomOf(db *store.DB, f store.Fact) (datalog.Atom, error) {
	pred, err := db.Name(f.Rel)
	if err != nil {
		return datalog.Atom{}, err
	}
	a := datalog.Atom{Pred: pred}
	for _, id := range f.Args {
		name, err := db.Name(id)
		if err != nil {
			return datalog.Atom{}, err
		}
		a.Args = append(a.Args, datalog.Term{Kind: datalog.Symbol, Value: name})
	}
	return a, nil
}
