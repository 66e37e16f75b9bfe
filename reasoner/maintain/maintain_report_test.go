package maintain

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

// TestChangeListsLargest checks the changed facts an update lists when
// more change than it lists: the MaxChangedFacts largest changes, largest
// first. A rule added to the program derives 3 × MaxChangedFacts facts,
// t(c_i, yes) with confidence (i+1)/1000 (the weight of program fact
// s(c_i, yes)), so the list is t(c_299, yes), t(c_298, yes), ... down to
// t(c_200, yes); the facts are numbered in increasing and in decreasing
// order of their confidence, so that they change smallest first and
// largest first.
func TestChangeListsLargest(t *testing.T) {
	for _, reversed := range []bool{false, true} {
		t.Run(fmt.Sprintf("reversed=%v", reversed), func(t *testing.T) { changeListsLargest(t, reversed) })
	}
}

func changeListsLargest(t *testing.T, reversed bool) {
	n := 3 * MaxChangedFacts
	var tsv, facts strings.Builder
	for j := range n {
		i := j
		if reversed {
			i = n - 1 - j
		}
		fmt.Fprintf(&tsv, "c_%d\tg\tyes\n", i)
		fmt.Fprintf(&facts, "%g :: s(c_%d, yes).\n", float64(i+1)/1000, i)
	}
	st := testkit.NewStore(t, tsv.String())
	ctx := context.Background()
	m, _, err := Materialise(ctx, st, testkit.MustParse(t, facts.String()), eval.Options{Min: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := m.Apply(ctx, Delta{Program: testkit.MustParse(t, facts.String()+"t(X, Y) :- s(X, Y), g(X, Y).\n")})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Full || ch.Added != n || len(ch.Facts) != MaxChangedFacts {
		t.Fatalf("change: full %v, %d added, %d listed; want an update adding %d, listing %d", ch.Full, ch.Added, len(ch.Facts), n, MaxChangedFacts)
	}
	for j, f := range ch.Facts {
		i := n - 1 - j
		want := fmt.Sprintf("t(c_%d,yes) 0 -> %g", i, float64(i+1)/1000)
		if got := fmt.Sprintf("%s(%s) %g -> %g", f.Pred, strings.Join(f.Args, ","), f.Old, f.New); got != want {
			t.Fatalf("listed fact %d: %s, want %s", j, got, want)
		}
	}
}

// TestProofsByRule counts, per rule of the program, the facts it is the
// best proof of, after Materialise and after an update that makes the
// second rule the proof of one fact fewer (its twin's proofs count for it).
func TestProofsByRule(t *testing.T) {
	ctx := context.Background()
	st := testkit.NewStore(t, "a\te\tb\nb\te\tc\nc\te\td\n")
	src := "p(X, Y) :- e(X, Y).\n0.5 :: p(X, Z) :- p(X, Y), e(Y, Z).\nq(X) :- e(X, b).\n"
	m, _, err := Materialise(ctx, st, testkit.MustParse(t, src), eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// p(a, b), p(b, c), p(c, d) by the first rule; p(a, c), p(b, d),
	// p(a, d) by the second; q(a) by the third.
	if got, want := m.ProofsByRule(), []int{3, 3, 1}; !slices.Equal(got, want) {
		t.Errorf("after Materialise: %v, want %v", got, want)
	}
	e, _, _ := st.Lookup("e")
	c, _, _ := st.Lookup("c")
	d, _, _ := st.Lookup("d")
	if _, err := st.Retract(ctx, &store.Batch{Graph: []store.NamedTriple{{S: "c", R: "e", O: "d"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Apply(ctx, Delta{Base: []FactChange{{Fact: store.Fact{Rel: e, Args: []store.ID{c, d}}}}}); err != nil {
		t.Fatal(err)
	}
	if got, want := m.ProofsByRule(), []int{2, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("after removing e(c, d): %v, want %v", got, want)
	}
}
