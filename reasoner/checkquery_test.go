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
