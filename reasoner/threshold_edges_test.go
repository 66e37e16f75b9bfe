package reasoner_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// thresholdCases are the resolution of the threshold (Options.Min, else
// the program's @min, else exact) and its boundary: a derivation exactly
// at the threshold is kept, one just below it is dropped. The program
// derives s(q, a) at 0.5 and s(q, b) just below 0.5, s(q, c) at 0.25 and
// s(q, d) at 0.0625 (a chain of two rules of 0.25); want is the values
// answered.
var thresholdCases = []struct {
	directive string // the program's @min, or ""
	min       float64
	want      string
}{
	{"", 0, "a b c d"},
	{"", 0.5, "a"},
	{"", below05, "a b"},
	{"", 0.25, "a b c"},
	{"", 0.0625, "a b c d"},
	{"", 1, ""},
	{"@min 0.5.", 0, "a"},
	{"@min 0.25.", 0, "a b c"},
	{"@min 0.25.", 0.5, "a"},     // the option overrides the program
	{"@min 0.5.", 0.25, "a b c"}, // also downwards
	{"@min 0.0625.", 0, "a b c d"},
	{"@min 0.07.", 0, "a b c"},
}

// below05 is the float64 just below 0.5.
const below05 = 0.49999999999999994

// TestThresholds queries the program of thresholdCases under each
// threshold and directive.
func TestThresholds(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	if _, err := st.Load(ctx, &store.Batch{Graph: []store.NamedTriple{
		{S: "q", R: "e1", O: "a"}, {S: "q", R: "e2", O: "b"}, {S: "q", R: "e3", O: "c"}, {S: "q", R: "e4", O: "d"},
	}}, nil); err != nil {
		t.Fatal(err)
	}
	q, err := parser.ParseQuery("s(q, Y)?")
	if err != nil {
		t.Fatal(err)
	}
	const rules = "0.5 :: s(X, Y) :- e1(X, Y).\n0.49999999999999994 :: s(X, Y) :- e2(X, Y).\n0.25 :: s(X, Y) :- e3(X, Y).\n0.25 :: s(X, Y) :- t(X, Y).\n0.25 :: t(X, Y) :- e4(X, Y).\n"
	for _, c := range thresholdCases {
		prog, err := parser.ParseString("t.dl", c.directive+"\n"+rules)
		if err != nil {
			t.Fatal(err)
		}
		as, err := reasoner.Query(ctx, st, prog, q.Atom, reasoner.Options{Min: c.min})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range as {
			got = append(got, a.Values[0])
		}
		slices.Sort(got)
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%q, Min %v: answers %q, want %q", c.directive, c.min, g, c.want)
		}
	}
}
