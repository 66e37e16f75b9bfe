package scoring

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// TestRuleRanksOneQueryAtATime checks that choosing the aggregation ranks
// every query as before its memory was bounded: the rules applied one query
// at a time (RuleBatch), with the filter of the queries only
// (NewFilterFor), give every variant the ranks of batches of 64
// with the whole filter, and reach the same answers.
func TestRuleRanksOneQueryAtATime(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(15, 15))
	st := store.NewMemory()
	b := &store.Batch{Splits: map[string][]store.NamedTriple{}}
	for range 600 {
		nt := store.NamedTriple{S: fmt.Sprint("v", rng.IntN(80)), R: fmt.Sprint("r", rng.IntN(4)), O: fmt.Sprint("v", rng.IntN(80))}
		if rng.IntN(5) == 0 {
			b.Splits["valid"] = append(b.Splits["valid"], nt)
		} else {
			b.Graph = append(b.Graph, nt)
		}
	}
	// A hub: most entities share one value, so its head queries have
	// dozens of candidates.
	for i := range 80 {
		nt := store.NamedTriple{S: fmt.Sprint("v", i), R: "kind", O: fmt.Sprint("k", min(i%9, 2))}
		if i%7 == 0 {
			b.Splits["valid"] = append(b.Splits["valid"], nt)
		} else {
			b.Graph = append(b.Graph, nt)
		}
	}
	if _, err := st.Load(ctx, b, nil); err != nil {
		t.Fatal(err)
	}
	prog, err := parser.ParseString("rules.dl", `0.9 :: r0(A, B) :- r1(B, A).
0.6 :: r0(A, B) :- r1(A, C), r2(C, B), A != B.
0.4 :: r0(A, B) :- r3(A, C), r3(C, D), r0(D, B), A != B.
0.3 :: r0(A, v1) :- r2(A, v2).
0.2 :: r0(A, v3) :- r1(A, _).
0.5 :: r1(A, B) :- r0(A, C), r0(C, B), A != B.
0.8 :: kind(A, B) :- r0(A, C), kind(C, B), A != B.
0.7 :: kind(A, B) :- r1(C, A), kind(C, B), A != B.
0.3 :: kind(A, k0) :- r2(A, _).
`)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := ValidQueries(st)
	if err != nil || len(qs) < 100 {
		t.Fatalf("%d valid queries, err %v", len(qs), err)
	}
	type result struct {
		ranks   [][]linkpred.Rank
		reached map[linkpred.Query]bool
	}
	rank := func(filter *linkpred.Filter, batch int) result {
		t.Helper()
		rs, ents, err := NewRuleScorer(ctx, st, nil, prog, AggOverride{}, qs, filter)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range tuneCandidates {
			v, err := aggregatorOf(a, nil)
			if err != nil {
				t.Fatal(err)
			}
			rs.variants = append(rs.variants, v)
		}
		reps, err := linkpred.EvaluateVariants(ctx, qs, rs, len(rs.variants), filter,
			linkpred.Options{Entities: ents, PerQuery: true, BatchSize: batch})
		if err != nil {
			t.Fatal(err)
		}
		r := result{reached: map[linkpred.Query]bool{}}
		for _, rep := range reps {
			r.ranks = append(r.ranks, rep.Ranks)
		}
		for i, ok := range reps[0].Scored {
			if ok {
				r.reached[qs[i]] = true
			}
		}
		// Checked against the rules' hits themselves.
		for _, q := range qs {
			hit := false
			if err := rs.hitsAbove(ctx, q, 0, func(id store.ID, _ []reasoner.RuleScore) { hit = hit || id == q.Answer }); err != nil {
				t.Fatal(err)
			}
			if hit != r.reached[q] {
				t.Fatalf("query %+v: a rule reaches the answer: %t, reported %t", q, hit, r.reached[q])
			}
		}
		return r
	}
	all, err := linkpred.NewFilter(st)
	if err != nil {
		t.Fatal(err)
	}
	some, err := linkpred.NewFilterFor(st, qs)
	if err != nil {
		t.Fatal(err)
	}
	want := rank(all, 64)
	got := rank(some, RuleBatch)
	distinct := map[linkpred.Rank]bool{}
	for v := range want.ranks {
		for i := range qs {
			if got.ranks[v][i] != want.ranks[v][i] {
				t.Fatalf("variant %d, query %d %+v: rank %+v one at a time, %+v in batches of 64",
					v, i, qs[i], got.ranks[v][i], want.ranks[v][i])
			}
			distinct[want.ranks[v][i]] = true
		}
	}
	if len(distinct) < 10 {
		t.Errorf("only %d distinct ranks: the case tests little", len(distinct))
	}
	if !maps.Equal(got.reached, want.reached) || len(want.reached) == 0 {
		t.Errorf("reached %d queries one at a time, %d in batches", len(got.reached), len(want.reached))
	}
	if !slices.ContainsFunc(qs, func(q linkpred.Query) bool { return len(some.Answers(q)) > 20 }) {
		t.Error("no query with more than 20 true answers: the hub is missing")
	}
}
