package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// TestLeanOracle evaluates random graphs large enough that the lean
// evaluation's unique indexes segment (segindex.go) and its task buffers
// hold thousands of uniform records (outbuf.go), with 1 and 2 threads,
// and checks every relation against the indexed evaluation (Infer's,
// neither lean nor segmented): the same tuples. (The indexes themselves
// are dropped when the fixpoint returns.)
func TestLeanOracle(t *testing.T) {
	ctx := context.Background()
	prog, err := parser.ParseString("p.dl", `
path(X, Y) :- edge(X, Y).
path(X, Z) :- path(X, Y), edge(Y, Z).
sg(X, Y) :- edge(P, X), edge(P, Y), X != Y.
sg(X, Y) :- edge(A, X), sg(A, B), edge(B, Y).
tri(X, Y, Z) :- path(X, Y), edge(Y, Z), path(Z, X).
`)
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 49))
		nodes := 150 + rng.IntN(100)
		st := store.NewMemory()
		var b store.Batch
		for range nodes + nodes/2 {
			b.Graph = append(b.Graph, store.NamedTriple{S: fmt.Sprint("n", rng.IntN(nodes)), R: "edge", O: fmt.Sprint("n", rng.IntN(nodes))})
		}
		if _, err := st.Load(ctx, &b, nil); err != nil {
			t.Fatal(err)
		}
		full, _, _, err := runFixpoint(ctx, st, prog, Options{Threads: 2}, "test", func(*Evaluator) {})
		if err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{1, 2} {
			lean, _, _, err := runFixpoint(ctx, st, prog, Options{Threads: threads}, "test", func(e *Evaluator) { e.lean = true })
			if err != nil {
				t.Fatal(err)
			}
			for _, rel := range []struct {
				name  string
				arity int
			}{{"path", 2}, {"sg", 2}, {"tri", 3}} {
				r, f := lean.Rels[lean.RelIdx[RelKey(rel.name, rel.arity)]], full.Rels[full.RelIdx[RelKey(rel.name, rel.arity)]]
				if rel.name == "path" && r.Len() <= 2*segFull {
					t.Errorf("seed %d: path has %d tuples, too few to segment its index", seed, r.Len())
				}
				got, want := tupleSet(r), tupleSet(f)
				if len(got) == 0 || !slices.Equal(got, want) {
					t.Fatalf("seed %d, %d threads, %s: %d tuples, the indexed evaluation %d", seed, threads, rel.name, len(got), len(want))
				}
			}
		}
	}
}

// tupleSet is r's tuples, each as a string, sorted.
func tupleSet(r *Relation) []string {
	s := make([]string, r.Len())
	for i := range int32(r.Len()) {
		s[i] = fmt.Sprint(r.Tuple(i))
	}
	slices.Sort(s)
	return s
}
