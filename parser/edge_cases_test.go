package parser

import (
	"strings"
	"testing"
)

// queryEdgeCases are texts ParseQuery refuses, and the one it takes: it
// wants exactly one query and nothing else.
var queryEdgeCases = []struct {
	src  string
	want string // a part of the error, "" for none
}{
	{"wife(X, alice)?", ""},
	{"@import \"kg.tsv\".\nwife(X, alice)?", "expected one query"},
	{"p(a).\nwife(X, alice)?", "expected one query"},
	{"p(X) :- q(X).\nwife(X, alice)?", "expected one query"},
	{"wife(X, alice)?\nwife(alice, X)?", "expected one query"},
}

// TestParseQueryEdges parses each of queryEdgeCases.
func TestParseQueryEdges(t *testing.T) {
	for _, c := range queryEdgeCases {
		_, err := ParseQuery(c.src)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.src, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want one containing %q", c.src, err, c.want)
		}
	}
}

// TestByteOrderMark: a byte order mark starts a file of nothing, or of
// one fact, and is skipped.
func TestByteOrderMark(t *testing.T) {
	for src, facts := range map[string]int{"\ufeff": 0, "\ufeffp(a).\n": 1, "\ufeff\n": 0} {
		p, err := ParseString("bom.dl", src)
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if len(p.Facts) != facts || len(p.Rules) != 0 {
			t.Errorf("%q: %d facts and %d rules, want %d facts", src, len(p.Facts), len(p.Rules), facts)
		}
	}
}
