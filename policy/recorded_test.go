package policy_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/policy"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// countingHits counts the queries a Grouper asks of the rules.
type countingHits struct {
	policy.RuleHits
	n int
}

func (c *countingHits) EachRuleHit(ctx context.Context, head, given string, inverse bool, fn func(id store.ID, hits []reasoner.RuleScore)) error {
	c.n++
	return c.RuleHits.EachRuleHit(ctx, head, given, inverse, fn)
}

// recordedSource is a program with rules for p between other heads' rules,
// so that rule ordinals among p's rules differ from program indices.
const recordedSource = `
0.9 :: p(X, Y) :- q(X, Y).
0.5 :: other(X) :- q(X, _).
0.8 :: p(X, Y) :- r(X, Y).
0.7 :: p(X, Y) :- s(X, Y).
0.6 :: p(X, Y) :- q(X, Y), s(X, _).
0.5 :: other(X) :- s(X, _).
0.4 :: p(X, Y) :- s(X, Z), s(W, Z), q(W, Y).
0.3 :: p(X, Y) :- q(X, W), s(X, Z), s(V, Z), q(V, Y).
0.2 :: p(X, Y) :- s(X, Y), q(X, _), r(X, _).
0.1 :: p(X, Y) :- r(X, Y), r(X, _).
`

func randomGroupStore(t *testing.T) store.Store {
	t.Helper()
	st := store.NewMemory()
	rng := rand.New(rand.NewPCG(4, 8))
	b := &store.Batch{}
	for range 200 {
		b.Facts = append(b.Facts, store.NamedFact{Rel: []string{"p", "q", "r", "s"}[rng.IntN(4)],
			Args: []string{fmt.Sprint("e", rng.IntN(30)), fmt.Sprint("e", rng.IntN(30))}})
	}
	if _, err := st.Load(context.Background(), b, nil); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestRecordedGroups checks that the groups a @groups directive records,
// written by the printer and read back by the parser, are at every overlap
// the groups the rules' predictions give (Grouper, applying the rules),
// that a Grouper and a Policy given them apply no rule, and that they are
// ignored, the groups found again, when the overlap or the rules differ
// (a weight alone does not count).
func TestRecordedGroups(t *testing.T) {
	ctx := context.Background()
	st := randomGroupStore(t)
	prog := mustParse(t, "p.dl", recordedSource)
	eng, err := policy.PrepareRules(ctx, st, prog, nil)
	if err != nil {
		t.Fatal(err)
	}
	idx := prog.HeadRules([]string{"p"})["p"]
	if len(idx) != 8 {
		t.Fatalf("p has %d rules, want 8", len(idx))
	}
	distinct := map[string]bool{}
	for _, o := range []float64{0, 0.1, 0.3, 0.5, 1} {
		computed := policy.NewGrouper(st, eng, prog)
		want, err := computed.Groups(ctx, "p", o)
		if err != nil {
			t.Fatal(err)
		}
		distinct[fmt.Sprint(want)] = true
		rules, local, err := computed.GroupsAt(ctx, "p", []float64{o})
		if err != nil {
			t.Fatal(err)
		}
		rg := policy.Record(prog, "p", o, idx, rules, local[0])
		// Independently of Record: its groups are the classes of want
		// among p's rules with two or more members, by ordinal.
		classes := map[int32][]int32{}
		for k, i := range idx {
			classes[want[i]] = append(classes[want[i]], int32(k+1))
		}
		var wantGroups [][]int32
		for _, c := range classes {
			if len(c) > 1 {
				wantGroups = append(wantGroups, c)
			}
		}
		datalog.SortGroups(wantGroups)
		if fmt.Sprint(rg.Groups) != fmt.Sprint(wantGroups) || rg.Rules != 8 {
			t.Errorf("overlap %g: recorded %v of %d rules, want %v of 8", o, rg.Groups, rg.Rules, wantGroups)
		}
		back := mustParse(t, "p.dl", recordedSource+rg.String()+"\n")
		if len(back.RuleGroups) != 1 || back.RuleGroups[0].String() != rg.String() {
			t.Fatalf("overlap %g: %s read back as %v", o, rg, back.RuleGroups)
		}
		hits := &countingHits{RuleHits: eng}
		got, err := policy.NewGrouper(st, hits, back).Groups(ctx, "p", o)
		if err != nil || !slices.Equal(got, want) || hits.n != 0 {
			t.Errorf("overlap %g: recorded groups %v, %v after %d rule queries; want %v after none", o, got, err, hits.n, want)
		}
		if got, err := policy.New(nil, back).Groups(ctx, "p", o); err != nil || !slices.Equal(got, want) {
			t.Errorf("overlap %g: Policy.Groups %v, %v; want %v without the store", o, got, err, want)
		}
		// Another overlap: found again.
		hits.n = 0
		if _, err := policy.NewGrouper(st, hits, back).Groups(ctx, "p", o+0.05); err != nil || hits.n == 0 {
			t.Errorf("overlap %g recorded, %g asked: %d rule queries, %v; want the groups found again", o, o+0.05, hits.n, err)
		}
	}
	if len(distinct) < 3 {
		t.Errorf("%d distinct groupings over the overlaps: the case tests little", len(distinct))
	}

	rules, local, err := policy.NewGrouper(st, eng, prog).GroupsAt(ctx, "p", []float64{0.3})
	if err != nil {
		t.Fatal(err)
	}
	rg := policy.Record(prog, "p", 0.3, idx, rules, local[0])
	for _, c := range []struct {
		what, old, new string
		match          bool
	}{
		{"a weight changed", "0.7 :: p(X, Y) :- s(X, Y).", "0.75 :: p(X, Y) :- s(X, Y).", true},
		{"another head's rule changed", "0.5 :: other(X) :- s(X, _).", "0.5 :: other(X) :- r(X, _).", true},
		{"a body changed", "0.7 :: p(X, Y) :- s(X, Y).", "0.7 :: p(X, Y) :- s(Y, X).", false},
		{"a rule removed", "0.1 :: p(X, Y) :- r(X, Y), r(X, _).", "", false},
		{"a rule added", "0.1 :: p(X, Y) :- r(X, Y), r(X, _).", "0.1 :: p(X, Y) :- r(X, Y), r(X, _).\np(X, Y) :- q(Y, X).", false},
		{"two rules swapped", "0.9 :: p(X, Y) :- q(X, Y).\n0.5 :: other(X) :- q(X, _).\n0.8 :: p(X, Y) :- r(X, Y).",
			"0.8 :: p(X, Y) :- r(X, Y).\n0.5 :: other(X) :- q(X, _).\n0.9 :: p(X, Y) :- q(X, Y).", false},
	} {
		src := strings.Replace(recordedSource, c.old, c.new, 1)
		if src == recordedSource {
			t.Fatalf("%s: the case changes nothing", c.what)
		}
		edited := mustParse(t, "p.dl", src+rg.String()+"\n")
		if _, _, ok := policy.Recorded(edited, "p", 0.3, nil); ok != c.match {
			t.Errorf("%s: recorded groups used %t, want %t", c.what, ok, c.match)
		}
		if c.match {
			continue
		}
		// Found again: what the edited rules' predictions give.
		eng2, err := policy.PrepareRules(ctx, st, edited, nil)
		if err != nil {
			t.Fatal(err)
		}
		plain := *edited
		plain.RuleGroups = nil
		want, err := policy.NewGrouper(st, eng2, &plain).Groups(ctx, "p", 0.3)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := policy.New(st, edited).Groups(ctx, "p", 0.3); err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: Policy.Groups %v, %v; want %v (found again)", c.what, got, err, want)
		}
	}
}
