package rulefile

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/parser"
)

// TestLoadSouffle: a Soufflé file is read as such by the commands that take
// rule files (its first line, .decl, is no longer a parse error) and
// combined with a file of drumql's dialect by relation name: the merged
// program holds both files' rules, Soufflé's variables renamed to the
// dialect's (cmd/drumql's TestSouffleRuleFile evaluates it over a store).
func TestLoadSouffle(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sf := write("reach.dl", `.decl edge(x: symbol, y: symbol)
.input edge
.decl reach(x: symbol, y: symbol)
.output reach
reach(x, y) :- edge(x, y).
reach(x, z) :- reach(x, y), edge(y, z).
`)
	df := write("far.dl", "far(X, Y) :- reach(X, Y), not edge(X, Y).\n")
	set, err := Load(context.Background(), []string{sf, df}, parser.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range set.Prog.Rules {
		got = append(got, r.Key())
	}
	want := []string{
		"reach(V0, V1) :- edge(V0, V1).",
		"reach(V0, V1) :- reach(V0, V2), edge(V2, V1).",
		"far(V0, V1) :- reach(V0, V1), not edge(V0, V1).",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rules %q, want %q", got, want)
	}
	if set.Prog.Rules[1].Pos.File != sf || set.Prog.Rules[1].Pos.Line != 6 {
		t.Errorf("the second rule is at %v, want %s:6", set.Prog.Rules[1].Pos, sf)
	}
}

// TestLoadSouffleRunOnly: what only drumql run gives its meaning is an
// error at its declaration, naming drumql run; so is a relation declared
// with another arity than a drumql file gives it.
func TestLoadSouffleRunOnly(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ src, want string }{
		{".decl r(x: number, y: number) choice-domain x\nr(1, 2).\n", "c.dl:1:7: error: the choice domain of r: run the program with drumql run"},
		{".decl r(x: number)\n.limitsize r(n=2)\nr(1).\n", "c.dl:2:1: error: .limitsize r: run the program with drumql run"},
		{".pragma \"magic-transform\" \"*\"\n.decl r(x: number)\nr(1).\n", "c.dl:1:1: error: .pragma \"magic-transform\": run the program with drumql run"},
	} {
		p := filepath.Join(dir, "c.dl")
		if err := os.WriteFile(p, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(context.Background(), []string{p}, parser.FileOptions{})
		if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), dir+"/", ""), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
	s := filepath.Join(dir, "s.dl")
	d := filepath.Join(dir, "d.dl")
	os.WriteFile(s, []byte(".decl r(x: symbol, y: symbol)\nr(\"a\", \"b\").\n"), 0o644)
	os.WriteFile(d, []byte("q(X) :- r(X).\n"), 0o644)
	if _, err := Load(context.Background(), []string{s, d}, parser.FileOptions{}); err == nil || !strings.Contains(err.Error(), "predicate r used with 1 argument here but with 2 arguments") {
		t.Errorf("arities differ: error %v", err)
	}
}
