package policy_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/policy"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

func mustParse(t testing.TB, name, src string) *datalog.Program {
	t.Helper()
	p, err := parser.ParseString(name, src)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// combineCases are the combinations of a query over pred "wife" or
// "husband" in program src, asked or not.
var combineCases = []struct {
	src, asked, pred string
	want             policy.Combination
	err              bool
}{
	{"", "", "wife", policy.Combination{Method: policy.Max}, false},
	{"", "noisy-or", "wife", policy.Combination{Method: policy.NoisyOr}, false},
	{"", "grouped", "wife", policy.Combination{Method: policy.Grouped, Overlap: 0.5}, false},
	{"", "max", "wife", policy.Combination{Method: policy.Max}, false},
	{"", "noisy_or", "wife", policy.Combination{}, true},
	{"", "sum", "wife", policy.Combination{}, true},
	{"@aggregate noisy_or.", "", "wife", policy.Combination{Method: policy.NoisyOr, Top: 5, Directive: "noisy_or"}, false},
	{"@aggregate noisy_or(top = 3, prior = 1).", "", "wife", policy.Combination{Method: policy.NoisyOr, Top: 3, Prior: true, Directive: "noisy_or(top = 3, prior = 1)"}, false},
	{"@aggregate noisy_or(top = 3).", "max", "wife", policy.Combination{Method: policy.Max}, false},
	{"@aggregate grouped(threshold = 0.7).", "", "wife", policy.Combination{Method: policy.Grouped, Overlap: 0.7, Directive: "grouped(threshold = 0.7)"}, false},
	{"@aggregate grouped.", "", "wife", policy.Combination{Method: policy.Grouped, Overlap: 0.5, Directive: "grouped"}, false},
	{"@aggregate max(prior = 1).", "", "wife", policy.Combination{Method: policy.Max, Prior: true, Directive: "max(prior = 1)"}, false},
	// a relation's own directive before the file's
	{"@aggregate max.\n@aggregate noisy_or(top = 2) for wife.", "", "wife", policy.Combination{Method: policy.NoisyOr, Top: 2, Directive: "noisy_or(top = 2)"}, false},
	{"@aggregate max.\n@aggregate noisy_or(top = 2) for wife.", "", "husband", policy.Combination{Method: policy.Max, Directive: "max"}, false},
	{"@aggregate grouped for husband.", "", "wife", policy.Combination{Method: policy.Max}, false},
}

func TestCombine(t *testing.T) {
	for _, c := range combineCases {
		got, err := policy.Combine(c.asked, mustParse(t, "p.dl", c.src), c.pred)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("Combine(%q, %q, %s) = %+v, %v; want %+v, error %v", c.asked, c.src, c.pred, got, err, c.want, c.err)
		}
	}
	if got, err := policy.Combine("", nil, "wife"); err != nil || got != (policy.Combination{Method: policy.Max}) {
		t.Errorf("Combine with no program = %+v, %v", got, err)
	}
}

// minCases are the thresholds of a program src with --min asked.
var minCases = []struct {
	src   string
	asked float64
	want  policy.Threshold
}{
	{"", 0, policy.Threshold{}},
	{"", 0.2, policy.Threshold{Min: 0.2, Source: "--min"}},
	{"@min 0.1.", 0, policy.Threshold{Min: 0.1, Source: "@min in p.dl"}},
	{"@min 0.1.", 0.3, policy.Threshold{Min: 0.3, Source: "--min"}},
	{"@min 0.1.", 1, policy.Threshold{Min: 1, Source: "--min"}},
	{"@min 1.", 0, policy.Threshold{Min: 1, Source: "@min in p.dl"}},
}

func TestResolveMin(t *testing.T) {
	for _, c := range minCases {
		if got := policy.ResolveMin(c.asked, mustParse(t, "p.dl", c.src)); got != c.want {
			t.Errorf("ResolveMin(%g, %q) = %+v, want %+v", c.asked, c.src, got, c.want)
		}
	}
	// merged files: the smallest threshold, named by its file
	p := mustParse(t, "a.dl", "@min 0.3.")
	p.Thresholds = append(p.Thresholds, mustParse(t, "b.dl", "@min 0.2.").Thresholds...)
	if got, want := policy.ResolveMin(0, p), (policy.Threshold{Min: 0.2, Source: "@min in b.dl"}); got != want {
		t.Errorf("merged: %+v, want %+v", got, want)
	}
	if got := policy.ResolveMin(0, nil); got != (policy.Threshold{}) {
		t.Errorf("no program: %+v", got)
	}
}

