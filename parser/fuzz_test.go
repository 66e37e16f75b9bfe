package parser

import (
	"reflect"
	"testing"

	"github.com/drumql/drumql/datalog"
)

// FuzzParseRoundTrip parses, prints and parses again: the second program
// must equal the first modulo positions, the fast path must agree with the
// participle path (same AST, or the same diagnostics), and nothing panics.
func FuzzParseRoundTrip(f *testing.F) {
	for _, s := range []string{
		"husband(bob, alice).",
		"0.9 :: husband(carl, dana).",
		"wife(X, Y) :- husband(Y, X).",
		"0.83 :: son(C, A) :- brother(A, B), mother(C, B).",
		"single(X) :- person(X), not married(X, _).",
		"sibling(X, Y) :- parent(P, X), parent(P, Y), X != Y.",
		`"/people/person/nationality"(X, Y) :- "/people/person/places_lived"(X, Z), located(Z, Y).`,
		`@import "kg/extra.tsv".`,
		"@aggregate noisy_or(top = 5, prior = 1).\n@aggregate max for \"/film/x\".",
		"@aggregate grouped(threshold = 0.7) for wife. @aggregate max().",
		"@min 0.1.\n@aggregate max.\n0.05 :: p(X) :- q(X).",
		"@min 1. @min 2e-5.",
		"@min 5e-324. p(a).",
		"wife(X, alice)?",
		`"/m/027rn"("/m/0d060g", "01698271").`,
		`"_also_see"(X, Y) :- "_hypernym"(Y, X).`,
		`"Person3"(a). p("Person3", "01698271", 01698271, -0.50, 1e-3).`,
		`p("\u00e9\n\t\"\\", "\u0001").`,
		"1e-05 :: p(a). 1 :: q(b). 0.5 :: r(X) :- s(X), X >= 2, a < X.",
		"% c\n/* b */ rain. wet :- rain().",
		"p(X :- q(X).\nq(a) :- .",
		`"not"(a). p :- not "not".`,
		"h(_A, X) :- b(X, _A, _).",
		"p(\"unterminated\nq(a).",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := ParseString("f.dl", src)
		slow := &datalog.Program{}
		ds := parseSource(slow, "f.dl", src, true)
		if err != nil {
			if !reflect.DeepEqual(err, ds) {
				t.Fatalf("fast path error\n%v\nparticiple path error\n%v", err, ds)
			}
			return
		}
		if len(ds) > 0 {
			t.Fatalf("fast path accepted, participle path: %v", ds)
		}
		if !reflect.DeepEqual(p, slow) {
			t.Fatalf("fast and participle paths differ:\n%#v\n%#v", p, slow)
		}
		out := p.String()
		q, err := ParseString("printed", out)
		if err != nil {
			t.Fatalf("printed program does not parse: %v\n%s", err, out)
		}
		if !equalModuloPos(p, q) {
			t.Fatalf("round trip changed the program:\n%q\n%s\n%s", src, out, q)
		}
		if out2 := q.String(); out2 != out {
			t.Fatalf("printing is not stable:\n%s\n%s", out, out2)
		}
		for i := range p.Rules {
			if p.Rules[i].Key() != q.Rules[i].Key() {
				t.Fatalf("key changed: %s vs %s", p.Rules[i].Key(), q.Rules[i].Key())
			}
		}
	})
}
