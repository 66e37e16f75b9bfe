package scoring

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/reasoner"
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
	b := &store.Batch{Splits: map[string][]store.NamedTriple{}}
	add := func(split, s, r, o string) {
		nt := store.NamedTriple{S: s, R: r, O: o}
		b.Graph = append(b.Graph, nt)
		b.Splits[split] = append(b.Splits[split], nt)
	}
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

// TestTopByCoverageRanks: a rule's gain is how well it ranks the truth, not
// its confidence. p (0.9) reaches b0 from a0 level with five wrong answers;
// q (0.5) reaches only b0: asked (a0, h, ?), p ranks the truth 3.5th and q
// first, so n = 1 keeps q, where the most confident rule would be p. The
// other true answer b2 of a1 is filtered: p ranks b1 first there.
func TestTopByCoverageRanks(t *testing.T) {
	b := &store.Batch{Splits: map[string][]store.NamedTriple{}}
	add := func(split, s, r, o string) {
		nt := store.NamedTriple{S: s, R: r, O: o}
		b.Graph = append(b.Graph, nt)
		b.Splits[split] = append(b.Splits[split], nt)
	}
	add("train", "a0", "h", "b0")
	add("facts", "a0", "p", "b0")
	add("facts", "a0", "q", "b0")
	for i := range 5 {
		add("facts", "a0", "p", fmt.Sprint("z", i))
	}
	st := store.NewMemory()
	if _, err := st.Load(context.Background(), b, nil); err != nil {
		t.Fatal(err)
	}
	snap, err := st.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rules := []miner.MinedRule{coverRule("p", 0.9, 1), coverRule("q", 0.5, 1)}
	top, err := TopByCoverage(context.Background(), st, snap, rules, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(top) != 1 || top[0].Rule.Body[0].Atom.Pred != "q" {
		t.Errorf("TopByCoverage(1) keeps %v, want q", top)
	}
	// The filter: a1's other true answer b2, which p also predicts, does
	// not count against p, so p ranks b1 first from a1 and b2 first too.
	b2 := &store.Batch{Splits: map[string][]store.NamedTriple{}}
	for _, f := range [][3]string{{"a1", "h", "b1"}, {"a1", "h", "b2"}} {
		nt := store.NamedTriple{S: f[0], R: f[1], O: f[2]}
		b2.Graph = append(b2.Graph, nt)
		b2.Splits["train"] = append(b2.Splits["train"], nt)
	}
	for _, f := range [][3]string{{"a1", "p", "b1"}, {"a1", "p", "b2"}} {
		b2.Graph = append(b2.Graph, store.NamedTriple{S: f[0], R: f[1], O: f[2]})
	}
	st2 := store.NewMemory()
	if _, err := st2.Load(context.Background(), b2, nil); err != nil {
		t.Fatal(err)
	}
	eng, err := reasoner.Prepare(context.Background(), st2, &datalog.Program{Rules: miner.DatalogRules(rules)}, reasoner.Options{Min: reasoner.RankMin, BaseOnly: true, LazyLoad: true})
	if err != nil {
		t.Fatal(err)
	}
	facts, err := coverFacts(st2)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := coverHits(context.Background(), st2, eng, "h", facts, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits[0] {
		if h.conf != 1 {
			t.Errorf("p ranks question %d's truth at 1/%v, want first", h.q, 1/h.conf)
		}
	}
	if len(hits[0]) != 4 {
		t.Errorf("p answers %d questions truly, want 4", len(hits[0]))
	}
}
