package mining

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/drumql/drumql/miner"
)

func ptr[T any](v T) *T { return &v }

// checkTests are settings with what Check says of them, in order.
var checkTests = []struct {
	s    Settings
	want []string
}{
	{Settings{HeadGroups: 1}, nil},
	{Settings{HeadGroups: 1, Len: ptr(0), Beam: ptr(-2)}, []string{
		"len 0: want a rule length of at least 1", "beam -2: want a number of partial bodies of at least 1"}},
	{Settings{HeadGroups: 0, Top: -1}, []string{
		"head-groups 0: want a number of groups of at least 1",
		"top -1: want a number of rules of at least 1 (0, the default, keeps them all)"}},
	{Settings{HeadGroups: 1, MaxQueries: ptr(-1), MaxFanOut: ptr(0)}, []string{
		"max-fan-out 0: want a number of neighbours of at least 1, or -1 for no cap"}},
	{Settings{HeadGroups: 1, Len: ptr(miner.MaxRuleLen + 1), Seed: ptr(uint64(0)), Threads: -1}, []string{
		"len " + itoa(miner.MaxRuleLen+1) + ": want a rule length of at most " + itoa(miner.MaxRuleLen),
		"seed 0: want a seed of at least 1 (leave it out for the default, " + itoa(int(miner.DefaultSeed)) + ")",
		"threads -1: want a number of goroutines of at least 1, or 0 for all cores"}},
	{Settings{HeadGroups: 1, Rank: ptr(2), MinScore: ptr(2.0)}, nil},
	{Settings{HeadGroups: 1, Rank: ptr(2), MinScore: ptr(2.5), ConstantLen: ptr(3)}, []string{
		"min-score 2.5: want a score in (0, 2]: a raw DRUM score is at most the rank L = 2, so no chain rule would be kept",
		"constant-len 3: want 1 (one body atom) or 2 (also h(X, c) :- b1(X, Y), b2(Y, d).)"}},
	{Settings{HeadGroups: 1, MinScore: ptr(0.0)}, []string{"min-score 0: want a score in (0, " + itoa(miner.DefaultRank) + "]"}},
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestCheck(t *testing.T) {
	for _, tt := range checkTests {
		var got []string
		for _, err := range tt.s.Check() {
			got = append(got, err.Error())
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Check(%+v):\n got %q\nwant %q", tt.s, got, tt.want)
		}
	}
}

func TestOptions(t *testing.T) {
	opt := (&Settings{}).Options()
	if want := (miner.Config{}).WithDefaults(); !reflect.DeepEqual(opt.Config, want) {
		t.Errorf("the options of no settings: config %+v, want the defaults %+v", opt.Config, want)
	}
	s := Settings{Epochs: ptr(1), MinScore: ptr(0.5), MinSupport: ptr(3), Budget: ptr(9), Weight: "score", ConstantsBy: "confidence", HeadGroups: 4}
	opt = s.Options()
	switch {
	case opt.Config.MaxEpochs != 1 || opt.Config.MinEpochs != 1:
		t.Errorf("epochs 1: max %d, min %d epochs; want 1 and 1", opt.Config.MaxEpochs, opt.Config.MinEpochs)
	case opt.Extract.MinScore != 0.5 || opt.Extract.PathMinScore != 0.5:
		t.Errorf("min-score 0.5: %g and %g for the path samples", opt.Extract.MinScore, opt.Extract.PathMinScore)
	case opt.Extract.MinSupport != 3 || opt.Constants.MinSupport != 3 || opt.Extract.SupportBudget != 9 || opt.Constants.Budget != 9:
		t.Errorf("min-support and budget do not apply to both kinds of rules: %+v %+v", opt.Extract, opt.Constants)
	case opt.Extract.Weight != miner.WeightScore || !opt.Constants.ByConfidence:
		t.Errorf("weight score, constants by confidence: %v, %v", opt.Extract.Weight, opt.Constants.ByConfidence)
	case opt.HeadGroups != 0:
		t.Errorf("HeadGroups %d, want 0 (left to the caller)", opt.HeadGroups)
	}
}
