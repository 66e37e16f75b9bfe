package parser

import (
	"strings"
	"testing"
)

// TestSouffleForms checks how forms Soufflé users write are read, by the
// rules they print as (issue 51).
func TestSouffleForms(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"p(Y, W) :- Y = min Z : { a(Z) }, W = max Z : { a(Z) }.",
			"p(Y, W) :- Y = min Z_1 : { a(Z_1) }, W = max Z : { a(Z) }."},
		{"r(Y) :- Y = min Z + Y : { a(A, Z), a(B, Y), A != B }.",
			"r(Y) :- Y = min Z + Y_1 : { a(A, Z), a(B, Y_1), A != B }."},
		{"r(X, Y) :- a(X), Y = count : { b(X, Z) }.",
			"r(X, Y) :- a(X), Y = count : { b(X, Z) }."},
		{"r(Y) :- Y = min (Z + 1) : { a(Z) }.", "r(Y) :- Y = min Z + 1 : { a(Z) }."},
		{"r(Y) :- Y = max (Z) : a(Z).", "r(Y) :- Y = max Z : { a(Z) }."},
		{`r(X) :- s(X), !match("y.*", X).`, `r(X) :- s(X), not match("y.*", X).`},
		{`r(X) :- s(X), not contains("e", X).`, `r(X) :- s(X), not contains(e, X).`},
		{"p(1) :- true.", "p(1)."},
		{"p(X) :- q(X), true.", "p(X) :- q(X)."},
		{"p(1) :- false.", ""},
		{`p(1) :- "true".`, `p(1) :- "true".`},
	} {
		prog, err := ParseString("t.dl", c.src)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		got := strings.TrimSpace(prog.String())
		if got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.src, got, c.want)
		}
		// what is printed reads back as itself
		again, err := ParseString("t.dl", got)
		if err != nil || strings.TrimSpace(again.String()) != got {
			t.Errorf("%s: printed %s does not read back (%v)", c.src, got, err)
		}
	}
	if _, err := ParseString("t.dl", "r(Y) :- Y = min (Z, W) : { a(Z, W) }."); err == nil || !strings.Contains(err.Error(), "one target") {
		t.Errorf("two targets: %v", err)
	}
}
