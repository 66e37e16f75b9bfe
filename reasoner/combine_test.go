package reasoner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
)

func TestNoisyOr(t *testing.T) {
	st := newStore(t, `
a	p	b
a	p	c
a	p	e
a	q	b
a	q	d
a	r	d
`)
	// r(a, b) has two rules: 0.5 and 0.4; r(a, c) one; r(a, d) is a stored
	// fact that a rule also derives (0.4); r(a, e) a program fact (0.6) that
	// a rule also derives (0.5); s has a single rule.
	prog := mustParse(t, `
0.5 :: r(X, Y) :- p(X, Y).
0.4 :: r(X, Y) :- q(X, Y).
0.6 :: r(a, e).
0.9 :: s(X, Y) :- p(X, Z), q(X, Y), Z != Y.
`)
	cases := []struct {
		query string
		prog  *datalog.Program
		want  string // values and confidence per line, best first
	}{
		// b: 1 − (1 − 0.5)(1 − 0.4) = 0.7; c: 0.5 alone; d: the stored fact
		// keeps 1 > 0.4; e: the program fact keeps 0.6 > 0.5.
		{"r(a, Y)?", prog, "d 1\nb 0.7\ne 0.6\nc 0.5\n"},
		{"r(X, b)?", prog, "a 0.7\n"},
		{"r(a, b)?", prog, "true 0.7\n"},
		{"r(a, c)?", prog, "true 0.5\n"},
		// s(a, b): bodies Z = c and Z = e, one rule: max 0.9, and the
		// noisy-or of one source is that source. s(a, d): Z = b, c, e: 0.9.
		{"s(a, Y)?", prog, "b 0.9\nd 0.9\n"},
		// No rule for p: the answers as they are.
		{"p(a, Y)?", prog, "b 1\nc 1\ne 1\n"},
		// No program: the store's answers.
		{"r(a, Y)?", nil, "d 1\n"},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			q := mustQuery(t, c.query)
			answers, err := Query(ctx, st, c.prog, q, Options{})
			if err != nil {
				t.Fatal(err)
			}
			before := formatAnswers(answers)
			got, err := NoisyOr(ctx, st, c.prog, q, answers, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if s := formatAnswers(got); s != c.want {
				t.Errorf("NoisyOr(%s) =\n%swant\n%s", c.query, s, c.want)
			}
			if formatAnswers(answers) != before {
				t.Errorf("NoisyOr modified its input")
			}
		})
	}
}

// TestNoisyOrOrder checks the sort of rescored answers: an answer that the
// noisy-or lifts above another moves before it, ties by values.
// TestNoisyOrTop: noisy-or over each answer's top best rules only.
func TestNoisyOrTop(t *testing.T) {
	st := newStore(t, "a\tp\tb\na\tq\tb\na\to\tb\na\tp\tc\n")
	prog := mustParse(t, `
0.3 :: r(X, Y) :- o(X, Y).
0.5 :: r(X, Y) :- p(X, Y).
0.4 :: r(X, Y) :- q(X, Y).
`)
	cases := []struct {
		top  int
		want string
	}{
		// b: the two best rules, 1 - 0.5 * 0.6 = 0.7; all three,
		// 1 - 0.5 * 0.6 * 0.7 = 0.79; one, 0.5. c: 0.5 alone.
		{2, "b 0.7\nc 0.5\n"},
		{0, "b 0.79\nc 0.5\n"},
		{1, "b 0.5\nc 0.5\n"},
		{5, "b 0.79\nc 0.5\n"},
	}
	ctx := context.Background()
	q := mustQuery(t, "r(a, Y)?")
	for _, c := range cases {
		as, err := Query(ctx, st, prog, q, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := NoisyOrTop(ctx, st, prog, q, as, c.top, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s := formatAnswers(got); s != c.want {
			t.Errorf("top %d: got\n%swant\n%s", c.top, s, c.want)
		}
	}
}

func TestNoisyOrOrder(t *testing.T) {
	st := newStore(t, "a\tp\tx\na\tq\tx\na\tp\ty\na\tq\tz\n")
	// x: 0.6 and 0.6 → 1 − 0.4·0.4 = 0.84; y: 0.7; z: 0.6.
	prog := mustParse(t, "0.7 :: r(X, Y) :- p(X, Y), Y != x.\n0.6 :: r(X, Y) :- p(X, Y).\n0.6 :: r(X, Y) :- q(X, Y).\n")
	q := mustQuery(t, "r(a, Y)?")
	ctx := context.Background()
	answers, err := Query(ctx, st, prog, q, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := formatAnswers(answers); s != "y 0.7\nx 0.6\nz 0.6\n" {
		t.Fatalf("max answers:\n%s", s)
	}
	got, err := NoisyOr(ctx, st, prog, q, answers, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// y: 1 − 0.3·0.4 = 0.88 (two rules); x: 0.84; z: 0.6.
	if s, want := formatAnswers(got), "y 0.88\nx 0.84\nz 0.6\n"; s != want {
		t.Errorf("NoisyOr =\n%swant\n%s", s, want)
	}
}

func TestCheckQuery(t *testing.T) {
	st := newStore(t, "a\twife\tb\nb\thusband\ta\n")
	prog := mustParse(t, "spouse(X, Y) :- wife(X, Y).\nsingle(X) :- person(X), not married(X, _).\nperson(a).\n")
	cases := []struct {
		query string
		prog  *datalog.Program
		want  string // "" or a substring of the error
	}{
		{"wife(X, Y)?", nil, ""},
		{"wife(X, Y)?", prog, ""},
		{"spouse(a, Y)?", prog, ""},
		{"person(X)?", prog, ""},
		{"spouse(a, Y)?", nil, "unknown predicate spouse"},
		{"wief(X, Y)?", prog, "unknown predicate wief; did you mean wife?"},
		{"wife(X)?", prog, "predicate wife has 2 arguments, but the query gives 1 argument"},
		{"single(X, Y)?", prog, "predicate single has 1 argument, but the query gives 2 arguments"},
		// Used only in a body: nothing defines it.
		{"married(X, Y)?", prog, "unknown predicate married"},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			err := CheckQuery(st, c.prog, mustQuery(t, c.query))
			if c.want == "" {
				if err != nil {
					t.Errorf("CheckQuery: %v", err)
				}
				return
			}
			var ds datalog.Diagnostics
			if !errors.Is(err, ErrUnknownPredicate) || !errors.As(err, &ds) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("CheckQuery: %v, want ErrUnknownPredicate with diagnostics and %q", err, c.want)
			}
			// Query makes the same check.
			if _, qerr := Query(context.Background(), st, c.prog, mustQuery(t, c.query), Options{}); qerr == nil || qerr.Error() != err.Error() {
				t.Errorf("Query: %v, CheckQuery: %v", qerr, err)
			}
		})
	}
}
