package mining

import (
	"context"
	"slices"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/scoring"
)

// TestKeepTop: on kinship, each head relation keeps exactly the rules of
// one of the three candidate sets (by support × weight, covering,
// ranking), the one whose aggregation ranks its valid queries best
// (recomputed here from each set's own tuning; the best overall for
// relations with few or no queries, the first among equals), TopFrom counts
// them and TopMRR is each set's valid MRR.
func TestKeepTop(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	ctx := context.Background()
	st, g, _, res := minedKinship(t)
	const n = 5
	r := &Run{Store: st, Graph: g, Result: &miner.Result{Models: res.Models, Rules: slices.Clone(res.Rules)}}
	if _, err := r.ChooseAggregation(ctx, "auto"); err != nil {
		t.Fatal(err)
	}
	if err := r.KeepTop(ctx, n); err != nil {
		t.Fatal(err)
	}
	all := res.Rules
	cover, rank, err := scoring.TopSets(ctx, st, g.Snapshot(), all, n)
	if err != nil {
		t.Fatal(err)
	}
	sets := [][]miner.MinedRule{miner.TopRules(all, n), cover, rank}
	qs, err := scoring.ValidQueries(st)
	if err != nil {
		t.Fatal(err)
	}
	type acc struct {
		n  int
		rr [3]float64
	}
	byRel := map[string]*acc{}
	var overall acc
	for k, set := range sets {
		tu, err := scoring.ChooseAggregation(ctx, st, g, &datalog.Program{Rules: miner.DatalogRules(set)}, qs)
		if err != nil {
			t.Fatal(err)
		}
		if !near(tu.Chosen, r.TopMRR[k]) {
			t.Errorf("set %d: TopMRR %v, its tuning %v", k, r.TopMRR[k], tu.Chosen)
		}
		for i, q := range qs {
			a := entry(t, st, byRel, q)
			if k == 0 {
				a.n++
			}
			rr := tu.Ranks[i].Reciprocal(linkpred.Expected)
			a.rr[k] += rr
			overall.rr[k] += rr
		}
	}
	best := func(rr [3]float64) int {
		b := 0
		for k := 1; k < 3; k++ {
			if rr[k] > rr[b] {
				b = k
			}
		}
		return b
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
	var from [3]int
	for _, m := range all { // relations without valid queries: the best overall
		if byRel[m.Head] == nil {
			byRel[m.Head] = &acc{}
		}
	}
	for head, a := range byRel {
		want := best(overall.rr)
		if a.n >= scoring.TuneMinQueries {
			want = best(a.rr)
		}
		from[want]++
		if got := keys(r.Result.Rules, head); !slices.Equal(got, keys(sets[want], head)) {
			t.Errorf("%s (%d queries, %v): %d rules, want set %d's", head, a.n, a.rr, len(got), want)
		}
	}
	if from != r.TopFrom || from[2] == 0 {
		t.Errorf("relations per set %v, TopFrom %v: want them equal, and some by rank", from, r.TopFrom)
	}
}
