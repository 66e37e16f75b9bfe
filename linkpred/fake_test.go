package linkpred

import (
	"fmt"
	"iter"
	"slices"

	"github.com/drumql/drumql/store"
)

// fakeStore implements only what linkpred reads of a store (Dataset).
type fakeStore struct {
	splits map[string][]store.Triple
	graph  []store.Triple
}

func (s *fakeStore) Splits() ([]string, error) {
	var names []string
	for n := range s.splits {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}

func (s *fakeStore) Split(name string) iter.Seq2[store.Triple, error] {
	return func(yield func(store.Triple, error) bool) {
		ts, ok := s.splits[name]
		if !ok {
			yield(store.Triple{}, fmt.Errorf("%w: %s", store.ErrUnknownSplit, name))
			return
		}
		for _, t := range ts {
			if !yield(t, nil) {
				return
			}
		}
	}
}

func (s *fakeStore) Relations() ([]store.RelationStats, error) {
	count := map[store.ID]int{}
	for _, t := range s.graph {
		count[t.R]++
	}
	var rs []store.RelationStats
	for r, n := range count {
		rs = append(rs, store.RelationStats{Rel: r, Name: fmt.Sprint("r", r), Arity: 2, Base: n})
	}
	slices.SortFunc(rs, func(a, b store.RelationStats) int { return int(a.Rel) - int(b.Rel) })
	return rs, nil
}

func (s *fakeStore) Scan(rel store.ID) iter.Seq2[store.Fact, error] {
	return func(yield func(store.Fact, error) bool) {
		for _, t := range s.graph {
			if t.R == rel && !yield(store.Fact{Rel: rel, Args: []store.ID{t.S, t.O}}, nil) {
				return
			}
		}
	}
}

var _ Dataset = (*fakeStore)(nil)
