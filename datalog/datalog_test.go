package datalog

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestQuoting(t *testing.T) {
	for _, tc := range []struct {
		term Term
		want string
	}{
		{s("alice"), "alice"},
		{s("a_B9"), "a_B9"},
		{s("Person3"), `"Person3"`},
		{s("/m/027rn"), `"/m/027rn"`},
		{s("_also_see"), `"_also_see"`},
		{s("01698271"), `"01698271"`},
		{s("-3"), `"-3"`},
		{s(""), `""`},
		{s("not"), `"not"`},
		{s("a b"), `"a b"`},
		{s("é"), "é"},
		{s("zoë"), "zoë"},
		{s("東京"), "東京"},
		{s("e\u0301t\u00e9"), "e\u0301t\u00e9"}, // a decomposed and a composed é
		{s("Émile"), `"Émile"`},                 // an uppercase initial is a variable
		{s("ǅx"), `"ǅx"`},                       // so is a titlecase one
		{s("\u0301a"), "\"\u0301a\""},           // a combining mark cannot start a name
		{s("a\u00a0b"), "\"a\u00a0b\""},         // nor a no-break space be inside one
		{s("٣"), `"٣"`},                         // a digit, even Arabic-Indic, starts no name
		{s("a٣"), "a٣"},
		{s("a\xff"), "\"a\xff\""}, // invalid UTF-8
		{s("q\"b\\\n\t\r\x01\x7f"), `"q\"b\\\n\t\r\u0001\u007f"`},
		{n("42"), "42"},
		{n("-1.5"), "-1.5"},
		{v("X"), "X"},
		{v("_"), "_"},
	} {
		if got := tc.term.String(); got != tc.want {
			t.Errorf("%#v: got %s, want %s", tc.term, got, tc.want)
		}
	}
}

func TestCanonicalNumber(t *testing.T) {
	for in, want := range map[string]string{
		"0": "0", "-0": "0", "007": "7", "-007": "-7", "123456789012345678901234": "123456789012345678901234",
		"1.50": "1.5", "1.0": "1", "1e2": "100", "1E-5": "1e-05", "-0.0": "0", "2.5e+3": "2500", "1e21": "1e+21",
		"abc": "", "1.": "", ".5": "", "1e": "", "--1": "", "1e999": "",
	} {
		got, ok := CanonicalNumber(in)
		if got != want || ok != (want != "") {
			t.Errorf("CanonicalNumber(%q) = %q, %v; want %q", in, got, ok, want)
		}
		if ok {
			if again, _ := CanonicalNumber(got); again != got {
				t.Errorf("not idempotent: %q -> %q -> %q", in, got, again)
			}
		}
	}
}

func TestRuleString(t *testing.T) {
	r := rule(0.83, atom("/people/person/nationality", v("X"), v("Y")),
		pos(atom("/people/person/places_lived", v("X"), v("Z"))),
		neg(atom("located", v("Z"), s("Y"))),
		Literal{Kind: Comparison, Op: OpGe, Left: v("Z"), Right: n("3")})
	r.Comment = "score 0.91\nsupport 12"
	want := "% score 0.91\n% support 12\n" +
		`0.83 :: "/people/person/nationality"(X, Y) :- "/people/person/places_lived"(X, Z), not located(Z, "Y"), Z >= 3.`
	if got := r.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	p := &Program{
		Imports: []Import{{Path: "kg/x.tsv"}},
		Facts:   []Fact{{Weight: 1, Atom: atom("rain")}, {Weight: 0.5, Atom: atom("p", s("a"))}},
		Rules:   []Rule{rule(1, atom("wet"), pos(atom("rain")))},
		Queries: []Query{{Atom: atom("wife", v("X"), s("alice"))}},
	}
	wantP := "@import \"kg/x.tsv\".\n\nrain.\n0.5 :: p(a).\n\nwet :- rain.\n\nwife(X, alice)?\n"
	if got := p.String(); got != wantP {
		t.Errorf("got\n%s\nwant\n%s", got, wantP)
	}
}

