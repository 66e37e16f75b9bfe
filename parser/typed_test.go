package parser

import (
	"strings"
	"testing"
)

func TestParseTyped(t *testing.T) {
	for _, s := range []string{"wife(X, alice)", " wife(X, alice)? ", "wife(X, alice)."} {
		q, err := ParseTyped(s)
		if err != nil || q.Atom.Pred != "wife" || len(q.Atom.Args) != 2 {
			t.Errorf("%q: %v, %v", s, q, err)
		}
	}
	// A syntax error reads as the diagnostic under the text typed, less the
	// final "." and the white space around it.
	_, err := ParseTyped("  wife(X, .  ")
	if err == nil {
		t.Fatal("no error")
	}
	want := "query:1:9: error: unexpected end of query, expected a literal or an expression\nwife(X, \n        ^"
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant:\n%s", err, want)
	}
	if strings.Contains(err.Error(), "wife(X, .") {
		t.Errorf("the final dot is shown:\n%s", err)
	}
}
