package linkpred

import (
	"iter"

	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/store"
)

// Query is one link-prediction query: a relation, the given entity, the
// direction and the answer being ranked.
type Query struct {
	Rel   store.ID // the relation r
	Given store.ID // the known entity
	// Inverse selects the direction. True: tail prediction (Given, Rel, ?),
	// which DRUM asks as the inverse relation inv_r. False: head prediction
	// (?, Rel, Given).
	Inverse bool
	Answer  store.ID // the entity that completes the triple
}

// Triple returns the true triple the query was made from.
func (q Query) Triple() store.Triple {
	if q.Inverse {
		return store.Triple{S: q.Given, R: q.Rel, O: q.Answer}
	}
	return store.Triple{S: q.Answer, R: q.Rel, O: q.Given}
}

// HeadQuery returns the head prediction (?, t.R, t.O) of a triple, answer t.S.
func HeadQuery(t store.Triple) Query {
	return Query{Rel: t.R, Given: t.O, Answer: t.S}
}

// TailQuery returns the tail prediction (t.S, t.R, ?) of a triple, answer t.O.
func TailQuery(t store.Triple) Query {
	return Query{Rel: t.R, Given: t.S, Inverse: true, Answer: t.O}
}

// SplitReader is what [Queries] reads of a store: a named split. A
// store.Store is a SplitReader.
type SplitReader interface {
	// Split yields the triples of a named split in file order.
	Split(name string) iter.Seq2[store.Triple, error]
}

// Queries reads a split of the store and returns two queries per triple, in
// the split's file order: for each triple its head prediction (?, r, t) and
// then its tail prediction (h, r, ?). This is the order of DRUM's query
// augmentation (query r, then inv_r); the metrics do not depend on it.
func Queries(st SplitReader, split string) ([]Query, error) {
	var qs []Query
	for t, err := range st.Split(split) {
		if err != nil {
			return nil, pkgerr.Newf("linkpred: read split %q: %w", split, err)
		}
		qs = append(qs, HeadQuery(t), TailQuery(t))
	}
	return qs, nil
}
