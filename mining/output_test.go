package mining

import (
	"bytes"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/rulefile"
)

func TestRuleFile(t *testing.T) {
	v := func(n string) datalog.Term { return datalog.Term{Kind: datalog.Var, Value: n} }
	rule := datalog.Rule{Weight: 0.5, Head: datalog.Atom{Pred: "wife", Args: []datalog.Term{v("X"), v("Y")}},
		Body: []datalog.Literal{{Kind: datalog.Positive, Atom: datalog.Atom{Pred: "husband", Args: []datalog.Term{v("Y"), v("X")}}}}}
	r := &Run{From: "family.db", Config: miner.Config{MaxLen: 2, Rank: 3, Batch: 64, Seed: 1},
		Result: &miner.Result{Rules: []miner.MinedRule{{Rule: rule, Head: "wife"}}}}
	data := r.RuleFile(0.25)
	if !bytes.HasPrefix(data, []byte(rulefile.MinedHeader)) || rulefile.StateOf(data) != rulefile.Intact {
		t.Errorf("the rule file is not stamped as mined:\n%s", data)
	}
	for _, want := range []string{"% drumql mine: 1 rules for 1 head relations from family.db; sha256 ", "\n% T=2 L=3 batch=64 seed=1 epochs=0\n", "@min 0.25.", "wife(X, Y) :- husband(Y, X)."} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the rule file lacks %q:\n%s", want, data)
		}
	}
}

// TestRuleFileGroups checks that the run's @groups directives are written
// at the end of the rule file (the parser's tests read them back).
func TestRuleFileGroups(t *testing.T) {
	v := func(n string) datalog.Term { return datalog.Term{Kind: datalog.Var, Value: n} }
	var rules []miner.MinedRule
	for _, body := range []string{"husband", "spouse", "married"} {
		rules = append(rules, miner.MinedRule{Head: "wife", Rule: datalog.Rule{Weight: 0.5,
			Head: datalog.Atom{Pred: "wife", Args: []datalog.Term{v("X"), v("Y")}},
			Body: []datalog.Literal{{Kind: datalog.Positive, Atom: datalog.Atom{Pred: body, Args: []datalog.Term{v("Y"), v("X")}}}}}})
	}
	rg := datalog.RuleGroups{Pred: "wife", Threshold: 0.4, Rules: 3, Sum: "0123456789abcdef", Groups: [][]int32{{1, 3}}}
	r := &Run{From: "family.db", Config: miner.Config{MaxLen: 2, Rank: 3, Batch: 64, Seed: 1},
		Result: &miner.Result{Rules: rules}, RuleGroups: []datalog.RuleGroups{rg},
		Directives: []datalog.Aggregate{{Method: "grouped", Params: []datalog.Param{{Name: "threshold", Value: 0.4}}}}}
	data := string(r.RuleFile(0.1))
	if !strings.HasSuffix(data, "\n"+rg.String()+"\n") {
		t.Errorf("the rule file does not end with %s:\n%s", rg, data)
	}
}
