package eval

import (
	"context"
	"slices"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestDirtyChainAfterNestedStep: a step reading an ordered chain stops at
// its first tuple too weak only when no tuple of the chain rose since the
// ordering (the chain is not dirty). Which chain that is must not depend on
// the steps after it: here the chain of b for y holds s (0.9), w (0.4) and
// r (0.3, raised to 1 after the ordering); s's join goes on to c, whose
// lookup key by Z used to overwrite the key of b's chain, so that w, too
// weak, looked up the dirtiness of s's chain, found none, and cut r.
func TestDirtyChainAfterNestedStep(t *testing.T) {
	ctx := context.Background()
	st := testkit.NewStore(t, "")
	syms, err := NewSymtab(st)
	if err != nil {
		t.Fatal(err)
	}
	// (not factorised: the chain join reads chains its own way)
	e := NewEvaluator(ctx, st, syms, Options{Threads: 1, Min: 0.5, NoFactor: true})
	u := PlainUnit(testkit.MustParse(t, `0.9 :: h(X, W) :- a(X, Y), b(Y, Z), c(Z, W).`))
	if err := e.Load(u); err != nil {
		t.Fatal(err)
	}
	id := func(name string) uint32 { return mustID(t, syms, name) }
	rel := func(name string) *Relation { return e.Rels[e.RelIdx[RelKey(name, 2)]] }
	a, b, c := rel("a"), rel("b"), rel("c")
	a.Add([]uint32{id("x"), id("y")}, 1, ProvBase)
	r := b.Add([]uint32{id("y"), id("r")}, 0.3, ProvBase)
	b.Add([]uint32{id("y"), id("w")}, 0.4, ProvBase)
	b.Add([]uint32{id("y"), id("s")}, 0.9, ProvBase)
	for _, z := range []string{"r", "w", "s"} {
		c.Add([]uint32{id(z), id("v" + z)}, 1, ProvBase)
	}
	b.Index(1).OrderChains(b, b.ByConfidence())
	b.Set(r, 1, ProvBase) // the chain of y is dirty now
	p := e.MakePlan(e.Rules[0], 0, -1, nil)
	if len(p.steps) != 3 || p.steps[1].rel != b || p.steps[1].ix.ordered == 0 {
		t.Fatal("the plan does not read b's ordered chain second")
	}
	if err := e.round([]*Plan{p}, map[int32][]int32{}); err != nil {
		t.Fatal(err)
	}
	h := rel("h")
	var got []string
	for i := range int32(h.Len()) {
		got = append(got, syms.mustName(h.Tuple(i)[1]))
	}
	slices.Sort(got)
	if want := []string{"vr", "vs"}; !slices.Equal(got, want) {
		t.Errorf("h(x, _) = %v, want %v", got, want)
	}
}

// mustID is the id of name in syms, interned if new.
func mustID(t *testing.T, syms *Symtab, name string) uint32 {
	t.Helper()
	v, err := syms.Id(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
