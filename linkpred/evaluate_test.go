package linkpred

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/drumql/drumql/store"
)

// TestBatches checks that every Score call gets one (relation, direction)
// and at most BatchSize queries, and every query is scored once.
func TestBatches(t *testing.T) {
	var qs []Query
	for i := range 40 {
		qs = append(qs, Query{Rel: store.ID(i % 3), Given: ent(i % 7), Inverse: i%2 == 0, Answer: ent(i % 5)})
	}
	var mu sync.Mutex
	seen := 0
	sc := ScorerFunc(func(_ context.Context, b []Query, out []Scores) error {
		if len(b) > 4 || len(out) != len(b) {
			t.Errorf("batch of %d queries, %d outputs", len(b), len(out))
		}
		for i, q := range b {
			if q.Rel != b[0].Rel || q.Inverse != b[0].Inverse {
				t.Errorf("mixed batch %+v", b)
			}
			if out[i].Dense != nil || len(out[i].Sparse) != 0 {
				t.Errorf("scores not reset")
			}
			out[i].SetDense(8)[0] = 1
		}
		mu.Lock()
		seen += len(b)
		mu.Unlock()
		return nil
	})
	if _, err := Evaluate(context.Background(), qs, sc, nil, Options{Entities: ents(8), BatchSize: 4, Workers: 3}); err != nil {
		t.Fatal(err)
	}
	if seen != len(qs) {
		t.Errorf("scored %d queries, want %d", seen, len(qs))
	}
}

// TestDeterminism compares reports across worker counts and batch sizes,
// with many ties, dense and sparse scorers.
func TestDeterminism(t *testing.T) {
	const n = 60
	rng := rand.New(rand.NewPCG(1, 2))
	var triples []store.Triple
	for range 300 {
		triples = append(triples, store.Triple{S: ent(rng.IntN(n)), R: store.ID(rng.IntN(4)), O: ent(rng.IntN(n))})
	}
	f := FilterOf(triples)
	var qs []Query
	for _, tr := range triples[:120] {
		qs = append(qs, HeadQuery(tr), TailQuery(tr))
	}
	// Scores depend only on the query and the entity, with few levels (ties).
	level := func(q Query, e int) int {
		x := uint64(q.Rel)*1_000_003 + uint64(q.Given)*10_007 + uint64(e)*101
		if q.Inverse {
			x += 7
		}
		return int(x*0x9E3779B97F4A7C15>>60) % 5
	}
	dense := denseScorer(func(q Query) []float32 {
		v := make([]float32, n)
		for e := range v {
			v[e] = float32(level(q, e)) / 4
		}
		return v
	})
	sparse := ScorerFunc(func(_ context.Context, qs []Query, out []Scores) error {
		for i, q := range qs {
			for e := range n {
				if l := level(q, e); l > 0 {
					out[i].AddRules(Max, int32(e), []RuleConf{{0, float32(l) / 4}, {int32(l), float32(e%3+1) / 4}})
				}
			}
		}
		return nil
	})
	for name, sc := range map[string]Scorer{"dense": dense, "sparse": sparse} {
		var ref []byte
		for _, o := range []Options{
			{Workers: 1, BatchSize: 1}, {Workers: 1}, {Workers: 3, BatchSize: 5}, {Workers: 8, BatchSize: 2}, {},
		} {
			o.Entities = ents(n)
			o.PerQuery = true
			rep, err := Evaluate(context.Background(), qs, sc, f, o)
			if err != nil {
				t.Fatal(err)
			}
			js, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = js
				if rep.Expected.MRR <= rep.Pessimistic.MRR || rep.Expected.MRR >= rep.Optimistic.MRR {
					t.Errorf("%s: expected MRR %v not strictly between %v and %v", name,
						rep.Expected.MRR, rep.Pessimistic.MRR, rep.Optimistic.MRR)
				}
				continue
			}
			if !reflect.DeepEqual(js, ref) {
				t.Errorf("%s: report with %+v differs", name, o)
			}
		}
	}
}

func TestReportJSON(t *testing.T) {
	rep, err := Evaluate(context.Background(), nil, denseScorer(nil), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"queries", "optimistic", "pessimistic", "expected"} {
		if _, ok := m[k]; !ok {
			t.Errorf("missing %q in %s", k, js)
		}
	}
	pol := m["expected"].(map[string]any)
	for _, k := range []string{"mrr", "mr", "hits1", "hits3", "hits10", "head", "tail"} {
		if _, ok := pol[k]; !ok {
			t.Errorf("missing expected.%q in %s", k, js)
		}
	}
	for _, k := range []string{"mrr", "mr", "hits1", "hits3", "hits10"} {
		if _, ok := pol["tail"].(map[string]any)[k]; !ok {
			t.Errorf("missing expected.tail.%q in %s", k, js)
		}
	}
	if _, ok := m["ranks"]; ok {
		t.Error("ranks without PerQuery")
	}
}

