package maintain

import (
	"context"
	"fmt"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

// removeBase materialises src over base, removes the base triple gone in
// one update, checks the result against an evaluation from scratch, the
// naive oracle (at threshold min) and the proofs, and returns the update's
// change, the joins it made and the materialisation.
func removeBase(t *testing.T, base []store.NamedTriple, src string, min float64, gone store.NamedTriple) (Change, int64, *Materialisation) {
	t.Helper()
	ctx := context.Background()
	st := testkit.NewStore(t, oracle.TripleTSV(base))
	prog := testkit.MustParse(t, src)
	m, _, err := Materialise(ctx, st, prog, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := namedFact(t, st, gone)
	var left []store.NamedTriple
	for _, tr := range base {
		if tr != gone {
			left = append(left, tr)
		}
	}
	before := m.e.Work
	ch, err := m.Apply(ctx, Delta{Base: []FactChange{{Fact: f}}})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Full {
		t.Fatal("the update recomputed")
	}
	got := derivedOf(t, m)
	fresh, _, err := Materialise(ctx, testkit.NewStore(t, oracle.TripleTSV(left)), prog, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sameDerived(got, derivedOf(t, fresh)); err != nil {
		t.Fatalf("against a computation from scratch:\n%v", err)
	}
	if err := sameDerived(got, oracleDerived(t, left, prog, min)); err != nil {
		t.Fatalf("against the oracle:\n%v", err)
	}
	if err := checkProofs(m); err != nil {
		t.Fatalf("proofs: %v", err)
	}
	return ch, m.e.Work - before, m
}

// TestRederiveClosureWork: removing the edge a -> b of a transitive
// closure whose sources s0..s5 and a reach 2*fan nodes through it, and
// all of them through a -> c1 -> c2 -> b too, takes away 7*(2*fan+1)
// facts, which all come back. A twin's delta round starts from a
// re-derived reach(x, y); the guard then holds 2*fan+1 removed facts of x
// and the edges out of y one or fan: the plan must take the edges (a
// few joins per removed fact), not the guard's tuples of x (2*fan per
// re-derived fact: 7*(2*fan)^2 in all, as an edge of FB15k-237's closure
// cost 686,298 joins against 35,782 before the twins' rounds).
func TestRederiveClosureWork(t *testing.T) {
	const fan = 60
	var base []store.NamedTriple
	edge := func(s, o string) { base = append(base, store.NamedTriple{S: s, R: "e", O: o}) }
	for j := range 6 {
		edge(fmt.Sprint("s", j), "a")
	}
	edge("a", "b")
	edge("a", "c1")
	edge("c1", "c2")
	edge("c2", "b")
	for i := range fan {
		edge("b", fmt.Sprint("t", i))
		edge(fmt.Sprint("t", i), fmt.Sprint("u", i))
	}
	src := "reach(X, Y) :- e(X, Y).\nreach(X, Z) :- reach(X, Y), e(Y, Z).\n"
	ch, joins, m := removeBase(t, base, src, 0, store.NamedTriple{S: "a", R: "e", O: "b"})
	const removed = 7 * (2*fan + 1)
	t.Logf("%d joins to re-derive %d facts in %d rounds", joins, removed, ch.Rounds)
	if ch.Added+ch.Removed+ch.Reweighted != 0 {
		t.Fatalf("%+v: every removed fact comes back", ch)
	}
	if joins > 8*removed {
		t.Errorf("%d joins to re-derive %d facts: the twins' rounds joined the guard's tuples of each re-derived fact's source", joins, removed)
	}
	// reach's tuples per source are at least its size over the symbols
	// (about 10), the edges' per target 1 or 2: the twin's plan takes the
	// edges without building reach's index by source.
	if ix := m.e.Rels[m.e.RelIdx[eval.RelKey("reach", 2)]].Idx[1]; ix != nil {
		t.Error("the rederive twin's plan built reach's index by source, which it does not use")
	}
}

// TestSmallRemovalRounds: removing one base fact of weakRulesCase(64)
// takes away a few facts of p, which 66 twins derive again. In groups
// that double (1, 2, 4, ... 64 twins: 7 groups, each at least a round,
// each planning its twins again) the update took 7 rounds; with so few
// removed facts the stratum's own round re-derives them (manyRemoved): 1.
func TestSmallRemovalRounds(t *testing.T) {
	base, src := weakRulesCase(64)
	ch, joins, _ := removeBase(t, base, src, 0.1, base[0])
	t.Logf("%v in %d rounds, %d joins", ch, ch.Rounds, joins)
	if ch.Removed+ch.Reweighted == 0 {
		t.Fatalf("%+v: the removal changed nothing", ch)
	}
	if ch.Rounds > 2 {
		t.Errorf("the removal of one base fact took %d rounds", ch.Rounds)
	}
}
