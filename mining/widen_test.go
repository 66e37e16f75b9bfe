package mining

import (
	"context"
	"slices"
	"testing"

	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/scoring"
	"github.com/drumql/drumql/store"
)

func TestWideOptions(t *testing.T) {
	for _, tt := range []struct {
		name   string
		opt    miner.Options
		differ bool
	}{
		{"defaults", miner.Options{}, true},
		{"already wide", miner.Options{Config: miner.Config{MaxLen: 3},
			Constants: miner.ConstOptions{PerHead: WideConstantRules, PerConstant: WidePerConstant}}, false},
		{"wider constants than the wide set", miner.Options{Config: miner.Config{MaxLen: 3},
			Constants: miner.ConstOptions{PerHead: 2 * WideConstantRules, PerConstant: 2 * WidePerConstant}}, false},
		{"no constants, T=3", miner.Options{Config: miner.Config{MaxLen: 3}, NoConstants: true}, false},
		{"no constants, T=2", miner.Options{NoConstants: true}, true},
		{"no constants, paths of 3", miner.Options{NoConstants: true, Extract: miner.ExtractOptions{PathLen: 3}}, false},
		{"no constants, weights by score", miner.Options{NoConstants: true, Extract: miner.ExtractOptions{Weight: miner.WeightScore}}, false},
		{"no constants, no path samples", miner.Options{NoConstants: true, Extract: miner.ExtractOptions{PathSamples: -1}}, false},
	} {
		w, differ := WideOptions(tt.opt)
		if differ != tt.differ {
			t.Errorf("%s: differ = %v, want %v", tt.name, differ, tt.differ)
		}
		if !tt.opt.NoConstants && (w.Constants.PerHead < WideConstantRules || w.Constants.PerConstant < WidePerConstant) {
			t.Errorf("%s: wide constants %d per head, %d per constant", tt.name, w.Constants.PerHead, w.Constants.PerConstant)
		}
	}
}

// TestWiden: on kinship, each head relation keeps exactly the rules of one
// of the two sets, the wide one where its valid queries rank better with
// it (recomputed here from the ranks the two tunings report, which are
// checked against their MRR), and the result does not depend on the
// number of threads.
func TestWiden(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	ctx := context.Background()
	st, g, opt, res := minedKinship(t)
	widen := func(threads int) (*Run, *Widening, []miner.MinedRule) {
		o := opt
		o.Config.Threads, o.Extract.Threads, o.Constants.Threads = threads, threads, threads
		r := &Run{Store: st, Graph: g, Result: &miner.Result{Models: res.Models, Rules: slices.Clone(res.Rules)}}
		w, err := r.Widen(ctx, o, nil)
		if err != nil || w == nil {
			t.Fatalf("Widen: %v, %v", w, err)
		}
		return r, w, res.Rules
	}
	r, w, base := widen(1)
	qs, err := scoring.ValidQueries(st)
	if err != nil {
		t.Fatal(err)
	}
	// The ranks each tuning reports are those of its choice.
	for _, tu := range []*scoring.Tuning{w.BaseTuning, w.WideTuning} {
		sum := 0.0
		for _, rk := range tu.Ranks {
			sum += rk.Reciprocal(linkpred.Expected)
		}
		if len(tu.Ranks) != len(qs) || !near(sum/float64(len(qs)), tu.Chosen) {
			t.Fatalf("%d ranks of MRR %v, want %d of the chosen MRR %v", len(tu.Ranks), sum/float64(len(qs)), len(qs), tu.Chosen)
		}
	}
	// Per relation: the sum of reciprocal ranks under each set.
	type acc struct {
		n          int
		base, wide float64
	}
	byRel := map[string]*acc{}
	var all acc
	for i, q := range qs {
		a := entry(t, st, byRel, q)
		a.n++
		a.base += w.BaseTuning.Ranks[i].Reciprocal(linkpred.Expected)
		a.wide += w.WideTuning.Ranks[i].Reciprocal(linkpred.Expected)
		all.base += w.BaseTuning.Ranks[i].Reciprocal(linkpred.Expected)
		all.wide += w.WideTuning.Ranks[i].Reciprocal(linkpred.Expected)
	}
	keys := func(rules []miner.MinedRule, head string) []string {
		var out []string
		for _, m := range rules {
			if m.Head == head {
				out = append(out, m.Rule.Key())
			}
		}
		slices.Sort(out)
		return out
	}
	wideRules, err := ReadRules(ctx, g, r.ModelSet(), nil, mustWide(miner.Options{Config: r.Result.Models[0].Config()}))
	if err != nil {
		t.Fatal(err)
	}
	overallWide := all.wide > all.base
	nWide := 0
	for head, a := range byRel {
		got := keys(r.Result.Rules, head)
		fromBase, fromWide := keys(base, head), keys(wideRules.Rules, head)
		wantWide := overallWide
		if a.n >= scoring.TuneMinQueries {
			wantWide = a.wide > a.base
		}
		switch {
		case wantWide && slices.Equal(got, fromWide):
			nWide++
		case !wantWide && slices.Equal(got, fromBase):
		default:
			t.Errorf("%s (%d queries, base %.3f, wide %.3f): %d rules, want the %v set's (%d base, %d wide)",
				head, a.n, a.base/float64(a.n), a.wide/float64(a.n), len(got), map[bool]string{true: "wide", false: "base"}[wantWide], len(fromBase), len(fromWide))
		}
	}
	if nWide != w.Wide || nWide == 0 || nWide == len(byRel) {
		t.Errorf("%d of %d relations keep the wide set, Widening says %d: want some, not all", nWide, len(byRel), w.Wide)
	}
	r2, _, _ := widen(2)
	if !slices.EqualFunc(r.Result.Rules, r2.Result.Rules, func(a, b miner.MinedRule) bool { return a.Rule.String() == b.Rule.String() }) {
		t.Error("the rules differ between 1 and 2 threads")
	}
}

func mustWide(opt miner.Options) miner.Options {
	w, _ := WideOptions(opt)
	return w
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// minedKinship returns a memory store of kinship, its graph, and the
// rules of a one-epoch, one-thread mine of it with the options used.
func minedKinship(t *testing.T) (store.Store, *miner.Graph, miner.Options, *miner.Result) {
	t.Helper()
	b, err := store.ReadDataset("../examples/kinship")
	if err != nil {
		t.Fatal(err)
	}
	st := store.NewMemory()
	ctx := context.Background()
	if _, err := st.Load(ctx, b, nil); err != nil {
		t.Fatal(err)
	}
	g, err := miner.LoadGraph(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	opt := miner.Options{Config: miner.Config{MaxEpochs: 1, MinEpochs: 1, Threads: 1}}.WithDefaults()
	res, err := miner.Mine(ctx, st, g, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st, g, opt, res
}

// entry returns the value of byRel for the head relation of q, added
// (zero) the first time.
func entry[T any](t *testing.T, st store.Store, byRel map[string]*T, q linkpred.Query) *T {
	t.Helper()
	name, err := st.Name(q.Rel)
	if err != nil {
		t.Fatal(err)
	}
	a := byRel[name]
	if a == nil {
		a = new(T)
		byRel[name] = a
	}
	return a
}
