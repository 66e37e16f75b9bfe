package server

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/wire"
)

// TestRuleEditRoundTrip removes a rule, adds it back and re-weights one,
// checking the answers against a fresh evaluation of the files after every
// edit, and the files on disk: the removed rule's lines are gone, every
// other line and comment is kept, added rules are in the edits file, and a
// restart on the files finds the stored derived facts up to date.
func TestRuleEditRoundTrip(t *testing.T) {
	e := newEnv(t, testGraph, testRules, nil)
	graph := graphOf(t, testGraph)
	check := func(step string) {
		t.Helper()
		e.sameAsFresh(step, graph, []string{e.rules, e.edits}, "wife(X, Y)?", "grand(X, Y)?", "spouse(X, Y)?")
	}
	check("start")
	const aunt = "wife(A, B) :- aunt(A, C), uncle(B, C), A != B."

	// remove the rule written over two lines: erin's answer disappears
	var up wire.Update
	json.Unmarshal(e.mustDo(200, "POST", "/v1/rules", fmt.Sprintf(`{"remove": [%q]}`, "wife(X, Y) :- aunt(X, Z), uncle(Y, Z), X != Y.")), &up)
	if up.Removed != 1 || up.Reweighted != 1 || up.RulesRemoved != 1 || len(up.Facts) != 2 {
		t.Errorf("remove: %+v", up)
	}
	if _, ok := e.ask("wife(X, Y)?")["erin gus"]; ok {
		t.Error("erin is still gus's wife")
	}
	src, _ := os.ReadFile(e.rules)
	want := `% family rules, hand-written
% score=0.9 ranks=1 support=2 body=3 conf=0.6667
0.8 :: wife(A, B) :- husband(B, A).
   % the aunt and uncle of a child are married
0.9 :: grand(X, Z) :- father(X, Y), mother(Y, Z).
% the end
`
	if string(src) != want {
		t.Errorf("rules.dl after the removal:\n%s\nwant:\n%s", src, want)
	}
	check("removed")

	// add it back: the answer is back, the rule in the edits file
	json.Unmarshal(e.mustDo(200, "POST", "/v1/rules", fmt.Sprintf(`{"add": [%q, %q]}`, aunt, "0.5 :: spouse(X, Y) :- wife(X, Y).")), &up)
	if up.Added != 4 || up.RulesAdded != 2 {
		t.Errorf("add: %+v", up)
	}
	if c := e.ask("wife(X, Y)?")["erin gus"]; c != 1 {
		t.Errorf("erin gus: %v", c)
	}
	edits, _ := os.ReadFile(e.edits)
	if !strings.HasPrefix(string(edits), "%") || !strings.HasSuffix(string(edits), "\n"+aunt+"\n0.5 :: spouse(X, Y) :- wife(X, Y).\n") {
		t.Errorf("edits.dl:\n%s", edits)
	}
	check("added back")

	// re-weight the rule of the first line of rules.dl (the lines below
	// move up) and remove a rule of the edits file
	e.mustDo(200, "POST", "/v1/rules", `{"remove": ["wife(A, B) :- husband(B, A).", "0.5 :: spouse(X, Y) :- wife(X, Y)."],
		"add": ["0.6 :: wife(A, B) :- husband(B, A)."]}`)
	check("re-weighted")
	var rules []wire.Rule
	json.Unmarshal(e.mustDo(200, "GET", "/v1/rules", ""), &rules)
	for _, r := range rules {
		b, _ := os.ReadFile(r.File)
		lines := strings.Split(string(b), "\n")
		if r.Line < 1 || r.Line > len(lines) || !strings.HasPrefix(lines[r.Line-1], strings.TrimSuffix(r.Rule, ".")) {
			t.Errorf("rule %s is not at %s:%d", r.Rule, r.File, r.Line)
		}
	}

	// a restart on the files as they are finds nothing to update
	e.ts.Close()
	e.start(nil)
	if !strings.Contains(e.how, "up to date") {
		t.Errorf("the restart: derived facts %s", e.how)
	}
	b := e.mustDo(200, "GET", "/metrics", "")
	if !strings.Contains(string(b), "drumql_rules 3") {
		t.Errorf("after the restart: %s", b)
	}
	check("restarted")
}

