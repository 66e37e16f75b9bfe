package scoring

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// countingPruner is a RuleScorer as a linkpred.Pruner that counts the
// queries it scores in full and the hits of every pass (pruned or full);
// with full set, it is not a Pruner (fullOnly).
type countingPruner struct {
	rs          *RuleScorer
	full, hits  atomic.Int64
	pruned      atomic.Int64
	variantsSet bool
}

func (c *countingPruner) ScoreVariants(ctx context.Context, qs []linkpred.Query, out [][]linkpred.Scores) error {
	c.full.Add(int64(len(qs)))
	var err error
	if c.variantsSet {
		err = c.rs.ScoreVariants(ctx, qs, out)
	} else {
		err = c.rs.Score(ctx, qs, out[0])
	}
	for _, o := range out {
		for i := range o {
			c.hits.Add(int64(len(o[i].Sparse)))
		}
	}
	return err
}

func (c *countingPruner) PruneTop(v int, q linkpred.Query) (int, bool) { return c.rs.PruneTop(v, q) }

func (c *countingPruner) ScorePruned(ctx context.Context, q linkpred.Query, tau float64, out []linkpred.Scores) (bool, error) {
	c.pruned.Add(1)
	ok, err := c.rs.ScorePruned(ctx, q, tau, out)
	for i := range out {
		c.hits.Add(int64(len(out[i].Sparse)))
	}
	return ok, err
}

// fullOnly hides the Pruner of a countingPruner.
type fullOnly struct{ c *countingPruner }

func (f fullOnly) ScoreVariants(ctx context.Context, qs []linkpred.Query, out [][]linkpred.Scores) error {
	return f.c.ScoreVariants(ctx, qs, out)
}

// pruneCase is a store's test queries, the filter of every split, and a
// program's rules as a countingPruner over the candidates ents.
type pruneCase struct {
	qs     []linkpred.Query
	filter *linkpred.Filter
	c      *countingPruner
	ents   []store.ID
}

// newPruneCase scores st's test split by prog's rules.
func newPruneCase(t *testing.T, st store.Store, prog *datalog.Program) *pruneCase {
	t.Helper()
	ctx := context.Background()
	qs, err := linkpred.Queries(st, "test")
	if err != nil {
		t.Fatal(err)
	}
	filter, err := linkpred.NewFilter(st)
	if err != nil {
		t.Fatal(err)
	}
	rs, ents, err := NewRuleScorer(ctx, st, nil, prog, AggOverride{}, qs, filter)
	if err != nil {
		t.Fatal(err)
	}
	return &pruneCase{qs, filter, &countingPruner{rs: rs}, ents}
}

// pruneWork is what ranking with pruning did: the queries its pruned
// passes decided, and the candidates listed by every pass of the full
// ranking and of the ranking with pruning.
type pruneWork struct {
	decided            int
	fullHits, withHits int64
}

// compare ranks the queries under k variants in full and with pruning at
// the thresholds at (nil: learnt), fails the test where a rank or a
// reached answer differs (what names the case), and returns the work.
func (pc *pruneCase) compare(t *testing.T, k int, at func(linkpred.Query) float64, what string) pruneWork {
	t.Helper()
	ctx := context.Background()
	opt := linkpred.Options{Entities: pc.ents, PerQuery: true, BatchSize: RuleBatch, Workers: 1}
	c := pc.c
	c.full.Store(0)
	c.hits.Store(0)
	want, err := linkpred.EvaluateVariants(ctx, pc.qs, fullOnly{c}, k, pc.filter, opt)
	if err != nil {
		t.Fatal(err)
	}
	full := c.full.Swap(0)
	work := pruneWork{fullHits: c.hits.Swap(0)}
	opt.PruneAt = at
	got, err := linkpred.EvaluateVariants(ctx, pc.qs, c, k, pc.filter, opt)
	if err != nil {
		t.Fatal(err)
	}
	for v := range k {
		for i, q := range pc.qs {
			if got[v].Ranks[i] != want[v].Ranks[i] || got[v].Scored[i] != want[v].Scored[i] {
				t.Fatalf("%s, variant %d, random thresholds %t: query %d %+v: pruned rank %+v (reached %t), full %+v (%t)",
					what, v, at != nil, i, q, got[v].Ranks[i], got[v].Scored[i], want[v].Ranks[i], want[v].Scored[i])
			}
		}
	}
	work.decided, work.withHits = int(full-c.full.Load()), c.hits.Load()
	return work
}

