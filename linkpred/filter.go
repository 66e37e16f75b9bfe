package linkpred

import (
	"iter"
	"maps"
	"slices"

	"github.com/drumql/drumql/store"
)

// filterKey identifies the answer set of one query.
type filterKey struct {
	rel, given store.ID
	inverse    bool
}

// Filter is the set of known true triples, indexed by query: for (?, r, t) the
// true heads, for (h, r, ?) the true tails. It is immutable once built and
// safe for concurrent use.
type Filter struct {
	answers  map[filterKey][]store.ID // sorted, distinct
	entities []store.ID               // sorted, distinct subjects and objects
	triples  int                      // distinct triples
}

// Dataset is what [NewFilter] reads of a store: its named splits and its
// binary base facts. A store.Store is a Dataset.
type Dataset interface {
	SplitReader
	// Splits lists the named splits.
	Splits() ([]string, error)
	// Relations lists the relations with their arities and base fact
	// counts.
	Relations() ([]store.RelationStats, error)
	// Scan yields the base facts of a relation.
	Scan(rel store.ID) iter.Seq2[store.Fact, error]
}

// NewFilter builds the filter from every split of the store (DRUM's facts,
// train, valid and test, whichever exist) and every binary base fact of the
// graph.
func NewFilter(st Dataset) (*Filter, error) {
	var ts []store.Triple
	names, err := st.Splits()
	if err != nil {
		return nil, errorf("linkpred: list splits: %w", err)
	}
	for _, name := range names {
		for t, err := range st.Split(name) {
			if err != nil {
				return nil, errorf("linkpred: read split %q: %w", name, err)
			}
			ts = append(ts, t)
		}
	}
	rels, err := st.Relations()
	if err != nil {
		return nil, errorf("linkpred: list relations: %w", err)
	}
	for _, rs := range rels {
		if rs.Arity != 2 || rs.Base == 0 {
			continue
		}
		for f, err := range st.Scan(rs.Rel) {
			if err != nil {
				return nil, errorf("linkpred: scan relation %q: %w", rs.Name, err)
			}
			if len(f.Args) == 2 {
				ts = append(ts, store.Triple{S: f.Args[0], R: f.Rel, O: f.Args[1]})
			}
		}
	}
	return FilterOf(ts), nil
}

// FilterOf builds a filter from a list of true triples; duplicates are
// ignored.
func FilterOf(triples []store.Triple) *Filter {
	f := &Filter{answers: make(map[filterKey][]store.ID)}
	ents := make(map[store.ID]struct{})
	for _, t := range triples {
		hk := filterKey{rel: t.R, given: t.O}
		f.answers[hk] = append(f.answers[hk], t.S)
		tk := filterKey{rel: t.R, given: t.S, inverse: true}
		f.answers[tk] = append(f.answers[tk], t.O)
		ents[t.S] = struct{}{}
		ents[t.O] = struct{}{}
	}
	for k, a := range f.answers {
		slices.Sort(a)
		a = slices.Compact(a)
		f.answers[k] = slices.Clip(a)
		if k.inverse {
			f.triples += len(a)
		}
	}
	f.entities = slices.Sorted(maps.Keys(ents))
	return f
}

// Answers returns every known true answer of the query's (relation, given,
// direction), sorted by id, including q.Answer if the triple is known. The
// slice is shared: callers must not modify it.
func (f *Filter) Answers(q Query) []store.ID {
	if f == nil {
		return nil
	}
	return f.answers[filterKey{rel: q.Rel, given: q.Given, inverse: q.Inverse}]
}

// Entities returns every entity that is a subject or an object of a filter
// triple, sorted by id. The slice is shared: callers must not modify it.
// Entities that only appear in a dataset's entities.txt are not included;
// see [UnionEntities].
func (f *Filter) Entities() []store.ID {
	if f == nil {
		return nil
	}
	return f.entities
}

// Len returns the number of distinct triples in the filter.
func (f *Filter) Len() int {
	if f == nil {
		return 0
	}
	return f.triples
}

// UnionEntities returns the sorted union of entity lists, for example a
// snapshot's entities, the filter's entities and the ids of a dataset's
// entities.txt, to use as [Options.Entities].
func UnionEntities(lists ...[]store.ID) []store.ID {
	var all []store.ID
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}