// TestFactEdits adds and removes base facts and compares the answers with
// a fresh evaluation.
func TestFactEdits(t *testing.T) {
	e := newEnv(t, testGraph, testRules, nil)
	graph := graphOf(t, testGraph)
	steps := []struct {
		name     string
		add, del string
		base     [2]int // base facts added, removed
	}{
		{"add", "kim husband lee\nhal father kai\nkai mother lia", "", [2]int{3, 0}},
		{"remove", "", "carol aunt dan\nhal father kai", [2]int{0, 2}},
		{"both", "carol aunt dan", "marc_ueda husband alice_ortiz\nnobody husband at_all", [2]int{1, 1}},
		{"again", "carol aunt dan", "", [2]int{0, 0}},
	}
	for _, s := range steps {
		req := FactsRequest{Add: [][]string{}, Remove: [][]string{}}
		for _, l := range strings.Split(s.add, "\n") {
			if l != "" {
				req.Add = append(req.Add, strings.Fields(l))
			}
		}
		for _, l := range strings.Split(s.del, "\n") {
			if l != "" {
				req.Remove = append(req.Remove, strings.Fields(l))
			}
		}
		body, _ := json.Marshal(req)
		var up wire.Update
		json.Unmarshal(e.mustDo(200, "POST", "/v1/facts", string(body)), &up)
		if up.BaseAdded != s.base[0] || up.BaseRemoved != s.base[1] {
			t.Errorf("%s: %+v", s.name, up)
		}
		for _, t3 := range req.Remove {
			graph = slicesDelete(graph, t3)
		}
		for _, t3 := range req.Add {
			if !slicesHas(graph, t3) {
				graph = append(graph, tripleOf(t3))
			}
		}
		for _, q := range []string{"wife(X, Y)?", "grand(X, Y)?", "husband(X, Y)?"} {
			sameAnswers(t, s.name+": "+q, e.ask(q), fresh(t, graph, []string{e.rules}, q))
		}
	}
}

// TestRemoveFromStatement removes rules written as one statement with
// others (several heads; bodies separated by ';') and rules with the
// comment drumql mine writes above each rule, checking the file on disk
// after each edit: a statement that keeps rules is rewritten as the rules
// it keeps (the comments inside it on lines of their own above them), one
// that keeps none goes with its own comment line, and every other line and
// comment stays as it was. The answers match a fresh
// evaluation of the file, the rules' positions their lines, and a restart
// finds the stored facts up to date.
func TestRemoveFromStatement(t *testing.T) {
	const rules = `% mined rules, and a header comment
% ---- a ----
% score=0.5 ranks=1 support=2 body=4 conf=0.5
0.5 :: a(X, Y), b(X, Y) :- husband(X, Y).   % two heads
% a hand-written note on the rules below
% score=0.4 ranks=2 support=1 body=4 conf=0.25
0.4 :: d(X, Y) :- husband(X, Y) ; aunt(X, Y).
  f(X, Y) :- uncle(X, Y).
0.3 :: g(X, Y),   % g and h
  h(X, Y) :- uncle(X, Y).
% the end
`
	e := newEnv(t, testGraph, rules, nil)
	graph := graphOf(t, testGraph)
	// each step's file is the previous one with cut replaced by put
	steps := []struct{ name, remove, cut, put string }{
		{"one head of two", "0.5 :: a(X, Y) :- husband(X, Y).",
			"0.5 :: a(X, Y), b(X, Y) :- husband(X, Y).", "0.5 :: b(X, Y) :- husband(X, Y)."},
		{"one body of two", "d(X, Y) :- husband(X, Y).",
			"d(X, Y) :- husband(X, Y) ; aunt(X, Y).", "d(X, Y) :- aunt(X, Y)."},
		{"an indented rule without a comment of its own", "f(A, B) :- uncle(A, B).",
			"  f(X, Y) :- uncle(X, Y).\n", ""},
		{"the last rule of a statement, with its comment", "d(X, Y) :- aunt(X, Y).",
			"% score=0.4 ranks=2 support=1 body=4 conf=0.25\n0.4 :: d(X, Y) :- aunt(X, Y).\n", ""},
		{"a rule with a comment on its line", "b(X, Y) :- husband(X, Y).",
			"% score=0.5 ranks=1 support=2 body=4 conf=0.5\n0.5 :: b(X, Y) :- husband(X, Y).", ""},
		{"one head of two, a comment inside", "0.3 :: g(X, Y) :- uncle(X, Y).",
			"0.3 :: g(X, Y),   % g and h\n  h(X, Y) :- uncle(X, Y).", "% g and h\n0.3 :: h(X, Y) :- uncle(X, Y)."},
	}
	want := rules
	for _, s := range steps {
		var up wire.Update
		json.Unmarshal(e.mustDo(200, "POST", "/v1/rules", mustJSON(t, RulesRequest{Remove: []string{s.remove}})), &up)
		if up.RulesRemoved != 1 {
			t.Errorf("%s: %+v", s.name, up)
		}
		if !strings.Contains(want, s.cut) {
			t.Fatalf("%s: %q is not in the file", s.name, s.cut)
		}
		want = strings.Replace(want, s.cut, s.put, 1)
		src, _ := os.ReadFile(e.rules)
		if string(src) != want {
			t.Fatalf("%s: rules.dl:\n%s\nwant:\n%s", s.name, src, want)
		}
		e.sameAsFresh(s.name, graph, []string{e.rules}, "a(X, Y)?", "b(X, Y)?", "d(X, Y)?", "f(X, Y)?", "g(X, Y)?", "h(X, Y)?")
		var listed []wire.Rule
		json.Unmarshal(e.mustDo(200, "GET", "/v1/rules", ""), &listed)
		lines := strings.Split(string(src), "\n")
		for _, r := range listed {
			// the statement's first line, or (several heads) its second
			if r.Line < 1 || r.Line >= len(lines) || !strings.Contains(lines[r.Line-1]+lines[r.Line], r.Head+"(X, Y)") {
				t.Errorf("%s: rule %s is not at %s:%d", s.name, r.Rule, r.File, r.Line)
			}
		}
		for _, r := range listed {
			if r.Head == "h" && strings.HasPrefix(s.name, "one head of two, a comment") && lines[r.Line-1] != "0.3 :: h(X, Y) :- uncle(X, Y)." {
				t.Errorf("%s: the kept rule is at line %d: %q", s.name, r.Line, lines[r.Line-1])
			}
		}
		if s.name == "one head of two" && (len(listed) != 6 || listed[0].Support == nil || *listed[0].Support != 2) {
			t.Errorf("%s: the kept rule lost its counts: %+v", s.name, listed)
		}
	}
	e.ts.Close()
	e.start(nil)
	if !strings.Contains(e.how, "up to date") {
		t.Errorf("the restart: derived facts %s", e.how)
	}
}