// groupStore holds p(x_i, y_i) for i < n, q and r linking every x_i to y_i
// and s linking x_i to z_i: p's rules through q and r predict the same,
// through s something else.
func groupStore(t testing.TB, n int) store.Store {
	t.Helper()
	st := store.NewMemory()
	b := &store.Batch{}
	for i := range n {
		x, y, z := fmt.Sprint("x", i), fmt.Sprint("y", i), fmt.Sprint("z", i)
		b.Facts = append(b.Facts, store.NamedFact{Rel: "p", Args: []string{x, y}},
			store.NamedFact{Rel: "q", Args: []string{x, y}}, store.NamedFact{Rel: "r", Args: []string{x, y}},
			store.NamedFact{Rel: "s", Args: []string{x, z}})
	}
	if _, err := st.Load(context.Background(), b, nil); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestGroups(t *testing.T) {
	ctx := context.Background()
	st := groupStore(t, 10)
	prog := mustParse(t, "p.dl", `
0.9 :: p(X, Y) :- q(X, Y).
0.5 :: other(X) :- q(X, _).
0.8 :: p(X, Y) :- r(X, Y).
0.7 :: p(X, Y) :- s(X, Y).
`)
	eng, err := policy.PrepareRules(ctx, st, prog, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := policy.NewGrouper(st, eng, prog).Groups(ctx, "p", 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 4 || g[0] != g[2] || g[0] == g[3] || g[1] == g[0] || g[1] == g[3] {
		t.Errorf("groups %v: want rules 0 and 2 together, 1 and 3 alone", g)
	}
	// a policy prepares the same groups once
	pol := policy.New(st, prog)
	for range 2 {
		got, err := pol.Groups(ctx, "p", 0.5)
		if err != nil || !slices.Equal(got, g) {
			t.Errorf("Policy.Groups = %v, %v; want %v", got, err, g)
		}
	}
	// the group triples: at most MaxGroupTriples of the facts, spread
	ts, err := policy.NewGrouper(groupStore(t, 3*policy.MaxGroupTriples), eng, prog).Triples("p")
	if err != nil || len(ts) != policy.MaxGroupTriples {
		t.Fatalf("Triples: %d, %v", len(ts), err)
	}
	if ts, err := policy.NewGrouper(st, eng, prog).Triples("nothing"); err != nil || len(ts) != 0 {
		t.Errorf("Triples of an unknown predicate: %v, %v", ts, err)
	}
}

func ExampleCombine() {
	prog, _ := parser.ParseString("wife.dl", `
@aggregate noisy_or(top = 3).
@aggregate grouped(threshold = 0.6) for husband.
0.75 :: wife(A, B) :- husband(B, A).
`)
	for _, pred := range []string{"wife", "husband"} {
		c, _ := policy.Combine("", prog, pred)
		fmt.Printf("%s: %s (top %d, overlap %g) from %s\n", pred, c.Method, c.Top, c.Overlap, c.Directive)
	}
	c, _ := policy.Combine("max", prog, "wife")
	fmt.Println("asked:", c.Method)
	// Output:
	// wife: noisy-or (top 3, overlap 0) from noisy_or(top = 3)
	// husband: grouped (top 0, overlap 0.6) from grouped(threshold = 0.6)
	// asked: max
}

// TestGroupsAtOverlaps checks that the groups a Grouper derives from the
// sketches it keeps per relation are, at every overlap, those of
// sketching every rule of the program and grouping them at that overlap
// (what Groups did before it kept them), and that GroupsAt gives the same
// partition in compact form.
func TestGroupsAtOverlaps(t *testing.T) {
	ctx := context.Background()
	st := randomGroupStore(t)
	prog := mustParse(t, "p.dl", `
0.9 :: p(X, Y) :- q(X, Y).
0.5 :: other(X) :- q(X, _).
0.8 :: p(X, Y) :- r(X, Y).
0.7 :: p(X, Y) :- s(X, Y).
0.6 :: p(X, Y) :- q(X, Y), s(X, _).
0.4 :: p(X, Y) :- s(X, Z), s(W, Z), q(W, Y).
0.3 :: p(X, Y) :- q(X, W), s(X, Z), s(V, Z), q(V, Y).
0.2 :: p(X, Y) :- s(X, Y), q(X, _), r(X, _).
`)
	eng, err := policy.PrepareRules(ctx, st, prog, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := policy.NewGrouper(st, eng, prog).Triples("p")
	if err != nil {
		t.Fatal(err)
	}
	sk := linkpred.NewRuleSketches(len(prog.Rules))
	for i, tr := range ts {
		for dir, given := range []store.ID{tr.S, tr.O} {
			name, err := st.Name(given)
			if err != nil {
				t.Fatal(err)
			}
			err = eng.EachRuleHit(ctx, "p", name, dir == 1, func(id store.ID, hs []reasoner.RuleScore) {
				for _, h := range hs {
					sk.Add(int(h.Rule), linkpred.PairKey(uint32(2*i+dir), uint32(id)))
				}
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	g := policy.NewGrouper(st, eng, prog)
	overlaps := []float64{0, 0.05, 0.1, 0.3, 0.5, 0.9, 1}
	rules, compact, err := g.GroupsAt(ctx, "p", overlaps)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[string]bool{}
	for k, o := range overlaps {
		want := sk.Groups(o)
		got, err := g.Groups(ctx, "p", o)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("overlap %g: groups %v, %v; want %v", o, got, err, want)
		}
		for a := range rules {
			for b := range rules {
				if (compact[k][a] == compact[k][b]) != (want[rules[a]] == want[rules[b]]) {
					t.Errorf("overlap %g: rules %d and %d together %t in compact form", o, rules[a], rules[b], compact[k][a] == compact[k][b])
				}
			}
		}
		distinct[fmt.Sprint(want)] = true
	}
	if len(distinct) < 3 {
		t.Errorf("%d distinct groupings over the overlaps: the case tests little", len(distinct))
	}
}
