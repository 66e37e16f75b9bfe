package query

import (
	"fmt"

	"github.com/drumql/drumql/reasoner/internal/eval"
)

// configuration is one set of evaluation switches.
type configuration struct {
	name string
	opt  eval.Options
}

// configurations returns every combination of the optimisation switches
// and thread counts that results must not depend on: the magic-set rewrite
// alone, raced against the bottom-up evaluation, and off; the chain fast
// path and the factorised evaluation of chain rules (factor.go) both on
// and both off; 1, 2 and 8 threads. The oracle and the txtar cases run
// under each.
func configurations() []configuration {
	var cs []configuration
	for _, magic := range []string{"alone", "race", "off"} {
		for _, chain := range []bool{true, false} {
			for _, threads := range []int{1, 2, 8} {
				cs = append(cs, configuration{
					name: fmt.Sprintf("magic=%s,chain=%v,threads=%d", magic, chain, threads),
					opt:  eval.Options{Threads: threads, NoMagic: magic == "off", NoRace: magic == "alone", NoChain: !chain, NoFactor: !chain},
				})
			}
		}
	}
	return cs
}
