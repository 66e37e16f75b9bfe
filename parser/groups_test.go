package parser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
)

// TestRuleGroupsRoundTrip checks that @groups directives, short and
// wrapped over several lines, quoted relation names and none, read back as
// written: the parsed directive holds what the text says (checked by
// hand), and printing it gives the text again.
func TestRuleGroupsRoundTrip(t *testing.T) {
	short := `@groups(threshold = 0.4, rules = 5, sum = "0123456789abcdef") for wife: 1 3 4; 2 5.`
	p, err := ParseString("g.dl", short)
	if err != nil {
		t.Fatal(err)
	}
	want := datalog.RuleGroups{Pred: "wife", Threshold: 0.4, Rules: 5, Sum: "0123456789abcdef", Groups: [][]int32{{1, 3, 4}, {2, 5}}}
	if len(p.RuleGroups) != 1 {
		t.Fatalf("%d directives", len(p.RuleGroups))
	}
	got := p.RuleGroups[0]
	if got.Pred != want.Pred || got.Threshold != want.Threshold || got.Rules != want.Rules || got.Sum != want.Sum ||
		fmt.Sprint(got.Groups) != fmt.Sprint(want.Groups) || got.Pos.Line != 1 || got.Pos.Col != 1 {
		t.Errorf("parsed %+v, want %+v", got, want)
	}
	if s := got.String(); s != short {
		t.Errorf("printed %q, want %q", s, short)
	}
	// A long one wraps and reads back the same; a relation with a quoted
	// name; none with no group of two.
	long := datalog.RuleGroups{Pred: "/film/film/genre", Threshold: 1, Rules: 400, Sum: "fedcba9876543210"}
	for i := int32(1); i+1 <= 400; i += 3 {
		long.Groups = append(long.Groups, []int32{i, i + 1})
	}
	empty := datalog.RuleGroups{Pred: "husband", Threshold: 0, Rules: 3, Sum: "00000000000000ff"}
	for _, rg := range []datalog.RuleGroups{long, empty} {
		text := rg.String()
		for line := range strings.SplitSeq(text, "\n") {
			if len(line) > 110 {
				t.Errorf("a line of %d columns: %q", len(line), line)
			}
		}
		back, err := ParseString("g.dl", text)
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		if len(back.RuleGroups) != 1 || back.RuleGroups[0].String() != text || fmt.Sprint(back.RuleGroups[0].Groups) != fmt.Sprint(rg.Groups) {
			t.Errorf("%s read back as %v", text, back.RuleGroups)
		}
	}
	if !strings.Contains(long.String(), "\n") || !strings.HasPrefix(long.String(), `@groups(threshold = 1, rules = 400, sum = "fedcba9876543210") for "/film/film/genre": 1 2; 4 5;`) {
		t.Errorf("long directive printed as %q", long.String())
	}
	if s := empty.String(); s != `@groups(threshold = 0, rules = 3, sum = "00000000000000ff") for husband.` {
		t.Errorf("empty directive printed as %q", s)
	}
}

