package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// InductiveStats describes the split made by MakeInductive.
type InductiveStats struct {
	Test         int // test triples sampled
	Entities     int // distinct entities of the sampled test triples
	RemovedTrain int // train triples removed because they touch one of them
	RemovedValid int // valid triples removed because they touch one of them
}

// MakeInductive turns a DRUM dataset batch (as ReadDataset returns it) into
// the inductive setting of the DRUM paper (§5, after Neural LP), in place.
//
// n test triples are sampled with a PCG generator seeded by seed (all of
// them when n is larger than the test split) and become the split "test",
// in file order; the test triples left out become the split
// "test_unsampled". Every train and valid triple whose head or tail is an
// entity of a sampled test triple is removed from its split and kept in the
// split "inductive_removed" (train ones first, each in file order), so the
// model never trains on those entities while the evaluation's filter still
// knows the triples as true. facts, the background graph, is kept: rules
// reach the unseen entities through it at test time. The graph becomes
// facts followed by the remaining train triples. Other splits, Symbols and
// Facts are left alone.
//
// The same batch, n and seed always give the same result. MakeInductive
// returns ErrNoTestSplit (wrapped) when the batch has no test triples and
// an error when n < 1; the batch is then unchanged.
func MakeInductive(b *Batch, n int, seed uint64) (InductiveStats, error) {
	test := b.Splits["test"]
	if len(test) == 0 {
		return InductiveStats{}, wrapf("store: inductive split: %w", ErrNoTestSplit)
	}
	if n < 1 {
		return InductiveStats{}, fmt.Errorf("store: inductive split: sample size %d, want at least 1", n)
	}
	n = min(n, len(test))
	rng := rand.New(rand.NewPCG(seed, 0x1d))
	idx := rng.Perm(len(test))[:n]
	slices.Sort(idx)
	chosen := make([]bool, len(test))
	ents := map[string]bool{}
	var sample, rest []NamedTriple
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
	touches := func(t NamedTriple) bool { return ents[t.S] || ents[t.O] }
	st := InductiveStats{Test: n, Entities: len(ents)}
	var removed []NamedTriple
	keep := func(ts []NamedTriple, count *int) []NamedTriple {
		var out []NamedTriple
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
