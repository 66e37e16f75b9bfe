package query

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

// evalProgram runs the Infer pipeline up to the write: load, fixpoint with
// provenance. It returns the evaluator (the facts stay reachable) and the
// number of derived facts.
func evalProgram(b *testing.B, st store.Store, p *datalog.Program) (*eval.Evaluator, int) {
	syms, err := eval.NewSymtab(st)
	if err != nil {
		b.Fatal(err)
	}
	e := eval.NewEvaluator(context.Background(), st, syms, eval.Options{})
	e.Prov = true
	u := eval.PlainUnit(p)
	if err := e.Load(u); err != nil {
		b.Fatal(err)
	}
	if err := e.Run(u); err != nil {
		b.Fatal(err)
	}
	return e, e.Derived
}

// benchEval measures evaluation and reports the live heap per derived fact
// (B/fact), measured once outside the timed loop.
func benchEval(b *testing.B, st store.Store, p *datalog.Program, wantFacts int) {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	e, n := evalProgram(b, st, p)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	if n != wantFacts {
		b.Fatalf("derived %d facts, want %d", n, wantFacts)
	}
	perFact := float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / float64(n)
	runtime.KeepAlive(e)
	b.ReportAllocs()
	for b.Loop() {
		evalProgram(b, st, p)
	}
	b.ReportMetric(perFact, "B/fact")
	b.ReportMetric(float64(n), "facts")
}

// BenchmarkTCChain2000 is the transitive closure of a 2000-node chain:
// 1,999,000 derived facts, 2000 semi-naive rounds.
func BenchmarkTCChain2000(b *testing.B) {
	st := testkit.NewStore(b, chainTSV(2000, "e"))
	p := testkit.MustParse(b, "tc(X, Y) :- e(X, Y).\ntc(X, Z) :- tc(X, Y), e(Y, Z).\n")
	benchEval(b, st, p, 2000*1999/2)
}

// BenchmarkWeightedCycle1000 is the weighted transitive closure of a
// 1000-node cycle: 1,000,000 facts, confidences 0.9999^k.
func BenchmarkWeightedCycle1000(b *testing.B) {
	tsv := chainTSV(1000, "e") + "v999\te\tv0\n"
	st := testkit.NewStore(b, tsv)
	p := testkit.MustParse(b, "0.9999 :: path(X, Y) :- e(X, Y).\n0.9999 :: path(X, Z) :- path(X, Y), e(Y, Z).\n")
	benchEval(b, st, p, 1000*1000)
}

type fbGraph struct {
	snap  *store.Snapshot
	names []string // relation names by dense index
}

// chainRules draws n distinct chain rules for head from random walks of
// length 1..maxLen that occur in the graph (seeded), each rule's path
// starting at a subject of head.
func chainRules(b *testing.B, st store.Store, g *fbGraph, head string, n, maxLen int, seed uint64) []datalog.Rule {
	rng := rand.New(rand.NewPCG(seed, 1))
	hi := slices.Index(g.names, head)
	out := g.snap.Out[hi]
	var subjects []int32
	for s := range int32(len(g.snap.Entities)) {
		if out.Degree(s) > 0 {
			subjects = append(subjects, s)
		}
	}
	seen := map[string]bool{}
	var rules []datalog.Rule
	v := func(i int) datalog.Term { return datalog.Term{Kind: datalog.Var, Value: fmt.Sprintf("V%d", i)} }
	for tries := 0; len(rules) < n && tries < 100*n; tries++ {
		length := 1 + rng.IntN(maxLen)
		x := subjects[rng.IntN(len(subjects))]
		var body []datalog.Literal
		key := ""
		visited := map[int32]bool{x: true}
		ok := true
		for k := range length {
			// pick a random incident edge
			type edge struct {
				r   int
				fwd bool
				y   int32
			}
			var es []edge
			for r := range g.snap.Out {
				if r == hi && length == 1 {
					continue
				}
				o, in := g.snap.Out[r], g.snap.In[r]
				for _, y := range o.Row(int32(x)) {
					es = append(es, edge{r, true, y})
				}
				for _, y := range in.Row(int32(x)) {
					es = append(es, edge{r, false, y})
				}
			}
			if len(es) == 0 {
				ok = false
				break
			}
			e := es[rng.IntN(len(es))]
			if visited[e.y] {
				ok = false
				break
			}
			visited[e.y] = true
			args := []datalog.Term{v(k), v(k + 1)}
			if !e.fwd {
				args[0], args[1] = args[1], args[0]
			}
			body = append(body, datalog.Literal{Kind: datalog.Positive, Atom: datalog.Atom{Pred: g.names[e.r], Args: args}})
			key += fmt.Sprint(e.r, e.fwd, ";")
			x = e.y
		}
		if !ok || seen[key] {
			continue
		}
		seen[key] = true
		w := float64(1+rng.IntN(999)) / 1000
		rules = append(rules, datalog.Rule{Weight: w, Head: datalog.Atom{Pred: head, Args: []datalog.Term{v(0), v(len(body))}},
			Body: body, Pos: datalog.Pos{File: "gen.dl", Line: len(rules) + 1, Col: 1}})
	}
	if len(rules) < n {
		b.Fatalf("only %d rules for %s", len(rules), head)
	}
	return rules
}

