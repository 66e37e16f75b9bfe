package miner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/drumql/drumql/datalog"
)

// TestConstantRulesCounts checks every learned rule's support and body
// against a count made from the triples themselves, and that every rule the
// brute force finds above the thresholds (with the sample covering all
// facts) is learned.
func TestConstantRulesCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var facts [][3]string
	rels := []string{"p", "q", "s"}
	for range 300 {
		h := fmt.Sprint("e", rng.IntN(40))
		r := rels[rng.IntN(len(rels))]
		tl := fmt.Sprint("e", rng.IntN(8)) // few tails: constants repeat
		if rng.IntN(3) == 0 {
			tl = fmt.Sprint("e", rng.IntN(40))
		}
		facts = append(facts, [3]string{h, r, tl})
	}
	st := memStore(t, map[string][][3]string{"facts": facts})
	g, err := LoadGraph(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	holds := map[[3]string]bool{}
	var ents []string
	seen := map[string]bool{}
	for _, f := range facts {
		holds[f] = true
		for _, e := range []string{f[0], f[2]} {
			if !seen[e] {
				seen[e] = true
				ents = append(ents, e)
			}
		}
	}
	// brute counts the rule on the triples: for every entity X, does the
	// body hold, and the head?
	brute := func(r datalog.Rule) (sup, body int) {
		sub := func(a datalog.Term, x string) string {
			if a.Kind == datalog.Var && a.Value == "X" {
				return x
			}
			return a.Value
		}
		for _, x := range ents {
			b := r.Body[0].Atom
			ok := false
			if b.Args[0].Value == "_" || b.Args[1].Value == "_" {
				for _, y := range ents {
					s, o := sub(b.Args[0], x), sub(b.Args[1], x)
					if b.Args[0].Value == "_" {
						s = y
					} else {
						o = y
					}
					if holds[[3]string{s, b.Pred, o}] {
						ok = true
						break
					}
				}
			} else {
				ok = holds[[3]string{sub(b.Args[0], x), b.Pred, sub(b.Args[1], x)}]
			}
			if !ok {
				continue
			}
			body++
			if holds[[3]string{sub(r.Head.Args[0], x), r.Head.Pred, sub(r.Head.Args[1], x)}] {
				sup++
			}
		}
		return sup, body
	}
	opt := ConstOptions{MinConf: 0.05, PerConstant: 1000, PerHead: 100000, Sample: 1000}
	rules, err := g.ConstantRules(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) < 20 {
		t.Fatalf("only %d rules learned", len(rules))
	}
	learned := map[string]bool{}
	for _, cr := range rules {
		sup, body := brute(cr.Rule)
		if sup != cr.Support || body != cr.Body {
			t.Errorf("%s: support %d body %d, brute force %d %d", cr.Rule.String(), cr.Support, cr.Body, sup, body)
		}
		if want := roundSig(float64(sup)/float64(body+5), 4); cr.Rule.Weight != want {
			t.Errorf("%s: weight %v, want %v", cr.Rule.String(), cr.Rule.Weight, want)
		}
		if !cr.FromGraph || !cr.Counted || cr.Head != cr.Rule.Head.Pred {
			t.Errorf("%s: FromGraph %v Counted %v Head %q", cr.Rule.String(), cr.FromGraph, cr.Counted, cr.Head)
		}
		learned[cr.Rule.Key()] = true
	}
	// Every rule of the four forms, for every head, constant and position,
	// that passes the thresholds must have been learned.
	v := func(s string) datalog.Term { return datalog.Term{Kind: datalog.Var, Value: s} }
	k := func(s string) datalog.Term { return datalog.Term{Kind: datalog.Symbol, Value: s} }
	missing := 0
	for _, h := range rels {
		for _, c := range ents {
			for pos := range 2 {
				head := datalog.Atom{Pred: h, Args: []datalog.Term{v("X"), k(c)}}
				if pos == 0 {
					head.Args = []datalog.Term{k(c), v("X")}
				}
				for _, b := range rels {
					others := append([]datalog.Term{v("_")}, func() (ts []datalog.Term) {
						for _, d := range ents {
							ts = append(ts, k(d))
						}
						return
					}()...)
					for _, o := range others {
						for _, args := range [][]datalog.Term{{v("X"), o}, {o, v("X")}} {
							if b == h && (datalog.Atom{Pred: b, Args: args}).String() == head.String() {
								continue
							}
							r := datalog.Rule{Weight: 1, Head: head, Body: []datalog.Literal{{Kind: datalog.Positive, Atom: datalog.Atom{Pred: b, Args: args}}}}
							sup, body := brute(r)
							if sup >= 2 && float64(sup)/float64(body+5) >= 0.05 && !learned[r.Key()] {
								missing++
								if missing < 5 {
									t.Errorf("not learned: %s (support %d, body %d)", r.String(), sup, body)
								}
							}
						}
					}
				}
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d rules above the thresholds not learned", missing)
	}
}

// TestConstantRulesDeterministic: same seed, same rules, with sampling on.
func TestConstantRulesDeterministic(t *testing.T) {
	st := datasetStore(t, "../examples/family")
	g, err := LoadGraph(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	opt := ConstOptions{Sample: 3, Seed: 9}
	a, err := g.ConstantRules(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.ConstantRules(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d and %d rules", len(a), len(b))
	}
	for i := range a {
		if a[i].Rule.String() != b[i].Rule.String() {
			t.Fatalf("rule %d: %s vs %s", i, a[i].Rule.String(), b[i].Rule.String())
		}
	}
}

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
