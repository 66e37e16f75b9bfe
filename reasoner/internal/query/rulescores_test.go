package query

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/store/storetest"
)

// TestRuleScores compares RuleScores with a per-rule brute force: each rule
// alone, queried with Query.
func TestRuleScores(t *testing.T) {
	ctx := context.Background()
	prog, st, en, cd := prepareScores(t, `0.9 :: h(A, B) :- r0(A, B).
0.8 :: h(A, B) :- r1(A, C), r2(C, B).
0.7 :: h(A, B) :- r1(A, C), r3(B, C).
0.6 :: h(A, B) :- r1(A, C), r2(C, D), r0(D, B).
0.5 :: h(A, B) :- r2(B, C), r3(C, D), r1(D, A).
0.4 :: h(A, B) :- g(A, B).
0.3 :: h(A, B) :- r0(A, C), r0(C, B), A != B.
0.35 :: h(A, B) :- r1(A, C), r1(C, D), r1(D, B), A != B, A != D, C != B.
0.25 :: h(A, B) :- r2(B, C), C != A, r0(D, C), r2(D, A), B != D, B != A.
0.9 :: g(X, Y) :- r3(X, Y).
0.5 :: g(X, Z) :- g(X, Y), r3(Y, Z).
`, randomFacts(5, 5, 400, 60, 4, 60))
	if h := cd.heads["h"]; len(h.chain) != 8 || len(h.other) != 1 {
		t.Fatalf("chain rules %v, other %v", h.chain, h.other)
	}
	checked := checkRuleScores(t, en, st, 60, func(ri int) *datalog.Program {
		return &datalog.Program{Rules: append([]datalog.Rule{prog.Rules[ri]}, prog.Rules[9:]...)}
	}, 9)
	if checked < 100 {
		t.Errorf("only %d candidates checked", checked)
	}
	// EachRuleHit: the same hits, in any order, each hit's scores in any
	// order too.
	for e := range 60 {
		for _, inverse := range []bool{false, true} {
			want, err := en.RuleScores(ctx, "h", fmt.Sprint("v", e), inverse)
			if err != nil {
				t.Fatal(err)
			}
			var got []eval.RuleHit
			seen := map[store.ID]bool{}
			err = en.EachRuleHit(ctx, "h", fmt.Sprint("v", e), inverse, func(id store.ID, hits []eval.RuleScore) {
				if seen[id] {
					t.Errorf("v%d inverse=%v: candidate %d twice", e, inverse, id)
				}
				seen[id] = true
				name, err := st.Name(id)
				if err != nil {
					t.Fatal(err)
				}
				h := eval.RuleHit{Candidate: name, ID: id}
				for _, x := range hits {
					h.Scores = append(h.Scores, x.Score)
					h.Rules = append(h.Rules, int(x.Rule))
				}
				got = append(got, h)
			})
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(got, func(a, b eval.RuleHit) int {
				return slices.IndexFunc(want, func(w eval.RuleHit) bool { return w.ID == a.ID }) - slices.IndexFunc(want, func(w eval.RuleHit) bool { return w.ID == b.ID })
			})
			for _, h := range got {
				// Decreasing score, ties by rule, as RuleScores orders them.
				idx := make([]int, len(h.Scores))
				for k := range idx {
					idx[k] = k
				}
				slices.SortFunc(idx, func(x, y int) int {
					return cmp.Or(cmp.Compare(h.Scores[y], h.Scores[x]), cmp.Compare(h.Rules[x], h.Rules[y]))
				})
				scores, rules := slices.Clone(h.Scores), slices.Clone(h.Rules)
				for k, x := range idx {
					h.Scores[k], h.Rules[k] = scores[x], rules[x]
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("v%d inverse=%v: EachRuleHit\n%v\nRuleScores\n%v", e, inverse, got, want)
			}
		}
	}
	// An engine that shares the caller's snapshot and loads relations on
	// first use (the rule g of h's last rule needs them) scores the same.
	snap, err := st.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := Prepare(ctx, st, prog, eval.Options{Snapshot: snap, LazyLoad: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(lazy.shared) != 0 {
		t.Errorf("LazyLoad: Prepare loaded %d relations", len(lazy.shared))
	}
	checkRuleScores(t, lazy, st, 60, func(ri int) *datalog.Program {
		return &datalog.Program{Rules: append([]datalog.Rule{prog.Rules[ri]}, prog.Rules[9:]...)}
	}, 9)
	if cd, err := lazy.chainInfo(ctx); err != nil || cd.snap != snap {
		t.Errorf("the chain fast path took a snapshot of its own (err %v)", err)
	}
	// The same over every relation stored hypersparse.
	hyper, err := Prepare(ctx, st, prog, eval.Options{Snapshot: storetest.Hypersparse(snap)})
	if err != nil {
		t.Fatal(err)
	}
	checkRuleScores(t, hyper, st, 60, func(ri int) *datalog.Program {
		return &datalog.Program{Rules: append([]datalog.Rule{prog.Rules[ri]}, prog.Rules[9:]...)}
	}, 9)
	// The Engine.Query fast path (a head of chain rules only) agrees with the
	// evaluator.
	chainOnly := &datalog.Program{Rules: append(slices.Clone(prog.Rules[:5]), prog.Rules[6:9]...)}
	en2, err := Prepare(ctx, st, chainOnly, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for e := range 60 {
		for _, q := range []string{fmt.Sprintf("h(v%d, X)?", e), fmt.Sprintf("h(X, v%d)?", e), fmt.Sprintf("h(v%d, _)?", e)} {
			a1, err := en2.Query(ctx, testkit.MustQuery(t, q))
			if err != nil {
				t.Fatal(err)
			}
			a2, err := Query(ctx, st, chainOnly, testkit.MustQuery(t, q), eval.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if oracle.FormatAnswers(a1) != oracle.FormatAnswers(a2) {
				t.Fatalf("%s: fast path\n%s\nevaluator\n%s", q, oracle.FormatAnswers(a1), oracle.FormatAnswers(a2))
			}
		}
	}
}

// TestRuleScoresOneStep checks the link-prediction semantics: rules are
// applied once to the graph, so rules that derive more facts of a graph
// relation, and derived facts a previous Infer stored, change nothing under
// BaseOnly; auxiliary predicates are still derived by the program.
func TestRuleScoresOneStep(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(9, 9))
	var b strings.Builder
	for range 300 {
		fmt.Fprintf(&b, "v%d\tr%d\tv%d\n", rng.IntN(50), rng.IntN(3), rng.IntN(50))
	}
	base := `0.9 :: h(A, B) :- r0(A, C), r1(C, B).
0.7 :: h(A, B) :- aux(A, B).
0.8 :: aux(A, B) :- r2(B, A).
`
	extra := base + `r0(A, B) :- r2(A, B).
0.6 :: h(A, B) :- h(B, A).
`
	scores := func(st store.Store, src string, opt eval.Options) string {
		t.Helper()
		en, err := Prepare(ctx, st, testkit.MustParse(t, src), opt)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for e := range 50 {
			for _, inverse := range []bool{false, true} {
				hits, err := en.RuleScores(ctx, "h", fmt.Sprint("v", e), inverse)
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range hits {
					for k := range h.Scores {
						if h.Rules[k] < 2 { // rules 0 and 1 are the same in both programs
							out = append(out, fmt.Sprintf("v%d %v %s %d %.6g\n", e, inverse, h.Candidate, h.Rules[k], h.Scores[k]))
						}
					}
				}
			}
		}
		slices.Sort(out) // the extra rule's scores may reorder the hits
		return strings.Join(out, "")
	}
	st := testkit.NewStore(t, b.String())
	want := scores(st, base, eval.Options{})
	if strings.Count(want, "\n") < 50 || !strings.Contains(want, " 1 0.") {
		t.Fatalf("too few hits, or none through the auxiliary predicate:\n%s", want)
	}
	if got := scores(st, extra, eval.Options{}); got != want {
		t.Errorf("rules defining a graph relation changed the scores (%d vs %d bytes):\ngot\n%s\nwant\n%s", len(got), len(want), got, want)
	}
	if _, err := eval.Infer(ctx, st, testkit.MustParse(t, extra), eval.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := scores(st, base, eval.Options{BaseOnly: true}); got != want {
		t.Errorf("BaseOnly read derived facts:\ngot\n%s\nwant\n%s", got, want)
	}
	if got := scores(st, base, eval.Options{}); got == want {
		t.Errorf("without BaseOnly the stored derived facts should count")
	}
}

// TestRuleScoresConstants compares the fast path of rules with constants
// (one atom, and two-step bodies b1(X, Y), b2(Y, d)) with the evaluator:
// each rule alone, queried with Query, for every entity in both directions.
func TestRuleScoresConstants(t *testing.T) {
	ctx := context.Background()
	facts := randomFacts(7, 7, 300, 40, 3, 12)
	const src = `0.9 :: h(X, v3) :- r0(X, v5).
0.8 :: h(X, v3) :- r1(v2, X).
0.7 :: h(X, v4) :- r2(X, _).
0.6 :: h(X, v1) :- r0(_, X).
0.5 :: h(v3, X) :- r1(X, v7).
0.4 :: h(v6, X) :- r2(v1, X).
0.3 :: h(v2, X) :- r0(X, _).
0.2 :: h(v9, X) :- r1(_, X).
0.9 :: h(X, nobody) :- r0(X, _).
0.9 :: h(X, v3) :- r0(X, nobody).
0.9 :: h(X, v3) :- nothing(X, v1).
0.55 :: h(X, v3) :- r0(X, Y), r1(Y, v5).
0.45 :: h(X, v2) :- r1(Y, X), r2(v1, Y).
0.35 :: h(v4, X) :- r2(X, Y), r0(Y, v7).
0.25 :: h(v5, X) :- r0(Y, X), r0(v2, Y).
0.15 :: h(v1, X) :- r1(X, Y), r1(v0, Y).
0.9 :: h(X, v3) :- r0(X, Y), r1(Y, nobody).
0.9 :: h(X, v3) :- r0(X, Y), nothing(Y, v1).
0.9 :: h(X, v3) :- r0(X, Y), r1(Y, Z).
0.9 :: h(X, v3) :- r0(X, Y), r1(Y, X).
0.9 :: h(X, v3) :- r0(X, Y), r1(Y, _).
`
	prog, st, en, cd := prepareScores(t, src, facts)
	// Rules 10 and 17 read `nothing`, which has no facts and no rules: they
	// derive nothing and are evaluated neither way.
	if h := cd.heads["h"]; len(h.lpConst) != 16 || !slices.Equal(h.lpOther, []int{18, 19, 20}) {
		t.Fatalf("rules with constants %d, other %v", len(h.lpConst), h.lpOther)
	}
	checked := checkRuleScores(t, en, st, 42, func(ri int) *datalog.Program {
		return &datalog.Program{Rules: []datalog.Rule{prog.Rules[ri]}}
	}, len(prog.Rules))
	if checked < 200 {
		t.Errorf("only %d candidates checked", checked)
	}
	// The same over every relation stored hypersparse.
	snap, err := st.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hyper, err := Prepare(ctx, st, prog, eval.Options{Snapshot: storetest.Hypersparse(snap)})
	if err != nil {
		t.Fatal(err)
	}
	checkRuleScores(t, hyper, st, 42, func(ri int) *datalog.Program {
		return &datalog.Program{Rules: []datalog.Rule{prog.Rules[ri]}}
	}, len(prog.Rules))
}

// TestChainPathForms: which comparisons keep a rule on the chain fast path
// (none; A != B; on three steps, object identity A != B, A != D, C != B in
// any order and orientation) and which send it to the evaluator.
func TestChainPathForms(t *testing.T) {
	for _, tc := range []struct {
		rule    string
		ok      bool
		neq, oi bool
	}{
		{"h(A, B) :- r(A, C), s(C, D), t(D, B).", true, false, false},
		{"h(A, B) :- r(A, C), s(C, D), t(D, B), B != A.", true, true, false},
		{"h(A, B) :- r(A, C), s(C, D), t(D, B), A != B, A != D, C != B.", true, true, true},
		{"h(A, B) :- B != C, t(B, D), D != A, s(C, D), r(C, A), A != B.", true, true, true},
		{"h(A, B) :- r(A, C), s(C, D), t(D, B), A != D, C != B.", false, false, false},
		{"h(A, B) :- r(A, C), s(C, D), t(D, B), A != B, A != C.", false, false, false},
		{"h(A, B) :- r(A, C), s(C, B), A != B, A != C.", false, false, false},
		{"h(A, B) :- r(A, C), s(C, D), t(D, E), u(E, B), A != B, A != D, C != E.", false, false, false},
		{"h(A, B) :- r(A, C), s(C, B), A < B.", false, false, false},
	} {
		prog := testkit.MustParse(t, tc.rule)
		_, neq, oi, ok := ChainPath(&prog.Rules[0])
		if ok != tc.ok || neq != tc.neq || oi != tc.oi {
			t.Errorf("%s: ok %v neq %v oi %v, want %v %v %v", tc.rule, ok, neq, oi, tc.ok, tc.neq, tc.oi)
		}
	}
}

// TestRuleScoresAuxConfidences: rules over a predicate the program derives
// (an auxiliary relation) reach a candidate by derivations of different
// confidences; each rule's score is its best, as the rule alone with the
// auxiliary rules answers. The chain rules among them (two steps, and three
// under object identity) are walked over the weighted facts (lpAux), the
// other one is joined (lpOther).
func TestRuleScoresAuxConfidences(t *testing.T) {
	facts := randomFacts(3, 11, 120, 12, 3, 12)
	const src = `0.9 :: h(X, Y) :- aux(X, Z), r2(Z, Y).
0.7 :: h(X, Y) :- r0(X, Z), aux(Z, Y).
0.8 :: h(A, B) :- aux(A, C), r2(C, D), aux(D, B), A != B, A != D, C != B.
0.4 :: h(X, Y) :- aux(X, Y), r1(Y, X).
0.5 :: aux(X, Y) :- r0(X, Y).
0.8 :: aux(X, Y) :- r1(X, Y).
0.6 :: aux(X, Y) :- r1(X, Z), r2(Z, Y).
`
	prog, st, en, cd := prepareScores(t, src, facts)
	if h := cd.heads["h"]; !slices.Equal(h.lpAux, []int{0, 1, 2}) || !slices.Equal(h.lpOther, []int{3}) {
		t.Fatalf("walked rules %v, joined %v; want [0 1 2] and [3]", h.lpAux, h.lpOther)
	}
	checked := checkRuleScores(t, en, st, 12, func(ri int) *datalog.Program {
		return &datalog.Program{Rules: append([]datalog.Rule{prog.Rules[ri]}, prog.Rules[4:]...)}
	}, 4)
	if checked < 50 {
		t.Errorf("only %d candidates checked", checked)
	}
}

// TestRuleScoresAuxProgramSymbol: an auxiliary relation that holds a
// symbol only the program names (not the store) cannot be walked over the
// store's entities: its chain rules are joined instead, with the same
// scores as each rule alone.
func TestRuleScoresAuxProgramSymbol(t *testing.T) {
	facts := randomFacts(5, 13, 120, 12, 3, 12)
	const src = `0.9 :: h(X, Y) :- aux(X, Z), r2(Z, Y).
0.7 :: h(X, Y) :- r0(X, Z), aux(Z, Y).
0.5 :: aux(X, Y) :- r0(X, Y).
0.6 :: aux(X, elsewhere) :- r1(X, Y).
0.8 :: aux(elsewhere, Y) :- r2(Y, X).
`
	prog, st, en, cd := prepareScores(t, src, facts)
	checked := checkRuleScores(t, en, st, 12, func(ri int) *datalog.Program {
		return &datalog.Program{Rules: append([]datalog.Rule{prog.Rules[ri]}, prog.Rules[2:]...)}
	}, 2)
	if h := cd.heads["h"]; h.auxChains != nil || !slices.Equal(h.lpOther, []int{0, 1}) {
		t.Errorf("walked %v, joined %v; want the rules joined", h.auxChains != nil, h.lpOther)
	}
	if checked < 50 {
		t.Errorf("only %d candidates checked", checked)
	}
}

// randomFacts returns n random triples (vS, rR, vO) as TSV: S below
// subjects, R below rels, O below objects.
func randomFacts(seed1, seed2 uint64, n, subjects, rels, objects int) string {
	rng := rand.New(rand.NewPCG(seed1, seed2))
	var b strings.Builder
	for range n {
		fmt.Fprintf(&b, "v%d\tr%d\tv%d\n", rng.IntN(subjects), rng.IntN(rels), rng.IntN(objects))
	}
	return b.String()
}

// prepareScores prepares src over a store of facts for rule scores and
// returns its chain information.
func prepareScores(t *testing.T, src, facts string) (*datalog.Program, store.Store, *Engine, *chainData) {
	t.Helper()
	ctx := context.Background()
	prog := testkit.MustParse(t, src)
	st := testkit.NewStore(t, facts)
	en, err := Prepare(ctx, st, prog, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cd, err := en.chainInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return prog, st, en, cd
}
