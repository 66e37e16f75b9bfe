package linkpred

import (
	"iter"
	"maps"
	mathbits "math/bits"
	"slices"

	"github.com/drumql/drumql/internal/pkgerr"
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
	if err := eachTriple(st, func(t store.Triple) { ts = append(ts, t) }); err != nil {
		return nil, err
	}
	return FilterOf(ts), nil
}

// NewFilterFor builds the part of [NewFilter]'s filter that ranking the
// queries qs reads: Answers is the same for every query of qs (and empty
// for any other), Entities is the same, and Len counts the distinct
// triples of the answer sets kept. It reads the same triples but keeps
// only the answer sets of qs, so its memory grows with the queries and
// their answers, not with the graph.
func NewFilterFor(st Dataset, qs []Query) (*Filter, error) {
	f := &Filter{answers: make(map[filterKey][]store.ID)}
	for _, q := range qs {
		f.answers[filterKey{rel: q.Rel, given: q.Given, inverse: q.Inverse}] = nil
	}
	var ents []uint64 // bit set of entity ids
	mark := func(id store.ID) {
		w := int(id / 64)
		if w >= len(ents) {
			ents = append(ents, make([]uint64, w+1-len(ents))...)
		}
		ents[w] |= 1 << (id % 64)
	}
	err := eachTriple(st, func(t store.Triple) {
		mark(t.S)
		mark(t.O)
		hk := filterKey{rel: t.R, given: t.O}
		if a, ok := f.answers[hk]; ok {
			f.answers[hk] = append(a, t.S)
		}
		tk := filterKey{rel: t.R, given: t.S, inverse: true}
		if a, ok := f.answers[tk]; ok {
			f.answers[tk] = append(a, t.O)
		}
	})
	if err != nil {
		return nil, err
	}
	f.finish()
	// finish counted the tail sets' triples; add those of the head sets
	// that no kept tail set holds.
	for k, a := range f.answers {
		if k.inverse {
			continue
		}
		for _, s := range a {
			if _, dup := slices.BinarySearch(f.answers[filterKey{rel: k.rel, given: s, inverse: true}], k.given); !dup {
				f.triples++
			}
		}
	}
	for w, bits := range ents {
		for ; bits != 0; bits &= bits - 1 {
			f.entities = append(f.entities, store.ID(w*64+mathbits.TrailingZeros64(bits)))
		}
	}
	return f, nil
}

// eachTriple calls fn with every triple of every split of st and every
// binary base fact of its graph, duplicates included.
func eachTriple(st Dataset, fn func(store.Triple)) error {
	names, err := st.Splits()
	if err != nil {
		return pkgerr.Newf("linkpred: list splits: %w", err)
	}
	for _, name := range names {
		for t, err := range st.Split(name) {
			if err != nil {
				return pkgerr.Newf("linkpred: read split %q: %w", name, err)
			}
			fn(t)
		}
	}
	rels, err := st.Relations()
	if err != nil {
		return pkgerr.Newf("linkpred: list relations: %w", err)
	}
	for _, rs := range rels {
		if rs.Arity != 2 || rs.Base == 0 {
			continue
		}
		for f, err := range st.Scan(rs.Rel) {
			if err != nil {
				return pkgerr.Newf("linkpred: scan relation %q: %w", rs.Name, err)
			}
			if len(f.Args) == 2 {
				fn(store.Triple{S: f.Args[0], R: f.Rel, O: f.Args[1]})
			}
		}
	}
	return nil
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
	f.finish()
	f.entities = slices.Sorted(maps.Keys(ents))
	return f
}

// finish sorts and deduplicates the answer sets and counts the triples.
func (f *Filter) finish() {
	for k, a := range f.answers {
		slices.Sort(a)
		a = slices.Compact(a)
		f.answers[k] = slices.Clip(a)
		if k.inverse {
			f.triples += len(a)
		}
	}
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
