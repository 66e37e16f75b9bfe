package maintain

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestScanBoundWork: a round's delta of weak tuples (w, 0.5) scanned by a
// chain rule through a hub whose last atom holds many paths too weak for
// them (c, 0.5) and a few strong ones. Its memo cuts the paths by the
// weight times the delta's strongest confidence: the weak paths of the hub
// end its ordered chain at once, where cut by the weight alone each build
// read them all. The proofs are the same.
func TestScanBoundWork(t *testing.T) {
	tsv, src := weakHub()
	reads, dumps := boundRuns(t, tsv, src)
	if !strings.Contains(dumps[1], "h(x0, z0)") {
		t.Fatalf("no h(x0, z0) derived:\n%s", dumps[1])
	}
	checkBound(t, reads, dumps, 10*hubWeak, 5)
}

// boundRuns infers program src over the graph tsv at the threshold 0.3 on
// one thread, without the scan bounds (Options.NoScanBound) and with
// them, and returns each run's tuple reads and proofs.
func boundRuns(t *testing.T, tsv, src string) (reads [2]int64, dumps [2]string) {
	t.Helper()
	p := testkit.MustParse(t, src)
	for i, opt := range []eval.Options{{Threads: 1, NoScanBound: true}, {Threads: 1}} {
		w := &eval.WorkCounters{}
		opt.Work, opt.Min = w, 0.3
		st := testkit.NewStore(t, tsv)
		if _, err := eval.Infer(context.Background(), st, p, opt); err != nil {
			t.Fatal(err)
		}
		reads[i], dumps[i] = w.InferReads.Load(), oracle.ProofDump(t, st)
	}
	return reads, dumps
}

// checkBound fails t unless the two runs of boundRuns have the same
// proofs, the run without the bounds read at least floor tuples (else the
// comparison proves nothing), and the run with them at most 1/div of its
// reads.
func checkBound(t *testing.T, reads [2]int64, dumps [2]string, floor, div int64) {
	t.Helper()
	if dumps[0] != dumps[1] {
		t.Fatalf("proofs with the bounds:\n%s\nwithout:\n%s", dumps[1], dumps[0])
	}
	t.Logf("reads: %d with the weight alone, %d with the bounds", reads[0], reads[1])
	if reads[0] < floor {
		t.Fatalf("the weight alone read %d tuples, fewer than %d: the bound below proves nothing", reads[0], floor)
	}
	if reads[1]*div > reads[0] {
		t.Errorf("the bounds read %d tuples, more than 1/%d of the %d the weight alone read", reads[1], div, reads[0])
	}
}

// hubWeak is the number of weak paths through weakHub's hub.
const hubWeak = 300

// weakHub returns a graph and program whose chain rule scans a delta of
// weak tuples (w, 0.5, of 50 places over 10 middle values) through a hub
// with hubWeak weak paths (c, 0.5) and 3 strong ones (c, 1): at the
// threshold 0.3, a derivation needs a path of at least 0.3/0.45.
func weakHub() (tsv, src string) {
	var tb, sb strings.Builder
	for j := range 50 {
		fmt.Fprintf(&tb, "x%d\ts\tv%d\n", j, j%10)
	}
	for v := range 10 {
		fmt.Fprintf(&tb, "v%d\tb\thub\n", v)
	}
	for k := range 3 {
		fmt.Fprintf(&tb, "hub\tc\tz%d\n", k)
	}
	for i := range hubWeak {
		fmt.Fprintf(&sb, "0.5 :: c(\"hub\", \"y%d\").\n", i)
	}
	sb.WriteString(`0.5 :: w(X, Y) :- s(X, Y).
0.9 :: w(X, Y) :- h(X, Y).
0.9 :: h(X, Y) :- w(X, V), b(V, W), c(W, Y).
`)
	return tb.String(), sb.String()
}

