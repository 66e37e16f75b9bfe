package miner

import (
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
