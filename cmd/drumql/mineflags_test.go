package main

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/drumql/drumql/miner"
)

// TestMineDefaultsAreTheMiners: drumql mine without flags mines with the
// zero miner.Options (one source for every default, the library's), and
// its help states the library's defaults.
func TestMineDefaultsAreTheMiners(t *testing.T) {
	var c cli
	parser, err := kong.New(&c, minerVars())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.Parse([]string{"mine"}); err != nil {
		t.Fatal(err)
	}
	got, want := c.Mine.options().WithDefaults(), miner.Options{}.WithDefaults()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("drumql mine mines with\n%+v\nthe zero options mean\n%+v", got, want)
	}
	// One --budget bounds both kinds of rules, and its help gives one number.
	if miner.DefaultSupportBudget != miner.DefaultConstBudget {
		t.Errorf("the support budgets differ (%d, %d): --budget's help states one", miner.DefaultSupportBudget, miner.DefaultConstBudget)
	}
	help, _, code := runCLI(t, "", "mine", "--help")
	if code != 0 {
		t.Fatalf("mine --help: exit %d", code)
	}
	help = strings.Join(strings.Fields(help), " ")
	x, k := want.Extract, want.Constants
	for _, s := range []string{
		fmt.Sprintf("rule length T, 1 to %d (default %d)", miner.MaxRuleLen, want.Config.MaxLen),
		fmt.Sprintf("per query, at least 1 (default %d)", want.Config.Rank),
		fmt.Sprintf("at least 1 (default %d, with early stopping)", want.Config.MaxEpochs),
		fmt.Sprintf("(default %d; -1: no cap)", want.Config.MaxFanOut),
		fmt.Sprintf("(default %d; -1: no bound)", want.Config.MaxQueries),
		fmt.Sprintf("by confidence on the graph (default %d)", x.MaxRules),
		fmt.Sprintf("best by confidence are kept (default %d)", x.Candidates),
		fmt.Sprintf("beam search (default %d)", x.Beam),
		fmt.Sprintf("drops bodies below %g,", x.MinScore),
		fmt.Sprintf("like the others (default %d;", x.PathSamples),
		fmt.Sprintf("support exactly (default %d)", x.SupportBudget),
		fmt.Sprintf("they are proposed (default %d)", x.HeadBudget),
		fmt.Sprintf("Default: %d for chain rules, %d for rules with constants", x.MinSupport, k.MinSupport),
		fmt.Sprintf("support/(body+%d)", x.Smoothing),
		fmt.Sprintf("as well (default %d)", k.Len),
		fmt.Sprintf("per head relation (default %d)", k.PerHead),
		fmt.Sprintf("chosen from (default %d)", k.PerConstant),
	} {
		if !strings.Contains(help, s) {
			t.Errorf("mine --help lacks %q", s)
		}
	}
}
