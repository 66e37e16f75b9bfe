package csr

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAdjacency builds random relations, from empty to dense, and checks
// both adjacencies against the facts listed one by one: the rows' columns,
// the edge ids, the layout HypersparseRatio asks for, and that Compact and
// Expand read the same rows.
func TestAdjacency(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	layouts := map[bool]int{}
	for trial := range 300 {
		n := 1 + rng.IntN(200)
		// Few distinct subjects or objects for some trials: hypersparse.
		subjects, objects := 1+rng.IntN(n), 1+rng.IntN(n)
		seen := map[[2]int32]bool{}
		var facts [][2]int32
		for range rng.IntN(3 * n) {
			f := [2]int32{int32(rng.IntN(subjects)) * int32(n/subjects), int32(rng.IntN(objects)) * int32(n/objects)}
			if !seen[f] {
				seen[f] = true
				facts = append(facts, f)
			}
		}
		slices.SortFunc(facts, func(a, b [2]int32) int {
			if a[0] != b[0] {
				return int(a[0] - b[0])
			}
			return int(a[1] - b[1])
		})
		subs, objs := make([]int32, len(facts)), make([]int32, len(facts))
		for k, f := range facts {
			subs[k], objs[k] = f[0], f[1]
		}
		out, in := Adjacency(n, subs, slices.Clone(objs), false)
		rowsOf := func(col int) int {
			d := map[int32]bool{}
			for _, f := range facts {
				d[f[col]] = true
			}
			return len(d)
		}
		for _, c := range []struct {
			m    *Matrix
			rows int
		}{{&out, rowsOf(0)}, {&in, rowsOf(1)}} {
			if c.m.Hypersparse() != (c.rows*HypersparseRatio < n) {
				t.Fatalf("trial %d: %d rows of %d entities, hypersparse %v", trial, c.rows, n, c.m.Hypersparse())
			}
			layouts[c.m.Hypersparse()] = layouts[c.m.Hypersparse()] + 1
			if c.m.Hypersparse() && c.m.Stored() != c.rows {
				t.Fatalf("trial %d: %d stored rows, want %d", trial, c.m.Stored(), c.rows)
			}
		}
		dout, din := Adjacency(n, subs, slices.Clone(objs), true)
		if dout.Hypersparse() || din.Hypersparse() {
			t.Fatalf("trial %d: allDense built a hypersparse adjacency", trial)
		}
		for _, form := range []struct {
			name    string
			out, in Matrix
		}{{"built", out, in}, {"compact", out.Compact(), in.Compact()}, {"dense", out.Expand(n), in.Expand(n)}, {"all dense", dout, din}} {
			for i := range int32(n) {
				var wantOut, wantIn []int32
				var wantEdges []int32
				for k, f := range facts {
					if f[0] == i {
						wantOut = append(wantOut, f[1])
					}
					if f[1] == i {
						wantIn = append(wantIn, f[0])
						wantEdges = append(wantEdges, int32(k))
					}
				}
				lo, hi := form.in.Span(i)
				if !slices.Equal(form.out.Row(i), wantOut) || !slices.Equal(form.in.Row(i), wantIn) ||
					!slices.Equal(form.in.Edge[lo:hi], wantEdges) || int(form.out.Degree(i)) != len(wantOut) {
					t.Fatalf("trial %d, %s, row %d: out %v in %v edges %v, want %v %v %v", trial, form.name, i,
						form.out.Row(i), form.in.Row(i), form.in.Edge[lo:hi], wantOut, wantIn, wantEdges)
				}
			}
			// Stored rows, in order, cover every fact once.
			var listed [][2]int32
			for k := range form.out.Stored() {
				for _, o := range form.out.Col[form.out.RowPtr[k]:form.out.RowPtr[k+1]] {
					listed = append(listed, [2]int32{form.out.RowAt(k), o})
				}
			}
			if !slices.Equal(listed, facts) && len(facts) > 0 {
				t.Fatalf("trial %d, %s: stored rows list %v, want %v", trial, form.name, listed, facts)
			}
		}
	}
	if layouts[true] == 0 || layouts[false] == 0 {
		t.Fatalf("layouts built: %v; both must be tested", layouts)
	}
}

// TestAllDense checks the budget that keeps a graph all dense.
func TestAllDense(t *testing.T) {
	for _, c := range []struct {
		rels, ents, facts int
		want              bool
	}{
		{237, 14541, 310116, true},              // FB15k-237: 28 MB of row pointers
		{1009, 100999, 550000, false},           // 1,000 small relations over 10^5 entities: 815 MB
		{1009, 100999, 60_000_000, true},        // the same, with 16 bytes per fact to spare
		{9, 1_000_000, 4_600_000, true},         // 72 MB, less than 16 bytes per fact
		{10_000, 100_000_000, 1_000_000, false}, // a long tail over a large graph
	} {
		if got := AllDense(c.rels, c.ents, c.facts); got != c.want {
			t.Errorf("AllDense(%d, %d, %d) = %v, want %v", c.rels, c.ents, c.facts, got, c.want)
		}
	}
}
