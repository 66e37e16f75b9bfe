package parser

import (
	"context"
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
		"likes(zoë, café)? städte(東京, \"Zürich\"). ältere(Émile, X) :- geboren(Émile, X٣), X٣ > 1.",
		"p(e\u0301t\u00e9, ǅx, \u0301a, a\u00a0b, 12é).",
		"p(X + 1) :- q(X), Y = X*2 - -3 % 2 ^ -X, Y >= abs(X).",
		`d(X, N) :- n(X), N = count : { e(X, _) }, S = sum V : w(X, V), contains("a", X), match("a.*", X).`,
		"a(X), b(X) :- c(X) ; (d(X) ; e(X)), not f(X).",
		"x(X) :- y(X) % c\n, X = (3 % 2) - 1. p(- 2). q(-X) :- r(X).",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := ParseString("f.dl", src)
		slow := &datalog.Program{}
		ds, _ := parseSource(context.Background(), slow, "f.dl", src, true)
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

// FuzzNameRoundTrip checks that the printer and the scanner agree on names:
// any string, as a predicate and as a constant, prints and parses back to
// itself; the printer leaves it unquoted exactly when the scanner reads it
// as one name (and it is not the keyword "not"); and a string the scanner
// reads as one variable prints and parses back as that variable.
func FuzzNameRoundTrip(f *testing.F) {
	for _, s := range []string{"alice", "zoë", "café", "東京", "e\u0301", "\u0301e", "Émile", "ǅx", "_x",
		"Person3", "not", "a b", "a\u00a0b", "٣", "a٣", "x\xff", "", "12é", "a\u200db"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sym := datalog.Term{Kind: datalog.Symbol, Value: s}
		p := &datalog.Program{Facts: []datalog.Fact{{Weight: 1, Atom: datalog.Atom{Pred: s, Args: []datalog.Term{sym}}}}}
		out := p.String()
		q, err := ParseString("printed", out)
		if err != nil || len(q.Facts) != 1 || q.Facts[0].Atom.Pred != s || len(q.Facts[0].Atom.Args) != 1 ||
			q.Facts[0].Atom.Args[0].Kind != datalog.Symbol || q.Facts[0].Atom.Args[0].Value != s {
			t.Fatalf("%q printed as %q parses as %v, %v", s, out, q, err)
		}
		toks, _ := scan("name", s)
		one := len(toks) == 2 && toks[0].Value == s
		if plain := datalog.IsPlainName(s); plain != (one && toks[0].Type == tokIdent && s != "not") {
			t.Fatalf("%q: IsPlainName %v, scanned as %v", s, plain, toks)
		}
		if one && toks[0].Type == tokVar {
			v := datalog.Term{Kind: datalog.Var, Value: s}
			r := &datalog.Program{Rules: []datalog.Rule{{Weight: 1, Head: datalog.Atom{Pred: "p", Args: []datalog.Term{v}},
				Body: []datalog.Literal{{Kind: datalog.Positive, Atom: datalog.Atom{Pred: "q", Args: []datalog.Term{v}}}}}}}
			q, err := ParseString("printed", r.String())
			if err != nil || len(q.Rules) != 1 || q.Rules[0].Head.Args[0].Kind != datalog.Var || q.Rules[0].Head.Args[0].Value != s {
				t.Fatalf("variable %q printed as %q parses as %v, %v", s, r.String(), q, err)
			}
		}
	})
}
