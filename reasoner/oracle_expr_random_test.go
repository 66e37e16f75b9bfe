package reasoner

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
)

// sameOracleDB compares two oracle databases, confidences within a
// relative 1e-12.
func sameOracleDB(got, want oracleDB) error {
	var diffs []string
	for _, pred := range slices.Sorted(maps.Keys(want)) {
		for k, c := range want[pred] {
			gc, ok := got[pred][k]
			switch {
			case !ok:
				diffs = append(diffs, fmt.Sprintf("missing %s(%s) %g", pred, strings.ReplaceAll(k, "\x00", ", "), c))
			case math.Abs(gc-c) > 1e-12*c:
				diffs = append(diffs, fmt.Sprintf("%s(%s): got %g want %g", pred, strings.ReplaceAll(k, "\x00", ", "), gc, c))
			}
		}
	}
	for pred, m := range got {
		for k, c := range m {
			if _, ok := want[pred][k]; !ok {
				diffs = append(diffs, fmt.Sprintf("extra %s(%s) %g", pred, strings.ReplaceAll(k, "\x00", ", "), c))
			}
		}
	}
	if len(diffs) > 0 {
		slices.Sort(diffs)
		return fmt.Errorf("%s", strings.Join(diffs, "; "))
	}
	return nil
}

// TestOracleExprPlain checks the expression oracle against the naive one
// on the programs without expressions of TestOracle (randomCase): the two
// share only the reading of constants.
func TestOracleExprPlain(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 40
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		base, _, src := randomCase(rng, seed%2 == 1)
		p := mustParse(t, src)
		if datalog.Validate(p).HasErrors() {
			continue
		}
		for _, minConf := range []float64{Exact, 0.45} {
			want := oracleNaive(t, base, p, minConf)
			res := oracleExpr(t, base, p, minConf)
			if res.err != nil || res.possible || res.demand {
				t.Fatalf("seed %d: the expression oracle reports an error (%v, possible %v, demand %v)\n%s", seed, res.err, res.possible, res.demand, src)
			}
			if err := sameOracleDB(res.db, want); err != nil {
				t.Fatalf("seed %d, min %g: %v\nprogram:\n%s\nbase:\n%s", seed, minConf, err, src, tripleTSV(base))
			}
		}
	}
}