// pruneWeights are the rules' weights of the random programs: few, so
// that candidates tie, and pairs that differ in float64 but not in
// float32 (a pruned pass at one keeps a rule the other leaves out, while
// their confidences compare equal).
var pruneWeights = []float64{0.9, 0.6, 0.6 - 1e-12, 0.35, 0.3, 0.3 + 1e-12, 0.12, 0.05, 0.05 - 1e-13, 0.01}

// randomPruneGraph loads a random graph of 60 entities: four relations, a
// hub relation kind (most entities of one kind), and a test split.
func randomPruneGraph(t *testing.T, rng *rand.Rand) store.Store {
	t.Helper()
	st := store.NewMemory()
	b := &store.Batch{Splits: map[string][]store.NamedTriple{}}
	add := func(nt store.NamedTriple) {
		if rng.IntN(5) == 0 {
			b.Splits["test"] = append(b.Splits["test"], nt)
		} else {
			b.Graph = append(b.Graph, nt)
		}
	}
	for range 240 {
		s, r, o := fmt.Sprint("v", rng.IntN(60)), rng.IntN(4), fmt.Sprint("v", rng.IntN(60))
		add(store.NamedTriple{S: s, R: fmt.Sprint("r", r), O: o})
		// Planted: r1 mirrors r0 (mostly), and r2 then r3 leads to r0.
		if r == 0 && rng.IntN(10) < 9 {
			add(store.NamedTriple{S: o, R: "r1", O: s})
		}
		if r == 2 && rng.IntN(10) < 8 {
			y := fmt.Sprint("v", rng.IntN(60))
			add(store.NamedTriple{S: o, R: "r3", O: y})
			add(store.NamedTriple{S: s, R: "r0", O: y})
		}
	}
	// A few entities answer many queries: hub heads.
	for range 40 {
		add(store.NamedTriple{S: fmt.Sprint("v", rng.IntN(60)), R: "r0", O: fmt.Sprint("v", rng.IntN(3))})
	}
	for i := range 60 {
		add(store.NamedTriple{S: fmt.Sprint("v", i), R: "kind", O: fmt.Sprint("k", min(i%7, 2))})
	}
	if _, err := st.Load(context.Background(), b, nil); err != nil {
		t.Fatal(err)
	}
	return st
}

// randomPruneRules returns a random program over the graph's relations:
// chain rules of one to three steps (with A != B, and object identity on
// some of three steps), rules with constants, and a chain rule over an
// auxiliary relation, for heads r0, r1 and kind.
func randomPruneRules(rng *rand.Rand) string {
	rels := []string{"r0", "r1", "r2", "r3", "kind"}
	w := func() string { return fmt.Sprint(pruneWeights[rng.IntN(len(pruneWeights))]) }
	atom := func(rel, x, y string) string {
		if rng.IntN(2) == 0 {
			return fmt.Sprintf("%s(%s, %s)", rel, x, y)
		}
		return fmt.Sprintf("%s(%s, %s)", rel, y, x)
	}
	seen := map[string]bool{}
	var sb strings.Builder
	emit := func(rule string) {
		if !seen[rule] {
			seen[rule] = true
			fmt.Fprintf(&sb, "%s :: %s\n", w(), rule)
		}
	}
	emit("r0(A, B) :- r1(B, A).")
	emit("r1(A, B) :- r0(B, A).")
	emit("r0(A, B) :- r2(A, C), r3(C, B).")
	emit("kind(A, B) :- r1(A, C), kind(C, B), A != B.")
	for _, head := range []string{"r0", "r1", "kind"} {
		for range 4 + rng.IntN(8) {
			n := 1 + rng.IntN(3)
			vars := []string{"A", "C", "D", "B"}[:n+1]
			vars[n] = "B"
			var body []string
			for k := range n {
				body = append(body, atom(rels[rng.IntN(len(rels))], vars[k], vars[k+1]))
			}
			switch {
			case n == 3 && rng.IntN(2) == 0:
				body = append(body, "A != B", "A != D", "C != B")
			case n >= 2 && rng.IntN(2) == 0:
				body = append(body, "A != B")
			}
			emit(fmt.Sprintf("%s(A, B) :- %s.", head, strings.Join(body, ", ")))
		}
		for range 2 + rng.IntN(3) {
			c, d := fmt.Sprint("v", rng.IntN(60)), fmt.Sprint("v", rng.IntN(60))
			rel := rels[rng.IntN(len(rels))]
			switch rng.IntN(3) {
			case 0:
				emit(fmt.Sprintf("%s(A, %s) :- %s.", head, c, atom(rel, "A", d)))
			case 1:
				emit(fmt.Sprintf("%s(%s, A) :- %s(A, _).", head, c, rel))
			default:
				emit(fmt.Sprintf("%s(A, %s) :- %s, %s.", head, c, atom(rel, "A", "Y"), atom(rels[rng.IntN(4)], "Y", d)))
			}
		}
	}
	// An auxiliary relation the graph lacks, and a chain rule over it.
	emit("link(A, B) :- r1(A, C), r2(C, B).")
	emit("link(A, B) :- r3(A, B).")
	emit("r0(A, B) :- link(A, C), r2(C, B), A != B.")
	emit("r1(A, B) :- link(B, A).")
	return sb.String()
}

