package scoring

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
)

// coverRule is h(A, B) :- body(A, B) with weight w and support n.
func coverRule(body string, w float64, n int) miner.MinedRule {
	v := func(s string) datalog.Term { return datalog.Term{Kind: datalog.Var, Value: s} }
	return miner.MinedRule{Head: "h", Support: n, Counted: true, Rule: datalog.Rule{Weight: w,
		Head: datalog.Atom{Pred: "h", Args: []datalog.Term{v("A"), v("B")}},
		Body: []datalog.Literal{{Kind: datalog.Positive, Atom: datalog.Atom{Pred: body, Args: []datalog.Term{v("A"), v("B")}}}}}}
}

// TestTopByCoverage: of three rules of h, q predicts exactly what the
// more confident p predicts, and s the facts neither reaches. The two
// with the highest support × weight are p and q; the two that cover the
// most are p and s. A relation with no more rules than n keeps them all.
func TestTopByCoverage(t *testing.T) {
	b, add := splitBatch()
	for i := range 5 {
		a, c := fmt.Sprint("a", i), fmt.Sprint("b", i)
		add("train", a, "h", c)
		if i < 3 {
			add("facts", a, "p", c)
			add("facts", a, "q", c)
		} else {
			add("facts", a, "s", c)
		}
	}
	add("facts", "x", "p", "y") // p and q: 3 of 4 right
	add("facts", "x", "q", "y")
	st := store.NewMemory()
	if _, err := st.Load(context.Background(), b, nil); err != nil {
		t.Fatal(err)
	}
	snap, err := st.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rules := []miner.MinedRule{coverRule("p", 0.75, 3), coverRule("q", 0.7, 3), coverRule("s", 0.5, 2)}
	other := coverRule("p", 0.75, 3)
	other.Head, other.Rule.Head.Pred = "k", "k"
	rules = append(rules, other)
	names := func(rs []miner.MinedRule) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Rule.Head.Pred+":"+r.Rule.Body[0].Atom.Pred)
		}
		return out
	}
	if got, want := names(miner.TopRules(rules, 2)), []string{"h:p", "h:q", "k:p"}; !slices.Equal(got, want) {
		t.Errorf("TopRules: %v, want %v", got, want)
	}
	top, err := TopByCoverage(context.Background(), st, snap, rules, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(top), []string{"h:p", "h:s", "k:p"}; !slices.Equal(got, want) {
		t.Errorf("TopByCoverage: %v, want %v", got, want)
	}
	// n = 1: the rule that gains most is p (3 facts at 0.75, both
	// directions) before s (2 at 0.5).
	top, err = TopByCoverage(context.Background(), st, snap, rules, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(top), []string{"h:p", "k:p"}; !slices.Equal(got, want) {
		t.Errorf("TopByCoverage(1): %v, want %v", got, want)
	}
}

// TestChooseCover: the greedy choice, and the fill in the fallback order
// once nothing gains.
func TestChooseCover(t *testing.T) {
	hits := [][]coverHit{
		{{q: 0, conf: 0.9}, {q: 1, conf: 0.9}}, // 0
		{{q: 0, conf: 0.8}, {q: 1, conf: 0.8}}, // 1: under 0
		{{q: 2, conf: 0.5}},                    // 2
		nil,                                    // 3: predicts nothing
	}
	for _, tt := range []struct {
		order []int
		n     int
		want  []int
	}{
		{[]int{0, 1, 2, 3}, 2, []int{0, 2}},
		{[]int{0, 1, 2, 3}, 3, []int{0, 2, 1}},
		{[]int{3, 1, 0, 2}, 4, []int{0, 2, 3, 1}},
		{[]int{0, 1, 2, 3}, 1, []int{0}},
	} {
		if got := chooseCover(hits, tt.order, tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("order %v, n %d: %v, want %v", tt.order, tt.n, got, tt.want)
		}
	}
}

// splitBatch returns an empty batch and a function that adds a triple to
// its graph and to one of its splits.
func splitBatch() (*store.Batch, func(split, s, r, o string)) {
	b := &store.Batch{Splits: map[string][]store.NamedTriple{}}
	return b, func(split, s, r, o string) {
		nt := store.NamedTriple{S: s, R: r, O: o}
		b.Graph = append(b.Graph, nt)
		b.Splits[split] = append(b.Splits[split], nt)
	}
}
