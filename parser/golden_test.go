package parser

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden parses every testdata/*.dl, prints it and compares with
// testdata/*.dl.golden; the printed program must parse back to the same
// program, and the participle-only path must build the same AST.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.dl")
	if err != nil || len(files) == 0 {
		t.Fatal("no testdata", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			p, err := ParseString(file, string(src))
			if err != nil {
				t.Fatal(err)
			}
			slow := &datalog.Program{}
			if ds, _ := parseSource(context.Background(), slow, file, string(src), true); len(ds) > 0 {
				t.Fatal(ds)
			}
			if !reflect.DeepEqual(p, slow) {
				t.Errorf("fast and participle paths differ:\n%#v\n%#v", p, slow)
			}
			got := p.String()
			golden := file + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("printed program differs from %s:\n%s", golden, got)
			}
			q, err := ParseString("printed", got)
			if err != nil {
				t.Fatalf("printed program does not parse: %v\n%s", err, got)
			}
			if !equalModuloPos(p, q) {
				t.Errorf("round trip changed the program:\n%s\n%s", got, q)
			}
		})
	}
}

// equalModuloPos reports whether two programs are equal once positions
// and comments are cleared.
func equalModuloPos(a, b *datalog.Program) bool {
	return reflect.DeepEqual(stripPos(a), stripPos(b))
}

// stripTerm returns t without positions, also inside expressions.
func stripTerm(t datalog.Term) datalog.Term {
	t.Pos = datalog.Pos{}
	if t.Kind == datalog.Compound {
		x := *t.X
		x.Args = nil
		for _, a := range t.X.Args {
			x.Args = append(x.Args, stripTerm(a))
		}
		x.Body = nil
		for _, l := range t.X.Body {
			x.Body = append(x.Body, stripLit(l))
		}
		t.X = &x
	}
	return t
}

func stripAtom(a datalog.Atom) datalog.Atom {
	a.Pos = datalog.Pos{}
	var args []datalog.Term
	for _, t := range a.Args {
		args = append(args, stripTerm(t))
	}
	a.Args = args
	return a
}

func stripLit(l datalog.Literal) datalog.Literal {
	l.Pos = datalog.Pos{}
	l.Left, l.Right = stripTerm(l.Left), stripTerm(l.Right)
	if l.Kind != datalog.Comparison {
		l.Atom = stripAtom(l.Atom)
	}
	return l
}

func stripPos(p *datalog.Program) *datalog.Program {
	q := &datalog.Program{}
	at := stripAtom
	for _, f := range p.Facts {
		q.Facts = append(q.Facts, datalog.Fact{Weight: f.Weight, Atom: at(f.Atom)})
	}
	for _, r := range p.Rules {
		var body []datalog.Literal
		for _, l := range r.Body {
			body = append(body, stripLit(l))
		}
		q.Rules = append(q.Rules, datalog.Rule{Weight: r.Weight, Head: at(r.Head), Body: body})
	}
	for _, x := range p.Queries {
		q.Queries = append(q.Queries, datalog.Query{Atom: at(x.Atom)})
	}
	for _, im := range p.Imports {
		q.Imports = append(q.Imports, datalog.Import{Path: im.Path})
	}
	for _, a := range p.Aggregates {
		a.Pos = datalog.Pos{}
		q.Aggregates = append(q.Aggregates, a)
	}
	for _, th := range p.Thresholds {
		q.Thresholds = append(q.Thresholds, datalog.Threshold{Min: th.Min})
	}
	return q
}

func TestParseQuery(t *testing.T) {
	for _, tc := range []struct{ src, want, err string }{
		{src: "wife(X, alice)?", want: "wife(X, alice)?"},
		{src: "wife(X, alice)", want: "wife(X, alice)?"},
		{src: `  "/m/x"(X, "Person3")  `, want: `"/m/x"(X, "Person3")?`},
		{src: "likes(zoë, café)?", want: "likes(zoë, café)?"},
		{src: "größer(Émile, straße)", want: "größer(Émile, straße)?"},
		{src: "p(東京, X٣)?", want: "p(東京, X٣)?"},
		{src: "p(x, ‿)?", err: "query:1:6: error: unexpected character '‿'"},
		{src: "p(12é)?", err: "query:1:3: error: malformed number \"12é\" (quote it to make it a name)"},
		{src: "wife(X, alice).", err: "query:1:1: error: expected one query, an atom such as wife(X, alice)?"},
		{src: "wife(X :- b)?", err: `query:1:8: error: unexpected ":-", expected ")"`},
		{src: "0.5 :: wife(X, a)?", err: "query:1:1: error: a query cannot have a weight"},
		{src: "", err: "query:1:1: error: empty query: write an atom such as wife(X, alice)?"},
		{src: "  ? ", err: "query:1:3: error: empty query: write an atom such as wife(X, alice)?"},
		{src: "wife(X, alice", err: `query:1:14: error: unexpected end of query, expected ")"`},
		{src: "wife(X, alice?", err: `query:1:14: error: unexpected "?", expected ")"`},
	} {
		q, err := ParseQuery(tc.src)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseQuery(%q) error = %v, want %s", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil || q.String() != tc.want {
			t.Errorf("ParseQuery(%q) = %s, %v; want %s", tc.src, q, err, tc.want)
		}
	}
}

func TestParseFileImports(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) { writeFile(t, dir, name, text) }
	write("main.dl", "@import \"kg/extra.tsv\".\n@import \"rules.dl\".\nwife(X, Y) :- husband(Y, X).\n")
	write("kg/extra.tsv", "\ufeffbob\thusband\talice\r\n\r\n/m/01\t/people/person/spouse\t01698271\r\n")
	write("rules.dl", "@import \"main.dl\".\n@import \"kg/extra.tsv\".\nhusband(carl, dana).\n")
	p, err := ParseFile(filepath.Join(dir, "main.dl"))
	if err == nil {
		t.Fatal("want an import cycle error")
	}
	rules := filepath.Join(dir, "rules.dl")
	wantErr := rules + `:1:1: error: import cycle: ` + filepath.Join(dir, "main.dl") + " -> " + rules + " -> " + filepath.Join(dir, "main.dl")
	if err.Error() != wantErr {
		t.Errorf("error:\n%v\nwant\n%s", err, wantErr)
	}
	want := "husband(bob, alice).\n\"/people/person/spouse\"(\"/m/01\", \"01698271\").\nhusband(carl, dana).\n\nwife(X, Y) :- husband(Y, X).\n"
	if got := p.String(); got != want {
		t.Errorf("program:\n%s\nwant\n%s", got, want)
	}
	tsv := filepath.Join(dir, "kg/extra.tsv")
	if f := p.Facts[1]; f.Pos != (datalog.Pos{File: tsv, Line: 3, Col: 1}) || f.Atom.Args[1].Pos.Col != 29 {
		t.Errorf("fact position %v, tail %v", f.Pos, f.Atom.Args[1].Pos)
	}

	write("bad.dl", "@import \"bad.tsv\".\n@import \"missing.tsv\".\n")
	write("bad.tsv", "a\tb\n\tb\tc\na\tb\tc\td\na\t\tc\nok\tr\tok\n")
	p, err = ParseFile(filepath.Join(dir, "bad.dl"))
	badTSV := filepath.Join(dir, "bad.tsv")
	wantLines := []string{
		filepath.Join(dir, "bad.dl") + `:2:1: error: cannot import "missing.tsv": open ` + filepath.Join(dir, "missing.tsv") + ": no such file or directory",
		badTSV + ":1:1: error: want 3 tab-separated fields (head, relation, tail), got 2",
		badTSV + ":2:1: error: empty head",
		badTSV + ":3:1: error: want 3 tab-separated fields (head, relation, tail), got 4",
		badTSV + ":4:3: error: empty relation",
	}
	if err == nil || err.Error() != strings.Join(wantLines, "\n") {
		t.Errorf("error:\n%v\nwant\n%s", err, strings.Join(wantLines, "\n"))
	}
	if len(p.Facts) != 1 || p.Facts[0].String() != "r(ok, ok)." {
		t.Errorf("facts %v", p.Facts)
	}
}
