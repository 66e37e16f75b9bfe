package linkpred

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drumql/drumql/internal/noisyor"
	"github.com/drumql/drumql/store"
)

// fakePruner scores each (relation, given, direction) from fixed lists of
// rule confidences per candidate (float64, as rules give them), keyed by
// [Max] (top 0) or [NoisyOr](top): in full, or, pruned, from the
// confidences of at least tau alone.
type fakePruner struct {
	top   int
	confs map[relDir]map[store.ID]map[store.ID][]float64 // given -> candidate -> its confidence by rule
	pos   map[store.ID]int32
	full  int // queries scored in full
}

func (f *fakePruner) scoreAt(q Query, tau float64, out *Scores) {
	agg := Max
	if f.top > 0 {
		agg = NoisyOr(f.top)
	}
	for e, confs := range f.confs[relDir{q.Rel, q.Inverse}][q.Given] {
		var hits []RuleConf
		for r, c := range confs {
			if c >= tau {
				hits = append(hits, RuleConf{Rule: int32(r), Conf: float32(c)})
			}
		}
		if len(hits) > 0 {
			out.AddRules(agg, f.pos[e], hits)
		}
	}
}

func (f *fakePruner) ScoreVariants(_ context.Context, qs []Query, out [][]Scores) error {
	for i, q := range qs {
		f.full++
		f.scoreAt(q, 0, &out[0][i])
	}
	return nil
}

func (f *fakePruner) PruneTop(int, Query) (int, bool) { return f.top, true }

func (f *fakePruner) ScorePruned(_ context.Context, q Query, tau float64, out []Scores) (bool, error) {
	f.scoreAt(q, tau, &out[0])
	return true, nil
}

// fullScorer hides a fakePruner's pruning.
type fullScorer struct{ f *fakePruner }

func (s fullScorer) ScoreVariants(ctx context.Context, qs []Query, out [][]Scores) error {
	return s.f.ScoreVariants(ctx, qs, out)
}

// TestPrunedRanksKeys checks the decisions of rank-safe pruning on
// candidates with random rule confidences (few values, and pairs equal
// in float32 but not in float64, so that keys tie and a pruned pass's
// threshold falls between equal confidences) at random thresholds, under
// Max and noisy-or over the top 1 to 4: every rank equals the full
// ranking's, and pruned passes decide some of them.
func TestPrunedRanksKeys(t *testing.T) {
	pool := []float64{0.9, 0.6, 0.6 - 1e-12, 0.6 + 1e-12, 0.3, 0.3 - 1e-12, 0.1, 0.02}
	decided := 0
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		f, ents := newFakePruner(rng.IntN(5), 30)
		var triples []store.Triple
		var qs []Query
		for g := range store.ID(4) {
			k := relDir{1, g%2 == 0}
			if f.confs[k] == nil {
				f.confs[k] = map[store.ID]map[store.ID][]float64{}
			}
			m, listed := randomCandidates(rng, 1+rng.IntN(20), 30, 5, func() float64 { return pool[rng.IntN(len(pool))] })
			f.confs[k][g] = m
			for range 1 + rng.IntN(3) {
				a := listed[rng.IntN(len(listed))] // mostly an answer some rule reaches
				if rng.IntN(5) == 0 {
					a = store.ID(rng.IntN(30))
				}
				q := Query{Rel: 1, Given: g, Inverse: k.inv, Answer: a}
				qs = append(qs, q)
				triples = append(triples, q.Triple())
			}
		}
		tau := pool[rng.IntN(len(pool))]
		if rng.IntN(2) == 0 {
			tau *= rng.Float64()
		}
		decided += checkPruned(t, f, ents, qs, FilterOf(triples), tau)
	}
	if decided < 100 {
		t.Errorf("pruned passes decided %d queries: the case tests little", decided)
	}
	t.Logf("pruned passes decided %d queries", decided)
}

// TestPrunedManyRules checks rank-safe pruning under a noisy-or over the
// top 17 to 400 confidences (a noisy-or over all of a head's rules), whose
// bounds noisyOrUpTo takes from a power, at thresholds low enough for
// pruned passes to decide: many candidates known only by their bounds and
// many answers per query, ranked as the full ranking ranks them.
func TestPrunedManyRules(t *testing.T) {
	decided := 0
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 11))
		f, ents := newFakePruner(17+rng.IntN(384), 200)
		tau := 1e-6 * (1 + 9*rng.Float64())
		conf := func() float64 {
			switch rng.IntN(4) {
			case 0:
				return tau * rng.Float64() // below the pass's threshold
			case 1:
				return tau
			}
			return math.Pow(10, -3*rng.Float64())
		}
		k := relDir{1, false}
		f.confs[k] = map[store.ID]map[store.ID][]float64{}
		m, listed := randomCandidates(rng, 20+rng.IntN(60), 200, 8, conf)
		f.confs[k][0] = m
		var triples []store.Triple
		var qs []Query
		for range 1 + rng.IntN(4) {
			q := Query{Rel: 1, Given: 0, Answer: listed[rng.IntN(len(listed))]}
			qs = append(qs, q)
			triples = append(triples, q.Triple())
		}
		decided += checkPruned(t, f, ents, qs, FilterOf(triples), tau)
	}
	if decided < 100 {
		t.Errorf("pruned passes decided %d queries: the case tests little", decided)
	}
	t.Logf("pruned passes decided %d queries", decided)
}

