package server

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/wire"
)

// TestFactText reads facts as the page's facts box sends them: both forms,
// "+" and "-", blank and comment lines; a bad line's error at its line
// and column.
func TestFactText(t *testing.T) {
	nt := func(s, r, o string) store.NamedTriple { return store.NamedTriple{S: s, R: r, O: o} }
	for _, c := range []struct {
		text      string
		add, rm   []store.NamedTriple
		line, col int
		err       string
	}{
		{text: "husband(kim, lee)\n\n% a comment\n  - bob husband carol\n+ x r y", add: []store.NamedTriple{nt("kim", "husband", "lee"), nt("x", "r", "y")}, rm: []store.NamedTriple{nt("bob", "husband", "carol")}},
		{text: "husband(kim, lee).\n- wife(zoë, \"a b\")", add: []store.NamedTriple{nt("kim", "husband", "lee")}, rm: []store.NamedTriple{nt("zoë", "wife", "a b")}},
		{text: "kim husband lee\n  bob husband", line: 2, col: 14, err: "2 names"},
		{text: "kim husband lee extra", line: 1, col: 17, err: "4 names"},
		{text: "ok r x\n- husband(kim lee)", line: 2, col: 18, err: "unexpected"},
		{text: "\"a b\" r \"c \\\"d\\\"\"", add: []store.NamedTriple{nt("a b", "r", `c "d"`)}},
		{text: "- \"a b r c", line: 1, col: 3, err: "closing quote"},
		{text: "\"a b\"(x, y)", add: []store.NamedTriple{nt("x", "a b", "y")}},
		{text: "husband(kim, X)", line: 1, col: 14, err: "not variables"},
		{text: "- r(a, b, c)", line: 1, col: 3, err: "3 arguments"},
	} {
		add, rm, e := parseFactText(c.text)
		if c.line == 0 {
			if e != nil || !reflect.DeepEqual(add, c.add) || !reflect.DeepEqual(rm, c.rm) {
				t.Errorf("%q: add %v remove %v (%v), want %v %v", c.text, add, rm, e, c.add, c.rm)
			}
			continue
		}
		if e == nil || e.Line != c.line || e.Col != c.col || !strings.Contains(e.Error, c.err) || e.File != "text" {
			t.Errorf("%q: error %+v, want line %d col %d %q", c.text, e, c.line, c.col, c.err)
		}
	}

	// through the API: the facts applied, a bad line a 400 at its place
	e := newEnv(t, testGraph, testRules, nil)
	var up wire.Update
	json.Unmarshal(e.mustDo(200, "POST", "/v1/facts", mustJSON(t, FactsRequest{Text: "husband(kim, lee)\n- marc_ueda husband alice_ortiz"})), &up)
	if up.BaseAdded != 1 || up.BaseRemoved != 1 || up.Added != 1 || up.Removed != 1 {
		t.Errorf("text edit: %+v", up)
	}
	if got := e.ask("wife(X, Y)?"); math.Abs(got["lee kim"]-0.8) > 1e-6 || got["alice_ortiz marc_ueda"] != 0 {
		t.Errorf("after the text edit: %v", got)
	}
	bad := errorBody(t, e.mustDo(400, "POST", "/v1/facts", mustJSON(t, FactsRequest{Text: "kim husband lee\nhusband(a b)"})))
	if bad.File != "text" || bad.Line != 2 || bad.Col != 12 {
		t.Errorf("bad line: %+v", bad)
	}
}
