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

// TestHeadSet checks the set's answers through growth, reset and its cap:
// a key covers the confidences at or below the highest noted for it, and
// nothing once the set is reset; past headSetMax entries new keys are not
// kept, while the kept ones still answer.
func TestHeadSet(t *testing.T) {
	var s headSet
	if s.covers(1, 0) {
		t.Fatal("an empty set covers a key")
	}
	const n = 1000
	for k := range uint64(n) {
		s.note(k<<32|k, 0.5)
	}
	s.note(7<<32|7, 0.25) // a lower confidence keeps the higher one
	s.note(8<<32|8, 0.75)
	for k := range uint64(n) {
		key := k<<32 | k
		want := 0.5
		if k == 8 {
			want = 0.75
		}
		if !s.covers(key, want) || s.covers(key, want+0.01) {
			t.Fatalf("key %d: covers %v, %v; want it to cover %v and no more", k, s.covers(key, want), s.covers(key, want+0.01), want)
		}
		if s.covers(key+1, 0) {
			t.Fatalf("key %d+1, never noted, is covered", key)
		}
	}
	s.reset()
	for k := range uint64(n) {
		if s.covers(k<<32|k, 0) {
			t.Fatalf("key %d covered after reset", k)
		}
	}
	for k := range uint64(headSetMax + 10) {
		s.note(k, 1)
	}
	if len(s.used) != headSetMax {
		t.Fatalf("%d entries, want the cap %d", len(s.used), headSetMax)
	}
	if !s.covers(0, 1) || !s.covers(headSetMax-1, 1) || s.covers(headSetMax, 0) {
		t.Fatal("a full set lost a kept key or kept one past its cap")
	}
}

// TestHeadSetBytes counts a set's bytes at its cap: 8 a slot while every
// confidence noted is 1 (2 MB), 16 once another is (4 MB); the keys held
// when it widens keep their confidence 1.
func TestHeadSetBytes(t *testing.T) {
	var s headSet
	for k := range uint64(headSetMax + 10) {
		s.note(k<<32|k, 1)
	}
	if got, want := 8*len(s.slots), 8*2*headSetMax; got > want {
		t.Fatalf("a crisp set at its cap holds %d bytes of slots, want at most %d", got, want)
	}
	s.reset()
	for k := range uint64(1000) {
		s.note(k, 1)
	}
	s.note(5000, 0.5) // widens
	for k := range uint64(1000) {
		if !s.covers(k, 1) {
			t.Fatalf("key %d lost its confidence 1 when the set widened", k)
		}
	}
	if !s.covers(5000, 0.5) || s.covers(5000, 0.51) {
		t.Fatal("the key that widened the set does not cover 0.5 alone")
	}
	for k := range uint64(headSetMax + 10) {
		s.note(k<<32|k|1<<63, 0.5)
	}
	if got, want := 8*len(s.slots), 16*2*headSetMax; got > want {
		t.Fatalf("a weighted set at its cap holds %d bytes of slots, want at most %d", got, want)
	}
}
