package linkpred

import (
	"errors"
	"slices"
	"testing"

	"github.com/drumql/drumql/store"
)

// filterStore is the small dataset of the filter tests: splits over a, b,
// c, d and a graph of two facts, plus extra.
func filterStore(a, b, c, d store.ID, extra ...store.Triple) *fakeStore {
	return &fakeStore{
		splits: map[string][]store.Triple{
			"facts": {{S: a, R: 1, O: b}},
			"train": {{S: a, R: 1, O: c}, {S: a, R: 1, O: b}},
			"test":  {{S: d, R: 1, O: b}, {S: c, R: 2, O: a}},
		},
		graph: append([]store.Triple{{S: a, R: 1, O: b}, {S: ent(7), R: 3, O: a}}, extra...),
	}
}

func TestFilterAndQueries(t *testing.T) {
	a, b, c, d := ent(0), ent(1), ent(2), ent(3)
	st := filterStore(a, b, c, d)
	f, err := NewFilter(st)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		q    Query
		want []store.ID
	}{
		{Query{Rel: 1, Given: a, Inverse: true}, []store.ID{b, c}}, // (a, 1, ?)
		{Query{Rel: 1, Given: b}, []store.ID{a, d}},                // (?, 1, b)
		{Query{Rel: 2, Given: a}, []store.ID{c}},                   // (?, 2, a)
		{Query{Rel: 3, Given: ent(7), Inverse: true}, []store.ID{a}},
		{Query{Rel: 2, Given: a, Inverse: true}, nil},
	}
	for _, tt := range tests {
		if got := f.Answers(tt.q); !slices.Equal(got, tt.want) {
			t.Errorf("Answers(%+v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if got, want := f.Entities(), []store.ID{a, b, c, d, ent(7)}; !slices.Equal(got, want) {
		t.Errorf("Entities = %v, want %v", got, want)
	}
	if f.Len() != 5 {
		t.Errorf("Len = %d, want 5", f.Len())
	}

	qs, err := Queries(st, "test")
	if err != nil {
		t.Fatal(err)
	}
	wantQs := []Query{
		{Rel: 1, Given: b, Answer: d},
		{Rel: 1, Given: d, Inverse: true, Answer: b},
		{Rel: 2, Given: a, Answer: c},
		{Rel: 2, Given: c, Inverse: true, Answer: a},
	}
	if !slices.Equal(qs, wantQs) {
		t.Errorf("Queries = %+v, want %+v", qs, wantQs)
	}
	for _, q := range qs {
		if tr := q.Triple(); !slices.Contains(st.splits["test"], tr) {
			t.Errorf("Triple(%+v) = %+v, not a test triple", q, tr)
		}
	}
	if _, err := Queries(st, "nope"); !errors.Is(err, store.ErrUnknownSplit) {
		t.Errorf("unknown split: err = %v", err)
	}
	if got := UnionEntities([]store.ID{5, 1}, nil, []store.ID{3, 1}); !slices.Equal(got, []store.ID{1, 3, 5}) {
		t.Errorf("UnionEntities = %v", got)
	}
}

// TestFilterFor checks that the filter of a set of queries answers them as
// the whole filter does, has the same entities, and keeps nothing else.
func TestFilterFor(t *testing.T) {
	a, b, c, d := ent(0), ent(1), ent(2), ent(3)
	st := filterStore(a, b, c, d, store.Triple{S: ent(70), R: 3, O: ent(130)})
	all, err := NewFilter(st)
	if err != nil {
		t.Fatal(err)
	}
	qs := []Query{
		{Rel: 1, Given: a, Inverse: true, Answer: c}, // (a, 1, ?): b, c
		{Rel: 1, Given: b, Answer: a},                // (?, 1, b): a, d; (a, 1, b) counted once
		{Rel: 2, Given: a, Inverse: true, Answer: c}, // no answers
	}
	f, err := NewFilterFor(st, qs)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if got, want := f.Answers(q), all.Answers(q); !slices.Equal(got, want) {
			t.Errorf("Answers(%+v) = %v, want %v", q, got, want)
		}
	}
	if got := f.Answers(Query{Rel: 2, Given: a}); got != nil {
		t.Errorf("Answers of a query not asked = %v, want none", got)
	}
	if got, want := f.Entities(), all.Entities(); !slices.Equal(got, want) {
		t.Errorf("Entities = %v, want %v", got, want)
	}
	// (a, 1, b), (a, 1, c), (d, 1, b).
	if f.Len() != 3 {
		t.Errorf("Len = %d, want 3", f.Len())
	}
}
