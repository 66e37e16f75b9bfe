package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// TestMemoCapKeepsMemoInUse: two chain rules of one round, with different
// middle and last atoms, each have a memo of k values of V1 (100 far ends
// each) that their scans read in turn, k values over and over. Together
// the memos hold more than the cap, each alone less: making room for the
// second lets the first go and keeps the second, whose values are then
// built once each, as without a cap. The memos used to be emptied
// together, and the second built its first values again as the scan came
// back to them. A cap below one memo alone still bounds it (more builds),
// and no cap changes a derivation.
func TestMemoCapKeepsMemoInUse(t *testing.T) {
	const n, k = 400, 40 // tuples of each a, values of V1 among them
	var b store.Batch
	add := func(s, r, o string) { b.Graph = append(b.Graph, store.NamedTriple{S: s, R: r, O: o}) }
	var src strings.Builder
	for s := 1; s <= 2; s++ {
		for i := range n {
			add(fmt.Sprintf("x%03d", i), fmt.Sprint("a", s), fmt.Sprintf("v%d_%02d", s, i%k))
		}
		for j := range k {
			for l := range 20 {
				w := fmt.Sprintf("w%d_%02d_%02d", s, j, l)
				add(fmt.Sprintf("v%d_%02d", s, j), fmt.Sprint("b", s), w)
				for m := range 5 {
					add(w, fmt.Sprint("c", s), fmt.Sprintf("y%d_%02d_%02d_%d", s, j, l, m))
				}
			}
		}
		fmt.Fprintf(&src, "0.9 :: h(X, Y) :- a%d(X, V), b%d(V, W), c%d(W, Y).\n", s, s, s)
	}
	prog, err := parser.ParseString("p.dl", src.String())
	if err != nil {
		t.Fatal(err)
	}
	const memo = k*20*5 + k // one rule's entries and values of V1
	run := func(cap int) (int64, string) {
		st := store.NewMemory()
		if _, err := st.Load(context.Background(), &b, nil); err != nil {
			t.Fatal(err)
		}
		e, _, _, err := runFixpoint(context.Background(), st, prog, Options{Threads: 1}, "test", func(e *Evaluator) {
			e.memoMax = cap
		})
		if err != nil {
			t.Fatal(err)
		}
		h := e.Rels[e.RelIdx[RelKey("h", 2)]]
		var out strings.Builder
		for i := range int32(h.Len()) {
			fmt.Fprintf(&out, "%v %.6f %d\n", h.Tuple(i), h.ConfAt(i), h.ProvAt(i))
		}
		return e.facBuilds, out.String()
	}
	free, want := run(1 << 30)
	if free != 2*k {
		t.Fatalf("without a cap the memos built %d values of V1, want %d", free, 2*k)
	}
	if len(want) == 0 {
		t.Fatal("no fact derived")
	}
	for _, c := range []struct {
		cap  int
		more bool // more builds than without a cap
	}{{3 * memo / 2, false}, {3 * memo / 4, true}} {
		builds, got := run(c.cap)
		if got != want {
			t.Errorf("cap %d: the derived facts differ from those without a cap", c.cap)
		}
		switch {
		case !c.more && builds != free:
			t.Errorf("cap %d (memos of %d entries each): %d builds, want %d as without a cap", c.cap, memo, builds, free)
		case c.more && builds <= free:
			t.Errorf("cap %d, below one memo's %d entries: %d builds, want more than %d", c.cap, memo, builds, free)
		}
	}
}
