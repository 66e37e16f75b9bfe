package exchange

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
)

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkProgram compares the converted program, printed, with the Datalog
// written by hand in testdata/want, and checks that it parses back and
// validates.
func checkProgram(t *testing.T, p *datalog.Program, want string) {
	t.Helper()
	got := p.String()
	if w := string(readFile(t, want)); got != w {
		t.Errorf("converted program differs from %s:\n--- got\n%s--- want\n%s", want, got, w)
	}
	back, err := parser.ParseString(want, got)
	if err != nil {
		t.Fatalf("the converted program does not parse: %v", err)
	}
	if ds := datalog.Validate(back); len(ds) > 0 {
		t.Fatalf("the converted program does not validate without warnings: %v", ds)
	}
}

func TestReadAnyBURLShapes(t *testing.T) {
	res, err := ReadAnyBURL("shapes.txt", bytes.NewReader(readFile(t, "anyburl-shapes.txt")), ReadOptions{Smoothing: DefaultSmoothing})
	if err != nil {
		t.Fatal(err)
	}
	checkProgram(t, res.Program, "anyburl-shapes.dl")
	want := Report{Lines: 17, Rules: 13, ZeroBody: 2, PriorRelations: []string{"P27"}, NoWeight: 1, Duplicates: 1}
	if !equalReports(res.Report, want) {
		t.Errorf("report = %+v, want %+v", res.Report, want)
	}
	if p := res.Program.Rules[0].Pos; p != (datalog.Pos{File: "shapes.txt", Line: 1, Col: 11}) {
		t.Errorf("first rule's position = %v, want shapes.txt:1:11 (its rule column)", p)
	}
}

func equalReports(a, b Report) bool {
	return a.Lines == b.Lines && a.Rules == b.Rules && a.ZeroBody == b.ZeroBody && a.NoWeight == b.NoWeight &&
		a.Duplicates == b.Duplicates && slices.Equal(a.PriorRelations, b.PriorRelations)
}

func TestReadAnyBURLWeights(t *testing.T) {
	line := "1302\t165\t0.126728111\thasNeighbor(X,Y) <= dealsWith(Y,X)\n"
	for _, tc := range []struct {
		opt  ReadOptions
		want float64
	}{
		{ReadOptions{Smoothing: DefaultSmoothing}, 0.1262}, // 165/(1302+5)
		{ReadOptions{Smoothing: 10}, 0.1258},               // 165/1312
		{ReadOptions{}, 0.1267},                            // 165/1302, 4 digits: the zero value adds none
		{ReadOptions{Column: true}, 0.126728111},           // as written
	} {
		res, err := ReadAnyBURL("w.txt", strings.NewReader(line), tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Program.Rules[0].Weight; got != tc.want {
			t.Errorf("%+v: weight %v, want %v", tc.opt, got, tc.want)
		}
	}
}

// TestReadAnyBURLPriorForAll: when every relation of the file has
// zero-body rules, one directive says it for the whole file.
func TestReadAnyBURLPriorForAll(t *testing.T) {
	src := "10\t5\t0.5\tr(X,Y) <= s(Y,X)\n100\t4\t0.04\tr(X,c) <= \n100\t3\t0.03\ts(d,Y) <=\n"
	res, err := ReadAnyBURL("p.txt", strings.NewReader(src), ReadOptions{Smoothing: DefaultSmoothing})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Program.Aggregates) != 1 || res.Program.Aggregates[0].String() != "@aggregate max(prior = 1)." {
		t.Errorf("directives = %v, want one @aggregate max(prior = 1).", res.Program.Aggregates)
	}
}

