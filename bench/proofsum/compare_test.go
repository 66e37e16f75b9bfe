package main

import (
	"context"
	"testing"

	"github.com/drumql/drumql/store"
)

// derived is a derived fact to write: its relation and arguments by name,
// confidence, rule reference and body facts by name.
type derived struct {
	fact []string
	conf float32
	rule string
	body [][]string
}

// storeWith opens a new store, interns names in the order given (so that
// two stores give them different ids), loads the base triples graph and
// writes ds as its derived facts.
func storeWith(t *testing.T, names []string, graph []store.NamedTriple, ds []derived) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, n := range names {
		if _, err := db.Intern(n); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Load(ctx, &store.Batch{Graph: graph}, nil); err != nil {
		t.Fatal(err)
	}
	fact := func(names []string) store.Fact {
		var f store.Fact
		for i, n := range names {
			id, err := db.Intern(n)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				f.Rel = id
			} else {
				f.Args = append(f.Args, id)
			}
		}
		return f
	}
	var out []store.Derived
	for _, d := range ds {
		x := store.Derived{Fact: fact(d.fact), Confidence: d.conf, Prov: store.Provenance{Rule: d.rule}}
		for _, b := range d.body {
			x.Prov.Body = append(x.Prov.Body, fact(b))
		}
		out = append(out, x)
	}
	if err := db.ReplaceDerived(ctx, out); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestCompare checks each class of compare on two stores whose ids differ:
// the same proof (another line of the same rule), a tie (two rules of the
// same weight over base facts), a stronger proof (a heavier rule), a
// stronger one through a derived body fact of higher confidence, a fact the
// other store lacks, and another confidence.
func TestCompare(t *testing.T) {
	graph := []store.NamedTriple{{S: "a", R: "e", O: "b"}, {S: "b", R: "e", O: "c"}, {S: "a", R: "f", O: "c"}}
	r1 := "p.dl\t1\t1\t0.5\t0.5 :: h(X, Y) :- e(X, Y)."
	r1moved := "p.dl\t7\t1\t0.5\t0.5 :: h(X, Y) :- e(X, Y)."
	r2 := "p.dl\t2\t1\t0.5\t0.5 :: h(X, Y) :- f(X, Y)."
	r3 := "p.dl\t3\t1\t0.8\t0.8 :: h(X, Y) :- f(X, Y)."
	r4 := "p.dl\t4\t1\t0.9\t0.9 :: g(X, Y) :- h(X, Y)."
	a := storeWith(t, []string{"a", "b", "c", "e", "f", "h", "g"}, graph, []derived{
		{[]string{"h", "a", "b"}, 0.5, r1, [][]string{{"e", "a", "b"}}},
		{[]string{"h", "b", "c"}, 0.5, r1, [][]string{{"e", "b", "c"}}},
		{[]string{"h", "a", "c"}, 0.8, r3, [][]string{{"f", "a", "c"}}},
		{[]string{"g", "a", "b"}, 0.45, r4, [][]string{{"h", "a", "b"}}},
		{[]string{"g", "b", "c"}, 0.72, r4, [][]string{{"h", "a", "c"}}},
		{[]string{"h", "c", "a"}, 0.5, r1, [][]string{{"e", "a", "b"}}},
	})
	b := storeWith(t, []string{"h", "g", "f", "e", "c", "b", "a"}, graph, []derived{
		{[]string{"h", "a", "b"}, 0.5, r1moved, [][]string{{"e", "a", "b"}}},
		{[]string{"h", "b", "c"}, 0.5, r2, [][]string{{"f", "a", "c"}}},
		{[]string{"h", "a", "c"}, 0.5, r2, [][]string{{"f", "a", "c"}}},
		{[]string{"g", "a", "b"}, 0.45, r4, [][]string{{"h", "a", "c"}}},
		{[]string{"g", "b", "c"}, 0.45, r4, [][]string{{"h", "b", "c"}}},
	})
	got, err := compare(a, b, 0)
	if err != nil {
		t.Fatal(err)
	}
	// g(a, b): a's proof reads h(a, b) of 0.5 (0.45), b's h(a, c) of
	// 0.5 in b (0.45): a tie, valued in each store. g(b, c): the same
	// rule, a's through h(a, c) of 0.8 in a (0.72), b's through h(b, c) of
	// 0.5 (0.45).
	want := diff{facts: 6, same: 1, ties: 2, stronger: 2, missing: 1, confidence: 2}
	if got != want {
		t.Errorf("compare(a, b) = %+v, want %+v", got, want)
	}
	got, err = compare(b, a, 0)
	if err != nil {
		t.Fatal(err)
	}
	// From b: h(a, c) is weaker; g(a, b) is still a tie, each proof
	// valued in its own store.
	want = diff{facts: 5, same: 1, ties: 2, weaker: 2, confidence: 2}
	if got != want {
		t.Errorf("compare(b, a) = %+v, want %+v", got, want)
	}
}
