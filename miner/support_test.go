package miner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// typedGraph is a random graph whose relations each join two of four
// entity types, so that many bodies of one to three steps have no
// grounding at all, and some do.
func typedGraph(t *testing.T, seed uint64, perType, facts int) *Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	types := [][2]int{{0, 1}, {1, 2}, {2, 3}, {1, 1}, {3, 0}, {2, 2}, {0, 1}}
	sp := map[string][][3]string{}
	for i := range facts {
		r := i % len(types)
		x := fmt.Sprintf("t%d_%d", types[r][0], rng.IntN(perType))
		y := fmt.Sprintf("t%d_%d", types[r][1], rng.IntN(perType))
		sp["facts"] = append(sp["facts"], [3]string{x, fmt.Sprint("r", r), y})
	}
	g, err := LoadGraph(context.Background(), memStore(t, sp))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// allPaths returns every path of one to three steps over R relations.
func allPaths(R int) [][]pathStep {
	var steps []pathStep
	for r := range R {
		steps = append(steps, pathStep{r, false}, pathStep{r, true})
	}
	var out [][]pathStep
	var grow func(p []pathStep)
	grow = func(p []pathStep) {
		if len(p) > 0 {
			out = append(out, slices.Clone(p))
		}
		if len(p) == 3 {
			return
		}
		for _, st := range steps {
			grow(append(p, st))
		}
	}
	grow(nil)
	return out
}

// groundings returns, per start entity a, the set of entities b that the
// path joins to a, by brute force over the rows of the step matrices; with
// oi, the exclusions of a mined rule apply (b != a from two steps on, and
// for A -> C -> D -> B also D != A and C != B).
func groundings(g *Graph, path []pathStep, oi bool) map[int32]map[int32]bool {
	row := func(st pathStep, x int32) []int32 {
		m := g.stepMatrix(st)
		return m.Row(int32(x))
	}
	out := map[int32]map[int32]bool{}
	var walk func(a int32, vars []int32)
	walk = func(a int32, vars []int32) {
		k := len(vars) - 1
		if k == len(path) {
			b := vars[k]
			if oi && len(path) >= 2 && b == a {
				return
			}
			if oi && len(path) == 3 && (vars[2] == a || vars[1] == b) {
				return
			}
			if out[a] == nil {
				out[a] = map[int32]bool{}
			}
			out[a][b] = true
			return
		}
		for _, y := range row(path[k], vars[k]) {
			walk(a, append(vars, y))
		}
	}
	for a := range int32(g.NumEntities()) {
		walk(a, []int32{a})
	}
	return out
}

// TestVacuous checks the quick test for bodies without groundings against
// a brute force: it must never drop a body with a grounding, and on paths
// of up to three steps (exclusions aside) it is exact.
func TestVacuous(t *testing.T) {
	// Besides a random typed graph, one where p, q, s meet pairwise but no
	// path p q s exists: the C that p reaches (c1) leads to d1, and only
	// d2 starts an s.
	sp := map[string][][3]string{"facts": {
		{"a", "p", "c1"}, {"c1", "q", "d1"}, {"c2", "q", "d2"}, {"d2", "s", "b"}}}
	small, err := LoadGraph(context.Background(), memStore(t, sp))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*Graph{typedGraph(t, 5, 6, 60), small} {
		var sc supportScratch
		empty, full, pairwise := 0, 0, 0
		for _, path := range allPaths(len(g.fwd)) {
			want := len(groundings(g, path, false)) == 0
			if got := g.vacuous(path, &sc); got != want {
				t.Fatalf("path %v: vacuous %v, brute force %v", path, got, want)
			}
			switch {
			case !want:
				full++
			case len(path) == 3 && g.meets(path[0], path[1], &sc) && g.meets(path[1], path[2], &sc):
				pairwise++
			default:
				empty++
			}
		}
		if empty == 0 || full == 0 {
			t.Fatalf("%d paths without groundings, %d with: a weak test", empty, full)
		}
		if g == small && pairwise == 0 {
			t.Fatal("no three-step path meets pairwise without a grounding: a weak test")
		}
	}
}

