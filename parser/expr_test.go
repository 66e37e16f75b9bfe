package parser

import (
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
)

// TestExpressions parses rules with arithmetic, built-ins, aggregates,
// several heads and disjunction, and checks the canonical text each prints
// as (which parses back to the same program: FuzzParseRoundTrip).
func TestExpressions(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"p(X + 1) :- q(X), X < 10.", "p(X + 1) :- q(X), X < 10."},
		{"p(Y) :- q(X), Y = X*2+3%2.", "p(Y) :- q(X), Y = X * 2 + 3 % 2."},
		{"p(Y) :- q(X), Y = X-1.", "p(Y) :- q(X), Y = X - 1."},
		{"p(Y) :- q(X), Y = X - -1.", "p(Y) :- q(X), Y = X - -1."},
		{"p(Y) :- q(X), Y = - 2.", "p(Y) :- q(X), Y = -2."},
		{"p(Y) :- q(X), Y = -X ^ 2.", "p(Y) :- q(X), Y = -(X ^ 2)."},
		{"p(Y) :- q(X), Y = 2 ^ 3 ^ X.", "p(Y) :- q(X), Y = 2 ^ 3 ^ X."},
		{"p(Y) :- q(X), Y = (2 ^ 3) ^ X.", "p(Y) :- q(X), Y = (2 ^ 3) ^ X."},
		{"p(Y) :- q(X), Y = (X + 1) * (X - 1).", "p(Y) :- q(X), Y = (X + 1) * (X - 1)."},
		{"p(Y) :- q(X), Y = X - (X - 1).", "p(Y) :- q(X), Y = X - (X - 1)."},
		{"p(Y) :- q(X), Y = X / 2 / 3.", "p(Y) :- q(X), Y = X / 2 / 3."},
		{"p(Y) :- q(X), Y = max(abs(X), min(X, 3)).", "p(Y) :- q(X), Y = max(abs(X), min(X, 3))."},
		{`p(C) :- q(X), C = cat(X, "_x"), strlen(C) > 2, contains("a", C), match("a.*", C).`,
			`p(C) :- q(X), C = cat(X, "_x"), strlen(C) > 2, contains(a, C), match("a.*", C).`},
		{"p(Y) :- q(X), Y = max(X, 2, -X), Z = cat(X, a, \"-\", 1), Z != Y.", `p(Y) :- q(X), Y = max(X, 2, -X), Z = cat(X, a, "-", 1), Z != Y.`},
		{"d(X, N) :- n(X), N = count : { e(X, _) }.", "d(X, N) :- n(X), N = count : { e(X, _) }."},
		{"d(X, N) :- n(X), N = count:e(X, _).", "d(X, N) :- n(X), N = count : { e(X, _) }."},
		{"s(X, S) :- n(X), S = sum V * 2 : { w(X, V), V > 0 }.", "s(X, S) :- n(X), S = sum V * 2 : { w(X, V), V > 0 }."},
		{"m(M) :- M = min V : { w(_, V) } + 1.", "m(M) :- M = min V : { w(_, V) } + 1."},
		{"a(X), b(X) :- c(X).", "a(X) :- c(X).\nb(X) :- c(X)."},
		{"a(X) :- c(X) ; d(X), not e(X).", "a(X) :- c(X).\na(X) :- d(X), not e(X)."},
		{"a(X) :- d(X), !e(X), X != 1.", "a(X) :- d(X), not e(X), X != 1."},
		{"f(X) :- g(X), (h(X) ; i(X)), j(X).", "f(X) :- g(X), h(X), j(X).\nf(X) :- g(X), i(X), j(X)."},
		{"x(X) :- y(X) % a comment\n  , X = 3 % 2.", "x(X) :- y(X), X = 3 % 2."},
		{"x(X) :- y(X), X % 7 = 3, (X + 1) % X > 0. % a comment", "x(X) :- y(X), X % 7 = 3, (X + 1) % X > 0."},
		{"x(X) :- y(X), z(X) % Z is not a remainder\n.", "x(X) :- y(X), z(X)."},
		{`k(X) :- "contains"(X, Y), "match"(Y, X).`, `k(X) :- "contains"(X, Y), "match"(Y, X).`},
		{"0.5 :: p(X, count) :- q(X), X != sum.", "0.5 :: p(X, count) :- q(X), X != sum."},
		// a fact with expressions is computed: a rule without a body
		{`0.5 :: p(1 + 2, "a" + "b").`, `0.5 :: p(1 + 2, a + b).`},
		{"t(N) :- N = sum 1 : leaf(_).", "t(N) :- N = sum 1 : { leaf(_) }."},
	} {
		p, err := ParseString("f.dl", c.src)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got := strings.TrimSpace(p.String()); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, got, c.want)
		}
		q, err := ParseString("g.dl", p.String())
		if err != nil || q.String() != p.String() {
			t.Errorf("%s: printed form does not parse back: %v\n%s", c.src, err, q)
		}
	}
}

// TestExpressionErrors checks the messages of malformed expressions,
// aggregates and bodies.
func TestExpressionErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"p(Y) :- q(X), Y = f(X).", "f.dl:1:19: error: unknown function f (the functions are abs, autoinc, band, bnot, bor, bshl, bshr, bshru, bxor, cat, fdiv, land, lnot, lor, lxor, max, min, ord, strlen, substr, to_number, to_string)"},
		{"p(Y) :- q(X), Y = abs(X, 1).", "f.dl:1:19: error: abs takes 1 argument, not 2"},
		{"p(Y) :- q(X), Y = cat(X).", "f.dl:1:19: error: cat takes 2 or more arguments, not 1"},
		{"p(Y) :- q(X), Y = total : { q(X) }.", "f.dl:1:19: error: unknown aggregate total (count, sum, min, max or mean: N = count : { p(X) })"},
		{"p(Y) :- q(X), Y = count X : { q(X) }.", "f.dl:1:25: error: count takes no target: N = count : { p(X) }"},
		{"p(Y) :- q(X), Y = sum : { q(X) }.", "f.dl:1:19: error: sum needs a target: N = sum V : { p(X, V) }"},
		{"p(X) :- q(X), X + 1.", "f.dl:1:15: error: expected an atom or a comparison, not the expression X + 1"},
		{"p(X + 1)?", "f.dl:1:3: error: a query's arguments are constants or variables, not expressions: compute X + 1 in a rule"},
		{"a(X), b(X).", "f.dl:1:7: error: several heads need a body: a(X), b(X) :- c(X)."},
		{"p(Y) :- q(X), Y = (q(X), r(X)).", "f.dl:1:19: error: expected an expression in parentheses, not a body"},
	} {
		_, err := ParseString("f.dl", c.src)
		if err == nil {
			t.Errorf("%s: no error, want %s", c.src, c.want)
			continue
		}
		if got := err.(datalog.Diagnostics)[0].String(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}
