package reasoner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// BenchmarkMaintainClosure measures incremental maintenance in memory (no
// store write) on FB15k-237's 4.0M-fact closure of award_nominee (see
// bench/infer-memory.sh): one op removes a random edge of the relation and
// adds it back, through Apply (the store keeps the edge: an update reads
// the store only for relations it has not loaded). It reports the full evaluation's time
// (full-ms) and memory allocated (full-MB) beside the update's per op, so
// the ratio is read off one run.
func BenchmarkMaintainClosure(b *testing.B) {
	ctx := context.Background()
	st := fb15k(b)
	const rel = "/award/award_nominee/award_nominations./award/award_nomination/award_nominee"
	p := mustParse(b, `reach(X, Y) :- "`+rel+`"(X, Y).`+"\n"+`reach(X, Z) :- reach(X, Y), "`+rel+`"(Y, Z).`+"\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	m, stats, err := Materialise(ctx, st, p, Options{})
	if err != nil {
		b.Fatal(err)
	}
	full := time.Since(start)
	runtime.ReadMemStats(&after)
	id, _, _ := st.Lookup(rel)
	var edges []store.Fact
	for f, err := range st.Scan(id) {
		if err != nil {
			b.Fatal(err)
		}
		edges = append(edges, f)
	}
	// The reverse index of the proofs is built by the first update.
	if _, err := m.Apply(ctx, Delta{}); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		f := edges[rng.IntN(len(edges))]
		if _, err := m.Apply(ctx, Delta{Base: []FactChange{{Fact: f}}}); err != nil {
			b.Fatal(err)
		}
		if _, err := m.Apply(ctx, Delta{Base: []FactChange{{Fact: f, Added: true}}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(full.Milliseconds()), "full-ms")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), "full-MB")
	b.ReportMetric(float64(stats.Facts), "facts")
}

// BenchmarkMaintainMined measures incremental maintenance in memory of a
// mined rule file over FB15k-237: DRUMQL_MINED_RULES names a file written
// by drumql mine on it, DRUMQL_MINED_MIN the threshold (default 0.5). One
// op removes the first rule of weight at least the threshold (the best of
// its head relation), adds it back,
// halves its weight and restores it: four updates through Apply, each
// diffing the whole program as drumql infer does. Skipped without the
// file.
func BenchmarkMaintainMined(b *testing.B) {
	rules := os.Getenv("DRUMQL_MINED_RULES")
	if rules == "" {
		b.Skip("set DRUMQL_MINED_RULES to a file drumql mine wrote on fb15k-237 (see bench/maintain.sh)")
	}
	minConf := 0.5
	if s := os.Getenv("DRUMQL_MINED_MIN"); s != "" {
		if _, err := fmt.Sscan(s, &minConf); err != nil {
			b.Fatalf("DRUMQL_MINED_MIN: %v", err)
		}
	}
	ctx := context.Background()
	st := fb15k(b)
	p, err := parser.ParseFile(rules)
	if err != nil {
		b.Fatal(err)
	}
	p.Thresholds = []datalog.Threshold{{Min: minConf}}
	start := time.Now()
	m, stats, err := Materialise(ctx, st, p, Options{})
	if err != nil {
		b.Fatal(err)
	}
	full := time.Since(start)
	k := slices.IndexFunc(p.Rules, func(r datalog.Rule) bool { return weightOf(r.Weight) >= minConf })
	if k < 0 {
		b.Fatal("no rule reaches the threshold")
	}
	removed := *p
	removed.Rules = slices.Delete(slices.Clone(p.Rules), k, k+1)
	halved := *p
	halved.Rules = slices.Clone(p.Rules)
	halved.Rules[k].Weight /= 2
	if _, err := m.Apply(ctx, Delta{}); err != nil { // builds the reverse index
		b.Fatal(err)
	}
	// validated: as serve applies a rule edit, the program validated by
	// the caller (Delta.Validated).
	for _, validated := range []bool{false, true} {
		b.Run(fmt.Sprintf("validated=%v", validated), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, q := range []*datalog.Program{&removed, p, &halved, p} {
					if _, err := m.Apply(ctx, Delta{Program: q, Validated: validated}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(full.Milliseconds()), "full-ms")
			b.ReportMetric(float64(stats.Facts), "facts")
		})
	}
}