// TestEvaluateVariants checks that each variant of one pass reports exactly
// what Evaluate reports for that variant alone, NaN counts included.
func TestEvaluateVariants(t *testing.T) {
	const n = 50
	rng := rand.New(rand.NewPCG(3, 4))
	var triples []store.Triple
	for range 200 {
		triples = append(triples, store.Triple{S: ent(rng.IntN(n)), R: store.ID(rng.IntN(3)), O: ent(rng.IntN(n))})
	}
	f := FilterOf(triples)
	var qs []Query
	for _, tr := range triples[:80] {
		qs = append(qs, HeadQuery(tr), TailQuery(tr))
	}
	level := func(q Query, e, v int) int {
		x := uint64(q.Rel)*1_000_003 + uint64(q.Given)*10_007 + uint64(e)*101 + uint64(v)*7919
		if q.Inverse {
			x += 7
		}
		return int(x*0x9E3779B97F4A7C15>>60) % 6
	}
	aggs := []Aggregator{Max, NoisyOr(2), NoisyOr(0)}
	fill := func(v int, qs []Query, out []Scores) {
		for i, q := range qs {
			for e := range n {
				if l := level(q, e, v); l > 0 {
					hits := []RuleConf{{0, float32(l) / 6}, {int32(l), float32(e%3+1) / 4}}
					if l == 5 && v == 1 {
						hits[0].Conf = float32(math.NaN())
					}
					out[i].AddRules(aggs[v], int32(e), hits)
				}
			}
		}
	}
	multi := variantFunc(func(_ context.Context, qs []Query, out [][]Scores) error {
		for v := range out {
			fill(v, qs, out[v])
		}
		return nil
	})
	o := Options{Entities: ents(n), PerQuery: true, Workers: 2, BatchSize: 7}
	reps, err := EvaluateVariants(context.Background(), qs, multi, len(aggs), f, o)
	if err != nil {
		t.Fatal(err)
	}
	differ := false
	for v := range aggs {
		alone, err := Evaluate(context.Background(), qs, ScorerFunc(func(_ context.Context, qs []Query, out []Scores) error {
			fill(v, qs, out)
			return nil
		}), f, o)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(alone)
		b, _ := json.Marshal(reps[v])
		if string(a) != string(b) {
			t.Errorf("variant %d differs from its own evaluation:\n%s\n%s", v, b, a)
		}
		if v > 0 && reps[v].Expected.MRR != reps[0].Expected.MRR {
			differ = true
		}
	}
	if !differ {
		t.Error("the variants do not differ: the test checks nothing")
	}
	if reps[1].NaN == 0 || reps[0].NaN != 0 {
		t.Errorf("NaN counts %d, %d: want 0 and some", reps[0].NaN, reps[1].NaN)
	}
	if _, err := EvaluateVariants(context.Background(), qs, multi, 0, f, o); err == nil {
		t.Error("0 variants accepted")
	}
}

type variantFunc func(ctx context.Context, qs []Query, out [][]Scores) error

func (f variantFunc) ScoreVariants(ctx context.Context, qs []Query, out [][]Scores) error {
	return f(ctx, qs, out)
}

// TestQueriesSharingGiven checks that queries differing only in their
// answer are scored once and each ranked as when it is evaluated alone.
func TestQueriesSharingGiven(t *testing.T) {
	const n = 30
	var calls atomic.Int64
	sc := ScorerFunc(func(_ context.Context, qs []Query, out []Scores) error {
		for i, q := range qs {
			calls.Add(1)
			for e := range n {
				if l := (int(q.Given)*7 + e*e) % 5; l > 0 {
					out[i].AddRules(Max, int32(e), []RuleConf{{0, float32(l) / 5}, {int32(e % 3), float32(e%4+1) / 5}})
				}
			}
		}
		return nil
	})
	var qs []Query
	var known []store.Triple
	for g := range 6 {
		for a := range 1 + g { // given g has 1+g answers
			q := Query{Rel: 1, Given: ent(g), Answer: ent((g*5 + a*11) % n), Inverse: g%2 == 1}
			qs = append(qs, q)
			if q.Inverse {
				known = append(known, store.Triple{S: q.Given, R: 1, O: q.Answer})
			} else {
				known = append(known, store.Triple{S: q.Answer, R: 1, O: q.Given})
			}
		}
	}
	f := FilterOf(known)
	var ids []store.ID
	for e := range n {
		ids = append(ids, ent(e))
	}
	for _, batch := range []int{1, 4} {
		calls.Store(0)
		rep, err := Evaluate(context.Background(), qs, sc, f, Options{Entities: ids, PerQuery: true, BatchSize: batch})
		if err != nil {
			t.Fatal(err)
		}
		if c := calls.Load(); c != 6 {
			t.Errorf("batch %d: %d queries scored, want 6 (one per given entity)", batch, c)
		}
		for i, q := range qs {
			alone, err := Evaluate(context.Background(), []Query{q}, sc, f, Options{Entities: ids, PerQuery: true})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Ranks[i] != alone.Ranks[0] || rep.Scored[i] != alone.Scored[0] {
				t.Errorf("batch %d, query %d: rank %+v scored %t, alone %+v %t", batch, i, rep.Ranks[i], rep.Scored[i], alone.Ranks[0], alone.Scored[0])
			}
		}
	}
}

