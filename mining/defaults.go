package mining

import (
	"fmt"
	"strings"

	"github.com/drumql/drumql/miner"
)

// Defaults are the miner's defaults, which the [Settings] left out take,
// by name, each as fmt.Sprint writes it: a setting's flag name with
// underscores for dashes ("max_rules" for --max-rules, "const_len" for
// --constant-len), and the defaults that are not one setting's alone:
// "max_len" (the longest rule length), "min_score" (the beam search's
// bound; bodies from path samples have none), "min_support" and
// "const_min_support" (of chain rules and of rules with constants),
// "smoothing" (of the confidence). `drumql mine`'s help shows them, so that
// the library is their one source.
func Defaults() map[string]string {
	x, k := miner.ExtractOptions{}.WithDefaults(), miner.ConstOptions{}.WithDefaults()
	v := map[string]any{
		"max_len": miner.MaxRuleLen, "len": miner.DefaultMaxLen, "rank": miner.DefaultRank, "epochs": miner.DefaultMaxEpochs,
		"batch": miner.DefaultBatch, "seed": miner.DefaultSeed, "max_fan_out": miner.DefaultMaxFanOut, "max_queries": miner.DefaultMaxQueries,
		"max_rules": x.MaxRules, "candidates": x.Candidates, "min_score": x.MinScore, "beam": x.Beam, "path_samples": x.PathSamples,
		"budget": x.SupportBudget, "head_budget": x.HeadBudget, "min_support": x.MinSupport, "smoothing": x.Smoothing,
		"max_path_len": miner.MaxPathLen, "wide_constant_rules": WideConstantRules,
		"const_len": k.Len, "constant_rules": k.PerHead, "per_constant": k.PerConstant, "const_min_support": k.MinSupport,
	}
	out := make(map[string]string, len(v))
	for name, val := range v {
		out[name] = fmt.Sprint(val)
	}
	return out
}

// DefaultOf returns the default (Defaults) that the setting of a flag
// takes when left out, and false for a flag that takes no one value:
// --min-score and --min-support, whose defaults differ by the kind of
// rule, and the flags that are no setting of the miner.
func DefaultOf(flag string) (string, bool) {
	name := strings.ReplaceAll(flag, "-", "_")
	switch flag {
	case "constant-len":
		name = "const_len"
	case "min-score", "min-support":
		return "", false
	}
	d, ok := Defaults()[name]
	return d, ok
}
