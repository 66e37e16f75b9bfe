package miner

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSamplePathsBruteForce checks the path sampler against a plain
// enumeration on a small random graph: with every fact sampled and no
// budget, each body's count is the number of facts h(a, b) joined by some
// path of that body through distinct entities (the fact itself excluded),
// and every such body is found.
func TestSamplePathsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	rels := []string{"h", "p", "q"}
	sp := map[string][][3]string{}
	for range 120 {
		sp["facts"] = append(sp["facts"], [3]string{fmt.Sprint("e", rng.IntN(15)), rels[rng.IntN(3)], fmt.Sprint("e", rng.IntN(15))})
	}
	g, err := LoadGraph(context.Background(), memStore(t, sp))
	if err != nil {
		t.Fatal(err)
	}
	R, E := len(g.fwd), g.NumEntities()
	h := g.relIndex["h"]
	has := func(r int, x, y int32) bool { return g.edgeID(r, x, y) >= 0 }
	// step reports whether operator op leads from x to y: op < R is a fact
	// op(x, y), op = R+r a fact r(y, x).
	step := func(op int32, x, y int32) bool {
		if int(op) < R {
			return has(int(op), x, y)
		}
		return has(int(op)-R, y, x)
	}
	for _, maxLen := range []int{1, 2, 3} {
		want := map[pathKey]int{}
		for a := range int32(E) {
			for b := range int32(E) {
				if a == b || !has(h, a, b) {
					continue
				}
				found := map[pathKey]bool{}
				var walk func(k pathKey, n int, x int32, used []int32)
				walk = func(k pathKey, n int, x int32, used []int32) {
					if n == maxLen {
						return
					}
					for op := range int32(2 * R) {
						for y := range int32(E) {
							if !step(op, x, y) || slices.Contains(used, y) && y != b {
								continue
							}
							k2 := k
							k2[n] = op
							if y == b {
								if n > 0 || int(op) != h { // not the fact itself
									found[k2] = true
								}
								continue
							}
							walk(k2, n+1, y, append(slices.Clone(used), y))
						}
					}
				}
				walk(pathKey{-1, -1, -1}, 0, a, []int32{a})
				for k := range found {
					want[k]++
				}
			}
		}
		got := g.samplePaths(h, maxLen, 1<<30, 1<<30, 1, rand.New(rand.NewPCG(1, 1)), &pathScratch{})
		if len(got) != len(want) {
			t.Fatalf("T=%d: %d bodies, want %d", maxLen, len(got), len(want))
		}
		// Counting in the map (large graphs) gives the same bodies.
		if byMap := g.samplePaths(h, maxLen, 1<<30, 1<<30, 1, rand.New(rand.NewPCG(1, 1)), &pathScratch{mapOnly: true}); !slices.Equal(byMap, got) {
			t.Fatalf("T=%d: counted in the map: %v, in the table: %v", maxLen, byMap, got)
		}
		for i, p := range got {
			if want[p.key] != p.hits {
				t.Errorf("T=%d: body %v connects %d facts, want %d", maxLen, p.key, p.hits, want[p.key])
			}
			if i > 0 && got[i-1].hits < p.hits {
				t.Errorf("T=%d: not sorted by hits at %d", maxLen, i)
			}
			if p.n < 1 || p.n > maxLen {
				t.Errorf("T=%d: body %v has length %d", maxLen, p.key, p.n)
			}
		}
		if maxLen == 3 && len(want) < 20 {
			t.Errorf("only %d bodies of length ≤ 3: a weak test", len(want))
		}
	}
}

// TestSamplePathsSeeded checks that a sample smaller than the relation
// depends only on the seed.
func TestSamplePathsSeeded(t *testing.T) {
	st := datasetStore(t, "../examples/kinship")
	g, err := LoadGraph(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	r := 0 // the relation with the most facts: more than the sample
	for i := range g.fwd {
		if g.fwd[i].NNZ() > g.fwd[r].NNZ() {
			r = i
		}
	}
	if g.fwd[r].NNZ() <= 50 {
		t.Fatalf("largest relation has %d facts", g.fwd[r].NNZ())
	}
	run := func(seed uint64) []sampledPath {
		return g.samplePaths(r, 3, 50, 100_000, 1, rand.New(rand.NewPCG(seed, 9)), &pathScratch{})
	}
	a, b, c := run(1), run(1), run(2)
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different bodies")
	}
	if slices.Equal(a, c) {
		t.Error("different seeds, same counts: the sample does not depend on the seed (a weak test)")
	}
	if len(a) == 0 {
		t.Fatal("no bodies")
	}
}

// TestBodyScore checks the score of a given body against the beam search,
// which adds up the same products over every sequence that reduces to it
// once identities are skipped: with a beam wide enough to keep every
// sequence, they agree body by body, for queries in both directions.
func TestBodyScore(t *testing.T) {
	const R, L, T = 3, 2, 3
	m := &Model{lay: layout{nOps: 2*R + 1, nT: T, L: L}, rels: []string{"r0", "r1", "r2"}}
	m.relIdx = map[string]int{"r0": 0, "r1": 1, "r2": 2}
	rng := rand.New(rand.NewPCG(3, 3))
	a := randomAttention(L, T, 2*R+1, rng.Float64)
	seqs := m.beam(a, ExtractOptions{Beam: 1 << 20, MinScore: 1e-300})
	if len(seqs) < 50 {
		t.Fatalf("only %d bodies", len(seqs))
	}
	for _, inverse := range []bool{false, true} {
		for _, s := range seqs {
			path := m.toPath(s.ops, inverse)
			got, ranks := m.bodyScore(a, path, inverse)
			if math.Abs(got-s.score) > 1e-12*s.score {
				t.Fatalf("inverse %v: body %v scores %v, the beam %v", inverse, s.ops, got, s.score)
			}
			for j := range L {
				if math.Abs(ranks[j]-s.ranks[j]) > 1e-12*s.ranks[j]+1e-300 {
					t.Fatalf("inverse %v: body %v rank %d: %v, the beam %v", inverse, s.ops, j, ranks[j], s.ranks[j])
				}
			}
		}
	}
}