func newFBGraph(b *testing.B, st store.Store) *fbGraph {
	snap, err := st.Snapshot(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	g := &fbGraph{snap: snap}
	for _, id := range snap.Relations {
		n, _ := st.Name(id)
		g.names = append(g.names, n)
	}
	return g
}

// topRelations returns the k relations with the most facts.
func (g *fbGraph) topRelations(k int) []string {
	idx := make([]int, len(g.names))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(len(g.snap.Out[b].Col), len(g.snap.Out[a].Col)), cmp.Compare(a, b))
	})
	var out []string
	for _, i := range idx[:k] {
		out = append(out, g.names[i])
	}
	return out
}

// BenchmarkFB15kQuery1000Rules: head(e, X)? with 1,000 chain rules of
// length up to 3 for one head. One op of the query sub-benchmarks is 100
// queries over distinct entities (ms/query is per query): "chain" is the
// Engine.Query fast path, "magic" the general evaluator with the magic-set
// rewriting (Explain forces it: proofs are recorded too). Materialising
// the head instead (as infer would) derives about 11,000 facts for every
// subject of the head: a first attempt to benchmark it here grew past 24 GB,
// which is why queries are goal-directed.
func BenchmarkFB15kQuery1000Rules(b *testing.B) {
	st := testkit.FB15k(b)
	g := newFBGraph(b, st)
	head := g.topRelations(1)[0]
	// A fresh predicate so that the base facts of head are not answers.
	rules := chainRules(b, st, g, head, 1000, 3, 42)
	for i := range rules {
		rules[i].Head.Pred = "pred_" + head
	}
	prog := &datalog.Program{Rules: rules}
	ctx := context.Background()
	hi := slices.Index(g.names, head)
	var queries []datalog.Atom
	out := g.snap.Out[hi]
	for s := range int32(len(g.snap.Entities)) {
		if out.Degree(s) > 0 && len(queries) < 100 {
			name, _ := st.Name(g.snap.Entities[s])
			queries = append(queries, datalog.Atom{Pred: "pred_" + head, Args: []datalog.Term{{Kind: datalog.Symbol, Value: name}, {Kind: datalog.Var, Value: "X"}}})
		}
	}
	for _, mode := range []struct {
		name string
		opt  eval.Options
	}{{"chain", eval.Options{}}, {"magic", eval.Options{Explain: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			en, err := Prepare(ctx, st, prog, mode.opt)
			if err != nil {
				b.Fatal(err)
			}
			answers := 0
			b.ReportAllocs()
			for b.Loop() {
				answers = 0
				for _, q := range queries {
					as, err := en.Query(ctx, q)
					if err != nil {
						b.Fatal(err)
					}
					answers += len(as)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(queries))/1e6, "ms/query")
			b.ReportMetric(float64(answers)/float64(len(queries)), "answers/query")
		})
	}
}

// BenchmarkFB15kRuleScores: 20 chain rules (length <= 3) for each of the 20
// largest relations, one Engine per head, RuleScores for the test triples of those relations in
// both directions, on two goroutines; one op is all of them.
func BenchmarkFB15kRuleScores(b *testing.B) {
	st := testkit.FB15k(b)
	g := newFBGraph(b, st)
	heads := g.topRelations(20)
	// One Engine per head: each head's rules read the graph (in one
	// program, every body relation would be a rule head, i.e. derived).
	ctx := context.Background()
	engines := map[string]*Engine{}
	for i, h := range heads {
		en, err := Prepare(ctx, st, &datalog.Program{Rules: chainRules(b, st, g, h, 20, 3, uint64(i))}, eval.Options{})
		if err != nil {
			b.Fatal(err)
		}
		engines[h] = en
	}
	type query struct {
		head, given string
		inverse     bool
	}
	var queries []query
	for tr, err := range st.Split("test") {
		if err != nil {
			b.Fatal(err)
		}
		r, _ := st.Name(tr.R)
		if !slices.Contains(heads, r) {
			continue
		}
		s, _ := st.Name(tr.S)
		o, _ := st.Name(tr.O)
		queries = append(queries, query{r, s, false}, query{r, o, true})
	}
	if len(queries) == 0 {
		b.Fatal("no test queries")
	}
	hits := 0
	b.ReportAllocs()
	for b.Loop() {
		var wg sync.WaitGroup
		var mu sync.Mutex
		hits = 0
		for w := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n := 0
				for i := w; i < len(queries); i += 2 {
					hs, err := engines[queries[i].head].RuleScores(ctx, queries[i].head, queries[i].given, queries[i].inverse)
					if err != nil {
						b.Error(err)
						return
					}
					n += len(hs)
				}
				mu.Lock()
				hits += n
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(queries))/1e6, "ms/query")
	b.ReportMetric(float64(len(queries)), "queries")
	b.ReportMetric(float64(hits)/float64(len(queries)), "hits/query")
}
