package miner

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/drumql/drumql/datalog"
)

func TestMinedRuleComment(t *testing.T) {
	cases := []struct {
		name string
		r    MinedRule
		want string
	}{
		{"not counted", MinedRule{Score: 0.123456, Ranks: []float64{0.1, 0.023456}},
			"score=0.1235 ranks=0.1,0.02346"},
		{"counted", MinedRule{Score: 1.5, Ranks: []float64{1.5}, Counted: true, Support: 3, Body: 4, Confidence: 0.75},
			"score=1.5 ranks=1.5 support=3 body=4 conf=0.75"},
		{"vacuous body", MinedRule{Score: 0.02, Ranks: []float64{0.01, 0.01}, Counted: true},
			"score=0.02 ranks=0.01,0.01 support=0 body=0"},
		{"third of confidence", MinedRule{Score: 2, Ranks: []float64{2}, Counted: true, Support: 1, Body: 3, Confidence: 1.0 / 3},
			"score=2 ranks=2 support=1 body=3 conf=0.3333"},
		{"estimated from a sample of the starts", MinedRule{Score: 1, Ranks: []float64{1}, Counted: true, Support: 40, Body: 2000,
			Confidence: 0.02, Sampled: 12, Starts: 300},
			"score=1 ranks=1 support~40 body~2000 conf=0.02 sample=12/300"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.r.Comment(); got != c.want {
				t.Errorf("Comment() = %q, want %q", got, c.want)
			}
			c.r.Rule = datalog.Rule{Weight: 0.5, Head: datalog.Atom{Pred: "p"}}
			d := c.r.Datalog()
			if d.Comment != c.want || d.Weight != 0.5 || c.r.Rule.Comment != "" {
				t.Errorf("Datalog() = %+v, want the comment %q and the weight 0.5, the receiver unchanged", d, c.want)
			}
		})
	}
}

// TestRulesTyped checks the typed fields of extracted rules against the
// rules themselves.
func TestRulesTyped(t *testing.T) {
	st := datasetStore(t, "../examples/kinship")
	m, err := Train(t.Context(), st, Config{MaxEpochs: 1, Hidden: 8, Embed: 8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := m.Rules(ExtractOptions{MinScore: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) == 0 {
		t.Fatal("no rules")
	}
	for _, r := range rules {
		if r.Head != r.Rule.Head.Pred || r.Rule.Comment != "" || len(r.Ranks) != m.Config().Rank {
			t.Errorf("rule %s: head %q, comment %q, %d ranks", r.Rule, r.Head, r.Rule.Comment, len(r.Ranks))
		}
		sum := 0.0
		for _, v := range r.Ranks {
			sum += v
		}
		if d := sum - r.Score; d > 1e-9*r.Score || d < -1e-9*r.Score {
			t.Errorf("rule %s: ranks sum to %g, score %g", r.Rule, sum, r.Score)
		}
		if !r.Counted || r.Support < 1 || r.Support > r.Body || r.Confidence != float64(r.Support)/float64(r.Body) {
			t.Errorf("rule %s: counted %t support %d body %d confidence %g", r.Rule, r.Counted, r.Support, r.Body, r.Confidence)
		}
	}
}

// TestBeamOrder: the beam keeps the same bodies in the same order as the
// plain formulation (materialise every extension, stable sort by score,
// keep the best), with many ties (attention values from a small set).
func TestBeamOrder(t *testing.T) {
	const R, L, T = 4, 3, 3
	m := &Model{lay: layout{nOps: 2*R + 1, nT: T, L: L}}
	rng := rand.New(rand.NewPCG(7, 7))
	levels := []float64{0, 0.05, 0.1, 0.25, 0.5}
	a := randomAttention(L, T, 2*R+1, func() float64 { return levels[rng.IntN(len(levels))] })
	for _, beam := range []int{1, 7, 40, 1000} {
		opt := ExtractOptions{Beam: beam, MinScore: 1e-3}
		got := m.beam(a, opt)
		want := beamReference(a, L, T, 2*R+1, opt)
		if len(got) != len(want) {
			t.Fatalf("beam %d: %d bodies, want %d", beam, len(got), len(want))
		}
		for i := range got {
			if !slices.Equal(got[i].ops, want[i].ops) || got[i].score != want[i].score || !slices.Equal(got[i].ranks, want[i].ranks) {
				t.Fatalf("beam %d: body %d = %v %v, want %v %v", beam, i, got[i].ops, got[i].score, want[i].ops, want[i].score)
			}
		}
	}
}

// beamReference is the beam search written plainly: every extension
// materialised, a stable sort by score, the best kept; then identities
// skipped and equal bodies merged in order of first appearance.
func beamReference(a [][][]float64, L, T, K int, opt ExtractOptions) []seq {
	type item struct {
		ops  []int
		prod []float64
		sum  float64
	}
	cur := []item{{prod: slices.Repeat([]float64{1}, L), sum: float64(L)}}
	for t := range T {
		var next []item
		for _, it := range cur {
			for k := range K {
				p := make([]float64, L)
				var s float64
				for j := range L {
					p[j] = it.prod[j] * a[j][t][k]
					s += p[j]
				}
				if s >= opt.MinScore {
					next = append(next, item{ops: append(slices.Clone(it.ops), k), prod: p, sum: s})
				}
			}
		}
		sort.SliceStable(next, func(i, j int) bool { return next[i].sum > next[j].sum })
		cur = next[:min(len(next), opt.Beam)]
	}
	var out []seq
	index := map[string]int{}
	for _, it := range cur {
		ops := slices.DeleteFunc(slices.Clone(it.ops), func(k int) bool { return k == K-1 })
		if len(ops) == 0 {
			continue
		}
		key := fmt.Sprint(ops)
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, seq{ops: ops, ranks: make([]float64, L)})
		}
		out[i].score += it.sum
		for j := range L {
			out[i].ranks[j] += it.prod[j]
		}
	}
	return out
}

// TestNthLargest checks the quickselect against a sort, with many ties.
func TestNthLargest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := 1 + rng.IntN(60)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(rng.IntN(1 + trial%10))
		}
		want := slices.Clone(xs)
		slices.SortFunc(want, func(a, b float64) int { return cmp.Compare(b, a) })
		k := 1 + rng.IntN(n)
		if got := nthLargest(slices.Clone(xs), k); got != want[k-1] {
			t.Fatalf("%v: %d-th largest %v, want %v", xs, k, got, want[k-1])
		}
	}
}
