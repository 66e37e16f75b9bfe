package query

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

func chainTSV(n int, rel string) string {
	var b strings.Builder
	for i := range n - 1 {
		fmt.Fprintf(&b, "v%d\t%s\tv%d\n", i, rel, i+1)
	}
	return b.String()
}

// TestInferAtomic: a cancelled context or the MaxFacts cap leaves the
// previous derived facts, and the base facts, as they were.
func TestInferAtomic(t *testing.T) {
	ctx := context.Background()
	st := testkit.NewStore(t, chainTSV(60, "e"))
	small := testkit.MustParse(t, "tc(X, Y) :- e(X, Y).\n")
	if _, err := eval.Infer(ctx, st, small, eval.Options{}); err != nil {
		t.Fatal(err)
	}
	before := oracle.DerivedDump(t, st)
	if strings.Count(before, "\n") != 58 {
		t.Fatalf("want 59 derived facts, got\n%s", before)
	}
	big := testkit.MustParse(t, "tc(X, Y) :- e(X, Y).\ntc(X, Z) :- tc(X, Y), e(Y, Z).\n")
	_, err := eval.Infer(ctx, st, big, eval.Options{MaxFacts: 100})
	if !errors.Is(err, eval.ErrTooManyFacts) {
		t.Fatalf("want ErrTooManyFacts, got %v", err)
	}
	if !strings.Contains(err.Error(), "101") {
		t.Errorf("error does not give the count: %v", err)
	}
	// Any Go program holds more than a kilobyte: the cap is exceeded at
	// the first check.
	if _, err := eval.Infer(ctx, st, big, eval.Options{MaxMemory: 1 << 10}); !errors.Is(err, eval.ErrMemoryLimit) || !strings.Contains(err.Error(), "above the cap of 0 MB") {
		t.Fatalf("want ErrMemoryLimit naming the cap, got %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := eval.Infer(cctx, st, big, eval.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if after := oracle.DerivedDump(t, st); after != before {
		t.Errorf("derived facts changed after failed infers")
	}
	if n, _ := st.Count(mustID(t, st, "e")); n != 59 {
		t.Errorf("base facts changed: %d", n)
	}
	stats, err := eval.Infer(ctx, st, big, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Derived["tc"] != 60*59/2 || stats.Facts != 60*59/2 || stats.Strata != 1 {
		t.Errorf("stats %+v", stats)
	}
}

func mustID(t testing.TB, st store.Store, name string) store.ID {
	id, ok, err := st.Lookup(name)
	if err != nil || !ok {
		t.Fatalf("lookup %s: %v %v", name, ok, err)
	}
	return id
}

// TestDeterminism: Threads 1 and 2 give the same derived facts, confidences
// and provenance.
func TestDeterminism(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for range 3000 {
		fmt.Fprintf(&b, "v%d\te%d\tv%d\n", rng.IntN(300), rng.IntN(3), rng.IntN(300))
	}
	prog := testkit.MustParse(t, `0.9 :: p(X, Y) :- e0(X, Y).
0.8 :: p(X, Z) :- p(X, Y), e1(Y, Z).
0.7 :: p(X, Z) :- e2(X, Y), p(Y, Z).
0.6 :: q(X) :- p(X, X).
s(X, Y) :- p(X, Y), not q(Y).
`)
	var dumps []string
	for _, threads := range []int{1, 2, 2} {
		st := testkit.NewStore(t, b.String())
		if _, err := eval.Infer(ctx, st, prog, eval.Options{Threads: threads}); err != nil {
			t.Fatal(err)
		}
		var all []string
		rs, _ := st.Relations()
		for _, r := range rs {
			for d, err := range st.ScanDerived(r.Rel) {
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, fmt.Sprint(d))
			}
		}
		dumps = append(dumps, strings.Join(all, "\n"))
	}
	if len(dumps[0]) < 1000 {
		t.Fatalf("too few facts: %d bytes", len(dumps[0]))
	}
	for i := 1; i < len(dumps); i++ {
		if dumps[i] != dumps[0] {
			t.Errorf("run %d differs from run 0", i)
		}
	}
}

// TestExplain checks a proof tree by hand, from the evaluator and from the
// stored provenance.
func TestExplain(t *testing.T) {
	ctx := context.Background()
	st := testkit.NewStore(t, "bob\thusband\talice\nalice\tmother\tcarl\n")
	prog := testkit.MustParse(t, `wife(X, Y) :- husband(Y, X).
0.8 :: parent(X, Y) :- mother(X, Y).
0.5 :: stepfather(H, C) :- wife(W, H), parent(W, C).
`)
	want := &eval.Proof{Fact: "stepfather(bob, carl)", Confidence: 0.4, Rule: "0.5 :: stepfather(H, C) :- wife(W, H), parent(W, C).",
		Pos: datalog.Pos{File: "test.dl", Line: 3, Col: 1}, Weight: 0.5, Children: []*eval.Proof{
			{Fact: "wife(alice, bob)", Confidence: 1, Rule: "wife(X, Y) :- husband(Y, X).", Pos: datalog.Pos{File: "test.dl", Line: 1, Col: 1}, Weight: 1,
				Children: []*eval.Proof{{Fact: "husband(bob, alice)", Confidence: 1, Weight: 1, Base: true}}},
			{Fact: "parent(alice, carl)", Confidence: 0.8, Rule: "0.8 :: parent(X, Y) :- mother(X, Y).", Pos: datalog.Pos{File: "test.dl", Line: 2, Col: 1}, Weight: 0.8,
				Children: []*eval.Proof{{Fact: "mother(alice, carl)", Confidence: 1, Weight: 1, Base: true}}},
		}}
	fact := testkit.MustQuery(t, "stepfather(bob, carl)")
	got, err := Explain(ctx, st, prog, fact, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	round := func(p *eval.Proof) {
		var f func(*eval.Proof)
		f = func(p *eval.Proof) {
			p.Confidence = float64(float32(p.Confidence))
			for _, c := range p.Children {
				f(c)
			}
		}
		f(p)
	}
	round(got)
	round(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("proof from the program:\n%s\nwant\n%s", got, want)
	}
	if _, err := eval.Infer(ctx, st, prog, eval.Options{}); err != nil {
		t.Fatal(err)
	}
	got, err = Explain(ctx, st, nil, fact, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	round(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("proof from the store:\n%s\nwant\n%s", got, want)
	}
	if _, err := Explain(ctx, st, prog, testkit.MustQuery(t, "stepfather(carl, bob)"), eval.Options{}); !errors.Is(err, eval.ErrNoProof) {
		t.Errorf("want ErrNoProof, got %v", err)
	}
	if _, err := Explain(ctx, st, prog, testkit.MustQuery(t, "stepfather(X, bob)"), eval.Options{}); !errors.Is(err, eval.ErrNotGround) {
		t.Errorf("want ErrNotGround, got %v", err)
	}
}

// TestExplainNegation checks the proof of a fact derived through a negated
// literal that matched a weak fact: the factor 1 - c shows as a "not" node
// over the proof of the fact it negates, from the program and from the
// provenance Infer stored.
func TestExplainNegation(t *testing.T) {
	ctx := context.Background()
	st := testkit.NewStore(t, "x\tg\ty\n")
	prog := testkit.MustParse(t, `0.2 :: e(x, y).
0.5 :: sib(X, Y) :- e(X, Y).
0.9 :: cousin(X, Y) :- g(X, Y), not sib(X, Y).
`)
	// sib(x, y) = 0.5 * 0.2 = 0.1; cousin(x, y) = 0.9 * 1 * (1 - 0.1) = 0.81.
	want := &eval.Proof{Fact: "cousin(x, y)", Confidence: 0.81, Rule: "0.9 :: cousin(X, Y) :- g(X, Y), not sib(X, Y).",
		Pos: datalog.Pos{File: "test.dl", Line: 3, Col: 1}, Weight: 0.9, Children: []*eval.Proof{
			{Fact: "g(x, y)", Confidence: 1, Weight: 1, Base: true},
			{Fact: "not sib(x, y)", Confidence: 0.9, Weight: 1, Negated: true, Children: []*eval.Proof{
				{Fact: "sib(x, y)", Confidence: 0.1, Rule: "0.5 :: sib(X, Y) :- e(X, Y).", Pos: datalog.Pos{File: "test.dl", Line: 2, Col: 1}, Weight: 0.5,
					Children: []*eval.Proof{{Fact: "e(x, y)", Confidence: 0.2, Rule: "0.2 :: e(x, y).", Pos: datalog.Pos{File: "test.dl", Line: 1, Col: 1}, Weight: 0.2}}},
			}},
		}}
	var round func(p *eval.Proof)
	round = func(p *eval.Proof) {
		p.Confidence = float64(float32(p.Confidence))
		for _, c := range p.Children {
			round(c)
		}
	}
	round(want)
	fact := testkit.MustQuery(t, "cousin(x, y)")
	got, err := Explain(ctx, st, prog, fact, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	round(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("proof from the program:\n%s\nwant\n%s", got, want)
	}
	if _, err := eval.Infer(ctx, st, prog, eval.Options{}); err != nil {
		t.Fatal(err)
	}
	got, err = Explain(ctx, st, nil, fact, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	round(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("proof from the store:\n%s\nwant\n%s", got, want)
	}
}

func TestUnknownPredicate(t *testing.T) {
	st := testkit.NewStore(t, "a\twife\tb\nc\twives\td\n")
	_, err := Query(context.Background(), st, nil, testkit.MustQuery(t, "wifes(X, Y)?"), eval.Options{})
	if !errors.Is(err, eval.ErrUnknownPredicate) || !strings.Contains(err.Error(), "did you mean wife, wives?") {
		t.Errorf("got %v", err)
	}
}

// TestMetamorphic: adding a rule never removes an answer nor lowers a
// confidence; adding a positive body literal never adds an answer nor raises
// a confidence (programs without negation).
func TestMetamorphic(t *testing.T) {
	ctx := context.Background()
	for seed := range 120 {
		rng := rand.New(rand.NewPCG(uint64(seed), 99))
		base, _, src := oracle.RandomCase(rng, false)
		p := testkit.MustParse(t, src)
		if datalog.Validate(p).HasErrors() || len(p.Rules) < 2 {
			continue
		}
		st := testkit.NewStore(t, oracle.TripleTSV(base))
		answers := func(p *datalog.Program) map[string]float64 {
			m := map[string]float64{}
			for _, qs := range []string{"p(X, Y)?", "q(X, Y)?", "r(X)?"} {
				as, err := Query(ctx, st, p, testkit.MustQuery(t, qs), eval.Options{})
				if err != nil {
					continue
				}
				for _, a := range as {
					m[qs+strings.Join(a.Values, " ")] = a.Confidence
				}
			}
			return m
		}
		less := &datalog.Program{Facts: p.Facts, Rules: p.Rules[:len(p.Rules)-1]}
		full, fewer := answers(p), answers(less)
		for k, c := range fewer {
			if full[k] < c {
				t.Fatalf("seed %d: adding a rule lowered %s from %g to %g\n%s", seed, k, c, full[k], src)
			}
		}
		// add a body literal to the last rule
		more := &datalog.Program{Facts: p.Facts, Rules: slices.Clone(p.Rules)}
		r := more.Rules[len(more.Rules)-1]
		r.Body = append(slices.Clone(r.Body), datalog.Literal{Kind: datalog.Positive, Atom: datalog.Atom{Pred: "e0",
			Args: []datalog.Term{{Kind: datalog.Var, Value: "X"}, {Kind: datalog.Var, Value: "Fresh"}}}})
		more.Rules[len(more.Rules)-1] = r
		if datalog.Validate(more).HasErrors() {
			continue
		}
		for k, c := range answers(more) {
			if c > full[k] {
				t.Fatalf("seed %d: adding a literal raised or added %s (%g > %g)\n%s", seed, k, c, full[k], src)
			}
		}
	}
}

// TestLargeRelation: a derived relation of several storage chunks (the
// weighted closure of a 320-node chain, 51,040 facts) has every fact with
// its closed-form confidence 0.99^(j-i), whatever chunk it landed in, and
// the proof of a fact stored late in the last chunk is intact.
func TestLargeRelation(t *testing.T) {
	const n = 320
	st := testkit.NewStore(t, chainTSV(n, "e"))
	prog := testkit.MustParse(t, "0.99 :: p(X, Y) :- e(X, Y).\n0.99 :: p(X, Z) :- p(X, Y), e(Y, Z).\n")
	ans, err := Query(context.Background(), st, prog, testkit.MustQuery(t, "p(X, Y)"), eval.Options{Min: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if want := n * (n - 1) / 2; len(ans) != want || want <= eval.ChunkLen {
		t.Fatalf("%d answers, want %d (more than one chunk)", len(ans), want)
	}
	seen := map[[2]int]bool{}
	for _, a := range ans {
		var i, j int
		if _, err := fmt.Sscanf(a.Values[0]+" "+a.Values[1], "v%d v%d", &i, &j); err != nil {
			t.Fatal(err)
		}
		want := math.Pow(0.99, float64(j-i))
		if j <= i || math.Abs(a.Confidence-want) > 1e-9*want {
			t.Fatalf("p(v%d, v%d) = %g, want %g", i, j, a.Confidence, want)
		}
		seen[[2]int{i, j}] = true
	}
	if len(seen) != len(ans) {
		t.Fatalf("duplicate answers")
	}
	p, err := Explain(context.Background(), st, prog, testkit.MustQuery(t, fmt.Sprintf("p(v0, v%d)", n-1)), eval.Options{Min: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	depth := 0
	for q := p; len(q.Children) > 0; q = q.Children[0] {
		depth++
	}
	if depth != n-1 {
		t.Errorf("proof of p(v0, v%d) has depth %d, want %d", n-1, depth, n-1)
	}
}

// TestWeights: what doc.go says of weights. A rule written without a
// weight has weight 1; a weight outside (0, 1], 0 included, is an invalid
// program for every entry point.
func TestWeights(t *testing.T) {
	ctx := context.Background()
	st := testkit.NewStore(t, "a\te\tb\n")
	as, err := Query(ctx, st, testkit.MustParse(t, "p(X, Y) :- e(X, Y).\n"), testkit.MustQuery(t, "p(a, X)?"), eval.Options{})
	if err != nil || len(as) != 1 || as[0].Confidence != 1 {
		t.Fatalf("rule without a weight: %v, %v; want one answer with confidence 1", as, err)
	}
	for _, w := range []float64{0, -0.5, 1.5} {
		p := testkit.MustParse(t, "p(X, Y) :- e(X, Y).\n")
		p.Rules[0].Weight = w
		q := testkit.MustQuery(t, "p(a, X)?")
		if _, err := Query(ctx, st, p, q, eval.Options{}); !errors.Is(err, eval.ErrInvalidProgram) {
			t.Errorf("weight %g: Query error %v, want ErrInvalidProgram", w, err)
		}
		if _, err := Prepare(ctx, st, p, eval.Options{}); !errors.Is(err, eval.ErrInvalidProgram) {
			t.Errorf("weight %g: Prepare error %v, want ErrInvalidProgram", w, err)
		}
		if _, err := eval.Infer(ctx, st, p, eval.Options{}); !errors.Is(err, eval.ErrInvalidProgram) {
			t.Errorf("weight %g: Infer error %v, want ErrInvalidProgram", w, err)
		}
	}
}

// TestStoreArity: an atom over a relation of the store's graph with another
// number of arguments is an error naming its position and the store's
// arity, in Infer (which then leaves the derived facts as they were), Query
// and Prepare.
func TestStoreArity(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		src, want string
	}{
		{"w(X) :- husband(X).\n", "test.dl:1:9: error: husband has arity 2 in the store (its base facts), used here with 1 argument"},
		{"w(X) :- wife(X, Y), not husband(X, Y, Y).\n", "test.dl:1:25: error: husband has arity 2 in the store (its base facts), used here with 3 arguments"},
		{"husband(a).\n", "test.dl:1:1: error: husband has arity 2 in the store (its base facts), used here with 1 argument"},
		{"husband(X) :- wife(X, _).\n", "test.dl:1:1: error: husband has arity 2 in the store (its base facts), used here with 1 argument"},
		{"w(X) :- husband(X, _).\nv(X, Y) :- husband(X, Y), not wife(Y, X).\n", ""},
	}
	for _, c := range cases {
		st := testkit.NewStore(t, "bob\thusband\talice\nalice\twife\tbob\n")
		if _, err := eval.Infer(ctx, st, testkit.MustParse(t, "kept(bob).\n"), eval.Options{}); err != nil {
			t.Fatal(err)
		}
		p := testkit.MustParse(t, c.src)
		_, err := eval.Infer(ctx, st, p, eval.Options{})
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.src, err)
			}
			continue
		}
		if !errors.Is(err, eval.ErrInvalidProgram) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: Infer error %v, want ErrInvalidProgram with %q", c.src, err, c.want)
		}
		if got := oracle.DerivedDump(t, st); got != "kept(bob) 1" {
			t.Errorf("%q: derived facts after the failed infer: %q, want kept(bob) 1", c.src, got)
		}
		if _, err := Query(ctx, st, p, testkit.MustQuery(t, "wife(X, Y)?"), eval.Options{}); !errors.Is(err, eval.ErrInvalidProgram) {
			t.Errorf("%q: Query error %v, want ErrInvalidProgram", c.src, err)
		}
		if _, err := Prepare(ctx, st, p, eval.Options{}); !errors.Is(err, eval.ErrInvalidProgram) {
			t.Errorf("%q: Prepare error %v, want ErrInvalidProgram", c.src, err)
		}
	}
}

// checkRuleScores compares en.RuleScores for head h, for every entity v0..
// v(n-1) in both directions, with a brute force: each of the first rules
// rules alone (single(ri) is the program of rule ri), queried with Query. It
// returns the number of candidates checked.
func checkRuleScores(t *testing.T, en *Engine, st store.Store, n int, single func(ri int) *datalog.Program, rules int) int {
	t.Helper()
	ctx := context.Background()
	checked := 0
	for e := range n {
		given := fmt.Sprint("v", e)
		for _, inverse := range []bool{false, true} {
			want := map[string][]string{}
			for ri := range rules {
				q := "h(" + given + ", X)?"
				if inverse {
					q = "h(X, " + given + ")?"
				}
				as, err := Query(ctx, st, single(ri), testkit.MustQuery(t, q), eval.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, a := range as {
					want[a.Values[0]] = append(want[a.Values[0]], fmt.Sprintf("%d:%.6g", ri, a.Confidence))
				}
			}
			hits, err := en.RuleScores(ctx, "h", given, inverse)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, h := range hits {
				if !slices.IsSortedFunc(h.Scores, func(a, b float64) int { return cmp.Compare(b, a) }) {
					t.Errorf("scores not descending: %v", h.Scores)
				}
				for k := range h.Scores {
					got[h.Candidate] = append(got[h.Candidate], fmt.Sprintf("%d:%.6g", h.Rules[k], h.Scores[k]))
				}
			}
			for _, m := range []map[string][]string{got, want} {
				for k := range m {
					slices.Sort(m[k])
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s inverse=%v:\ngot  %v\nwant %v", given, inverse, got, want)
			}
			checked += len(want)
		}
	}
	return checked
}

// TestBatchedRounds: a closure whose rounds are larger than a batch
// (batchItems first-step tuples, merged before the next batch runs) has
// every fact with its closed-form confidence 0.99^d, d the length of the
// shortest path (found here by breadth-first search), and the same facts,
// confidences and proofs whatever the number of threads.
func TestBatchedRounds(t *testing.T) {
	const n, deg = 600, 5
	rng := rand.New(rand.NewPCG(7, 8))
	adj := make([][]int, n)
	var b strings.Builder
	for x := range n {
		for range deg {
			y := rng.IntN(n)
			adj[x] = append(adj[x], y)
			fmt.Fprintf(&b, "v%d\te\tv%d\n", x, y)
		}
	}
	want := map[string]float64{}
	layers := map[int]int{} // pairs at each distance: the new facts of a round
	for x := range n {
		dist := map[int]int{}
		frontier := []int{x}
		for d := 1; len(frontier) > 0; d++ {
			var next []int
			for _, u := range frontier {
				for _, v := range adj[u] {
					if _, ok := dist[v]; !ok {
						dist[v] = d
						next = append(next, v)
					}
				}
			}
			frontier = next
		}
		for y, d := range dist {
			want[fmt.Sprintf("p(v%d, v%d)", x, y)] = math.Pow(0.99, float64(d))
			layers[d]++
		}
	}
	if m := slices.Max(slices.Collect(maps.Values(layers))); m <= 2*eval.BatchItems {
		t.Fatalf("largest round derives %d facts: no more than two batches", m)
	}
	prog := testkit.MustParse(t, "0.99 :: p(X, Y) :- e(X, Y).\n0.99 :: p(X, Z) :- p(X, Y), e(Y, Z).\n")
	var dumps []string
	for _, threads := range []int{1, 3} {
		st := testkit.NewStore(t, b.String())
		if _, err := eval.Infer(context.Background(), st, prog, eval.Options{Threads: threads, Min: 1e-9}); err != nil {
			t.Fatal(err)
		}
		p := mustID(t, st, "p")
		var all strings.Builder
		got := 0
		for d, err := range st.ScanDerived(p) {
			if err != nil {
				t.Fatal(err)
			}
			got++
			f := oracle.FactString(t, st, d.Fact)
			if w, ok := want[f]; !ok || math.Abs(float64(d.Confidence)-w) > 1e-6*w {
				t.Fatalf("threads=%d: %s = %g, want %g (present: %v)", threads, f, d.Confidence, w, ok)
			}
			fmt.Fprintln(&all, d)
		}
		if got != len(want) {
			t.Fatalf("threads=%d: %d facts, want %d", threads, got, len(want))
		}
		dumps = append(dumps, all.String())
	}
	if dumps[0] != dumps[1] {
		t.Error("1 and 3 threads store different facts or proofs")
	}
}

// TestInferProgress: Infer reports every round, in order, then the write,
// ending with every fact written; the counts are those of the result (a
// 40-node chain's closure: round r derives the 40 - r pairs at distance r,
// and a 40th round finds nothing new).
func TestInferProgress(t *testing.T) {
	st := testkit.NewStore(t, chainTSV(40, "e"))
	prog := testkit.MustParse(t, "tc(X, Y) :- e(X, Y).\ntc(X, Z) :- tc(X, Y), e(Y, Z).\n")
	var got []eval.Progress
	stats, err := eval.Infer(context.Background(), st, prog, eval.Options{Progress: func(p eval.Progress) { got = append(got, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Facts != 780 || stats.Iterations != 40 {
		t.Fatalf("stats %+v, want 780 facts in 40 rounds", stats)
	}
	if len(got) != 41 {
		t.Fatalf("%d reports, want 40 rounds and the end of the write", len(got))
	}
	for i, p := range got[:40] {
		// After round r: 39 + 38 + ... + (40 - r) facts.
		want := 0
		for d := 1; d <= min(i+1, 39); d++ {
			want += 40 - d
		}
		if p.Phase != eval.PhaseDerive || p.Rounds != i+1 || p.Facts != want || p.Memory <= 0 {
			t.Errorf("report %d = %+v, want round %d with %d facts", i, p, i+1, want)
		}
	}
	if p := got[40]; p.Phase != eval.PhaseWrite || p.Written != 780 || p.Total != 780 || p.Facts != 780 {
		t.Errorf("last report %+v, want the write of 780 facts done", p)
	}
}
