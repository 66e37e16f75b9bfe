package miner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
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
	cb := newConstBrute(facts)
	ents, bruteSkip := cb.ents, cb.count
	brute := func(r datalog.Rule) (int, int) { return bruteSkip(r, "", 0) }
	opt := ConstOptions{MinConf: 0.05, PerConstant: 100000, PerHead: 100000, Sample: 1000, TwoStepCands: 100000}
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
	// Every head h(X, c) and h(c, X).
	var headAtoms []datalog.Atom
	for _, h := range rels {
		for _, c := range ents {
			headAtoms = append(headAtoms, datalog.Atom{Pred: h, Args: []datalog.Term{v("X"), k(c)}},
				datalog.Atom{Pred: h, Args: []datalog.Term{k(c), v("X")}})
		}
	}
	missing := 0
	for _, head := range headAtoms {
		h := head.Pred
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
	// And every two-step rule h(X, c) :- b1(X, Y), b2(Y, d), b1 not h, of
	// a constant with at least twoStepMinFacts facts of the head, above the
	// thresholds, with at least two supporting X other than d
	// through a Y of at most twoStepFan edges (a path that comes back to X,
	// or passes through a hub, proposes nothing).
	twoStep := 0
	for _, head := range headAtoms {
		h := head.Pred
		if sup, _ := brute(datalog.Rule{Head: head, Body: []datalog.Literal{{Atom: datalog.Atom{Pred: h, Args: head.Args}}}}); sup < twoStepMinFacts {
			continue
		}
		for _, b1 := range rels {
			if b1 == h {
				continue
			}
			for _, b2 := range rels {
				for _, d := range ents {
					for _, a1 := range [][]datalog.Term{{v("X"), v("Y")}, {v("Y"), v("X")}} {
						for _, a2 := range [][]datalog.Term{{v("Y"), k(d)}, {k(d), v("Y")}} {
							r := datalog.Rule{Weight: 1, Head: head, Body: []datalog.Literal{
								{Kind: datalog.Positive, Atom: datalog.Atom{Pred: b1, Args: a1}},
								{Kind: datalog.Positive, Atom: datalog.Atom{Pred: b2, Args: a2}}}}
							sup, body := brute(r)
							if sup < 2 || float64(sup)/float64(body+5) < 0.05 {
								continue
							}
							twoStep++
							if besides, _ := bruteSkip(r, d, twoStepFan); !learned[r.Key()] && besides >= 2 {
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
	if twoStep < 20 {
		t.Errorf("only %d two-step rules above the thresholds: a weak test", twoStep)
	}
	if missing > 0 {
		t.Errorf("%d rules above the thresholds not learned", missing)
	}
}

// TestConstantRulesConfidence checks, on a small graph and for every
// smoothing, each learned rule's recorded confidence against its support and
// body counted by brute force on the triples: Confidence is support/body,
// the weight support/(body+Smoothing) rounded to 4 digits, and both pass the
// thresholds.
func TestConstantRulesConfidence(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var facts [][3]string
	rels := []string{"born_in", "lives_in", "speaks", "knows"}
	for range 160 {
		tl := fmt.Sprint("c", rng.IntN(5)) // few tails: constants repeat
		if rng.IntN(4) == 0 {
			tl = fmt.Sprint("p", rng.IntN(30))
		}
		facts = append(facts, [3]string{fmt.Sprint("p", rng.IntN(30)), rels[rng.IntN(len(rels))], tl})
	}
	g, err := LoadGraph(context.Background(), memStore(t, map[string][][3]string{"facts": facts}))
	if err != nil {
		t.Fatal(err)
	}
	cb := newConstBrute(facts)
	for _, tc := range []struct{ smoothing, s int }{{-1, 0}, {2, 2}, {0, DefaultSmoothing}} {
		opt := ConstOptions{MinSupport: 1, MinConf: 0.2, Smoothing: tc.smoothing, PerConstant: 100000, PerHead: 100000,
			Sample: 1000, TwoStepCands: 100000}
		rules, err := g.ConstantRules(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		forms := map[string]int{}
		below := 0 // rules whose confidence the smoothing lowers
		for _, cr := range rules {
			sup, body := cb.count(cr.Rule, "", 0)
			if body == 0 || sup != cr.Support || body != cr.Body {
				t.Fatalf("smoothing %d: %s: support %d body %d, brute force %d %d", tc.s, cr.Rule.String(), cr.Support, cr.Body, sup, body)
			}
			conf, smoothed := float64(sup)/float64(body), float64(sup)/float64(body+tc.s)
			if cr.Confidence != conf {
				t.Errorf("smoothing %d: %s: confidence %v, want %d/%d = %v", tc.s, cr.Rule.String(), cr.Confidence, sup, body, conf)
			}
			if want := roundSig(smoothed, 4); cr.Rule.Weight != want {
				t.Errorf("smoothing %d: %s: weight %v, want %d/(%d+%d) = %v", tc.s, cr.Rule.String(), cr.Rule.Weight, sup, body, tc.s, want)
			}
			if sup < opt.MinSupport || smoothed < opt.MinConf || conf > 1 {
				t.Errorf("smoothing %d: %s: support %d, body %d: below the thresholds", tc.s, cr.Rule.String(), sup, body)
			}
			if smoothed < conf {
				below++
			}
			switch {
			case len(cr.Rule.Body) == 2:
				forms["two-step"]++
			case slices.ContainsFunc(cr.Rule.Body[0].Atom.Args, func(a datalog.Term) bool { return a.Value == "_" }):
				forms["any"]++
			default:
				forms["constant"]++
			}
		}
		if forms["any"] == 0 || forms["constant"] == 0 || forms["two-step"] == 0 || (tc.s > 0) != (below > 0) {
			t.Errorf("smoothing %d: %d rules, %v, %d lowered by the smoothing: a weak test", tc.s, len(rules), forms, below)
		}
		t.Logf("smoothing %d: %d rules, %v", tc.s, len(rules), forms)
	}
}

// TestConstantRulesDeterministic: same seed, same rules, with sampling on,
// whatever the threads; and a head's rules do not depend on the other heads
// learned in the same run (a group of a cluster run learns only its own).
func TestConstantRulesDeterministic(t *testing.T) {
	st := datasetStore(t, "../examples/family")
	g, err := LoadGraph(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	// run returns the rules of head (all, if empty) as text.
	run := func(opt ConstOptions, head string) []string {
		rs, err := g.ConstantRules(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			if head == "" || r.Head == head {
				out = append(out, r.Rule.String())
			}
		}
		return out
	}
	a := run(ConstOptions{Sample: 3, Seed: 9, Threads: 1}, "")
	b := run(ConstOptions{Sample: 3, Seed: 9, Threads: 2}, "")
	if len(a) == 0 || !slices.Equal(a, b) {
		t.Fatalf("1 thread: %d rules, 2 threads: %d rules, or they differ", len(a), len(b))
	}
	head := g.Relations()[1]
	alone := run(ConstOptions{Sample: 3, Seed: 9, Heads: []string{head}}, "")
	share := run(ConstOptions{Sample: 3, Seed: 9}, head)
	if len(alone) == 0 || !slices.Equal(alone, share) {
		t.Fatalf("%s alone: %d rules; in the full run: %d, or they differ", head, len(alone), len(share))
	}
	if c := run(ConstOptions{Sample: 3, Seed: 10}, ""); slices.Equal(a, c) {
		t.Error("seeds 9 and 10 learn the same rules: the sample is not seeded")
	}
}

// TestChooseByCoverage checks the lazy greedy choice against a plain greedy
// one (every candidate's gain recomputed at every step, ties to the lower
// index; when nothing gains, the first not taken) on random candidate
// sets, and that the chosen rules keep their order.
func TestChooseByCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 200 {
		nFacts := 1 + rng.IntN(30)
		var cands []headCand
		var arena []int32
		for i := range 1 + rng.IntN(25) {
			hc := headCand{c: int32(i), lo: int32(len(arena))}
			// Few distinct confidences, so that gains tie.
			hc.conf = float64(1+rng.IntN(4)) / 4
			for f := range nFacts {
				if rng.IntN(3) == 0 {
					arena = append(arena, int32(f))
				}
			}
			hc.hi = int32(len(arena))
			cands = append(cands, hc)
		}
		n := 1 + rng.IntN(len(cands))
		// Plain greedy.
		best := make([]float64, nFacts)
		taken := make([]bool, len(cands))
		for range n {
			bi, bg := -1, 0.0
			for i, hc := range cands {
				if taken[i] {
					continue
				}
				g := 0.0
				for _, f := range arena[hc.lo:hc.hi] {
					g += max(0, hc.conf-best[f])
				}
				if g > bg {
					bi, bg = i, g
				}
			}
			if bi < 0 {
				// Nothing gains: the first candidates not taken.
				bi = slices.Index(taken, false)
			}
			taken[bi] = true
			for _, f := range arena[cands[bi].lo:cands[bi].hi] {
				best[f] = max(best[f], cands[bi].conf)
			}
		}
		var want []int32
		for i, ok := range taken {
			if ok {
				want = append(want, cands[i].c)
			}
		}
		var got []int32
		for _, hc := range chooseByCoverage(cands, arena, nFacts, n) {
			got = append(got, hc.c)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("trial %d: chose %v, plain greedy %v", trial, got, want)
		}
	}
}

// TestConstantRulesCoverage: on a graph where the most confident rules of a
// head all predict the same few facts, the coverage choice predicts more of
// the head's facts, with a higher sum of best confidences, than the choice
// by confidence, and chooses rules of the same candidates (each with its
// counts intact).
func TestConstantRulesCoverage(t *testing.T) {
	var facts [][3]string
	add := func(h, r, t string) { facts = append(facts, [3]string{h, r, t}) }
	// h(X, c) for x0..x4 is predicted by ten rules b_k(X, d_k) (confidence
	// 5/10); h(X, c) for y0..y29 by one rule, q(X, e), less confident
	// (30/65); h(w_i, c2) for a hundred others keeps h(X, c) :- h(X, _) low.
	for i := range 5 {
		x := fmt.Sprint("x", i)
		add(x, "h", "c")
		for k := range 10 {
			add(x, fmt.Sprint("b", k), fmt.Sprint("d", k))
		}
	}
	for i := range 30 {
		y := fmt.Sprint("y", i)
		add(y, "h", "c")
		add(y, "q", "e")
	}
	for i := range 30 {
		add(fmt.Sprint("z", i), "q", "e") // q(X, e) is often wrong
	}
	for i := range 100 {
		add(fmt.Sprint("w", i), "h", "c2")
	}
	st := memStore(t, map[string][][3]string{"facts": facts})
	g, err := LoadGraph(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	objective := func(rules []MinedRule) (covered int, sum float64) {
		best := map[string]float64{}
		for _, r := range rules {
			if r.Head != "h" {
				continue
			}
			b := r.Rule.Body[0].Atom
			for _, f := range facts {
				if f[1] == b.Pred && (b.Args[1].Value == "_" || f[2] == b.Args[1].Value) && r.Rule.Head.Args[1].Value == "c" && b.Args[0].Value == "X" {
					if slices.Contains(facts, [3]string{f[0], "h", "c"}) {
						best[f[0]] = max(best[f[0]], r.Rule.Weight)
					}
				}
			}
		}
		for _, w := range best {
			sum += w
		}
		return len(best), sum
	}
	opt := ConstOptions{Heads: []string{"h"}, PerHead: 3, PerConstant: 30, Len: 1}
	cov, err := g.ConstantRules(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.ByConfidence = true
	conf, err := g.ConstantRules(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(cov) != 3 || len(conf) != 3 {
		t.Fatalf("%d and %d rules, want 3", len(cov), len(conf))
	}
	nc, sc := objective(cov)
	nf, sf := objective(conf)
	if nc != 35 || nf != 5 || sc <= sf {
		t.Errorf("coverage choice predicts %d facts (sum %.3f), confidence choice %d (sum %.3f); want 35 and 5, and a larger sum", nc, sc, nf, sf)
	}
	opt.PerHead = 1000
	all, err := g.ConstantRules(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]MinedRule{}
	for _, r := range all {
		byKey[r.Rule.Key()] = r
	}
	for _, r := range cov {
		a, ok := byKey[r.Rule.Key()]
		if !ok || a.Support != r.Support || a.Body != r.Body || a.Rule.Weight != r.Rule.Weight {
			t.Errorf("%s: not a candidate with the same counts (%v %+v)", r.Rule.String(), ok, a)
		}
	}
}

// constBrute counts rules with constants on a list of triples, with no
// index: for every entity X, does the body hold, and the head?
type constBrute struct {
	holds map[[3]string]bool
	ents  []string       // in order of first appearance
	deg   map[string]int // edges of each entity
}

func newConstBrute(facts [][3]string) *constBrute {
	cb := &constBrute{holds: map[[3]string]bool{}, deg: map[string]int{}}
	seen := map[string]bool{}
	for _, f := range facts {
		cb.holds[f] = true
		for _, e := range []string{f[0], f[2]} {
			if !seen[e] {
				seen[e] = true
				cb.ents = append(cb.ents, e)
			}
		}
	}
	for f := range cb.holds {
		cb.deg[f[0]]++
		cb.deg[f[2]]++
	}
	return cb
}

// count returns the support and body of rule r (the forms of
// [Graph.ConstantRules]), leaving X = skip out and, with fan > 0, the Y of
// two-step bodies with more than fan edges.
func (cb *constBrute) count(r datalog.Rule, skip string, fan int) (sup, body int) {
	holds, ents, deg := cb.holds, cb.ents, cb.deg
	sub := func(a datalog.Term, x string) string {
		if a.Kind == datalog.Var && a.Value == "X" {
			return x
		}
		return a.Value
	}
	for _, x := range ents {
		if x == skip {
			continue
		}
		b := r.Body[0].Atom
		ok := false
		if len(r.Body) == 2 {
			// b1(X, Y), b2(Y, d): some Y joins them.
			b2 := r.Body[1].Atom
			for _, y := range ents {
				if fan > 0 && deg[y] > fan {
					continue
				}
				subY := func(a datalog.Term) string {
					if a.Kind == datalog.Var && a.Value == "Y" {
						return y
					}
					return sub(a, x)
				}
				if holds[[3]string{subY(b.Args[0]), b.Pred, subY(b.Args[1])}] && holds[[3]string{subY(b2.Args[0]), b2.Pred, subY(b2.Args[1])}] {
					ok = true
					break
				}
			}
		} else if b.Args[0].Value == "_" || b.Args[1].Value == "_" {
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