// randomPruneCase returns a random graph and program of seed and stream.
func randomPruneCase(t *testing.T, seed, stream uint64) (store.Store, string) {
	rng := rand.New(rand.NewPCG(seed, stream))
	st := randomPruneGraph(t, rng)
	return st, randomPruneRules(rng)
}

// pruneAggregates are the aggregations the pruning must be exact for:
// tuneCandidates' (what mine compares), noisy-or over every rule, and
// grouped, each with and without the slot prior.
var pruneAggregates = []string{
	"max", "max(prior = 1)",
	"noisy_or(top = 3)", "noisy_or(top = 3, prior = 1)",
	"noisy_or(top = 10)", "noisy_or(top = 10, prior = 1)",
	"noisy_or", "grouped", "grouped(prior = 1)",
}

// pruneAt returns a threshold for each query, from its hash and seed: one
// of the rules' weights exactly, just above or below one, or anything up
// to 1; 0 (no pruned pass) now and then.
func pruneAt(seed uint64) func(q linkpred.Query) float64 {
	return func(q linkpred.Query) float64 {
		h := fnv.New64a()
		fmt.Fprint(h, seed, q.Rel, q.Given, q.Inverse)
		r := rand.New(rand.NewPCG(h.Sum64(), seed))
		w := pruneWeights[r.IntN(len(pruneWeights))]
		switch r.IntN(6) {
		case 0:
			return 0
		case 1:
			return w * (1 + 1e-13)
		case 2:
			return w * (1 - 1e-13)
		case 3:
			return r.Float64() * w
		}
		return w
	}
}

// TestPrunedRanksExact checks rank-safe pruning against the full ranking
// on random graphs and programs, for every aggregation it must be exact
// for, with thresholds chosen at random (at the rules' weights, and at
// float32 roundings of them) and as the evaluation learns them: every
// query's ranks L and H are equal, and the pruned passes decide some
// queries (else the case tests nothing).
func TestPrunedRanksExact(t *testing.T) {
	decided := 0
	for seed := range uint64(40) {
		st, rules := randomPruneCase(t, seed, 35)
		for _, agg := range pruneAggregates {
			prog, err := parser.ParseString("rules.dl", "@aggregate "+agg+".\n"+rules)
			if err != nil {
				t.Fatal(err)
			}
			pc := newPruneCase(t, st, prog)
			what := fmt.Sprintf("seed %d, %s, rules\n%s\n", seed, agg, rules)
			decided += pc.compare(t, 1, pruneAt(seed), what).decided
			decided += pc.compare(t, 1, nil, what).decided
		}
	}
	if decided < 100 {
		t.Errorf("pruned passes decided %d queries: the case tests little", decided)
	}
	t.Logf("pruned passes decided %d queries", decided)
}

// TestPrunedVariantsExact checks the pruning of ChooseAggregation's pass,
// every candidate aggregation at once (ScoreVariants, grouped at every
// threshold included), against the full ranking, on random graphs and
// programs.
func TestPrunedVariantsExact(t *testing.T) {
	decided := 0
	for seed := range uint64(8) {
		st, rules := randomPruneCase(t, seed, 53)
		prog, err := parser.ParseString("rules.dl", rules)
		if err != nil {
			t.Fatal(err)
		}
		pc := newPruneCase(t, st, prog)
		// Every candidate, grouped at each threshold with each relation's
		// groups (pruned by their number of groups).
		cands := append(candidates(), datalog.Aggregate{Method: "noisy_or", Params: []datalog.Param{{Name: "top", Value: 2}}})
		if err := pc.c.rs.setCandidates(context.Background(), cands, pc.qs); err != nil {
			t.Fatal(err)
		}
		pc.c.variantsSet = true
		decided += pc.compare(t, len(pc.c.rs.variants), pruneAt(seed), fmt.Sprintf("seed %d, rules\n%s\n", seed, rules)).decided
	}
	if decided < 10 {
		t.Errorf("%d queries decided by a pruned pass: the case tests little", decided)
	}
	t.Logf("%d queries decided by a pruned pass", decided)
}

