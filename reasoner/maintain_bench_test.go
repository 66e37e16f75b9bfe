package reasoner

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

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
