package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// TestGroupBatches bounds the candidates one batch of same generation
// buffers: its factorised plan joins the delta in groups (one per node),
// and a batch counts the groups' tuples (groupsWithin), not the groups;
// counted by groups, a round's few hundred groups were one batch.
func TestGroupBatches(t *testing.T) {
	ctx := context.Background()
	prog, err := parser.ParseString("p.dl", `
sg(X, Y) :- edge(P, X), edge(P, Y), X != Y.
sg(X, Y) :- edge(A, X), sg(A, B), edge(B, Y).
`)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 49))
	nodes := 700
	st := store.NewMemory()
	var b store.Batch
	for range 2 * nodes {
		b.Graph = append(b.Graph, store.NamedTriple{S: fmt.Sprint("n", rng.IntN(nodes)), R: "edge", O: fmt.Sprint("n", rng.IntN(nodes))})
	}
	if _, err := st.Load(ctx, &b, nil); err != nil {
		t.Fatal(err)
	}
	e, _, _, err := runFixpoint(ctx, st, prog, Options{Threads: 2}, "test", func(e *Evaluator) { e.lean = true })
	if err != nil {
		t.Fatal(err)
	}
	// 324,705 facts, about a million candidates: 126,148 in the largest
	// batch, 324,048 when a batch counted groups.
	if n := e.Rels[e.RelIdx[RelKey("sg", 2)]].Len(); n < 300_000 || e.maxBatch > 6*BatchItems {
		t.Errorf("sg: %d tuples, %d candidates in the largest batch, want at most %d", n, e.maxBatch, 6*BatchItems)
	}
}