func TestReadAnyBURLErrors(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"20\t10\tr(X,Y) <= s(X,Y)", "e.txt:1: expected predicted<TAB>correct<TAB>confidence<TAB>rule, found 2 field(s) before the rule"},
		{"x\t10\t0.5\tr(X,Y) <= s(X,Y)", `e.txt:1:1: predicted "x" is not a count (a whole number, at least 0)`},
		{"20\t-1\t0.5\tr(X,Y) <= s(X,Y)", `e.txt:1:4: correct "-1" is not a count (a whole number, at least 0)`},
		{"20\t30\t0.5\tr(X,Y) <= s(X,Y)", "e.txt:1:4: correct 30 is more than predicted 20"},
		{"20\t10\t1.5\tr(X,Y) <= s(X,Y)", `e.txt:1:7: confidence "1.5" is not a number in [0, 1]`},
		{"20\t10\t0.5\tr(X,Y) => s(X,Y)", `e.txt:1:11: expected one " <= " between the head and the body`},
		{"20\t10\t0.5\tr(X,Y) <= s(X,Y) <= t(X,Y)", `e.txt:1:11: expected one " <= " between the head and the body`},
		{"20\t10\t0.5\tr(X,Y) <= s(X,Y), t", `e.txt:1:29: expected an atom relation(a,b), found "t"`},
		{"20\t10\t0.5\tr(X,Y) <= s(X)", "e.txt:1:21: s(X) needs two arguments, found (X)"},
		{"20\t10\t0.5\tr(X,Y) <= s(a,b,c)", "e.txt:1:21: s(a,b,c): cannot tell its two arguments apart (a name with a comma and no variable)"},
		{"20\t10\t0.5\tr(X,Y) <= s(X,)", "e.txt:1:21: s(X,) has an empty argument"},
		{"20\t10\t0.5\tr(X,Y) <= s(X,A)", "e.txt:1:11: the head variable Y does not occur in the body"},
		{"20\t10\t0.5\tr(X,Y) <=", "e.txt:1:11: r has no body and no constant: a zero-body rule is r(X,c) <= or r(c,Y) <="},
		{"20\t10\t0.5\tr(me_myself_i,me_myself_i) <= s(X,Y)", "e.txt:1:11: r(me_myself_i,me_myself_i): both arguments are me_myself_i"},
		{"20\t10\t0.5\tmy rel(X,Y) <= s(X,Y)", `e.txt:1:11: the relation name "my rel" has a space`},
		{"20 10 0.5 r(X,Y) <= s(X,Y) t", `e.txt:1:21: expected an atom relation(a,b), found "s(X,Y) t"`},
		{"20 10 r(X,Y) <= s(X,Y)", "e.txt:1: expected predicted<TAB>correct<TAB>confidence<TAB>rule, found 2 field(s) before the rule"},
	} {
		_, err := ReadAnyBURL("e.txt", strings.NewReader(tc.line+"\n"), ReadOptions{Smoothing: DefaultSmoothing})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.line, err, tc.want)
		}
	}
}

// TestReadAnyBURLManyErrors: the first MaxErrors errors are listed, in
// line order, and the rest counted.
func TestReadAnyBURLManyErrors(t *testing.T) {
	var b strings.Builder
	for range 25 {
		b.WriteString("bad line\n")
	}
	_, err := ReadAnyBURL("m.txt", strings.NewReader(b.String()), ReadOptions{Smoothing: DefaultSmoothing})
	var es *Errors
	if !errors.As(err, &es) || len(es.List) != MaxErrors || es.More != 5 || es.List[19].Line != 20 {
		t.Fatalf("got %v", err)
	}
	if !strings.HasSuffix(err.Error(), "\n... and 5 more") {
		t.Errorf("the message does not count the rest: %s", err)
	}
}

func TestReadAMIE(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"amie-classic.tsv", "amie-classic.dl"},
		{"amie-datalog.tsv", "amie-datalog.dl"},
	} {
		res, err := ReadAMIE(tc.in, bytes.NewReader(readFile(t, tc.in)), ReadOptions{Smoothing: DefaultSmoothing})
		if err != nil {
			t.Fatal(err)
		}
		checkProgram(t, res.Program, tc.want)
	}
}

