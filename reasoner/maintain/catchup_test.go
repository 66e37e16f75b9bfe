package maintain

import (
	"context"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestCatchup follows a store through Catchup's outcomes: no record
// (recompute), a record of the same program and no base change (current),
// then a base fact loaded since (updated, the change written).
func TestCatchup(t *testing.T) {
	ctx := context.Background()
	st := testkit.NewStore(t, "a\tedge\tb\n")
	prog := testkit.MustParse(t, "path(X, Y) :- edge(X, Y).\n0.5 :: path(X, Z) :- path(X, Y), edge(Y, Z).\n")
	co := CatchupOptions{Parse: parser.ParseString}
	res, err := Catchup(ctx, st, prog, eval.Options{}, co)
	if err != nil || !res.Recompute || res.Why != "" {
		t.Fatalf("no record: %+v, %v; want Recompute with no reason", res, err)
	}
	m, _, err := Materialise(ctx, st, prog, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Write(ctx); err != nil {
		t.Fatal(err)
	}
	res, err = Catchup(ctx, st, prog, eval.Options{}, co)
	if err != nil || !res.Current || res.M != nil || res.Changed {
		t.Fatalf("same program: %+v, %v; want Current, nothing read", res, err)
	}
	testkit.LoadTSV(t, st, "b\tedge\tc\n")
	res, err = Catchup(ctx, st, prog, eval.Options{}, co)
	if err != nil || res.Recompute || res.Current || !res.Changed || res.M == nil {
		t.Fatalf("a base fact added: %+v, %v; want an update", res, err)
	}
	if res.Change.Added != 2 {
		t.Errorf("a base fact added: %d facts added, want 2 (path(b, c), path(a, c))", res.Change.Added)
	}
	res, err = Catchup(ctx, st, prog, eval.Options{}, co)
	if err != nil || !res.Current {
		t.Fatalf("after the update: %+v, %v; want Current", res, err)
	}
	if _, err := Catchup(ctx, st, prog, eval.Options{}, CatchupOptions{}); err == nil {
		t.Error("Catchup without Parse: no error")
	}
}
