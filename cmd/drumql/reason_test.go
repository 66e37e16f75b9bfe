package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// TestWarnUnknownBody: a body predicate that neither the store nor the
// program defines is a warning, with the names nearest to it (quoted when
// needed).
func TestWarnUnknownBody(t *testing.T) {
	st := store.NewMemory()
	b := store.Batch{Graph: []store.NamedTriple{
		{S: "a", R: "wife", O: "b"}, {S: "b", R: "wives", O: "a"}, {S: "a", R: "/people/spouse_s", O: "b"},
	}}
	if _, err := st.Load(context.Background(), &b, nil); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		src, want string
	}{
		{"p(X, Y) :- wife(X, Y).\n", ""},
		{"p(X, Y) :- wief(X, Y).\n",
			"r.dl:1:12: warning: wief is not a relation of the store and no rule or fact defines it: the literal never holds; did you mean wife, wives?\n"},
		{"p(X, Y) :- \"/people/spouse\"(X, Y).\n",
			"r.dl:1:12: warning: \"/people/spouse\" is not a relation of the store and no rule or fact defines it: the literal never holds; did you mean \"/people/spouse_s\"?\n"},
		{"p(X, Y) :- colleague(X, Y).\n",
			"r.dl:1:12: warning: colleague is not a relation of the store and no rule or fact defines it: the literal never holds\n"},
		// Defined by a rule of the program: no warning; a misspelt use of it
		// is suggested the rule's head.
		{"spouse(X) :- wife(X, _).\np(X) :- spouse(X).\nr(X) :- spuose(X).\n",
			"r.dl:3:9: warning: spuose is not a relation of the store and no rule or fact defines it: the literal never holds; did you mean spouse?\n"},
	}
	for _, c := range cases {
		prog, err := parser.ParseString("r.dl", c.src)
		if err != nil {
			t.Fatal(err)
		}
		var w bytes.Buffer
		warnUnknownBody(&w, st, prog)
		got := w.String()
		// Keep the first line of each warning (the source line and caret follow).
		var first bytes.Buffer
		for i, line := range bytes.SplitAfter([]byte(got), []byte("\n")) {
			if i%3 == 0 {
				first.Write(line)
			}
		}
		if first.String() != c.want {
			t.Errorf("%q: warnings\n%s\nwant first lines\n%s", c.src, got, c.want)
		}
	}
}