// TestRuleHitsAbove checks the reasoner's pruned pass on random graphs and
// programs (chain rules walked over the graph and over an auxiliary
// relation, rules with constants, rules the evaluator applies): for every
// query and threshold, EachRuleHitAbove gives exactly the hits of
// EachRuleHit of at least the threshold, confidences bit for bit.
func TestRuleHitsAbove(t *testing.T) {
	ctx := context.Background()
	type hit struct {
		c store.ID
		r int32
		s float64
	}
	collect := func(rs *RuleScorer, q linkpred.Query, min float64) map[hit]int {
		m := map[hit]int{}
		err := rs.hitsAbove(ctx, q, min, func(id store.ID, hits []reasoner.RuleScore) {
			for _, h := range hits {
				m[hit{id, h.Rule, h.Score}]++
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	n := 0
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 71))
		st := randomPruneGraph(t, rng)
		prog, err := parser.ParseString("rules.dl", randomPruneRules(rng)+"r0(A, B) :- r1(A, C), not r2(C, B), r3(C, B).\n")
		if err != nil {
			t.Fatal(err)
		}
		qs, err := linkpred.Queries(st, "test")
		if err != nil {
			t.Fatal(err)
		}
		rs, _, err := NewRuleScorer(ctx, st, nil, prog, AggOverride{}, qs, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			all := collect(rs, q, 0)
			for _, min := range append(slices.Clone(pruneWeights), 0.6*(1+1e-13), rng.Float64()) {
				want := map[hit]int{}
				for h, k := range all {
					if h.s >= min {
						want[h] = k
					}
				}
				if got := collect(rs, q, min); !maps.Equal(got, want) {
					t.Fatalf("seed %d, query %+v, min %v: %d hits, want %d", seed, q, min, len(got), len(want))
				}
				n += len(want)
			}
		}
	}
	if n < 1000 {
		t.Errorf("%d hits above the thresholds: the case tests little", n)
	}
}

// TestPrunedWorkOnHub counts the work of ranking by rules on a graph with
// hubs (people of ten countries, of two genders): the planted rule
// citizen :- born, city_in finds a country's citizens, and a weak rule
// through the gender hub reaches every person from every country. Ranked
// with pruning (the thresholds learnt as the evaluation goes), the passes
// list less than half the candidates the full ranking lists, and the ranks
// are the same.
func TestPrunedWorkOnHub(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 5))
	st := store.NewMemory()
	b := &store.Batch{Splits: map[string][]store.NamedTriple{}}
	for c := range 50 {
		b.Graph = append(b.Graph, store.NamedTriple{S: fmt.Sprint("city", c), R: "city_in", O: fmt.Sprint("country", c%10)})
	}
	for p := range 400 {
		person, city := fmt.Sprint("p", p), rng.IntN(50)
		b.Graph = append(b.Graph,
			store.NamedTriple{S: person, R: "born", O: fmt.Sprint("city", city)},
			store.NamedTriple{S: person, R: "gender", O: fmt.Sprint("g", p%2)})
		nt := store.NamedTriple{S: person, R: "citizen", O: fmt.Sprint("country", city%10)}
		if p%5 == 0 {
			b.Splits["test"] = append(b.Splits["test"], nt)
		} else {
			b.Graph = append(b.Graph, nt)
		}
	}
	if _, err := st.Load(ctx, b, nil); err != nil {
		t.Fatal(err)
	}
	prog, err := parser.ParseString("rules.dl", `@aggregate max(prior = 1).
0.9 :: citizen(A, B) :- born(A, C), city_in(C, B).
0.05 :: citizen(A, B) :- gender(A, G), gender(C, G), citizen(C, B), A != B, A != C, G != B.
`)
	if err != nil {
		t.Fatal(err)
	}
	w := newPruneCase(t, st, prog).compare(t, 1, nil, "the hub")
	t.Logf("candidates listed: %d in full, %d with pruning", w.fullHits, w.withHits)
	if 2*w.withHits > w.fullHits {
		t.Errorf("with pruning the passes listed %d candidates, in full %d: pruning saves less than half", w.withHits, w.fullHits)
	}
}
