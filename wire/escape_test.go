package wire

import (
	"bytes"
	"context"
	"testing"

	"github.com/drumql/drumql/reasoner"
)

// TestAnswersEscaped checks that a tab or a newline inside a value keeps
// an answer on one line of TSV and of a table, streamed or not.
func TestAnswersEscaped(t *testing.T) {
	as := []reasoner.Answer{{Values: []string{"a\tb", "c\nd"}, Confidence: 1}}
	for _, format := range []string{"tsv", "table"} {
		var b bytes.Buffer
		if err := WriteAnswers(context.Background(), &b, format, []string{"X", "Y"}, as); err != nil {
			t.Fatal(err)
		}
		var s bytes.Buffer
		st := NewAnswerStream(&s, format, []string{"X", "Y"})
		st.Write(as[0])
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		for _, out := range []string{b.String(), s.String()} {
			if n := bytes.Count([]byte(out), []byte("\n")); n != 2 || !bytes.Contains([]byte(out), []byte(`a\tb`)) {
				t.Errorf("%s: %q: want a header and one line, a\\tb escaped", format, out)
			}
		}
	}
}
