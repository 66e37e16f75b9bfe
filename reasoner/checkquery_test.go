package reasoner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

func TestCheckQuery(t *testing.T) {
	st := testkit.NewStore(t, "a\twife\tb\nb\thusband\ta\n")
	prog := testkit.MustParse(t, "spouse(X, Y) :- wife(X, Y).\nsingle(X) :- person(X), not married(X, _).\nperson(a).\n")
	cases := []struct {
		query string
		prog  *datalog.Program
		want  string // "" or a substring of the error
	}{
		{"wife(X, Y)?", nil, ""},
		{"wife(X, Y)?", prog, ""},
		{"spouse(a, Y)?", prog, ""},
		{"person(X)?", prog, ""},
		// Nothing defines it, and it is no likely typo: undefined, the
		// answer empty.
		{"spouse(a, Y)?", nil, "undefined: nothing defines spouse"},
		{"wief(X, Y)?", prog, "unknown predicate wief; did you mean wife?"},
		{"wife(X)?", prog, "predicate wife has 2 arguments, but the query gives 1 argument"},
		{"single(X, Y)?", prog, "predicate single has 1 argument, but the query gives 2 arguments"},
		// Used only in a body: nothing defines it.
		{"married(X, Y)?", prog, "undefined: nothing defines married"},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			err := CheckQuery(st, c.prog, testkit.MustQuery(t, c.query))
			if c.want == "" {
				if err != nil {
					t.Errorf("CheckQuery: %v", err)
				}
				return
			}
			var ds datalog.Diagnostics
			if want, ok := strings.CutPrefix(c.want, "undefined: "); ok {
				if !errors.Is(err, ErrUndefinedPredicate) || !errors.As(err, &ds) || ds.HasErrors() || !strings.Contains(err.Error(), want) {
					t.Errorf("CheckQuery: %v, want ErrUndefinedPredicate with a warning %q", err, want)
				}
				as, qerr := Query(context.Background(), st, c.prog, testkit.MustQuery(t, c.query), Options{})
				n, cerr := Count(context.Background(), st, c.prog, testkit.MustQuery(t, c.query), Options{})
				if len(as) != 0 || qerr != nil || n != 0 || cerr != nil {
					t.Errorf("Query: %v %v, Count: %d %v; want no answer and no error", as, qerr, n, cerr)
				}
				return
			}
			if !errors.Is(err, ErrUnknownPredicate) || !errors.As(err, &ds) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("CheckQuery: %v, want ErrUnknownPredicate with diagnostics and %q", err, c.want)
			}
			// Query makes the same check.
			if _, qerr := Query(context.Background(), st, c.prog, testkit.MustQuery(t, c.query), Options{}); qerr == nil || qerr.Error() != err.Error() {
				t.Errorf("Query: %v, CheckQuery: %v", qerr, err)
			}
		})
	}
}

// TestPrepareValidated: with Options.Validated, Prepare leaves the
// program's validation to the caller (an unsafe rule is not reported: the
// caller said it validated it), and still checks its arities against the
// store's base facts; without it, Prepare validates.
func TestPrepareValidated(t *testing.T) {
	ctx := context.Background()
	st := testkit.NewStore(t, "a\twife\tb\n")
	unsafe := &datalog.Program{Rules: []datalog.Rule{{Weight: 1,
		Head: datalog.Atom{Pred: "p", Args: []datalog.Term{{Kind: datalog.Var, Value: "X"}}},
		Body: []datalog.Literal{{Kind: datalog.Positive, Atom: datalog.Atom{Pred: "wife", Args: []datalog.Term{{Kind: datalog.Var, Value: "Y"}, {Kind: datalog.Var, Value: "Z"}}}}}}}}
	if _, err := Prepare(ctx, st, unsafe, Options{}); !errors.Is(err, ErrInvalidProgram) {
		t.Errorf("Prepare of an unsafe rule: %v, want ErrInvalidProgram", err)
	}
	if _, err := Prepare(ctx, st, unsafe, Options{Validated: true}); err != nil {
		t.Errorf("Prepare, Validated: %v, want no validation", err)
	}
	arity := testkit.MustParse(t, "p(X) :- wife(X).\n")
	if _, err := Prepare(ctx, st, arity, Options{Validated: true}); err == nil || !strings.Contains(err.Error(), "wife has arity 2 in the store") {
		t.Errorf("Prepare, Validated, wife/1 against the store's wife/2: %v", err)
	}
}
