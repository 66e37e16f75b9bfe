package linkpred

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/store"
)

const eps = 1e-12

func near(a, b float64) bool { return math.Abs(a-b) <= eps }

// ents returns n entity ids 100, 101, ...: position i is entity 100+i.
func ents(n int) []store.ID {
	e := make([]store.ID, n)
	for i := range e {
		e[i] = store.ID(100 + i)
	}
	return e
}

func ent(i int) store.ID { return store.ID(100 + i) }

var nan32 = float32(math.NaN())

// denseScorer scores each query with fn.
func denseScorer(fn func(q Query) []float32) Scorer {
	return ScorerFunc(func(_ context.Context, qs []Query, out []Scores) error {
		for i, q := range qs {
			v := fn(q)
			copy(out[i].SetDense(len(v)), v)
		}
		return nil
	})
}

// sparseScorer scores each query with fn.
func sparseScorer(fn func(q Query) []Candidate) Scorer {
	return ScorerFunc(func(_ context.Context, qs []Query, out []Scores) error {
		for i, q := range qs {
			out[i].Sparse = append(out[i].Sparse, fn(q)...)
		}
		return nil
	})
}

func TestRankPolicies(t *testing.T) {
	type want struct{ rr, mr, h1, h3, h10 float64 }
	tests := []struct {
		name        string
		rank        Rank
		opt, pes, x want
	}{
		{"no ties first", Rank{1, 1}, want{1, 1, 1, 1, 1}, want{1, 1, 1, 1, 1}, want{1, 1, 1, 1, 1}},
		{"no ties fourth", Rank{4, 4}, want{0.25, 4, 0, 0, 1}, want{0.25, 4, 0, 0, 1}, want{0.25, 4, 0, 0, 1}},
		// ranks 2,3,4: RR = (1/2+1/3+1/4)/3 = 13/36; hits@3 = 2 of 3.
		{"tie block 2..4", Rank{2, 4},
			want{0.5, 2, 0, 1, 1}, want{0.25, 4, 0, 0, 1}, want{13.0 / 36, 3, 0, 2.0 / 3, 1}},
		// all-zero vector, 5 candidates: ranks 1..5, RR = H_5/5 = (137/60)/5.
		{"all tied of 5", Rank{1, 5},
			want{1, 1, 1, 1, 1}, want{0.2, 5, 0, 0, 1}, want{137.0 / 300, 3, 0.2, 0.6, 1}},
		// ranks 9..12: hits@10 = 2 of 4; RR = (1/9+1/10+1/11+1/12)/4.
		{"straddles 10", Rank{9, 12},
			want{1.0 / 9, 9, 0, 0, 1}, want{1.0 / 12, 12, 0, 0, 0},
			want{(1.0/9 + 1.0/10 + 1.0/11 + 1.0/12) / 4, 10.5, 0, 0, 0.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []struct {
				p Policy
				w want
			}{{Optimistic, tt.opt}, {Pessimistic, tt.pes}, {Expected, tt.x}} {
				r := tt.rank
				got := want{r.Reciprocal(c.p), r.MeanRank(c.p), r.Hits(c.p, 1), r.Hits(c.p, 3), r.Hits(c.p, 10)}
				if !near(got.rr, c.w.rr) || !near(got.mr, c.w.mr) || !near(got.h1, c.w.h1) ||
					!near(got.h3, c.w.h3) || !near(got.h10, c.w.h10) {
					t.Errorf("%v: got %+v, want %+v", c.p, got, c.w)
				}
			}
		})
	}
}

func TestPolicyString(t *testing.T) {
	for p, want := range map[Policy]string{Optimistic: "optimistic", Pessimistic: "pessimistic", Expected: "expected", 7: "Policy(7)"} {
		if got := p.String(); got != want {
			t.Errorf("%d: got %q, want %q", int(p), got, want)
		}
	}
}

// evalOne ranks one query with the given scorer and filter triples.
func evalOne(t *testing.T, n int, q Query, sc Scorer, known []store.Triple) (*Report, Rank) {
	t.Helper()
	rep, err := Evaluate(context.Background(), []Query{q}, sc, FilterOf(known), Options{Entities: ents(n), PerQuery: true})
	if err != nil {
		t.Fatal(err)
	}
	return rep, rep.Ranks[0]
}

