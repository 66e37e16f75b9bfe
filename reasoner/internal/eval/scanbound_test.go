package eval

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// TestScanBoundRaised: a delta plan's memo is cut for the strongest of
// its scanned tuples when the round begins (scanBound); a tuple an earlier
// batch of the round raises above that is joined path by path, so the
// plan's best derivation of every head fact is the one of a memo cut by
// the weight alone. Here the raised tuple (0.5 to 0.95) reaches far ends
// through weak paths (0.5) that the bound cut: 0.95 * 0.5 * 0.9 passes
// the threshold 0.3, 0.5 * 0.5 * 0.9 does not.
func TestScanBoundRaised(t *testing.T) {
	var src strings.Builder
	for j := range 4 {
		fmt.Fprintf(&src, "0.5 :: w(\"x%d\", \"v%d\").\n", j, j%2)
	}
	for v := range 2 {
		fmt.Fprintf(&src, "b(\"v%d\", \"hub\").\n", v)
	}
	for i := range 20 {
		fmt.Fprintf(&src, "0.5 :: c(\"hub\", \"y%d\").\n", i)
	}
	src.WriteString("c(\"hub\", \"z\").\n0.9 :: h(X, Y) :- w(X, V), b(V, W), c(W, Y).\n")
	prog, err := parser.ParseString("p.dl", src.String())
	if err != nil {
		t.Fatal(err)
	}
	best := func(noBound bool) map[string]float64 {
		ctx := context.Background()
		e, _, _, err := runFixpoint(ctx, store.NewMemory(), prog, Options{Threads: 1, Min: 0.3}, "test", func(e *Evaluator) {})
		if err != nil {
			t.Fatal(err)
		}
		e.noScanBound = noBound
		for _, rel := range e.Rels {
			rel.Idx = map[uint32]*hashIndex{} // the fixpoint dropped them
		}
		wi := e.RelIdx[RelKey("w", 2)]
		w := e.Rels[wi]
		var r *Crule
		ri, at := -1, -1
		for i, cr := range e.Rules {
			for j := range cr.Body {
				if l := &cr.Body[j]; l.Kind == datalog.Positive && l.Atom.Rel == wi && cr.fac != nil {
					r, ri, at = cr, i, j
				}
			}
		}
		if r == nil {
			t.Fatal("no chain rule reads w")
		}
		d := make([]int32, w.Len())
		for i := range d {
			d[i] = int32(i)
		}
		e.roundDelta, e.facGroups = map[int32][]int32{wi: d}, map[deltaKey]*facGrouping{}
		p := e.MakePlan(r, ri, at, d)
		e.roundDelta, e.facGroups = nil, nil
		if p.fac == nil || p.fac.delta == nil {
			t.Fatal("the delta plan of w is not a factorised scan")
		}
		e.shareMemos([]*Plan{p})
		if !noBound && p.fac.top != 0.5 {
			t.Fatalf("the plan's scanned tuples top at %g, want 0.5", p.fac.top)
		}
		w.Set(0, 0.95, w.ProvAt(0)) // what an earlier batch would do
		bufs, err := e.runTasks(e.addTasks(nil, p, 0, len(d)))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for bi := range bufs {
			b := &bufs[bi]
			pos := 0
			for ci := range b.len() {
				var tu []uint32
				_, _, tu, _, pos = e.record(b, pos)
				k := fmt.Sprint(tu[0], " ", tu[1])
				got[k] = max(got[k], b.confAt(ci))
			}
		}
		e.dropMemos()
		return got
	}
	want, got := best(true), best(false)
	if len(want) <= 4 {
		t.Fatalf("cut by the weight alone, the plan derived %d facts, want the weak paths' too", len(want))
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] {
			t.Errorf("h(%s): best derivation %g with the scan bound, %g without", k, got[k], want[k])
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d facts derived with the scan bound, %d without", len(got), len(want))
	}
}
