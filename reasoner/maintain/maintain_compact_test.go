package maintain

import (
	"context"
	"fmt"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

// TestMaintainDoesNotGrow adds and removes base facts thousands of times,
// one update each, as a long-running server does: other facts each time
// (their tuples are removed) and the same fact each time (its proofs are
// superseded). The materialisation's tuples, provenance words and reverse
// index stay bounded, the removed facts do not count toward MaxFacts (a
// cap of 50 facts is never reached: 3 facts are derived at any time), and
// the result is the evaluation from scratch.
func TestMaintainDoesNotGrow(t *testing.T) {
	ctx := context.Background()
	const graph = "a\tr\tb\nb\tr\tc\n"
	st := testkit.NewStore(t, graph)
	p := testkit.MustParse(t, "s(X, Y) :- r(X, Y).\ns(X, Z) :- s(X, Y), r(Y, Z).\n")
	m, _, err := Materialise(ctx, st, p, eval.Options{MaxFacts: 50})
	if err != nil {
		t.Fatal(err)
	}
	apply := func(tr store.NamedTriple, add bool) {
		t.Helper()
		b := &store.Batch{Graph: []store.NamedTriple{tr}}
		if add {
			_, err = st.Load(ctx, b, nil)
		} else {
			_, err = st.Retract(ctx, b)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Apply(ctx, Delta{Base: []FactChange{{Fact: namedFact(t, st, tr), Added: add}}}); err != nil {
			t.Fatalf("%v %v: %v", tr, add, err)
		}
	}
	// the bounds: the floors of compaction, twice (the live tuples and
	// words are few)
	size := func(step string) {
		t.Helper()
		tuples := 0
		for _, r := range m.e.Rels {
			if !r.Internal {
				tuples += r.N
			}
		}
		rev := len(m.rev.deps) + len(m.rev.extraDep)
		if w := m.poolWords(); tuples > 2*compactTuples+16 || w > 2*compactWords+64 || rev > 2*compactWords {
			t.Fatalf("%s: %d tuples, %d provenance words, %d reverse index entries: the materialisation grows", step, tuples, w, rev)
		}
	}
	for i := range 4000 {
		tr := store.NamedTriple{S: "c", R: "r", O: fmt.Sprint("x", i)}
		apply(tr, true)
		apply(tr, false)
		size(fmt.Sprintf("other facts, %d", i))
	}
	for i := range 4000 {
		tr := store.NamedTriple{S: "c", R: "r", O: "d"}
		apply(tr, true)
		apply(tr, false)
		size(fmt.Sprintf("the same fact, %d", i))
	}
	fresh, _, err := Materialise(ctx, testkit.NewStore(t, graph), p, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sameDerived(derivedOf(t, m), derivedOf(t, fresh)); err != nil {
		t.Error(err)
	}
	if err := checkProofs(m); err != nil {
		t.Error(err)
	}
	if m.e.Derived != 3 {
		t.Errorf("%d facts count toward the cap, want the 3 derived", m.e.Derived)
	}
}

// TestCompactNegatedRemoved: after the fact a negated literal matched is
// removed (the proof that used it replaced by one worth more), a
// compaction keeps no removed tuple, and its result is the evaluation from
// scratch with proofs that hold.
func TestCompactNegatedRemoved(t *testing.T) {
	ctx := context.Background()
	st := testkit.NewStore(t, "a\tr\tb\na\ts\tb\n")
	p := testkit.MustParse(t, "0.5 :: q(X, Y) :- s(X, Y).\np(X, Y) :- r(X, Y), not q(X, Y).\n")
	m, _, err := Materialise(ctx, st, p, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := store.NamedTriple{S: "a", R: "s", O: "b"}
	if _, err := st.Retract(ctx, &store.Batch{Graph: []store.NamedTriple{tr}}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Apply(ctx, Delta{Base: []FactChange{{Fact: namedFact(t, st, tr), Added: false}}}); err != nil {
		t.Fatal(err)
	}
	dead := func() int {
		n := 0
		for _, r := range m.e.Rels {
			if !r.Internal {
				n += r.N - r.Alive
			}
		}
		return n
	}
	if dead() == 0 {
		t.Fatal("the update removed no tuple: the test tests nothing")
	}
	m.compact()
	if n := dead(); n != 0 || m.deadMark != 0 {
		t.Errorf("%d removed tuples kept by the compaction (deadMark %d)", n, m.deadMark)
	}
	if err := checkProofs(m); err != nil {
		t.Error(err)
	}
	fresh, _, err := Materialise(ctx, testkit.NewStore(t, "a\tr\tb\n"), p, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sameDerived(derivedOf(t, m), derivedOf(t, fresh)); err != nil {
		t.Error(err)
	}
}
