package main

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/drumql/drumql/store"
)

// inductiveStats describes the inductive split made by makeInductive.
type inductiveStats struct {
	Test, Entities, RemovedTrain, RemovedValid int
}

// makeInductive turns a DRUM dataset batch into the inductive setting of the
// DRUM paper (§5, after Neural LP): n test triples are sampled (seeded) as the
// new test split, and every training query (train.txt) and validation triple
// that touches one of their entities is removed, so the model never trains on
// those entities. facts.txt, the background graph, is kept: rules are applied
// to the unseen entities through it at test time. The removed triples and
// the test triples left out of the sample stay in the store as the splits
// "inductive_removed" and "test_unsampled", so the evaluation's filter still
// knows them as true.
func makeInductive(b *store.Batch, n int, seed uint64) (inductiveStats, error) {
	test := b.Splits["test"]
	if len(test) == 0 {
		return inductiveStats{}, fmt.Errorf("--inductive needs a dataset folder with a test.txt")
	}
	n = min(n, len(test))
	rng := rand.New(rand.NewPCG(seed, 0x1d))
	idx := rng.Perm(len(test))[:n]
	slices.Sort(idx)
	chosen := make([]bool, len(test))
	ents := map[string]bool{}
	var sample, rest []store.NamedTriple
	for _, i := range idx {
		chosen[i] = true
		ents[test[i].S] = true
		ents[test[i].O] = true
	}
	for i, t := range test {
		if chosen[i] {
			sample = append(sample, t)
		} else {
			rest = append(rest, t)
		}
	}
	touches := func(t store.NamedTriple) bool { return ents[t.S] || ents[t.O] }
	st := inductiveStats{Test: n, Entities: len(ents)}
	var removed []store.NamedTriple
	keep := func(ts []store.NamedTriple, count *int) []store.NamedTriple {
		var out []store.NamedTriple
		for _, t := range ts {
			if touches(t) {
				removed = append(removed, t)
				*count++
			} else {
				out = append(out, t)
			}
		}
		return out
	}
	train := keep(b.Splits["train"], &st.RemovedTrain)
	valid := keep(b.Splits["valid"], &st.RemovedValid)
	b.Graph = append(slices.Clone(b.Splits["facts"]), train...)
	b.Splits["train"] = train
	b.Splits["valid"] = valid
	b.Splits["test"] = sample
	b.Splits["test_unsampled"] = rest
	b.Splits["inductive_removed"] = removed
	return st, nil
}