func TestKey(t *testing.T) {
	a := rule(0.5, atom("h", v("A"), v("B")), pos(atom("b", v("B"), v("A"))))
	b := rule(1, atom("h", v("X"), v("Y")), pos(atom("b", v("Y"), v("X"))))
	c := rule(1, atom("h", v("X"), v("Y")), pos(atom("b", v("X"), v("Y"))))
	if a.Key() != b.Key() || a.Key() == c.Key() {
		t.Errorf("keys: %s %s %s", a.Key(), b.Key(), c.Key())
	}
	// Every _ is a distinct variable; _Name is a named variable.
	d := rule(1, atom("h", v("X")), pos(atom("b", v("X"), v("_"), v("_"))))
	e := rule(1, atom("h", v("X")), pos(atom("b", v("X"), v("_A"), v("_A"))))
	if d.Key() != "h(V0) :- b(V0, V1, V2)." || e.Key() != "h(V0) :- b(V0, V1, V1)." {
		t.Errorf("keys: %s %s", d.Key(), e.Key())
	}
	// Many variables (the map path) agree with few.
	var args []Term
	for i := range 40 {
		args = append(args, v(fmt.Sprintf("X%d", i%25)))
	}
	f := rule(1, atom("h", v("X0")), pos(atom("b", args...)))
	if k := f.Key(); !strings.HasPrefix(k, "h(V0) :- b(V0, V1,") || !strings.HasSuffix(k, "V23, V24, V0, V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13, V14).") {
		t.Errorf("key %s", k)
	}
}

func TestStratify(t *testing.T) {
	p := &Program{Rules: []Rule{
		rule(1, atom("unrelated", v("X"), v("Y")), pos(atom("person", v("X"))), pos(atom("person", v("Y"))), neg(atom("anc", v("X"), v("Y")))),
		rule(1, atom("anc", v("X"), v("Y")), pos(atom("parent", v("X"), v("Y")))),
		rule(1, atom("anc", v("X"), v("Y")), pos(atom("parent", v("X"), v("Z"))), pos(atom("anc", v("Z"), v("Y")))),
		rule(1, atom("odd", v("X")), pos(atom("succ", v("Y"), v("X"))), pos(atom("even", v("Y")))),
		rule(1, atom("even", v("X")), pos(atom("succ", v("Y"), v("X"))), pos(atom("odd", v("Y")))),
		rule(1, atom("lonely", v("X")), pos(atom("person", v("X"))), neg(atom("unrelated", v("X"), s("bob")))),
	}}
	st, ds := Stratify(p)
	if len(ds) != 0 {
		t.Fatal(ds)
	}
	want := Strata{
		{Preds: []string{"anc"}, Rules: []int{1, 2}, Recursive: true},
		{Preds: []string{"unrelated"}, Rules: []int{0}},
		{Preds: []string{"even", "odd"}, Rules: []int{3, 4}, Recursive: true},
		{Preds: []string{"lonely"}, Rules: []int{5}},
	}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("got %+v\nwant %+v", st, want)
	}
	if idx := st.Index(); idx["odd"] != 2 || idx["lonely"] != 3 || len(idx) != 5 {
		t.Errorf("index %v", idx)
	}
}

