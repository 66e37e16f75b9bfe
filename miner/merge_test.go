package miner

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
)

func TestMergeRules(t *testing.T) {
	rule := func(head string, w float64, body string) MinedRule {
		v := func(s string) datalog.Term { return datalog.Term{Kind: datalog.Var, Value: s} }
		return MinedRule{Head: head, Rule: datalog.Rule{Weight: w,
			Head: datalog.Atom{Pred: head, Args: []datalog.Term{v("A"), v("B")}},
			Body: []datalog.Literal{{Kind: datalog.Positive, Atom: datalog.Atom{Pred: body, Args: []datalog.Term{v("A"), v("B")}}}}}}
	}
	a := []MinedRule{rule("h", 0.9, "p"), rule("h", 0.5, "q"), rule("k", 0.3, "p")}
	b := []MinedRule{rule("g", 0.1, "p"), rule("h", 0.5, "r"), rule("h", 0.7, "p"), rule("k", 0.4, "q")}
	var got []string
	for _, r := range MergeRules(a, b) {
		got = append(got, fmt.Sprintf("%s %g %s", r.Head, r.Rule.Weight, r.Rule.Body[0].Atom.Pred))
	}
	want := []string{"g 0.1 p", "h 0.9 p", "h 0.5 q", "h 0.5 r", "k 0.4 q", "k 0.3 p"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// TestTieGroups checks the order MergeRules gives a head's counted chain
// rules against groups worked out by hand, and that the order depends on
// the rules only: on its own output, and on the lists shuffled, MergeRules
// returns the same list.
func TestTieGroups(t *testing.T) {
	v := func(s string) datalog.Term { return datalog.Term{Kind: datalog.Var, Value: s} }
	// rule makes h(A, B) :- body, with body atoms over A, C, D, B in turn
	// (len(preds) atoms), counted with sup of body pairs (sampled of starts
	// when sampled > 0), weight w and DRUM score score.
	rule := func(w float64, sup, body, sampled, starts int, score float64, preds ...string) MinedRule {
		vars := []string{"A", "C", "D", "B"}
		var lits []datalog.Literal
		for i, p := range preds {
			y := vars[i+1]
			if i == len(preds)-1 {
				y = "B"
			}
			lits = append(lits, datalog.Literal{Kind: datalog.Positive, Atom: datalog.Atom{Pred: p, Args: []datalog.Term{v(vars[i]), v(y)}}})
		}
		return MinedRule{Head: "h", Counted: true, Calibrated: true, Support: sup, Body: body, Sampled: sampled, Starts: starts, Score: score,
			Confidence: float64(sup) / float64(body),
			Rule:       datalog.Rule{Weight: w, Head: datalog.Atom{Pred: "h", Args: []datalog.Term{v("A"), v("B")}}, Body: lits}}
	}
	constant := func(w float64) MinedRule {
		r := rule(w, 5, 6, 0, 0, 0, "k")
		r.FromGraph = true
		r.Rule.Head.Args[1] = datalog.Term{Kind: datalog.Symbol, Value: fmt.Sprint("c", w)}
		return r
	}
	// Standard errors, √(w(1−w)/n): .80 over 1600 pairs: .01, so the
	// first group reaches down to .78; .70 over 2100 pairs sampled at 1/10
	// (210 pairs): about .0316, so its group reaches down to .6368.
	rules := []MinedRule{
		rule(0.80, 1280, 1600, 0, 0, 1e-5, "p", "q", "r"), // leads group 1
		rule(0.79, 1000, 1266, 0, 0, 1e-4, "p", "q"),      // group 1, 2 atoms, less support
		rule(0.785, 1500, 1911, 0, 0, 1e-6, "s", "t"),     // group 1, 2 atoms, more support
		rule(0.781, 800, 1024, 0, 0, 1e-3, "u"),           // group 1 (just above the floor), 1 atom
		constant(0.75),                                    // between the groups
		rule(0.70, 1470, 2100, 21, 210, 0, "p", "p", "p"), // leads group 2: sampled
		rule(0.65, 650, 1000, 0, 0, 0.5, "q", "q"),        // group 2
		rule(0.65, 650, 1000, 0, 0, 0.1, "r", "r"),        // group 2: same counts, lower score
		rule(0.60, 600, 1000, 0, 0, 0, "v"),               // below .6368: group 3
		constant(0.60),                                    // same weight as group 3: after it
	}
	want := []string{"h 0.781 u", "h 0.785 s,t", "h 0.79 p,q", "h 0.8 p,q,r", "h 0.75 k",
		"h 0.65 q,q", "h 0.65 r,r", "h 0.7 p,p,p", "h 0.6 v", "h 0.6 k"}
	show := func(rs []MinedRule) []string {
		var out []string
		for _, r := range rs {
			var ps []string
			for _, l := range r.Rule.Body {
				ps = append(ps, l.Atom.Pred)
			}
			out = append(out, fmt.Sprintf("%s %g %s", r.Head, r.Rule.Weight, strings.Join(ps, ",")))
		}
		return out
	}
	got := MergeRules(rules)
	if !slices.Equal(show(got), want) {
		t.Fatalf("got  %q\nwant %q", show(got), want)
	}
	if again := MergeRules(got); !slices.Equal(show(again), want) {
		t.Errorf("MergeRules of its own output: %q", show(again))
	}
	// Weights that are DRUM scores (mine --weight score) keep their order.
	scored := slices.Clone(rules)
	for i := range scored {
		scored[i].Calibrated = false
	}
	byWeight := []string{"h 0.8 p,q,r", "h 0.79 p,q", "h 0.785 s,t", "h 0.781 u", "h 0.75 k",
		"h 0.7 p,p,p", "h 0.65 q,q", "h 0.65 r,r", "h 0.6 v", "h 0.6 k"}
	if got := MergeRules(scored); !slices.Equal(show(got), byWeight) {
		t.Errorf("rules weighted by score: got %q\nwant %q", show(got), byWeight)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		sh := slices.Clone(rules)
		rng.Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
		cut := rng.IntN(len(sh))
		a, b := slices.Clone(sh[:cut]), slices.Clone(sh[cut:])
		// Only the two constants of weight .6 and .75 are not counted
		// chain rules; they have distinct weights, so no order of theirs
		// is left to the lists.
		if got := MergeRules(a, b); !slices.Equal(show(got), want) {
			t.Fatalf("shuffled lists: got %q", show(got))
		}
	}
}

// TestTopRules checks the rules TopRules keeps per head against choices
// worked out by hand: support × weight first, then weight, then the order;
// the kept rules keep their order, and n <= 0 keeps everything.
func TestTopRules(t *testing.T) {
	rule := func(head string, w float64, sup int, body string) MinedRule {
		v := func(s string) datalog.Term { return datalog.Term{Kind: datalog.Var, Value: s} }
		return MinedRule{Head: head, Support: sup, Counted: true, Rule: datalog.Rule{Weight: w,
			Head: datalog.Atom{Pred: head, Args: []datalog.Term{v("A"), v("B")}},
			Body: []datalog.Literal{{Kind: datalog.Positive, Atom: datalog.Atom{Pred: body, Args: []datalog.Term{v("A"), v("B")}}}}}}
	}
	rules := MergeRules([]MinedRule{
		rule("h", 0.95, 2, "c1"), // 1.9: narrow and confident
		rule("h", 0.9, 3, "c2"),  // 2.7
		rule("h", 0.6, 100, "p"), // 60: general
		rule("h", 0.5, 120, "q"), // 60: general, same value, lighter
		rule("h", 0.2, 40, "r"),  // 8
		rule("k", 0.8, 1, "p"),   // 0.8
		rule("k", 0.3, 10, "q"),  // 3
	})
	show := func(rs []MinedRule) string {
		var s []string
		for _, r := range rs {
			s = append(s, r.Head+" "+r.Rule.Body[0].Atom.Pred)
		}
		return strings.Join(s, ", ")
	}
	for _, c := range []struct {
		n    int
		want string
	}{
		{1, "h p, k q"},
		{2, "h p, h q, k p, k q"},
		{3, "h p, h q, h r, k p, k q"},
		{4, "h c2, h p, h q, h r, k p, k q"},
		{0, show(rules)},
	} {
		if got := show(TopRules(rules, c.n)); got != c.want {
			t.Errorf("n=%d: %s, want %s", c.n, got, c.want)
		}
	}
}
