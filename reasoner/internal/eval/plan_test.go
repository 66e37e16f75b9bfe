package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestNeverNumberLooksUp: an equality X = cat("k", Y), whose value is
// never a number, binds X before the atom p(X), which is then looked up
// (one read per k fact), not scanned and filtered (a thousand reads per
// k fact); the answers are the same.
func TestNeverNumberLooksUp(t *testing.T) {
	const n = 1000
	var tsv strings.Builder
	for i := range n {
		fmt.Fprintf(&tsv, "k%d\tp\tyes\n", i)
		fmt.Fprintf(&tsv, "%d\tk\tyes\n", i)
	}
	p := testkit.MustParse(t, `q(X) :- k(Y, yes), X = cat("k", Y), p(X, yes).`)
	w := &WorkCounters{}
	st, err := Infer(context.Background(), testkit.NewStore(t, tsv.String()), p, Options{Threads: 1, Work: w})
	if err != nil {
		t.Fatal(err)
	}
	if st.Derived["q"] != n {
		t.Fatalf("derived %d q facts, want %d", st.Derived["q"], n)
	}
	if got := w.InferReads.Load(); got > 4*n {
		t.Errorf("the joins read %d tuples, want at most %d", got, 4*n)
	}
}