// sameAsFresh checks the server's answers to the queries against a fresh
// evaluation of the files over graph (a predicate nothing derives may be
// unknown to the server: 404).
func (e *testEnv) sameAsFresh(step string, graph []store.NamedTriple, files []string, queries ...string) {
	t := e.t
	t.Helper()
	for _, q := range queries {
		want := fresh(t, graph, files, q)
		code, b := e.do("POST", "/v1/query", fmt.Sprintf(`{"query": %q}`, q))
		got := answers{}
		switch {
		case code == 200:
			got = rowsOf(t, q, b)
		case code == 404 && len(want) == 0:
		default:
			t.Fatalf("%s: %s: %d %s", step, q, code, b)
		}
		sameAnswers(t, step+": "+q, got, want)
	}
}

// TestFactEditsRemovedDoNotCount adds and removes a base fact, another
// each time, many more times than the fact cap: a removed fact no longer
// counts toward --max-facts, so no edit is refused.
func TestFactEditsRemovedDoNotCount(t *testing.T) {
	e := newEnv(t, testGraph, testRules, func(c *Config) { c.MaxFacts = 20 })
	for i := range 60 {
		fact := fmt.Sprintf(`[["p%d", "husband", "q%d"]]`, i, i)
		var up wire.Update
		json.Unmarshal(e.mustDo(200, "POST", "/v1/facts", `{"add": `+fact+`}`), &up)
		if up.Added != 1 {
			t.Fatalf("add %d: %+v", i, up)
		}
		json.Unmarshal(e.mustDo(200, "POST", "/v1/facts", `{"remove": `+fact+`}`), &up)
		if up.Removed != 1 {
			t.Fatalf("remove %d: %+v", i, up)
		}
	}
	e.sameAsFresh("after the edits", graphOf(t, testGraph), []string{e.rules}, "wife(X, Y)?", "grand(X, Y)?")
}
