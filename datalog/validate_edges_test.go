package datalog

import (
	"math"
	"strings"
	"testing"
)

// weightCases are rule and fact weights at the edges of (0, 1]: want is
// the error, "" for none.
var weightCases = []struct {
	w    float64
	want string
}{
	{1, ""},
	{0.5, ""},
	{math.SmallestNonzeroFloat64, ""},
	{math.Nextafter(1, 2), "weight 1.0000000000000002 is outside (0, 1]"},
	{0, "weight 0 is outside (0, 1]"},
	{-0.5, "weight -0.5 is outside (0, 1]"},
	{1.5, "weight 1.5 is outside (0, 1]"},
	{math.NaN(), "weight NaN is outside (0, 1]"},
	{math.Inf(1), "weight +Inf is outside (0, 1]"},
}

// TestWeights validates a rule and a fact of each weight of weightCases.
func TestWeights(t *testing.T) {
	for _, c := range weightCases {
		for _, p := range []*Program{
			{Rules: []Rule{rule(c.w, atom("p", v("X")), pos(atom("q", v("X"))))}},
			{Facts: []Fact{{Weight: c.w, Atom: atom("p", s("a"))}}},
		} {
			var errs []string
			for _, d := range Validate(p) {
				if d.Severity == Error {
					errs = append(errs, d.Msg)
				}
			}
			if got := strings.Join(errs, "\n"); got != c.want {
				t.Errorf("weight %v: errors %q, want %q", c.w, got, c.want)
			}
		}
	}
}

// TestArity: a predicate used with two arities is an error at the
// second use, naming the first; one arity throughout is none.
func TestArity(t *testing.T) {
	p := &Program{Rules: []Rule{
		at(rule(1, atom("p", v("X")), pos(atom("q", v("X"), v("Y")))), "a.dl", 1),
		at(rule(1, atom("r", v("X")), pos(atom("q", v("X")))), "a.dl", 2),
	}}
	p.Rules[1].Body[0].Atom.Pos = Pos{File: "a.dl", Line: 2, Col: 11}
	p.Rules[0].Body[0].Atom.Pos = Pos{File: "a.dl", Line: 1, Col: 11}
	var errs []string
	for _, d := range Validate(p) {
		if d.Severity == Error {
			errs = append(errs, d.String())
		}
	}
	want := "a.dl:2:11: error: predicate q used with 1 argument here but with 2 arguments at a.dl:1:11"
	if got := strings.Join(errs, "\n"); got != want {
		t.Errorf("errors %q, want %q", got, want)
	}
	p.Rules[1].Body[0].Atom.Args = append(p.Rules[1].Body[0].Atom.Args, v("Z"))
	for _, d := range Validate(p) {
		if d.Severity == Error {
			t.Errorf("one arity: %s", d)
		}
	}
}
