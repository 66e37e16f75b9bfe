package maintain

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// editRule returns src with rule line i removed (half false) or its weight
// halved.
func editRule(t *testing.T, src string, i int, half bool) string {
	lines := strings.Split(src, "\n")
	if !half {
		return strings.Join(append(lines[:i:i], lines[i+1:]...), "\n")
	}
	w, rest, ok := strings.Cut(lines[i], " :: ")
	if !ok {
		t.Fatalf("line %d has no weight: %s", i, lines[i])
	}
	f, err := strconv.ParseFloat(w, 64)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]string(nil), lines...)
	out[i] = fmt.Sprintf("%g :: %s", f/2, rest)
	return strings.Join(out, "\n")
}

// TestRederiveChainRules removes, or halves the weight of, a random chain
// rule of chainCase's programs. The rederive twins of its relation's chain
// rules, whose guard holds both ends of the path, run as pair plans
// (factor_pair.go): the update must give the facts and confidences of an
// evaluation from scratch, factorised or joined atom by atom, with proofs
// that hold.
func TestRederiveChainRules(t *testing.T) {
	ctx := context.Background()
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 41))
		tsv, src := chainCase(rng, uint64(seed))
		var rules []int
		for i, l := range strings.Split(src, "\n") {
			if strings.Contains(l, ":-") {
				rules = append(rules, i)
			}
		}
		line := rules[rng.IntN(len(rules))]
		for _, half := range []bool{false, true} {
			newSrc := editRule(t, src, line, half)
			for _, threads := range []int{1, 2} {
				opt := eval.Options{Threads: threads, Min: 0.02}
				m, _, err := Materialise(ctx, testkit.NewStore(t, tsv), testkit.MustParse(t, src), opt)
				if err != nil {
					t.Fatal(err)
				}
				prog := testkit.MustParse(t, newSrc)
				if _, err := m.Apply(ctx, Delta{Program: prog}); err != nil {
					t.Fatal(err)
				}
				got := derivedOf(t, m)
				for _, noFactor := range []bool{false, true} {
					o := opt
					o.NoFactor = noFactor
					fresh, _, err := Materialise(ctx, testkit.NewStore(t, tsv), prog, o)
					if err != nil {
						t.Fatal(err)
					}
					if err := sameDerived(got, derivedOf(t, fresh)); err != nil {
						t.Fatalf("seed %d, line %d, half %v, threads %d, against a computation from scratch (noFactor %v):\n%v\nprogram:\n%s\nbase:\n%s",
							seed, line, half, threads, noFactor, err, src, tsv)
					}
				}
				if err := checkProofs(m); err != nil {
					t.Fatalf("seed %d, line %d, half %v: proofs: %v", seed, line, half, err)
				}
			}
		}
	}
}

// removeFirstRule materialises src over tsv, removes its first rule, checks
// the update against an evaluation from scratch, and returns the joins
// the update made and what it changed; noFactor joins atom by atom.
func removeFirstRule(t *testing.T, tsv, src string, noFactor bool) (int64, Change) {
	ctx := context.Background()
	opt := eval.Options{Threads: 1, Min: 0.1, NoFactor: noFactor}
	m, _, err := Materialise(ctx, testkit.NewStore(t, tsv), testkit.MustParse(t, src), opt)
	if err != nil {
		t.Fatal(err)
	}
	prog := testkit.MustParse(t, editRule(t, src, 0, false))
	before := m.e.Work
	ch, err := m.Apply(ctx, Delta{Program: prog})
	if err != nil {
		t.Fatal(err)
	}
	joins := m.e.Work - before
	fresh, _, err := Materialise(ctx, testkit.NewStore(t, tsv), prog, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameDerived(derivedOf(t, m), derivedOf(t, fresh)); err != nil {
		t.Fatalf("noFactor %v: %v", noFactor, err)
	}
	return joins, ch
}

// TestRederivePairWork: removing the rule that is the best proof of every
// fact of h re-derives them by the chain rule's twin. Its guard holds
// (place, category) pairs of one country's n places: joined atom by atom,
// each pair walks every other place of the country (n joins a pair); the
// pair plan walks each category's places once, then meets each pair from
// its place's one country (a few joins a pair).
func TestRederivePairWork(t *testing.T) {
	const n = 300
	var tsv strings.Builder
	tsv.WriteString(hubTSV(n))
	for i := range n {
		fmt.Fprintf(&tsv, "p%d\tx\tcat%d\n", i, i%3)
	}
	src := `0.9 :: h(A, B) :- x(A, B).
0.5 :: h(A, B) :- in(A, C), in(D, C), cat(D, B), A != D.
`
	joins := map[bool]int64{}
	for _, off := range []bool{false, true} {
		j, ch := removeFirstRule(t, tsv.String(), src, off)
		if ch.Full || ch.Reweighted != n {
			t.Fatalf("noFactor %v: %+v, want %d facts weakened in place", off, ch, n)
		}
		joins[off] = j
	}
	t.Logf("joins of the update: pair plan %d, atom by atom %d", joins[false], joins[true])
	if bound := int64(20 * n); joins[false] > bound {
		t.Errorf("the update made %d joins, more than %d: is the twin joined path by path?", joins[false], bound)
	}
	if joins[true] < n*n/3 {
		t.Errorf("atom by atom: %d joins, fewer than the %d paths: the bound above proves nothing", joins[true], n*n/3)
	}
}

// TestRederivePairDeltaWork: the twin of a recursive chain rule joins the
// facts the re-derivation brings back through its first atom, under the
// guard. h(a, B) for each of the k places a with an x and every place B of
// the one country falls when x's rule goes; each h(a, c) re-derived joins
// in(c, k0), then the country's n places, each looked up in the guard atom
// by atom (n joins a fact, k n^2 in all). As a pair plan of the delta
// (facPairDeltaPlan), the re-derived facts of each a are grouped and meet
// a's guard tuples through in(b, k0): a few joins a pair (192,820 joins
// when the delta was joined atom by atom and the guard's pairs as a pair
// plan; 4,020 as pair plans both).
func TestRederivePairDeltaWork(t *testing.T) {
	const n, k = 80, 10 // places, and those with an x
	var tsv strings.Builder
	for i := range n {
		fmt.Fprintf(&tsv, "p%d\tin\tk0\np%d\ty\tp%d\n", i, i, (i+1)%n)
		if i < k {
			fmt.Fprintf(&tsv, "p%d\tx\tp%d\n", i, (i+1)%n)
		}
	}
	src := `0.9 :: h(A, B) :- x(A, B).
0.5 :: h(A, B) :- y(A, B).
0.9 :: h(A, B) :- h(A, C), in(C, D), in(B, D), C != B.
`
	joins := map[bool]int64{}
	for _, off := range []bool{false, true} {
		j, ch := removeFirstRule(t, tsv.String(), src, off)
		if ch.Full || ch.Reweighted < k*n/2 {
			t.Fatalf("noFactor %v: %+v, want most of the %d facts h(p0..p%d, _) weakened in place", off, ch, k*n, k-1)
		}
		joins[off] = j
	}
	t.Logf("joins of the update: pair plans %d, atom by atom %d", joins[false], joins[true])
	if bound := int64(20 * k * n); joins[false] > bound {
		t.Errorf("the update made %d joins, more than %d: are the re-derived facts joined path by path?", joins[false], bound)
	}
	if joins[true] < k*n*n/2 {
		t.Errorf("atom by atom: %d joins, fewer than %d: the bound above proves nothing", joins[true], k*n*n/2)
	}
}
