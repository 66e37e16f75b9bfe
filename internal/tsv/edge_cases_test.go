package tsv

import (
	"strings"
	"testing"
)

// lineCases are lines at the edges of three tab-separated fields: want is
// the error's reason, "" for a triple.
var lineCases = []struct {
	line, want string
}{
	{"a\tb\tc", ""},
	{"a\tb\t\tc", "want 3 tab-separated fields (head, relation, tail), got 4"},
	{"a\tb\tc\t", "want 3 tab-separated fields (head, relation, tail), got 4"},
	{"\ta\tb\tc", "want 3 tab-separated fields (head, relation, tail), got 4"},
	{"a\tb", "want 3 tab-separated fields (head, relation, tail), got 2"},
	{"a", "want 3 tab-separated fields (head, relation, tail), got 1"},
}

// TestParseLineEdges parses each line of lineCases.
func TestParseLineEdges(t *testing.T) {
	for _, c := range lineCases {
		_, err := ParseLine(c.line)
		got := ""
		if err != nil {
			got = err.Reason
		}
		if !strings.Contains(got, c.want) || (c.want == "") != (got == "") {
			t.Errorf("%q: error %q, want %q", c.line, got, c.want)
		}
	}
}
