package scoring

import (
	"slices"
	"testing"

	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/store"
)

// TestSpread: the coverage sample takes evenly spaced queries, the first
// one first, and the whole list when it is short.
func TestSpread(t *testing.T) {
	qs := make([]linkpred.Query, 10)
	for i := range qs {
		qs[i].Given = store.ID(i)
	}
	var got []store.ID
	for _, q := range spread(qs, 4) {
		got = append(got, q.Given)
	}
	if want := []store.ID{0, 2, 5, 7}; !slices.Equal(got, want) {
		t.Errorf("spread(10 queries, 4) = %v, want %v", got, want)
	}
	if len(spread(qs, 10)) != 10 || len(spread(qs, 20)) != 10 {
		t.Error("a short list is not kept whole")
	}
}
