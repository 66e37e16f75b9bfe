package combine

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/query"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// BenchmarkStoredNoisyOr measures noisy-or over a stored fixpoint, what
// drumql serve does for each query combined by noisy-or, without the
// server: FB15k-237 with a mined rule file (DRUMQL_MINED_RULES, as for
// BenchmarkMaintainMined) at threshold 0.5 inferred into a store in memory,
// then rel(X, tail)? for the first 500 test triples (as bench/serve-load.sh
// asks them), each rescored in turn (one op: one query). Sub-benchmarks:
// noisy-or over each answer's 3 best rules (the mined file's default) for
// every answer and for the first 10, and over every rule for the first 10.
//
//	DRUMQL_MINED_RULES=fb.dl go test -run '^$' -bench BenchmarkStoredNoisyOr ./reasoner/
func BenchmarkStoredNoisyOr(b *testing.B) {
	rules := os.Getenv("DRUMQL_MINED_RULES")
	if rules == "" {
		b.Skip("set DRUMQL_MINED_RULES to a file drumql mine wrote on fb15k-237 (see bench/maintain.sh)")
	}
	ctx := context.Background()
	st := testkit.FB15k(b)
	p, err := parser.ParseFile(rules)
	if err != nil {
		b.Fatal(err)
	}
	p.Thresholds = []datalog.Threshold{{Min: 0.5}}
	if _, err := eval.Infer(ctx, st, p, eval.Options{}); err != nil {
		b.Fatal(err)
	}
	sn, err := PrepareStoredNoisyOr(ctx, st, p, eval.Options{})
	if err != nil {
		b.Fatal(err)
	}
	type benchQuery struct {
		q       datalog.Atom
		answers []eval.Answer
	}
	var qs []benchQuery
	for _, t := range fbTestTriples(b, 500) {
		q := datalog.Atom{Pred: t[1], Args: []datalog.Term{{Kind: datalog.Var, Value: "X"}, {Kind: datalog.Symbol, Value: t[2]}}}
		as, err := query.Query(ctx, st, nil, q, eval.Options{})
		if err != nil {
			continue // a relation with no fact left in the store
		}
		qs = append(qs, benchQuery{q, as})
	}
	for _, c := range []struct {
		name       string
		top, first int
	}{{"top=3", 3, 0}, {"top=3,first=10", 3, 10}, {"every-rule,first=10", 0, 10}} {
		b.Run(c.name, func(b *testing.B) {
			for _, x := range qs { // each head's rules prepared once
				if _, err := sn.RescoreFirst(ctx, x.q, x.answers, c.top, c.first); err != nil {
					b.Fatal(err)
				}
			}
			i := 0
			for b.Loop() {
				x := qs[i%len(qs)]
				i++
				if _, err := sn.RescoreFirst(ctx, x.q, x.answers, c.top, c.first); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fbTestTriples returns the first n test triples of FB15k-237 (head,
// relation, tail), from the dataset fb15k finds.
func fbTestTriples(b *testing.B, n int) [][3]string {
	dir := os.Getenv("DRUMQL_DATASETS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "datasets")
	}
	f, err := os.Open(filepath.Join(dir, "fb15k-237", "test.txt"))
	if err != nil {
		b.Skipf("fb15k-237's test split: %v", err)
	}
	defer f.Close()
	var ts [][3]string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(ts) < n {
		fs := strings.Split(strings.TrimRight(sc.Text(), "\r"), "\t")
		if len(fs) == 3 {
			ts = append(ts, [3]string{fs[0], fs[1], fs[2]})
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return ts
}