// TestNoisyOrUpTo checks the bound on a candidate's noisy-or over the top
// confidences against the product the scorer takes (noisyor.Of of the
// known confidences followed by copies of the threshold): equal up to
// exactTail copies, never below it and within 1e-6 of it beyond.
func TestNoisyOrUpTo(t *testing.T) {
	w := &worker{}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		tau := float32(rng.Float64() * rng.Float64() * 0.2)
		var cs []float32
		for range rng.IntN(6) {
			cs = append(cs, tau+float32(rng.Float64())*(1-tau))
		}
		slices.SortFunc(cs, func(x, y float32) int { return cmpFloat(y, x) })
		top := len(cs) + rng.IntN(600)
		full := slices.Clone(cs)
		for len(full) < top {
			full = append(full, tau)
		}
		want := float32(noisyor.Of(full))
		got := w.noisyOrUpTo(cs, top, tau)
		switch {
		case top-len(cs) <= exactTail && got != want:
			t.Fatalf("%v then %d copies of %v: %v, want exactly %v", cs, top-len(cs), tau, got, want)
		case got < want || got-want > 1e-6:
			t.Fatalf("%v then %d copies of %v: %v, want at least %v and within 1e-6", cs, top-len(cs), tau, got, want)
		}
	}
}

// newFakePruner returns a fakePruner of top with entities 0 to n-1, and
// those entities.
func newFakePruner(top, n int) (*fakePruner, []store.ID) {
	f := &fakePruner{top: top, confs: map[relDir]map[store.ID]map[store.ID][]float64{}, pos: map[store.ID]int32{}}
	var ents []store.ID
	for e := range store.ID(n) {
		f.pos[e] = int32(len(ents))
		ents = append(ents, e)
	}
	return f, ents
}

// randomCandidates draws count candidates among entities 0 to n-1, each
// with 1 to most confidences drawn by conf, and returns them and the
// entities drawn, in order (repeats included).
func randomCandidates(rng *rand.Rand, count, n, most int, conf func() float64) (map[store.ID][]float64, []store.ID) {
	m := map[store.ID][]float64{}
	var listed []store.ID
	for range count {
		e := store.ID(rng.IntN(n))
		var cs []float64
		for range 1 + rng.IntN(most) {
			cs = append(cs, conf())
		}
		m[e] = cs
		listed = append(listed, e)
	}
	return m, listed
}

// checkPruned ranks qs with pruned passes at tau and in full, fails the
// test where a rank differs, and returns the number of queries the pruned
// passes decided.
func checkPruned(t *testing.T, f *fakePruner, ents []store.ID, qs []Query, filter *Filter, tau float64) int {
	t.Helper()
	opt := Options{Entities: ents, PerQuery: true, Workers: 1}
	want, err := EvaluateVariants(context.Background(), qs, fullScorer{f}, 1, filter, opt)
	if err != nil {
		t.Fatal(err)
	}
	full := f.full
	f.full = 0
	opt.PruneAt = func(Query) float64 { return tau }
	got, err := EvaluateVariants(context.Background(), qs, f, 1, filter, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		if got[0].Ranks[i] != want[0].Ranks[i] {
			t.Fatalf("top %d, tau %v: query %+v: pruned rank %+v, full %+v\n%v",
				f.top, tau, q, got[0].Ranks[i], want[0].Ranks[i], f.confs[relDir{q.Rel, q.Inverse}][q.Given])
		}
	}
	return full - f.full
}

// TestPrunedTieAtThreshold checks the cases where a pruned pass at tau
// keeps a confidence and leaves out another that equals it in float32:
// a tie-breaker equal to float32(tau) cannot tell two keys apart (the
// other key may go on with the same value), nor can a score equal to the
// bound on the unlisted candidates.
func TestPrunedTieAtThreshold(t *testing.T) {
	const below = 0.6 - 1e-12 // float32(below) == float32(0.6)
	cases := []struct {
		name  string
		top   int
		confs map[store.ID][]float64 // candidate 0 is the answer
		want  Rank
	}{
		{"a tie-breaker at the threshold", 0, map[store.ID][]float64{0: {0.9, below}, 1: {0.9, 0.6}}, Rank{1, 2}},
		{"the answer's at the threshold", 0, map[store.ID][]float64{0: {0.9, 0.6}, 1: {0.9, below}}, Rank{1, 2}},
		{"a score at the threshold", 0, map[store.ID][]float64{0: {0.6}, 1: {below}}, Rank{1, 2}},
		{"noisy-or bounds at the threshold", 2, map[store.ID][]float64{0: {0.9, 0.6}, 1: {0.9, below}}, Rank{1, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := relDir{1, true}
			f := &fakePruner{top: c.top, confs: map[relDir]map[store.ID]map[store.ID][]float64{k: {5: c.confs}},
				pos: map[store.ID]int32{0: 0, 1: 1, 2: 2, 5: 3}}
			q := Query{Rel: 1, Given: 5, Inverse: true, Answer: 0}
			ents := []store.ID{0, 1, 2, 5}
			checkPruned(t, f, ents, []Query{q}, FilterOf([]store.Triple{q.Triple()}), 0.6)
			rep, err := Evaluate(context.Background(), []Query{q}, ScorerFunc(func(ctx context.Context, qs []Query, out []Scores) error {
				return f.ScoreVariants(ctx, qs, [][]Scores{out})
			}), FilterOf([]store.Triple{q.Triple()}), Options{Entities: ents, PerQuery: true})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Ranks[0] != c.want {
				t.Errorf("full rank %+v, want %+v", rep.Ranks[0], c.want)
			}
		})
	}
}