func TestDenseRanking(t *testing.T) {
	const r = 1
	// Tail prediction (given, r, ?) with answer at position 0.
	q := Query{Rel: r, Given: ent(9), Inverse: true, Answer: ent(0)}
	base := []float32{0.5, 0.9, 0.5, 0.1, 0.5, 0.9, 0, 0, 0, 0}
	with := func(i int, v float32) []float32 { s := slices.Clone(base); s[i] = v; return s }
	tail := func(o int) store.Triple { return store.Triple{S: ent(9), R: r, O: ent(o)} }
	tests := []struct {
		name   string
		scores []float32
		known  []store.Triple
		answer store.ID
		want   Rank
		nan    int
	}{
		// higher: 1, 5; tied: 2, 4.
		{"no filter", base, nil, ent(0), Rank{3, 5}, 0},
		{"answer itself known", base, []store.Triple{tail(0)}, ent(0), Rank{3, 5}, 0},
		{"filter a higher one", base, []store.Triple{tail(0), tail(1)}, ent(0), Rank{2, 4}, 0},
		{"filter a tied one", base, []store.Triple{tail(0), tail(2)}, ent(0), Rank{3, 4}, 0},
		{"filter a lower one", base, []store.Triple{tail(3)}, ent(0), Rank{3, 5}, 0},
		// filter entries of other queries change nothing
		{"other query's truth", base, []store.Triple{{S: ent(9), R: 2, O: ent(1)}, {S: ent(1), R: r, O: ent(9)}}, ent(0), Rank{3, 5}, 0},
		{"NaN elsewhere is -Inf", with(3, nan32), nil, ent(0), Rank{3, 5}, 1},
		// answer NaN = -Inf: all 9 others are above.
		{"NaN answer", with(0, nan32), nil, ent(0), Rank{10, 10}, 1},
		// answer scored 0: 0..5 are higher, 7..9 tie.
		{"answer at zero", base, nil, ent(6), Rank{7, 10}, 0},
		// not in the entity list: -Inf, below all 10 candidates.
		{"answer not a candidate", base, nil, ent(50), Rank{11, 11}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := q
			q.Answer = tt.answer
			rep, got := evalOne(t, 10, q, denseScorer(func(Query) []float32 { return tt.scores }), tt.known)
			if got != tt.want {
				t.Errorf("rank = %+v, want %+v", got, tt.want)
			}
			if rep.NaN != tt.nan {
				t.Errorf("NaN = %d, want %d", rep.NaN, tt.nan)
			}
			if unindexed := tt.answer == ent(50); (rep.Unindexed == 1) != unindexed {
				t.Errorf("Unindexed = %d", rep.Unindexed)
			}
		})
	}
}

func TestAllZeroScores(t *testing.T) {
	tests := []struct {
		n       int
		harmonN float64 // H_n computed by hand
	}{
		{1, 1},
		{4, 1 + 1.0/2 + 1.0/3 + 1.0/4}, // 25/12
		{10, 7381.0 / 2520},
	}
	for _, tt := range tests {
		q := Query{Rel: 1, Given: ent(0), Answer: ent(tt.n - 1)}
		rep, rk := evalOne(t, tt.n, q, denseScorer(func(Query) []float32 { return make([]float32, tt.n) }), nil)
		if rk != (Rank{1, tt.n}) {
			t.Errorf("n=%d: rank %+v, want {1 %d}", tt.n, rk, tt.n)
		}
		n := float64(tt.n)
		if rep.Optimistic.MRR != 1 {
			t.Errorf("n=%d: optimistic MRR %v, want 1", tt.n, rep.Optimistic.MRR)
		}
		if !near(rep.Pessimistic.MRR, 1/n) {
			t.Errorf("n=%d: pessimistic MRR %v, want %v", tt.n, rep.Pessimistic.MRR, 1/n)
		}
		if !near(rep.Expected.MRR, tt.harmonN/n) {
			t.Errorf("n=%d: expected MRR %v, want %v", tt.n, rep.Expected.MRR, tt.harmonN/n)
		}
		if !near(rep.Expected.MR, (1+n)/2) {
			t.Errorf("n=%d: expected MR %v, want %v", tt.n, rep.Expected.MR, (1+n)/2)
		}
	}
	// A sparse scorer that lists nothing is the same all-zero vector.
	q := Query{Rel: 1, Given: ent(0), Answer: ent(3)}
	rep, rk := evalOne(t, 4, q, sparseScorer(func(Query) []Candidate { return nil }), nil)
	if rk != (Rank{1, 4}) || rep.Optimistic.MRR != 1 || !near(rep.Expected.MRR, 25.0/48) {
		t.Errorf("sparse all-zero: rank %+v, report %+v", rk, rep.Expected)
	}
}

