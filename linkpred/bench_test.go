package linkpred

import (
	"context"
	"testing"

	"github.com/drumql/drumql/store"
)

// BenchmarkEvaluateDense ranks 1000 queries over 10,000 entities with a
// precomputed dense score vector.
func BenchmarkEvaluateDense(b *testing.B) {
	const n = 10_000
	vec := make([]float32, n)
	for i := range vec {
		vec[i] = float32(i%97) / 97
	}
	var triples []store.Triple
	for i := range 500 {
		triples = append(triples, store.Triple{S: ent(i % n), R: store.ID(i % 7), O: ent((i * 31) % n)})
	}
	var qs []Query
	for _, t := range triples {
		qs = append(qs, HeadQuery(t), TailQuery(t))
	}
	f := FilterOf(triples)
	sc := ScorerFunc(func(_ context.Context, qs []Query, out []Scores) error {
		for i := range qs {
			copy(out[i].SetDense(n), vec)
		}
		return nil
	})
	opt := Options{Entities: ents(n)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(context.Background(), qs, sc, f, opt); err != nil {
			b.Fatal(err)
		}
	}
}