func TestMerge(t *testing.T) {
	expert := &Program{
		Facts: []Fact{{Weight: 1, Atom: atom("person", s("bob"))}},
		Rules: []Rule{
			at(rule(1, atom("single", v("X")), pos(atom("person", v("X"))), neg(atom("married", v("X"), v("_")))), "e.dl", 1),
			at(rule(0.5, atom("wife", v("X"), v("Y")), pos(atom("husband", v("Y"), v("X")))), "e.dl", 2),
		},
	}
	mined := &Program{Rules: []Rule{
		at(rule(0.9, atom("married", v("X"), v("Y")), pos(atom("wife", v("X"), v("Y")))), "m.dl", 1),
		at(rule(0.7, atom("wife", v("A"), v("B")), pos(atom("husband", v("B"), v("A")))), "m.dl", 2),
		at(rule(0.4, atom("married", v("X"), v("Y")), pos(atom("single", v("X"))), pos(atom("person", v("Y")))), "m.dl", 3),
		at(rule(0.3, atom("husband", v("X"), v("Y")), pos(atom("single", v("X"))), pos(atom("person", v("Y")))), "m.dl", 4),
		at(rule(0.2, atom("husband", v("X"), v("Y")), pos(atom("spouse", v("X"), v("Y")))), "m.dl", 5),
		at(rule(0.6, atom("person", v("X")), neg(atom("single", v("X"))), pos(atom("human", v("X")))), "m.dl", 6),
	}}
	got, ds := Merge(expert, mined)
	want := "m.dl:2:1: warning: duplicate rule: same as the rule at e.dl:2:1; its weight is updated from 0.5 to 0.7\n" +
		"m.dl:3:1: error: mined rule rejected: it would create a cycle through negation: married -> single -> not married\n" +
		"m.dl:4:1: error: mined rule rejected: it would create a cycle through negation: husband -> single -> not married -> wife -> husband\n" +
		"m.dl:6:1: error: mined rule rejected: it would create a cycle through negation: person -> not single -> person"
	if ds.Error() != want {
		t.Errorf("diagnostics:\n%s\nwant\n%s", ds.Error(), want)
	}
	wantP := "person(bob).\n\n" +
		"single(X) :- person(X), not married(X, _).\n" +
		"0.7 :: wife(X, Y) :- husband(Y, X).\n" +
		"0.9 :: married(X, Y) :- wife(X, Y).\n" +
		"0.2 :: husband(X, Y) :- spouse(X, Y).\n"
	if got.String() != wantP {
		t.Errorf("merged:\n%s\nwant\n%s", got, wantP)
	}
	if expert.Rules[1].Weight != 0.5 || len(expert.Rules) != 2 {
		t.Error("Merge modified its input")
	}
	if _, ds := Stratify(got); len(ds) != 0 {
		t.Errorf("merged program has a negative cycle: %v", ds)
	}
}

// TestMergeDifferential checks Merge's incremental test against Stratify
// on the program built so far: a rule is rejected exactly when adding it
// to the accepted rules creates a cycle through negation.
func TestMergeDifferential(t *testing.T) {
	preds := []string{"a", "b", "c", "d", "e", "f"}
	seed := uint64(7)
	rnd := func(k int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % k
	}
	for round := 0; round < 200; round++ {
		var rules []Rule
		for i := 0; i < 12; i++ {
			r := rule(1, atom(preds[rnd(len(preds))], v("X")), pos(atom("base", v("X"))))
			for j := rnd(3); j >= 0; j-- {
				l := pos(atom(preds[rnd(len(preds))], v("X")))
				if rnd(5) == 0 {
					l.Kind = Negated
				}
				r.Body = append(r.Body, l)
			}
			rules = append(rules, at(r, "m.dl", i+1))
		}
		got, ds := Merge(&Program{}, &Program{Rules: rules})
		var accepted []Rule
		rejected := map[int]bool{}
		for _, d := range ds {
			if d.Severity == Error {
				rejected[d.Pos.Line] = true
			}
		}
		keys := map[string]bool{}
		for i, r := range rules {
			if keys[r.Key()] {
				continue
			}
			_, cyc := Stratify(&Program{Rules: append(append([]Rule{}, accepted...), r)})
			if (len(cyc) > 0) != rejected[i+1] {
				t.Fatalf("round %d rule %d (%s): stratify says cycle=%v, merge rejected=%v", round, i, r, len(cyc) > 0, rejected[i+1])
			}
			if len(cyc) == 0 {
				accepted = append(accepted, r)
				keys[r.Key()] = true
			}
		}
		if len(got.Rules) != len(accepted) {
			t.Fatalf("round %d: %d rules merged, want %d", round, len(got.Rules), len(accepted))
		}
	}
}