// TestSupportSampled checks the counts estimated from a sample of the
// starts: they are the exact counts of the first starts of the shuffled
// order (checked against a brute force), scaled to all; the order, and so
// the estimate, depends only on the seed; and a large budget counts
// exactly.
func TestSupportSampled(t *testing.T) {
	g := typedGraph(t, 7, 40, 3000)
	head := 0 // r0, from type 0 to type 1 as the paths below
	if g.Relations()[head] != "r0" {
		t.Fatalf("relations %v", g.Relations())
	}
	checked := 0
	for _, path := range [][]pathStep{
		{{6, false}},
		{{0, false}, {3, false}},
		{{0, false}, {3, false}, {3, true}},
		{{4, true}, {4, false}, {6, false}},
	} {
		want := groundings(g, path, true)
		exact := g.support(head, path, 1<<40, &supportScratch{seed: 9})
		var sup, body int
		for a, bs := range want {
			for b := range bs {
				body++
				if g.hasFact(head, a, b) {
					sup++
				}
			}
		}
		if sup == 0 {
			t.Fatalf("path %v: no support: a weak test", path)
		}
		if exact.estimated() || exact.sup != sup || exact.body != body {
			t.Fatalf("path %v: exact count %+v, brute force sup %d body %d", path, exact, sup, body)
		}
		sc := &supportScratch{seed: 9}
		got := g.support(head, path, 200, sc)
		if !got.estimated() || got.done == 0 {
			t.Fatalf("path %v: budget 200 gave %+v, want an estimate", path, got)
		}
		// The done starts are the first of the shuffled order.
		var s, b int
		for _, a := range sc.starts[path[0]][:got.done] {
			for x := range want[a] {
				b++
				if g.hasFact(head, a, x) {
					s++
				}
			}
		}
		f := float64(got.starts) / float64(got.done)
		if got.sup != int(float64(s)*f+0.5) || got.body != int(float64(b)*f+0.5) {
			t.Errorf("path %v: estimate %+v, want (%d, %d) × %d/%d", path, got, s, b, got.starts, got.done)
		}
		if again := g.support(head, path, 200, &supportScratch{seed: 9}); again != got {
			t.Errorf("path %v: same seed, %+v then %+v", path, got, again)
		}
		other := &supportScratch{seed: 10}
		g.support(head, path, 200, other)
		if slices.Equal(other.starts[path[0]], sc.starts[path[0]]) {
			t.Errorf("path %v: seeds 9 and 10 order the starts alike", path)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}

// hasFact reports whether r(a, b) is a fact of g.
func (g *Graph) hasFact(r int, a, b int32) bool {
	m := g.fwd[r]
	_, ok := slices.BinarySearch(m.Row(int32(a)), b)
	return ok
}

// TestRecountBest checks that the best rules' estimated counts are counted
// again exactly, and only those: within recountTop, and projected within
// recountVisits edge visits.
func TestRecountBest(t *testing.T) {
	g := typedGraph(t, 7, 40, 3000)
	head := 0
	paths := [][]pathStep{
		{{0, false}, {3, false}},
		{{0, false}, {3, false}, {3, true}},
		{{4, true}, {4, false}, {6, false}},
	}
	opt := ExtractOptions{Smoothing: 5}
	var cands []*candidate
	for i := range recountTop + 1 {
		path := paths[i%len(paths)]
		sc := &supportScratch{seed: 9}
		n := g.support(head, path, 200, sc)
		if !n.estimated() {
			t.Fatalf("path %v: budget 200 counted exactly: a weak test", path)
		}
		c := &candidate{path: path}
		c.setCounts(n, opt.Smoothing, sc.work)
		if i == 1 {
			c.visits = recountVisits // projected past recountVisits
		}
		cands = append(cands, c)
	}
	if !recountBest(g, head, cands, opt, &supportScratch{seed: 9}) {
		t.Fatal("nothing recounted")
	}
	for i, c := range cands {
		exact := g.support(head, c.path, 1<<40, &supportScratch{seed: 9})
		recounted := i != 1 && i < recountTop
		if got := c.Sampled == 0; got != recounted {
			t.Errorf("candidate %d: recounted %v, want %v", i, got, recounted)
		}
		if !recounted {
			continue
		}
		w := roundSig(float64(exact.sup)/float64(exact.body+5), 4)
		if c.Support != exact.sup || c.Body != exact.body || c.Rule.Weight != w || c.Confidence != float64(exact.sup)/float64(exact.body) {
			t.Errorf("candidate %d: %d/%d weight %g, want exact %d/%d weight %g", i, c.Support, c.Body, c.Rule.Weight, exact.sup, exact.body, w)
		}
	}
}
