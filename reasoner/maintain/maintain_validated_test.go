package maintain

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestApplyValidated: a program its caller validated is maintained as one
// Apply validates itself, and its atoms are still checked against the
// store's arities.
func TestApplyValidated(t *testing.T) {
	ctx := context.Background()
	tsv := "a\te\tb\nb\te\tc\nc\te\td\n"
	p := testkit.MustParse(t, "tc(X, Y) :- e(X, Y).\n0.9 :: tc(X, Z) :- tc(X, Y), e(Y, Z).\n")
	next := testkit.MustParse(t, "tc(X, Y) :- e(X, Y).\n0.8 :: tc(X, Z) :- e(X, Y), tc(Y, Z).\n")
	var got [2]map[string]float64
	for i, validated := range []bool{false, true} {
		m, _, err := Materialise(ctx, testkit.NewStore(t, tsv), p, eval.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Apply(ctx, Delta{Program: next, Validated: validated}); err != nil {
			t.Fatal(err)
		}
		got[i] = derivedOf(t, m)
		// An atom over e with three arguments, where the store's e has two.
		bad := testkit.MustParse(t, "tc(X, Y) :- e(X, Y, Y).\n")
		if _, err := m.Apply(ctx, Delta{Program: bad, Validated: validated}); !errors.Is(err, eval.ErrInvalidProgram) {
			t.Errorf("validated %v: an arity clash with the store: %v, want ErrInvalidProgram", validated, err)
		}
	}
	if !maps.Equal(got[0], got[1]) || len(got[0]) == 0 {
		t.Errorf("validated by the caller: %v\nby Apply: %v", got[1], got[0])
	}
}
