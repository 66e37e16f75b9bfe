package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestCandidatesPerFact bounds the candidate facts a round buffers for
// merging by the facts it derives, not the derivations: in a layered graph
// every pair (a_i, c_j) is reached through each of the m middle nodes, so
// h(X, Y) :- e(X, Z), f(Z, Y) derives each of its n*n facts m times. The
// buffers keep one candidate per fact and task (the first step's n*m tuples
// make at most two tasks here), where keeping each derivation buffered n*n*m.
func TestCandidatesPerFact(t *testing.T) {
	const n, m = 40, 30
	var b strings.Builder
	for i := range n {
		for z := range m {
			fmt.Fprintf(&b, "a%d\te\tb%d\n", i, z)
			fmt.Fprintf(&b, "b%d\tf\tc%d\n", z, i)
		}
	}
	p := testkit.MustParse(t, "0.5 :: h(X, Y) :- e(X, Z), f(Z, Y).\n0.9 :: h(X, Y) :- f(Y, X).\n")
	for _, threads := range []int{1, 2, 8} {
		w := &WorkCounters{}
		st, err := Infer(context.Background(), testkit.NewStore(t, b.String()), p, Options{Threads: threads, Work: w})
		if err != nil {
			t.Fatal(err)
		}
		if st.Derived["h"] != n*n+n*m {
			t.Fatalf("threads %d: derived %d h facts, want %d", threads, st.Derived["h"], n*n+n*m)
		}
		// per thread at most one task of the first rule's, plus the
		// second rule's n*m candidates
		if got, bound := w.InferCands.Load(), int64(2*n*n+n*m); got > bound {
			t.Errorf("threads %d: %d candidates merged for %d facts (%d derivations), want at most %d",
				threads, got, n*n+n*m, n*n*m+n*m, bound)
		}
	}
}