// TestRuleGroupsDiagnostics checks the errors of bad @groups directives,
// each at its line and column, the texts written by hand, and the warning
// for a directive that does not match its relation's rules. The sum of
// p(X, Y) :- q(X, Y) and p(X, Y) :- r(Y, X) was computed apart from the
// code: printf 'p(V0, V1) :- q(V0, V1).\np(V0, V1) :- r(V1, V0).\n' |
// sha256sum, its first 16 digits.
func TestRuleGroupsDiagnostics(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`@groups(threshold = 0.4, rules = 3) for p: 1 2.`,
			`g.dl:1:1: error: @groups for p: parameter sum is missing (it takes threshold, rules and sum)`},
		{`@groups(threshold = 0.4, rules = 3, sum = 5) for p: 1 2.`,
			`g.dl:1:37: error: @groups: sum must be a string of 16 hexadecimal digits, not 5`},
		{`@groups(threshold = "a", rules = 3, sum = "0123456789abcdef") for p.`,
			`g.dl:1:9: error: @groups: threshold must be a number, not "a"`},
		{`@groups(threshold = 0.4, rules = 2.5, sum = "0123456789abcdef") for p.`,
			`g.dl:1:26: error: @groups: rules must be a positive integer, not 2.5`},
		{`@groups(threshold = 0.4, rules = 3, sum = "0123456789abcdef", top = 1) for p.`,
			`g.dl:1:63: error: @groups has no parameter top (it takes threshold, rules and sum)`},
		{`@groups(threshold = 0.4, threshold = 0.5, rules = 3, sum = "0123456789abcdef") for p.`,
			`g.dl:1:26: error: @groups: parameter threshold set twice`},
		{`@groups(threshold = 0.4, rules = 3, sum = "0123456789abcdef") for p: a.`,
			`g.dl:1:70: error: unexpected "a", expected rule numbers`},
		{`@groups(threshold = 0.4, rules = 3, sum = "0123456789abcdef") for p: 1 2.5.`,
			`g.dl:1:70: error: @groups: 2.5 is not a rule number (an integer from 1)`},
		{`@groups(threshold = 1.5, rules = 3, sum = "0123456789abcdef") for p.`,
			`g.dl:1:1: error: @groups for p: threshold must be a number in [0, 1] (the overlap of the grouped aggregation), not 1.5`},
		{`@groups(threshold = 0.4, rules = 3, sum = "0123456789abcdeg") for p.`,
			`g.dl:1:1: error: @groups for p: sum must be 16 hexadecimal digits (the fingerprint of the relation's rules), not "0123456789abcdeg"`},
		{`@groups(threshold = 0.4, rules = 3, sum = "0123456789abcdef") for p: 1 4; 2 2; 3.`,
			"g.dl:1:1: error: @groups for p: rule 4 is not one of the 3 rules (1 to 3)\n" +
				"g.dl:1:1: error: @groups for p: rule 2 is in two groups\n" +
				"g.dl:1:1: error: @groups for p: group 3 has 1 rule; a group lists two or more (a rule in none is a group of its own)"},
		{"@groups(threshold = 0.4, rules = 3, sum = \"0123456789abcdef\") for p.\n@groups(threshold = 0.5, rules = 3, sum = \"0123456789abcdef\") for p.",
			"g.dl:1:1: warning: @groups for p does not match its rules (0 now, 3 when the groups were found, or changed other than in weight): their groups are found again from the store\n" +
				`g.dl:2:1: warning: a second @groups for p: the first is used`},
		{"p(X, Y) :- q(X, Y).\np(X, Y) :- r(Y, X).\n" + `@groups(threshold = 0.4, rules = 2, sum = "10924e958de4ad5a") for p: 1 2.`, ""},
		{"p(X, Y) :- q(X, Y).\np(X, Y) :- r(X, Y).\n" + `@groups(threshold = 0.4, rules = 2, sum = "10924e958de4ad5a") for p: 1 2.`,
			"g.dl:3:1: warning: @groups for p does not match its rules (2 now, 2 when the groups were found, or changed other than in weight): their groups are found again from the store"},
	} {
		p, err := ParseString("g.dl", tc.src)
		var ds datalog.Diagnostics
		if err != nil {
			ds = err.(datalog.Diagnostics)
		} else {
			ds = datalog.Validate(p)
		}
		var lines []string
		for _, d := range ds {
			lines = append(lines, d.String())
		}
		if got := strings.Join(lines, "\n"); got != tc.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// TestProgramSum checks datalog.ProgramSum: the order of facts and rules
// and the names of variables change nothing, nor do directives; a weight,
// a fact or a rule does.
func TestProgramSum(t *testing.T) {
	sum := func(src string) string {
		t.Helper()
		p, err := ParseString("p.dl", src)
		if err != nil {
			t.Fatal(err)
		}
		return datalog.ProgramSum(p)
	}
	base := sum("@min 0.1.\nh(a, b).\n0.8 :: w(A, B) :- h(B, A).\n0.5 :: s(A) :- h(A, _).\n")
	for _, same := range []string{
		"0.5 :: s(X) :- h(X, _).\nh(a, b).\n0.8 :: w(X, Y) :- h(Y, X).\n",
		"@min 0.3.\n@aggregate max for w.\n0.8 :: w(A, B) :- h(B, A).\nh(a, b).\n0.5 :: s(A) :- h(A, _).\n",
	} {
		if got := sum(same); got != base {
			t.Errorf("%q: sum %s, want %s", same, got, base)
		}
	}
	for _, other := range []string{
		"h(a, b).\n0.7 :: w(A, B) :- h(B, A).\n0.5 :: s(A) :- h(A, _).\n",
		"0.9 :: h(a, b).\n0.8 :: w(A, B) :- h(B, A).\n0.5 :: s(A) :- h(A, _).\n",
		"h(a, c).\n0.8 :: w(A, B) :- h(B, A).\n0.5 :: s(A) :- h(A, _).\n",
		"h(a, b).\n0.8 :: w(A, B) :- h(A, B).\n0.5 :: s(A) :- h(A, _).\n",
		"h(a, b).\n0.8 :: w(A, B) :- h(B, A).\n",
	} {
		if got := sum(other); got == base {
			t.Errorf("%q: the same sum as the base program", other)
		}
	}
}
