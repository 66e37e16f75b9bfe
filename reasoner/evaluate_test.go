package reasoner_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// TestEvaluate checks that Evaluate's relations hold what Query answers
// over the same program, confidences included, that a base relation the
// program does not read is read from the store, and that the store gets
// no derived fact.
func TestEvaluate(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	_, err := st.Load(ctx, &store.Batch{Graph: []store.NamedTriple{
		{S: "bob", R: "husband", O: "alice"},
		{S: "dan", R: "husband", O: "eve"},
		{S: "eve", R: "likes", O: "tea"},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := parser.ParseString("family.dl", `
wife(X, Y) :- husband(Y, X).
0.9 :: spouse(X, Y) :- wife(X, Y).
0.5 :: spouse(zoe, yan).
`)
	if err != nil {
		t.Fatal(err)
	}
	v, err := reasoner.Evaluate(ctx, st, prog, reasoner.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	each := func(rel string) []string {
		var got []string
		err := v.Each(rel, 2, func(args []uint32, conf float64) bool {
			s := ""
			for _, a := range args {
				n, err := v.Name(a)
				if err != nil {
					t.Fatal(err)
				}
				s += n + " "
			}
			got = append(got, fmt.Sprintf("%s%g", s, conf))
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		return got
	}
	for _, rel := range []string{"spouse", "wife", "husband"} {
		q, err := parser.ParseQuery(rel + "(X, Y)?")
		if err != nil {
			t.Fatal(err)
		}
		as, err := reasoner.Query(ctx, st, prog, q.Atom, reasoner.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, a := range as {
			want = append(want, fmt.Sprintf("%s %s %g", a.Values[0], a.Values[1], a.Confidence))
		}
		slices.Sort(want)
		if got := each(rel); !slices.Equal(got, want) || len(want) < 2 {
			t.Errorf("%s: Each %q, Query %q", rel, got, want)
		}
	}
	if got, want := each("likes"), []string{"eve tea 1"}; !slices.Equal(got, want) {
		t.Errorf("likes (read by no rule): %q, want %q", got, want)
	}
	if got := each("nothing"); len(got) > 0 {
		t.Errorf("an unknown relation: %q", got)
	}
	if v.Derived != 5 {
		t.Errorf("Derived = %d, want 5", v.Derived)
	}
	rs, err := st.Relations()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Derived > 0 {
			t.Errorf("%s: %d derived facts in the store", r.Name, r.Derived)
		}
	}
}
