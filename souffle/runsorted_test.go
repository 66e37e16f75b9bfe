package souffle

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRunInputsUnindexed runs, with -j 1, 2 and 4, a closure over inputs
// the evaluator keeps sorted without a unique index (edge: its index by
// source linked key by key, a negation that looks whole edges up) and an
// input the program states a fact of (extra, indexed at that fact), on a
// graph whose closure's rounds fill candidate buffers past the point where
// they stop looking candidates up (outBuf.plain): every run writes the
// same bytes, and they hold what a search of the graph in the test finds.
func TestRunInputsUnindexed(t *testing.T) {
	const n = 150
	adj := map[int][]int{}
	var edges, extra strings.Builder
	x := uint32(3)
	for range 400 {
		x = x*1664525 + 1013904223
		a := int(x>>8) % n
		x = x*1664525 + 1013904223
		b := int(x>>8) % n
		if !slices.Contains(adj[a], b) {
			adj[a] = append(adj[a], b)
		}
		fmt.Fprintf(&edges, "%d\t%d\n", a, b)
		fmt.Fprintf(&extra, "%d\t%d\n", b, a)
	}
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"prog.dl": `.decl edge(x: number, y: number)
.input edge
.decl extra(x: number, y: number)
.input extra
extra(1000, 1001).
.decl path(x: number, y: number)
.output path
.decl far(x: number, y: number)
.output far
.decl back(x: number, y: number)
.output back
path(x, y) :- edge(x, y).
path(x, z) :- path(x, y), edge(y, z).
far(x, y) :- path(x, y), !edge(x, y).
back(x, y) :- path(x, y), extra(x, y).
back(x, y) :- extra(x, y), x > 999.
`,
		"facts/edge.facts":  edges.String(),
		"facts/extra.facts": extra.String(),
	})
	// The expected facts: a search from every node.
	want := map[string][]string{}
	for a := range n {
		seen := map[int]bool{}
		stack := slices.Clone(adj[a])
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[v] {
				continue
			}
			seen[v] = true
			stack = append(stack, adj[v]...)
			line := fmt.Sprintf("%d\t%d", a, v)
			want["path"] = append(want["path"], line)
			if !slices.Contains(adj[a], v) {
				want["far"] = append(want["far"], line)
			}
			if slices.Contains(adj[v], a) {
				want["back"] = append(want["back"], line)
			}
		}
	}
	want["back"] = append(want["back"], "1000\t1001")
	first := map[string]string{}
	for _, jobs := range []int{1, 2, 4} {
		if _, err := runIn(t, dir, Config{Jobs: jobs}); err != nil {
			t.Fatal(err)
		}
		for _, rel := range []string{"path", "far", "back"} {
			got := readOut(t, filepath.Join(dir, "out", rel+".csv"))
			if jobs == 1 {
				first[rel] = got
				lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
				w := want[rel]
				slices.Sort(lines)
				slices.Sort(w)
				if !slices.Equal(lines, w) {
					t.Errorf("%s: %d facts, want %d", rel, len(lines), len(w))
				}
			} else if got != first[rel] {
				t.Errorf("-j %d: %s differs from -j 1's", jobs, rel)
			}
		}
	}
}