func TestReadAMIEWeights(t *testing.T) {
	src := readFile(t, "amie-classic.tsv")
	for _, tc := range []struct {
		opt  ReadOptions
		want float64
	}{
		{ReadOptions{Smoothing: DefaultSmoothing}, 0.9171},            // 5158/(5619+5)
		{ReadOptions{Std: true, Smoothing: DefaultSmoothing}, 0.5298}, // 5158/(9730+5)
		{ReadOptions{Column: true}, 0.917897},                         // PCA Confidence
		{ReadOptions{Column: true, Std: true}, 0.530109},              // Std Confidence
		{ReadOptions{}, 0.918},                                        // 5158/5619: the zero value adds none
	} {
		res, err := ReadAMIE("w.tsv", bytes.NewReader(src), tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Program.Rules[0].Weight; got != tc.want {
			t.Errorf("%+v: weight %v, want %v", tc.opt, got, tc.want)
		}
	}
	res, err := ReadAMIE("w.tsv", bytes.NewReader(src), ReadOptions{Std: true, Smoothing: DefaultSmoothing})
	if err != nil {
		t.Fatal(err)
	}
	if c, want := res.Program.Rules[0].Comment, "from amie support=5158 body=9730 conf=0.5301 (std) pca=0.9179 pcabody=5619 hc=0.5301"; c != want {
		t.Errorf("comment %q, want %q", c, want)
	}
}

func TestReadAMIEErrors(t *testing.T) {
	const header = "Rule\tHead Coverage\tStd Confidence\tPCA Confidence\tPositive Examples\tBody size\tPCA Body size\tFunctional variable\n"
	for _, tc := range []struct{ src, want string }{
		{"?a  r  ?b   => ?a  h  ?b\t0.1\n", `e.tsv:1: no header line found (Rule<TAB>Head Coverage<TAB>Std Confidence<TAB>PCA Confidence<TAB>...): is this AMIE's output?`},
		{"Rule\tHead Coverage\tStd Confidence\n", `e.tsv:1: the header has no column "Positive Examples" (AMIE's columns: Rule	Head Coverage	Std Confidence)`},
		{header + "?a  r  ?b   => ?a  h  ?b\t0.1\t0.2\n", "e.tsv:2: expected at least 7 tab-separated columns, as the header says, found 3"},
		{header + "?a  r  ?b   => ?a  h  ?b   0.1 0.2 0.3 4 5 6 ?a\n", "e.tsv:2: expected the rule and its measures separated by tabs, as the header says"},
		{header + "?a  r  ?b   => ?a  h  ?b\t0.1\t0.2\t0.3\tfour\t20\t10\t?a\n", `e.tsv:2:38: Positive Examples "four" is not a number of at least 0`},
		{header + "?a  r  ?b   => ?a  h  ?b\t0.1\t0.2\t0.3\t4.5\t20\t10\t?a\n", `e.tsv:2:38: Positive Examples "4.5" is not a whole number`},
		{header + "?a  r  ?b   => ?a  h  ?b\t0.1\t0.2\t0.3\t40\t20\t10\t?a\n", "e.tsv:2:38: Positive Examples 40 is more than PCA Body size 10"},
		{header + "?a  r  ?b   ?a  h  ?b\t0.1\t0.2\t0.3\t4\t20\t10\t?a\n", `e.tsv:2:1: expected one "=>" between the body and the head`},
		{header + "?a  r   => ?a  h  ?b\t0.1\t0.2\t0.3\t4\t20\t10\t?a\n", "e.tsv:2:1: an atom needs three terms (subject relation object), found 2"},
		{header + "?a  r  ?b   => ?a  h\t0.1\t0.2\t0.3\t4\t20\t10\t?a\n", `e.tsv:2:16: expected one head atom after "=>": subject relation object`},
		{header + "?a  r  ?c   => ?a  h  ?b\t0.1\t0.2\t0.3\t4\t20\t10\t?a\n", "e.tsv:2:1: the head variable ?b does not occur in the body"},
		{header + "?a  r  ?b  ?a!=?c   => ?a  h  ?b\t0.1\t0.2\t0.3\t4\t20\t10\t?a\n", "e.tsv:2:1: the variable ?c of an inequality does not occur in a body atom"},
		{header + "?a  r  ?-   => ?a  h  ?b\t0.1\t0.2\t0.3\t4\t20\t10\t?a\n", `e.tsv:2:8: "?-" is not a variable AMIE writes (?a, ?b, ?a1, ...)`},
	} {
		_, err := ReadAMIE("e.tsv", strings.NewReader(tc.src), ReadOptions{Smoothing: DefaultSmoothing})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
}

// parseDL parses a drumql rule file of testdata with its comments.
func parseDL(t *testing.T, name string) *datalog.Program {
	t.Helper()
	src := readFile(t, name)
	p, err := parser.ParseString(name, string(src))
	if err != nil {
		t.Fatal(err)
	}
	AttachComments(p, name, src)
	return p
}

// writeDL writes the rules of a drumql rule file of testdata in AnyBURL's
// format.
func writeDL(t *testing.T, name string) (*datalog.Program, *bytes.Buffer, WriteReport) {
	t.Helper()
	p := parseDL(t, name)
	var out bytes.Buffer
	rep, err := WriteAnyBURL(&out, p.Rules, WriteOptions{Smoothing: DefaultSmoothing})
	if err != nil {
		t.Fatal(err)
	}
	return p, &out, rep
}

func TestWriteAnyBURL(t *testing.T) {
	_, out, rep := writeDL(t, "drumql-mixed.dl")
	if want := string(readFile(t, "drumql-mixed.txt")); out.String() != want {
		t.Errorf("written:\n%s\nwant:\n%s", out.String(), want)
	}
	var got []string
	for _, s := range rep.Skipped {
		got = append(got, s.Reason+" "+s.First.String())
	}
	want := []string{
		SkipNegation + " drumql-mixed.dl:11:1",
		SkipExpression + " drumql-mixed.dl:14:1",
		SkipBuiltin + " drumql-mixed.dl:15:1",
		SkipArity + " drumql-mixed.dl:18:1",
		SkipComparison + " drumql-mixed.dl:12:1",
		SkipGround + " drumql-mixed.dl:16:1",
		SkipShape + " drumql-mixed.dl:13:1",
		SkipName + " drumql-mixed.dl:10:1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rep.Written != 7 || rep.SkippedRules() != 9 || rep.Comparisons != 3 || rep.MadeUp != 6 || rep.OtherWeight != 0 {
		t.Errorf("report %+v", rep)
	}
}

// TestMadeUpCounts: counts made up from a weight give it back, whatever the
// weight and the smoothing.
func TestMadeUpCounts(t *testing.T) {
	for _, s := range []int{DefaultSmoothing, 0, 1, 20} {
		for _, w := range []float64{1, 0.9999, 0.83, 0.8333, 0.5, 0.1, 0.0001234, 1e-9, 0.333333333} {
			pred, corr := countsFor(w, s)
			if corr > pred || corr < 1 {
				t.Errorf("w=%v s=%d: counts %d/%d", w, s, corr, pred)
			}
			if got := smoothed(float64(corr), float64(pred), s); got != roundSig(w, weightDigits) {
				t.Errorf("w=%v s=%d: %d/(%d+%d) = %v", w, s, corr, pred, s, got)
			}
		}
	}
}

// ruleSet maps each rule's key to its weight.
func ruleSet(rules []datalog.Rule) map[string]float64 {
	m := map[string]float64{}
	for _, r := range rules {
		m[r.Key()] = r.Weight
	}
	return m
}

// TestRoundTripMined: a file drumql mine wrote (chain rules of one to three
// atoms with their comparisons, rules with constants) written in AnyBURL's
// format and read back gives the same rules with the same weights.
func TestRoundTripMined(t *testing.T) {
	p, out, rep := writeDL(t, "families-mined.dl")
	if rep.Written != len(p.Rules) || rep.MadeUp != 0 || rep.OtherWeight != 0 {
		t.Fatalf("report %+v for %d rules", rep, len(p.Rules))
	}
	res, err := ReadAnyBURL("back.txt", out, ReadOptions{Smoothing: DefaultSmoothing})
	if err != nil {
		t.Fatal(err)
	}
	if ds := datalog.Validate(res.Program); len(ds) > 0 {
		t.Errorf("the rules read back do not validate without warnings: %v", ds)
	}
	got, want := ruleSet(res.Program.Rules), ruleSet(p.Rules)
	if len(got) != len(want) {
		t.Errorf("%d rules back, want %d", len(got), len(want))
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("rule %s: weight back %v (found %v), want %v", k, g, ok, w)
		}
	}
}

// TestRoundTripAnyBURL: an AnyBURL file read and written back keeps its
// rules and counts (the confidence column is recomputed as
// correct/predicted); its zero-body rules and rules with no correct
// prediction are the ones lost.
func TestRoundTripAnyBURL(t *testing.T) {
	src := readFile(t, "anyburl-shapes.txt")
	res, err := ReadAnyBURL("shapes.txt", bytes.NewReader(src), ReadOptions{Smoothing: DefaultSmoothing})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep, err := WriteAnyBURL(&out, res.Program.Rules, WriteOptions{Smoothing: DefaultSmoothing})
	if err != nil || rep.SkippedRules() != 0 || rep.MadeUp != 0 {
		t.Fatalf("%v, report %+v", err, rep)
	}
	var want []string
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(src)), "\n") {
		f := strings.Fields(l)
		if len(f) < 5 || f[1] == "0" || strings.HasSuffix(strings.TrimSpace(l), "<=") || seen[l] {
			continue // blank, no correct prediction, zero-body, duplicate
		}
		seen[l] = true
		rule := strings.Join(f[3:], " ")
		rule = strings.ReplaceAll(rule, "r1(X,me_myself_i) <=", "r1(X,X) <=")
		want = append(want, f[0]+" "+f[1]+" "+rule)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		f := strings.Split(l, "\t")
		got = append(got, f[0]+" "+f[1]+" "+f[3])
	}
	if !slices.Equal(got, want) {
		t.Errorf("written back:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWalkPath(t *testing.T) {
	v, c := variable, symbol
	at := func(p string, a, b datalog.Term) datalog.Atom {
		return datalog.Atom{Pred: p, Args: []datalog.Term{a, b}}
	}
	for _, tc := range []struct {
		atoms []datalog.Atom
		ok    bool
	}{
		{[]datalog.Atom{at("r", v("X"), v("Y"))}, true},
		{[]datalog.Atom{at("r", v("A"), v("X")), at("s", v("A"), v("Y"))}, true},
		{[]datalog.Atom{at("r", v("X"), v("X"))}, true},                                                    // a loop ends a path
		{[]datalog.Atom{at("r", v("X"), v("A")), at("s", v("X"), v("B"))}, false},                          // two atoms hold X
		{[]datalog.Atom{at("r", v("X"), c("a")), at("s", c("a"), v("Y"))}, false},                          // a constant inside
		{[]datalog.Atom{at("r", v("X"), v("A")), at("s", v("A"), v("X"))}, false},                          // back to X
		{[]datalog.Atom{at("r", v("X"), v("A")), at("s", v("B"), v("Y"))}, false},                          // broken
		{[]datalog.Atom{at("r", v("X"), v("_")), at("s", v("_"), v("Y"))}, false},                          // _ inside
		{[]datalog.Atom{at("r", v("X"), v("Y")), at("s", v("Y"), v("A")), at("t", v("A"), v("Y"))}, false}, // Y twice
	} {
		if _, _, ok := walkPath("X", tc.atoms); ok != tc.ok {
			t.Errorf("%v: ok = %v, want %v", tc.atoms, ok, tc.ok)
		}
	}
}

// TestSmoothingOption: the Smoothing option is the number added, 0 for
// none (as convert's --smoothing 0), a negative value none; the default of
// convert and mine is 5.
func TestSmoothingOption(t *testing.T) {
	if DefaultSmoothing != 5 || smoothing(0) != 0 || smoothing(-1) != 0 || smoothing(3) != 3 || smoothing(DefaultSmoothing) != 5 {
		t.Error("smoothing option")
	}
	if math.Abs(smoothed(1, 5, 5)-0.1) > 0 {
		t.Error("smoothed(1, 5, 5) != 0.1")
	}
}