// TestWalkWeakEnd: walked from each place (Options.WalkAlways), the same
// delta stops at the first weak path of the hub's chain, ordered by
// confidence, instead of reading them all: about the reads of the memo cut
// by the scan bound (TestScanBoundWork), not the hubWeak a walk of every
// place read.
func TestWalkWeakEnd(t *testing.T) {
	tsv, src := weakHub()
	p := testkit.MustParse(t, src)
	w := &eval.WorkCounters{}
	st := testkit.NewStore(t, tsv)
	if _, err := eval.Infer(context.Background(), st, p, eval.Options{Threads: 1, Min: 0.3, WalkAlways: true, Work: w}); err != nil {
		t.Fatal(err)
	}
	if d := oracle.ProofDump(t, st); !strings.Contains(d, "h(x0, z0)") {
		t.Fatalf("no h(x0, z0) derived:\n%s", d)
	}
	if r := w.InferReads.Load(); r > 2*hubWeak {
		t.Errorf("the walks read %d tuples, more than %d: do they stop at the hub's weak paths?", r, 2*hubWeak)
	}
}

// TestScanBoundSameProofs: on the random chain programs, memos cut by the
// scan bound give the proofs of memos cut by the weight alone, shared or
// not, on one thread or two, in rounds of one batch or of many small ones
// (where an earlier batch can raise a scanned tuple above the bound).
func TestScanBoundSameProofs(t *testing.T) {
	ctx := context.Background()
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 41))
		tsv, src := chainCase(rng, uint64(seed))
		p := testkit.MustParse(t, src)
		for _, min := range []float64{0.02, 0.1} {
			for _, batch := range []int{0, 3} {
				var proofs []string
				for _, opt := range []eval.Options{
					{Threads: 1, NoScanBound: true},
					{Threads: 1},
					{Threads: 2},
					{Threads: 1, NoShare: true},
				} {
					opt.Min, opt.BatchItems = min, batch
					st := testkit.NewStore(t, tsv)
					if _, err := eval.Infer(ctx, st, p, opt); err != nil {
						t.Fatal(err)
					}
					proofs = append(proofs, oracle.ProofDump(t, st))
				}
				for i, d := range proofs[1:] {
					if d != proofs[0] {
						t.Fatalf("seed %d, min %g, batch %d, configuration %d: proofs\n%s\ncut by the weight alone:\n%s\nprogram:\n%s\nbase:\n%s",
							seed, min, batch, i+1, d, proofs[0], src, tsv)
					}
				}
			}
		}
	}
}

// TestGroupBoundWork: a round's delta of a chain rule's middle atom (m),
// grouped by its first variable, through a hub whose last atom holds
// hubWeak paths too weak for the tuples of the first atom (a, 0.5) and a
// few strong ones. A group's far ends are built only when a has a tuple
// with its value (half of them here), and cut by the weight times the
// strongest of those tuples: the hub's weak paths end its ordered chain
// at once, where cut by the weight alone every group read them all. The
// proofs are the same.
func TestGroupBoundWork(t *testing.T) {
	var tb, sb strings.Builder
	for v := range 20 {
		if v < 10 {
			fmt.Fprintf(&tb, "x%d\ts\tv%d\n", v, v)
		}
		fmt.Fprintf(&tb, "v%d\tb\thub\n", v)
		for k := range 10 { // more values of W than of V: groups by V
			fmt.Fprintf(&tb, "v%d\tb\tleaf%d_%d\n", v, v, k)
		}
	}
	for k := range 3 {
		fmt.Fprintf(&tb, "hub\tc\tz%d\n", k)
	}
	for i := range hubWeak {
		fmt.Fprintf(&sb, "0.5 :: c(\"hub\", \"y%d\").\n", i)
	}
	sb.WriteString(`0.5 :: a(X, Y) :- s(X, Y).
m(X, Y) :- b(X, Y).
0.9 :: a(X, Y) :- h(X, Y).
0.9 :: m(X, Y) :- h(X, Y).
0.9 :: h(X, Y) :- a(X, V), m(V, W), c(W, Y).
`)
	reads, dumps := boundRuns(t, tb.String(), sb.String())
	if !strings.Contains(dumps[1], "h(x0, z0)") || strings.Contains(dumps[1], "h(x0, y0)") {
		t.Fatalf("want h(x0, z0) and no h(x0, y0):\n%s", dumps[1])
	}
	checkBound(t, reads, dumps, 15*hubWeak, 10)
}