// TestUnitRanksAsAlone checks the ranking of queries sharing their scores
// (rankUnit) against each query evaluated alone, on random units of many
// answers: scores with many ties broken by later confidences (sorted and
// lazy keys), filtered answers, unreached answers ranked by the slot prior
// or tied with the rest, NaN scores.
func TestUnitRanksAsAlone(t *testing.T) {
	var ids []store.ID
	for e := 1; e <= 40; e++ {
		ids = append(ids, store.ID(10*e)) // 10, 20, 30, 40 are the prior's
	}
	prior := NewSlotPrior(priorSnapshot(), ids)
	levels := []float32{0.25, 0.5, 0.75}
	for trial := range 40 {
		rng := rand.New(rand.NewPCG(uint64(trial), 9))
		usePrior := trial%2 == 0
		sc := ScorerFunc(func(_ context.Context, qs []Query, out []Scores) error {
			for i, q := range qs {
				r := rand.New(rand.NewPCG(uint64(q.Given), uint64(trial)*2+b2u(q.Inverse)))
				var bs BestScratch
				for e := range len(ids) {
					if r.IntN(10) < 4 {
						continue
					}
					hits := make([]RuleConf, 1+r.IntN(4))
					for h := range hits {
						hits[h] = RuleConf{Rule: int32(r.IntN(5)), Conf: levels[r.IntN(len(levels))]}
					}
					switch r.IntN(20) {
					case 0:
						out[i].AddBest(func(dst []float32, start int) []float32 {
							return append(dst[:start], float32(math.NaN()))
						}, int32(e), nil)
					case 1, 2, 3, 4, 5, 6, 7, 8, 9:
						score, ties := MaxLazy(bs.Distinct(nil, hits))
						out[i].AddLazy(int32(e), score, ties)
					default:
						out[i].AddRules(NoisyOr(2), int32(e), hits)
					}
				}
				if usePrior {
					prior.Extend(q, &out[i])
				}
			}
			return nil
		})
		var qs []Query
		var known []store.Triple
		for u := range 6 {
			given := ids[rng.IntN(len(ids))]
			inv := rng.IntN(2) == 0
			for range 1 + rng.IntN(12) {
				q := Query{Rel: 100, Given: given, Inverse: inv, Answer: ids[rng.IntN(len(ids))]}
				if rng.IntN(3) == 0 {
					q.Answer = ids[rng.IntN(4)] // one of the prior's slot entities
				}
				if u == 5 {
					q.Answer = 99999 // not in the entity list
				}
				qs = append(qs, q)
				tr := store.Triple{S: q.Answer, R: 100, O: q.Given}
				if inv {
					tr = store.Triple{S: q.Given, R: 100, O: q.Answer}
				}
				if rng.IntN(4) > 0 {
					known = append(known, tr)
				}
			}
		}
		f := FilterOf(known)
		all, err := Evaluate(context.Background(), qs, sc, f, Options{Entities: ids, PerQuery: true, BatchSize: 1 + trial%3})
		if err != nil {
			t.Fatal(err)
		}
		nan := 0
		for i, q := range qs {
			alone, err := Evaluate(context.Background(), []Query{q}, sc, f, Options{Entities: ids, PerQuery: true})
			if err != nil {
				t.Fatal(err)
			}
			nan += alone.NaN
			if all.Ranks[i] != alone.Ranks[0] || all.Scored[i] != alone.Scored[0] {
				t.Fatalf("trial %d, query %d %+v: rank %+v scored %t, alone %+v %t", trial, i, q, all.Ranks[i], all.Scored[i], alone.Ranks[0], alone.Scored[0])
			}
		}
		if nan != all.NaN {
			t.Errorf("trial %d: %d NaN scores, %d alone", trial, all.NaN, nan)
		}
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
