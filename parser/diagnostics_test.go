package parser

import (
	"testing"

	"github.com/drumql/drumql/datalog"
)

// diagnosticsCases are bad programs and their exact rendered diagnostics:
// syntax errors (several per file) and validation problems, in source
// order. The expected texts are written by hand.
var diagnosticsCases = []struct {
	name, src, want string
}{{
	name: "syntax errors, all of them",
	src: "p(X :- q(X).\n" +
		"q(a) :- .\n" +
		"ok(a).\n" +
		"r(X) :- s(X) t(X).\n" +
		"0.5 :: q(\"abc).\n" +
		"foo(X)",
	want: "f.dl:1:5: error: unexpected \":-\", expected \")\"\n" +
		"p(X :- q(X).\n" +
		"    ^\n" +
		"f.dl:2:9: error: unexpected \".\", expected a literal or an expression\n" +
		"q(a) :- .\n" +
		"        ^\n" +
		"f.dl:4:14: error: unexpected \"t\", expected \".\" or \"?\"\n" +
		"r(X) :- s(X) t(X).\n" +
		"             ^\n" +
		"f.dl:5:10: error: unterminated string\n" +
		"0.5 :: q(\"abc).\n" +
		"         ^\n" +
		"f.dl:6:7: error: unexpected end of file, expected \".\" or \"?\"\n" +
		"foo(X)\n" +
		"      ^\n",
}, {
	name: "lexical errors",
	src:  "p(\"a\\qb\").\n\tq($).\nr(12ab).\n/* open",
	want: "f.dl:1:5: error: invalid escape \\q in string (use \\\" \\\\ \\n \\t \\r or \\uXXXX)\n" +
		"p(\"a\\qb\").\n" +
		"    ^\n" +
		"f.dl:2:4: error: unexpected character '$'\n" +
		"\tq($).\n" +
		"\t  ^\n" +
		"f.dl:3:3: error: malformed number \"12ab\" (quote it to make it a name)\n" +
		"r(12ab).\n" +
		"  ^\n" +
		"f.dl:4:1: error: unterminated block comment\n" +
		"/* open\n" +
		"^\n",
}, {
	name: "not is a keyword",
	src:  "p(X) :- q(X), not(X).\nwife(X, alice)? 0.5 :: w(a)? ",
	want: "f.dl:1:18: error: unexpected \"(\", expected an atom\n" +
		"p(X) :- q(X), not(X).\n" +
		"                 ^\n" +
		"f.dl:2:17: error: a query cannot have a weight\n" +
		"wife(X, alice)? 0.5 :: w(a)? \n" +
		"                ^\n",
}, {
	name: "weights that are not numbers, statements that do not start with a name",
	src: "NaN :: p(a).\n" +
		"nan :: p(b).\n" +
		"Inf :: p(X) :- q(X).\n" +
		"X(a).\n" +
		") p(a).\n" +
		"  .\n" +
		"ok(a).\n",
	want: "f.dl:1:1: error: weight NaN is not a number: a weight is a number in (0, 1], such as 0.9 :: p(a).\n" +
		"NaN :: p(a).\n" +
		"^\n" +
		"f.dl:2:1: error: weight nan is not a number: a weight is a number in (0, 1], such as 0.9 :: p(a).\n" +
		"nan :: p(b).\n" +
		"^\n" +
		"f.dl:3:1: error: weight Inf is not a number: a weight is a number in (0, 1], such as 0.9 :: p(a).\n" +
		"Inf :: p(X) :- q(X).\n" +
		"^\n" +
		"f.dl:4:1: error: unexpected variable X: a fact, rule or query starts with a predicate name, lowercase or quoted (\"X\")\n" +
		"X(a).\n" +
		"^\n" +
		"f.dl:5:1: error: unexpected \")\", expected a fact, a rule, a query or a directive\n" +
		") p(a).\n" +
		"^\n" +
		"f.dl:6:3: error: empty statement: expected a fact, a rule or a query before \".\"\n" +
		"  .\n" +
		"  ^\n",
}, {
	name: "safety",
	src: "h(X, Y) :- e(X).\n" +
		"single(X) :- person(X), not married(X, Y).\n" +
		"big(X) :- item(X), Y > 3.\n" +
		"anon(_) :- b(X, X).\n" +
		"c(X) :- b(X, X), X != _.\n" +
		"s(X) :- b(X, Y).\n" +
		"ok(X) :- b(X, _Y), not married(X, _).\n",
	want: "f.dl:1:6: error: unsafe head variable Y: it occurs in no positive body atom\n" +
		"h(X, Y) :- e(X).\n" +
		"     ^\n" +
		"f.dl:2:40: error: variable Y occurs only in negated literals: it must occur in a positive body atom (or use _)\n" +
		"single(X) :- person(X), not married(X, Y).\n" +
		"                                       ^\n" +
		"f.dl:3:20: error: variable Y occurs only in comparisons: it must occur in a positive body atom\n" +
		"big(X) :- item(X), Y > 3.\n" +
		"                   ^\n" +
		"f.dl:4:6: error: anonymous variable _ in the head of a rule\n" +
		"anon(_) :- b(X, X).\n" +
		"     ^\n" +
		"f.dl:5:23: error: anonymous variable _ in a comparison\n" +
		"c(X) :- b(X, X), X != _.\n" +
		"                      ^\n" +
		"f.dl:6:14: warning: variable Y occurs only once (write _ or _Y if that is intended)\n" +
		"s(X) :- b(X, Y).\n" +
		"             ^\n",
}, {
	name: "arity, weights, ground facts, duplicates",
	src: "parent(a, b).\n" +
		"parent(a, b, c).\n" +
		"1.5 :: likes(a, b).\n" +
		"0 :: r(X, Y) :- parent(X, Y).\n" +
		"likes(X, b).\n" +
		"r(A, B) :- parent(A, B).\n" +
		"r(X) :- parent(X, Y), parent(Y).\n" +
		"parent(X)?\n",
	want: "f.dl:2:1: error: predicate parent used with 3 arguments here but with 2 arguments at f.dl:1:1\n" +
		"parent(a, b, c).\n" +
		"^\n" +
		"f.dl:3:1: error: weight 1.5 is outside (0, 1]\n" +
		"1.5 :: likes(a, b).\n" +
		"^\n" +
		"f.dl:4:1: error: weight 0 is outside (0, 1]\n" +
		"0 :: r(X, Y) :- parent(X, Y).\n" +
		"^\n" +
		"f.dl:5:7: error: fact is not ground: variable X\n" +
		"likes(X, b).\n" +
		"      ^\n" +
		"f.dl:6:1: warning: duplicate rule: same as the rule at f.dl:4:1\n" +
		"r(A, B) :- parent(A, B).\n" +
		"^\n" +
		"f.dl:7:1: error: predicate r used with 1 argument here but with 2 arguments at f.dl:4:6\n" +
		"r(X) :- parent(X, Y), parent(Y).\n" +
		"^\n" +
		"f.dl:7:23: error: predicate parent used with 1 argument here but with 2 arguments at f.dl:1:1\n" +
		"r(X) :- parent(X, Y), parent(Y).\n" +
		"                      ^\n" +
		"f.dl:8:1: error: predicate parent used with 1 argument here but with 2 arguments at f.dl:1:1\n" +
		"parent(X)?\n" +
		"^\n",
}, {
	name: "negative cycles",
	src: "p(X) :- q(X), not r(X).\n" +
		"r(X) :- q(X), p(X).\n" +
		"s(X) :- q(X), not s(X).\n" +
		"t(X) :- q(X), not p(X).\n",
	want: "f.dl:1:15: error: cycle through negation: p -> not r -> p (negated literal not r(X) at f.dl:1:15)\n" +
		"p(X) :- q(X), not r(X).\n" +
		"              ^\n" +
		"f.dl:3:15: error: cycle through negation: s -> not s (negated literal not s(X) at f.dl:3:15)\n" +
		"s(X) :- q(X), not s(X).\n" +
		"              ^\n",
}}

// TestDiagnostics checks the rendered diagnostics of diagnosticsCases.
func TestDiagnostics(t *testing.T) {
	for _, tc := range diagnosticsCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParseString("f.dl", tc.src)
			var ds datalog.Diagnostics
			if err != nil {
				ds = err.(datalog.Diagnostics)
			} else {
				ds = datalog.Validate(p)
			}
			got := ds.Format(map[string]string{"f.dl": tc.src})
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