func TestSparseRanking(t *testing.T) {
	const r = 2
	// Head prediction (?, r, given).
	q := Query{Rel: r, Given: ent(9), Answer: ent(0)}
	head := func(s int) store.Triple { return store.Triple{S: ent(s), R: r, O: ent(9)} }
	tests := []struct {
		name  string
		cands []Candidate
		known []store.Triple
		want  Rank
	}{
		// answer unlisted (= 0), 1 and 2 above, 3..9 tie with it (7).
		{"answer unlisted", []Candidate{{Entity: 1, Score: .5}, {Entity: 2, Score: .3}}, nil, Rank{3, 10}},
		// same, 3 and 4 filtered: 5 ties left.
		{"answer unlisted filtered", []Candidate{{Entity: 1, Score: .5}, {Entity: 2, Score: .3}},
			[]store.Triple{head(0), head(3), head(4)}, Rank{3, 8}},
		// filtered listed candidate above the answer does not count.
		{"filtered listed", []Candidate{{Entity: 1, Score: .5}, {Entity: 2, Score: .3}, {Entity: 0, Score: .4}},
			[]store.Triple{head(1)}, Rank{1, 1}},
		// listed at 0 ties with unlisted ones; negative score is below them.
		{"negative answer", []Candidate{{Entity: 0, Score: -1}, {Entity: 5, Score: 0}}, nil, Rank{10, 10}},
		{"listed zero ties", []Candidate{{Entity: 0, Score: 0}, {Entity: 5, Score: 0}}, nil, Rank{1, 10}},
		// answer .4 with ties (.3); 1 has (.3, .1) > (.3) lexicographically.
		{"tie-breakers", []Candidate{
			{Entity: 0, Score: .4, Ties: []float32{.3}},
			{Entity: 1, Score: .4, Ties: []float32{.3, .1}},
			{Entity: 2, Score: .4, Ties: []float32{.3}},
			{Entity: 3, Score: .4},
			{Entity: 4, Score: .4, Ties: []float32{.35}},
			{Entity: 5, Score: .5},
		}, nil, Rank{4, 5}},
		{"NaN tie-breaker is -Inf", []Candidate{
			{Entity: 0, Score: .4, Ties: []float32{.3}},
			{Entity: 1, Score: .4, Ties: []float32{nan32}},
		}, nil, Rank{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := evalOne(t, 10, q, sparseScorer(func(Query) []Candidate { return tt.cands }), tt.known)
			if got != tt.want {
				t.Errorf("rank = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestBadScores(t *testing.T) {
	q := []Query{{Rel: 1, Given: ent(0), Answer: ent(1)}}
	tests := []struct {
		name string
		sc   Scorer
	}{
		{"short dense", denseScorer(func(Query) []float32 { return make([]float32, 3) })},
		{"out of range", sparseScorer(func(Query) []Candidate { return []Candidate{{Entity: 4}} })},
		{"negative", sparseScorer(func(Query) []Candidate { return []Candidate{{Entity: -1}} })},
		{"twice", sparseScorer(func(Query) []Candidate { return []Candidate{{Entity: 2}, {Entity: 2}} })},
	}
	for _, tt := range tests {
		_, err := Evaluate(context.Background(), q, tt.sc, nil, Options{Entities: ents(4)})
		if !errors.Is(err, ErrBadScores) {
			t.Errorf("%s: err = %v, want ErrBadScores", tt.name, err)
		} else if n := strings.Count(err.Error(), "linkpred:"); n != 1 {
			t.Errorf("%s: error %q names the package %d times, want once", tt.name, err, n)
		}
	}
	if _, err := Evaluate(context.Background(), q, tests[0].sc, nil, Options{Entities: []store.ID{1, 2, 1}}); err == nil {
		t.Error("duplicate entities: no error")
	}
}

func TestScorerError(t *testing.T) {
	boom := errors.New("boom")
	qs := make([]Query, 50)
	for i := range qs {
		qs[i] = Query{Rel: store.ID(i % 5), Given: ent(0), Answer: ent(1)}
	}
	sc := ScorerFunc(func(ctx context.Context, qs []Query, out []Scores) error {
		if qs[0].Rel == 3 {
			return boom
		}
		return ctx.Err()
	})
	for _, w := range []int{1, 4} {
		_, err := Evaluate(context.Background(), qs, sc, nil, Options{Entities: ents(3), Workers: w, BatchSize: 2})
		if !errors.Is(err, boom) {
			t.Errorf("workers %d: err = %v, want boom", w, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Evaluate(ctx, qs, sc, nil, Options{Entities: ents(3)}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestAggregators(t *testing.T) {
	tests := []struct {
		name string
		agg  Aggregator
		hits []RuleConf
		want []float32
	}{
		{"max empty", Max, nil, []float32{0}},
		{"max sorted", Max, []RuleConf{{0, .2}, {1, .9}, {2, .5}}, []float32{.9, .5, .2}},
		{"max rule once", Max, []RuleConf{{0, .2}, {1, .9}, {0, .7}, {1, .1}}, []float32{.9, .7}},
		// 1 - (1-.5)(1-.5) = .75 over the top 2 of .5,.5,.5,.25.
		{"noisy-or top 2", NoisyOr(2), []RuleConf{{0, .25}, {1, .5}, {2, .5}, {3, .5}}, []float32{.75, .5, .5, .5, .25}},
		// 1 - .5*.5*.5*.75 = 1 - .09375
		{"noisy-or all", NoisyOr(0), []RuleConf{{0, .25}, {1, .5}, {2, .5}, {3, .5}}, []float32{.90625, .5, .5, .5, .25}},
		// rule 1 listed twice counts once (.5): 1 - .5*.5 = .75
		{"noisy-or rule once", NoisyOr(0), []RuleConf{{1, .5}, {1, .5}, {2, .5}}, []float32{.75, .5, .5}},
		{"noisy-or clamps", NoisyOr(0), []RuleConf{{1, 1.5}, {2, -.5}}, []float32{1, 1.5, -.5}},
		{"noisy-or empty", NoisyOr(3), nil, []float32{0}},
		// groups {0,1}, {2}, rule 7 alone: maxes .6, .5, .5 → 1 - .4*.5*.5 = .9
		{"grouped", GroupedNoisyOr([]int32{0, 0, 1}), []RuleConf{{1, .5}, {0, .6}, {2, .5}, {7, .5}}, []float32{.9, .6, .5, .5}},
		// only group 0: max .6
		{"grouped one group", GroupedNoisyOr([]int32{0, 0, 1}), []RuleConf{{1, .5}, {0, .6}}, []float32{.6, .6}},
		{"grouped empty", GroupedNoisyOr(nil), nil, []float32{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := []float32{42}
			got := tt.agg(slices.Clone(prefix), slices.Clone(tt.hits))
			if got[0] != 42 {
				t.Fatalf("prefix overwritten: %v", got)
			}
			got = got[1:]
			if len(got) != len(tt.want) {
				t.Fatalf("key %v, want %v", got, tt.want)
			}
			for i := range got {
				if math.Abs(float64(got[i]-tt.want[i])) > 1e-6 {
					t.Fatalf("key %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// TestMaxTieBreaking ranks rule-scored candidates with Max end to end.
func TestMaxTieBreaking(t *testing.T) {
	hits := map[int32][]RuleConf{
		0: {{0, .9}, {1, .5}, {0, .3}}, // answer: (.9, .5)
		1: {{0, .9}, {1, .5}, {2, .1}}, // (.9, .5, .1) above
		2: {{3, .9}, {4, .5}},          // (.9, .5) tie
		3: {{0, .9}},                   // (.9) below
		4: {{5, .8}, {6, .8}, {7, .8}}, // (.8, .8, .8) below
		5: {{1, .95}},                  // (.95) above
	}
	sc := ScorerFunc(func(_ context.Context, qs []Query, out []Scores) error {
		for i := range qs {
			for e := range int32(6) {
				out[i].AddRules(Max, e, slices.Clone(hits[e]))
			}
		}
		return nil
	})
	q := Query{Rel: 1, Given: ent(9), Inverse: true, Answer: ent(0)}
	if _, got := evalOne(t, 10, q, sc, nil); got != (Rank{3, 4}) {
		t.Errorf("max: rank %+v, want {3 4}", got)
	}
	// Noisy-or over all, ties broken by the confidences: answer 1-.1*.5 =
	// .95 (.9, .5); 1: 1-.1*.5*.9 = .955 above; 2: .95 (.9, .5) tie; 3: .9
	// below; 4: 1-.2^3 = .992 above; 5: .95 (.95) above.
	sc2 := ScorerFunc(func(_ context.Context, qs []Query, out []Scores) error {
		for i := range qs {
			for e := range int32(6) {
				out[i].AddRules(NoisyOr(0), e, slices.Clone(hits[e]))
			}
		}
		return nil
	})
	if _, got := evalOne(t, 10, q, sc2, nil); got != (Rank{4, 5}) {
		t.Errorf("noisy-or: rank %+v, want {4 5}", got)
	}
}

func TestRuleSketchesGroups(t *testing.T) {
	preds := [][]uint64{
		{1, 2, 3, 4},    // 0
		{3, 2, 1, 1},    // 1: J(0,1) = 3/4 → group with 0
		{10, 11},        // 2: J(2,3) = 1/4
		{11, 12, 13},    // 3
		{3, 4, 20},      // 4: J(0,4) = 2/5, J(1,4) = 1/5
		{},              // 5: alone
		{12, 13, 14},    // 6: J(3,6) = 2/4 → with 3
		{13, 14, 15},    // 7: J(6,7) = 2/4 → with 6; J(3,7) = 1/5 (single linkage)
		{PairKey(1, 2)}, // 8
		{1<<32 | 2},     // 9: same key as 8
	}
	groups := func(preds [][]uint64, min float64) []int32 {
		sk := NewRuleSketches(len(preds))
		for i, p := range preds {
			for _, k := range p {
				sk.Add(i, k)
			}
		}
		return sk.Groups(min)
	}
	got := groups(preds, 0.5)
	want := []int32{0, 0, 1, 2, 3, 4, 2, 2, 5, 5}
	if !slices.Equal(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
	// A threshold above every overlap leaves rules alone, except identical sets.
	got = groups(preds, 0.99)
	want = []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 8}
	if !slices.Equal(got, want) {
		t.Errorf("groups at .99 %v, want %v", got, want)
	}
}

// TestRuleSketchesLarge checks the estimate on sets larger than a sketch:
// within 0.15 of the true overlap (the bottom-64 estimate's standard error
// is at most 1/16), whatever the order the keys come in.
func TestRuleSketchesLarge(t *testing.T) {
	for _, tc := range []struct {
		shared, only int // keys in both; keys in each one only
	}{{5000, 5000}, {1000, 9000}, {9000, 1000}, {0, 5000}} {
		want := float64(tc.shared) / float64(tc.shared+2*tc.only)
		sk := NewRuleSketches(3)
		for k := range tc.shared + tc.only {
			sk.Add(0, uint64(k)) // keys 0..shared+only-1
		}
		for k := tc.shared + tc.only - 1; k >= 0; k-- {
			key := uint64(k)
			if k >= tc.shared {
				key += 1 << 40 // rule 1's own keys
			}
			sk.Add(1, key)
			sk.Add(2, key) // rule 2 = rule 1, keys added twice
			sk.Add(2, key)
		}
		sorted := func(s []uint64) []uint64 { s = slices.Clone(s); slices.Sort(s); return s }
		got := jaccard(sorted(sk.s[0]), sorted(sk.s[1]))
		if math.Abs(got-want) > 0.15 {
			t.Errorf("shared %d, only %d: estimate %.3f, true %.3f", tc.shared, tc.only, got, want)
		}
		if !slices.Equal(sorted(sk.s[1]), sorted(sk.s[2])) || len(sk.s[1]) != SketchSize {
			t.Errorf("shared %d: same keys, different sketches", tc.shared)
		}
		g := sk.Groups(want / 2)
		if linked := g[0] == g[1]; linked != (want > 0) || g[1] != g[2] {
			t.Errorf("shared %d, only %d: groups %v", tc.shared, tc.only, g)
		}
	}
}

// TestFilteredEvaluate checks that other true answers are removed, with the
// filter's entities as the default candidate list.
func TestFilteredEvaluate(t *testing.T) {
	a, b, c, d := ent(0), ent(1), ent(2), ent(3)
	f := FilterOf([]store.Triple{{S: a, R: 1, O: b}, {S: a, R: 1, O: c}, {S: a, R: 1, O: d}})
	// Entities a b c d: scores .1 .9 .8 .7; tail query (a, 1, ?) answer d:
	// b and c are other true answers, a scores lower → rank 1.
	sc := denseScorer(func(Query) []float32 { return []float32{.1, .9, .8, .7} })
	q := Query{Rel: 1, Given: a, Inverse: true, Answer: d}
	rep, err := Evaluate(context.Background(), []Query{q}, sc, f, Options{PerQuery: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ranks[0] != (Rank{1, 1}) {
		t.Errorf("filtered rank %+v, want {1 1}", rep.Ranks[0])
	}
	rep, err = Evaluate(context.Background(), []Query{q}, sc, nil, Options{Entities: []store.ID{a, b, c, d}, PerQuery: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ranks[0] != (Rank{3, 3}) {
		t.Errorf("raw rank %+v, want {3 3}", rep.Ranks[0])
	}
}

// TestDirections checks per-direction and pooled means on four queries with
// hand-picked ranks.
func TestDirections(t *testing.T) {
	// Six entities. Answer at position 0; position i of the vector is chosen so
	// that the ranks are: head {1,1}, head {2,4}, tail {3,3}, tail {1,6}.
	vecs := map[store.ID][]float32{
		1: {1, 0, 0, 0, 0, 0},      // head {1,1}
		2: {.5, .6, .5, .5, 0, 0},  // head {2,4}
		3: {.5, .6, .7, .1, .1, 0}, // tail {3,3}
		4: {0, 0, 0, 0, 0, 0},      // tail {1,6}
	}
	qs := []Query{
		{Rel: 1, Given: ent(5), Answer: ent(0)},
		{Rel: 3, Given: ent(5), Inverse: true, Answer: ent(0)},
		{Rel: 2, Given: ent(5), Answer: ent(0)},
		{Rel: 4, Given: ent(5), Inverse: true, Answer: ent(0)},
	}
	sc := denseScorer(func(q Query) []float32 { return vecs[q.Rel] })
	rep, err := Evaluate(context.Background(), qs, sc, nil, Options{Entities: ents(6), PerQuery: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Rank{{1, 1}, {3, 3}, {2, 4}, {1, 6}}; !slices.Equal(rep.Ranks, want) {
		t.Fatalf("ranks %v, want %v", rep.Ranks, want)
	}
	if rep.Queries != 4 || rep.HeadQueries != 2 || rep.TailQueries != 2 {
		t.Errorf("counts %d %d %d", rep.Queries, rep.HeadQueries, rep.TailQueries)
	}
	h6 := 1 + 1.0/2 + 1.0/3 + 1.0/4 + 1.0/5 + 1.0/6 // 49/20
	tests := []struct {
		name      string
		got, want Summary
	}{
		// head: {1,1} and {2,4}
		{"optimistic head", rep.Optimistic.Head, Summary{MRR: (1 + .5) / 2, MR: 1.5, Hits1: .5, Hits3: 1, Hits10: 1}},
		{"pessimistic head", rep.Pessimistic.Head, Summary{MRR: (1 + .25) / 2, MR: 2.5, Hits1: .5, Hits3: .5, Hits10: 1}},
		{"expected head", rep.Expected.Head, Summary{MRR: (1 + 13.0/36) / 2, MR: 2, Hits1: .5, Hits3: (1 + 2.0/3) / 2, Hits10: 1}},
		// tail: {3,3} and {1,6}
		{"optimistic tail", rep.Optimistic.Tail, Summary{MRR: (1.0/3 + 1) / 2, MR: 2, Hits1: .5, Hits3: 1, Hits10: 1}},
		{"pessimistic tail", rep.Pessimistic.Tail, Summary{MRR: (1.0/3 + 1.0/6) / 2, MR: 4.5, Hits1: 0, Hits3: .5, Hits10: 1}},
		{"expected tail", rep.Expected.Tail, Summary{MRR: (1.0/3 + h6/6) / 2, MR: (3 + 3.5) / 2, Hits1: (0 + 1.0/6) / 2, Hits3: (1 + .5) / 2, Hits10: 1}},
		// all: the mean of the two directions (2 queries each)
		{"optimistic all", rep.Optimistic.Summary, Summary{MRR: (1 + .5 + 1.0/3 + 1) / 4, MR: 7.0 / 4, Hits1: .5, Hits3: 1, Hits10: 1}},
		{"expected all", rep.Expected.Summary, Summary{MRR: (1 + 13.0/36 + 1.0/3 + h6/6) / 4, MR: (1 + 3 + 3 + 3.5) / 4, Hits1: (1 + 0 + 0 + 1.0/6) / 4, Hits3: (1 + 2.0/3 + 1 + .5) / 4, Hits10: 1}},
	}
	for _, tt := range tests {
		g, w := tt.got, tt.want
		if !near(g.MRR, w.MRR) || !near(g.MR, w.MR) || !near(g.Hits1, w.Hits1) || !near(g.Hits3, w.Hits3) || !near(g.Hits10, w.Hits10) {
			t.Errorf("%s: got %+v, want %+v", tt.name, g, w)
		}
	}
}
