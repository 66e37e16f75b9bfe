package reasoner

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestBandsJoinFactsOnce checks that a weighted fixpoint joins each fact
// about once (bands): every pair of a 60-node chain is derived at 0.2 by a
// weak shortcut in the first round, then improved along the chain. Without
// bands each weak fact is joined, then joined again once improved.
func TestBandsJoinFactsOnce(t *testing.T) {
	const n = 60
	var tsv strings.Builder
	for i := range n {
		fmt.Fprintf(&tsv, "n%d\ts\tn%d\n", i, i+1)
		for j := i + 1; j <= n; j++ {
			fmt.Fprintf(&tsv, "n%d\tw\tn%d\n", i, j)
		}
	}
	p := mustParse(t, "0.2 :: p(X, Y) :- w(X, Y).\n0.99 :: p(X, Y) :- s(X, Y).\n0.99 :: p(X, Z) :- p(X, Y), s(Y, Z).\n")
	w := &workCounters{}
	st := newStore(t, tsv.String())
	stats, err := Infer(context.Background(), st, p, Options{Threads: 2, work: w})
	if err != nil {
		t.Fatal(err)
	}
	facts := n * (n + 1) / 2
	if stats.Facts != facts {
		t.Fatalf("%d facts, want %d", stats.Facts, facts)
	}
	// Every fact ends on the chain: 0.99^(j-i) > 0.2 for j-i <= 60.
	if d := derivedDump(t, st); !strings.Contains(d, "p(n0, n60) 0.547") {
		t.Fatalf("p(n0, n60) is not 0.99^60:\n%s", d)
	}
	deltas := w.inferDeltas.Load()
	t.Logf("%d facts, %d delta tuples joined", facts, deltas)
	if deltas > int64(facts)*11/10 {
		t.Errorf("%d delta tuples joined for %d facts: are weak facts joined before they are final?", deltas, facts)
	}
}
