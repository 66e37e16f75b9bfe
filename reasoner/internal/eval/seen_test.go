package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestHeadLookupsPerFact bounds emit's lookups of derived facts in their
// relation by the facts, not the derivations: in a complete bipartite graph
// from m nodes z to n nodes x, h(X, Y) :- e(Z, X), e(Z, Y) derives each of
// its n*n facts once through every z (the cspa shape, valueAlias). A task
// decides each fact once (seen.go), where looking each derivation up cost
// n*n*m lookups. The first step's n*m tuples make at most two tasks a
// thread; a second round finds every fact known, once per task again.
func TestHeadLookupsPerFact(t *testing.T) {
	const n, m = 30, 12
	var b strings.Builder
	for z := range m {
		for x := range n {
			fmt.Fprintf(&b, "z%d\te\tx%d\n", z, x)
		}
	}
	for _, weighted := range []bool{false, true} {
		src := "h(X, Y) :- e(Z, X), e(Z, Y).\n"
		if weighted {
			src = "0.5 :: h(X, Y) :- e(Z, X), e(Z, Y).\n"
		}
		p := testkit.MustParse(t, src)
		for _, threads := range []int{1, 2} {
			w := &WorkCounters{}
			st, err := Infer(context.Background(), testkit.NewStore(t, b.String()), p, Options{Threads: threads, Work: w})
			if err != nil {
				t.Fatal(err)
			}
			if st.Derived["h"] != n*n {
				t.Fatalf("weighted %v, threads %d: derived %d h facts, want %d", weighted, threads, st.Derived["h"], n*n)
			}
			t.Logf("weighted %v, threads %d: %d lookups for %d facts, %d derivations",
				weighted, threads, w.InferProbes.Load(), n*n, n*n*m)
			if got, bound := w.InferProbes.Load(), int64(4*n*n); got > bound {
				t.Errorf("weighted %v, threads %d: %d lookups for %d facts (%d derivations), want at most %d",
					weighted, threads, got, n*n, n*n*m, bound)
			}
		}
	}
}