func TestCheckQuery(t *testing.T) {
	known := map[string]int{"wife": 2, "husband": 2, "/people/person/spouse_s": 2, "person": 1}
	names := []string{"wife", "husband", "/people/person/spouse_s", "person"}
	lookup := func(p string) (int, bool) { a, ok := known[p]; return a, ok }
	q := func(pred string, args ...Term) Query {
		a := atom(pred, args...)
		a.Pos = Pos{File: "query", Line: 1, Col: 1}
		return Query{Atom: a, Pos: a.Pos}
	}
	for _, tc := range []struct {
		q    Query
		want string
	}{
		{q("wife", v("X"), s("alice")), ""},
		{q("wief", v("X"), s("alice")), "query:1:1: error: unknown predicate wief; did you mean wife?"},
		{q("/people/person/spouse", v("X"), v("Y")), `query:1:1: error: unknown predicate "/people/person/spouse"; did you mean "/people/person/spouse_s"?`},
		{q("zzz", v("X")), "query:1:1: warning: nothing defines zzz (no fact of the store or of the program, no rule): the answer is empty"},
		{q("wife", v("X")), "query:1:1: error: predicate wife has 2 arguments, but the query gives 1 argument"},
	} {
		err := CheckQuery(tc.q, lookup, names...)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func TestRender(t *testing.T) {
	ds := Diagnostics{
		{Pos{"a.dl", 2, 9}, Error, "boom"},
		{Pos{"a.dl", 1, 3}, Warning, "hmm"},
		{Pos{}, Error, "no position"},
	}
	ds.Sort()
	src := "\tp(é, X).\r\nq(a) :- r(b).\n"
	want := "a.dl:1:3: warning: hmm\n\tp(é, X).\n\t ^\n" +
		"a.dl:2:9: error: boom\nq(a) :- r(b).\n        ^\n" +
		"error: no position\n"
	if got := ds.Format(map[string]string{"a.dl": src}); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if !ds.HasErrors() || ds.Err() == nil || (Diagnostics{{Severity: Warning}}).Err() != nil {
		t.Error("HasErrors/Err")
	}
}

// TestRenderExcerpt: a long line is shown as 100 characters around the
// column, cut with "…", the caret still under the column; control
// characters and invalid bytes are shown as U+FFFD, not echoed raw.
func TestRenderExcerpt(t *testing.T) {
	long := strings.Repeat("a", 5000) + "X" + strings.Repeat("b", 5000) + "\n"
	for _, tc := range []struct {
		name, src string
		col       int
		want      string
	}{
		{"middle", long, 5001, "…" + strings.Repeat("a", 50) + "X" + strings.Repeat("b", 49) + "…\n" + strings.Repeat(" ", 51) + "^\n"},
		{"start", long, 1, strings.Repeat("a", 100) + "…\n^\n"},
		{"end", long, 10001, "…" + strings.Repeat("b", 100) + "\n" + strings.Repeat(" ", 100) + "^\n"},
		{"exactly 100", strings.Repeat("c", 100), 100, strings.Repeat("c", 100) + "\n" + strings.Repeat(" ", 99) + "^\n"},
		{"control characters", "p(\x1b[2J\x00, \xff).", 13, "p(\uFFFD[2J\uFFFD, \uFFFD).\n" + strings.Repeat(" ", 12) + "^\n"},
	} {
		ds := Diagnostics{{Pos{"a.dl", 1, tc.col}, Error, "e"}}
		got := ds.Format(map[string]string{"a.dl": tc.src})
		if want := "a.dl:1:" + strconv.Itoa(tc.col) + ": error: e\n" + tc.want; got != want {
			t.Errorf("%s: got\n%q\nwant\n%q", tc.name, got, want)
		}
	}
}
