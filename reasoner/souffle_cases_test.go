package reasoner_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// souffleCases are small programs written as Soufflé users write them
// (issue 51): each query's answers, one "a b" line per answer, sorted.
var souffleCases = []struct {
	name, src, query string
	want             []string
}{
	{"same local variable in two aggregates",
		"a(1). a(5). a(3).\np(Y, W) :- Y = min Z : { a(Z) }, W = max Z : { a(Z) }.",
		"p(Y, W)?", []string{"1 5"}},
	{"assigned variable inside its aggregate is local",
		"a(x, 1). a(y, 5). a(z, 3).\nr(Y) :- Y = min Z + Y : { a(A, Z), a(B, Y), A != B }.",
		"r(Y)?", []string{"4"}},
	{"parenthesised target",
		"a(1). a(5).\nr(Y) :- Y = min (Z + 1) : { a(Z) }.",
		"r(Y)?", []string{"2"}},
	{"negated match",
		`s("yes"). s("no"). s("hey").` + "\nr(X) :- s(X), !match(\"y.*\", X).",
		"r(X)?", []string{"hey", "no"}},
	{"negated contains",
		`s("yes"). s("no"). s("hey").` + "\nr(X) :- s(X), not contains(\"e\", X).",
		"r(X)?", []string{"no"}},
	{"bitwise and logical functions",
		"n(6). n(-8).\nr(X, A, B, C, D) :- n(X), A = band(X, 3), B = bshr(X, 1), C = bshru(X, 62), D = lnot(bxor(X, X)).",
		"r(X, A, B, C, D)?", []string{"-8 0 -4 3 1", "6 2 3 0 1"}},
	{"ord: the order of first appearance, a number itself",
		"s(b). s(a). s(c).\nr(X, Y) :- s(X), s(Y), ord(X) < ord(Y).\nn(N) :- N = ord(7).",
		"r(X, Y)?", []string{"a c", "b a", "b c"}},
	{"true body",
		"p(1) :- true.\np(2) :- false.\nq(X) :- p(X), true.",
		"q(X)?", []string{"1"}},
}

func answerLines(as []reasoner.Answer) []string {
	var got []string
	for _, a := range as {
		got = append(got, strings.Join(a.Values, " "))
	}
	slices.Sort(got)
	return got
}

// TestSouffleCases evaluates souffleCases by Query and by Infer.
func TestSouffleCases(t *testing.T) {
	ctx := context.Background()
	for _, c := range souffleCases {
		t.Run(c.name, func(t *testing.T) {
			prog, err := parser.ParseString("case.dl", c.src)
			if err != nil {
				t.Fatal(err)
			}
			q, err := parser.ParseQuery(c.query)
			if err != nil {
				t.Fatal(err)
			}
			as, err := reasoner.Query(ctx, store.NewMemory(), prog, q.Atom, reasoner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := answerLines(as); !slices.Equal(got, c.want) {
				t.Fatalf("%s\n%s: %q, want %q", c.src, c.query, got, c.want)
			}
		})
	}
}

// TestExistenceTest checks that atoms whose arguments are all "_" are
// tested for a fact, not enumerated: five of them over 200 facts would
// be 200^5 combinations.
func TestExistenceTest(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "e(%d, %d). i(%d).\n", i, i+1, i)
	}
	b.WriteString("0.5 :: e(x, y).\nq(X) :- e(_, _), e(_, _), e(_, _), e(_, _), e(_, _), i(X).\n")
	prog, err := parser.ParseString("exists.dl", b.String())
	if err != nil {
		t.Fatal(err)
	}
	q, _ := parser.ParseQuery("q(X)?")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, goal := range []bool{false, true} {
		st := store.NewMemory()
		var as []reasoner.Answer
		if goal {
			as, err = reasoner.Query(ctx, st, prog, q.Atom, reasoner.Options{})
		} else {
			if _, err = reasoner.Infer(ctx, st, prog, reasoner.Options{}); err == nil {
				as, err = reasoner.Query(ctx, st, nil, q.Atom, reasoner.Options{})
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(as) != 200 || as[0].Confidence != 1 {
			t.Fatalf("goal-directed %v: %d answers (first %+v), want 200 of confidence 1", goal, len(as), as[0])
		}
	}
}
