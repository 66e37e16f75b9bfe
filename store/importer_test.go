package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func lineErrors(err error) []string {
	var le *LoadError
	if !errors.As(err, &le) {
		return nil
	}
	var out []string
	for _, e := range le.Errs {
		out = append(out, fmt.Sprintf("%d: %s", e.Line, e.Reason))
	}
	return out
}

func TestReadTSV(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []NamedTriple
		wantErr []string
	}{
		{"LF", "a\tr\tb\nc\tr\td\n", []NamedTriple{{"a", "r", "b"}, {"c", "r", "d"}}, nil},
		{"CRLF", "a\tr\tb\r\nc\tr\td\r\n", []NamedTriple{{"a", "r", "b"}, {"c", "r", "d"}}, nil},
		{"BOM", "\uFEFFa\tr\tb\n", []NamedTriple{{"a", "r", "b"}}, nil},
		{"NoFinalNewline", "a\tr\tb", []NamedTriple{{"a", "r", "b"}}, nil},
		{"BlankLines", "\n\r\na\tr\tb\n   \n\n", []NamedTriple{{"a", "r", "b"}}, nil},
		{"Unicode", "Zoë\t/people/ç\t東京\n", []NamedTriple{{"Zoë", "/people/ç", "東京"}}, nil},
		{"TwoFields", "a\tr\n", nil, []string{"1: want 3 tab-separated fields (head, relation, tail), got 2"}},
		{"FourFields", "a\tr\tb\tc\n", nil, []string{"1: want 3 tab-separated fields (head, relation, tail), got 4"}},
		{"SpacesNotTabs", "a r b\n", nil, []string{"1: want 3 tab-separated fields (head, relation, tail), got 1"}},
		{"EmptyHead", "\tr\tb\n", nil, []string{"1: empty head"}},
		{"EmptyRelation", "a\t\tb\n", nil, []string{"1: empty relation"}},
		{"EmptyTail", "a\tr\t\r\n", nil, []string{"1: empty tail"}},
		{"InvalidUTF8", "a\tr\t\xff\n", nil, []string{"1: invalid UTF-8"}},
		// Cases on which parser.ParseTriples read the same file differently
		// before both used internal/tsv.
		{"WhiteSpaceLines", "\t\t\n \r\r\n\u00a0\na\tr\tb\r\r\n", []NamedTriple{{"a", "r", "b"}}, nil},
		{"WhiteSpaceRelation", "a\t \tb\n", nil, []string{"1: empty relation"}},
		{"NBSPTail", "a\tr\t\u00a0\n", nil, []string{"1: empty tail"}},
		{"TrailingTab", "a\tr\tb\t\n", nil, []string{"1: want 3 tab-separated fields (head, relation, tail), got 4"}},
		{"NoComments", "# kg\n", nil, []string{"1: want 3 tab-separated fields (head, relation, tail), got 1"}},
		{"SpacesKept", " a\tr \tb\n", []NamedTriple{{" a", "r ", "b"}}, nil},
		{"AllErrorsInOrder", "a\tr\tb\nx\n\ny\tr\t\nok\tr\tb\n\xfe\tr\tb\n", nil,
			[]string{"2: want 3 tab-separated fields (head, relation, tail), got 1", "4: empty tail", "6: invalid UTF-8"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "g.tsv", tc.in)
			b, err := ReadTSV(path)
			if tc.wantErr != nil {
				if b != nil {
					t.Error("batch returned with errors")
				}
				if got := lineErrors(err); !reflect.DeepEqual(got, tc.wantErr) {
					t.Errorf("errors = %q, want %q (err %v)", got, tc.wantErr, err)
				}
				if err != nil && !strings.HasPrefix(err.Error(), path+":") {
					t.Errorf("error %q does not start with file:line", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(b.Graph, tc.want) {
				t.Errorf("Graph = %q, want %q", b.Graph, tc.want)
			}
		})
	}
}

func TestLoadErrorFormat(t *testing.T) {
	var sb strings.Builder
	for range 25 {
		sb.WriteString("bad\n")
	}
	path := writeFile(t, t.TempDir(), "g.tsv", sb.String())
	_, err := ReadTSV(path)
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 21 || lines[20] != "... and 5 more errors" || lines[19] != path+":20: want 3 tab-separated fields (head, relation, tail), got 1" {
		t.Errorf("Error() =\n%s", err)
	}
	var le LineError
	if !errors.As(err, &le) || le.Line != 1 {
		t.Errorf("errors.As LineError: %+v", le)
	}
}

func TestReadDataset(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "facts.txt", "a\tr\tb\r\nb\tr\tc\r\n")
	writeFile(t, dir, "train.txt", "c\ts\ta\r\n")
	writeFile(t, dir, "valid.txt", "a\ts\tc\r\n")
	writeFile(t, dir, "test.txt", "z\tr\ta\r\nb\ts\ta\r\n")
	writeFile(t, dir, "entities.txt", "\uFEFFa\r\nb\r\nc\r\nz\r\n")
	writeFile(t, dir, "relations.txt", "s\nr\n")
	b, err := ReadDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := &Batch{
		Symbols: []string{"a", "b", "c", "z", "s", "r"},
		Graph:   []NamedTriple{{"a", "r", "b"}, {"b", "r", "c"}, {"c", "s", "a"}},
		Splits: map[string][]NamedTriple{
			"facts": {{"a", "r", "b"}, {"b", "r", "c"}},
			"train": {{"c", "s", "a"}},
			"valid": {{"a", "s", "c"}},
			"test":  {{"z", "r", "a"}, {"b", "s", "a"}},
		},
	}
	if !reflect.DeepEqual(b, want) {
		t.Errorf("ReadDataset =\n%+v\nwant\n%+v", b, want)
	}
	// Optional files may be missing; facts.txt or train.txt may not.
	os.Remove(filepath.Join(dir, "entities.txt"))
	os.Remove(filepath.Join(dir, "valid.txt"))
	os.Remove(filepath.Join(dir, "facts.txt"))
	b, err = ReadDataset(dir)
	if err != nil || len(b.Graph) != 1 || len(b.Splits) != 2 {
		t.Errorf("without optional files: %+v, %v", b, err)
	}
	os.Remove(filepath.Join(dir, "train.txt"))
	if _, err := ReadDataset(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("without facts and train: %v", err)
	}
	// Errors of all files are collected.
	writeFile(t, dir, "facts.txt", "a\tr\n")
	writeFile(t, dir, "test.txt", "a\tr\tb\nc\t\td\n")
	_, err = ReadDataset(dir)
	var le *LoadError
	if !errors.As(err, &le) || len(le.Errs) != 2 || !strings.HasSuffix(le.Errs[0].File, "facts.txt") || le.Errs[1].Line != 2 {
		t.Errorf("errors across files: %v", err)
	}
}

func TestReadFamilyDataset(t *testing.T) {
	b, err := ReadPath(filepath.Join("..", "examples", "family"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Graph) != 17615+5868 || len(b.Splits["valid"]) != 2038 || len(b.Splits["test"]) != 2835 || len(b.Symbols) != 3007+12 {
		t.Fatalf("family: graph %d, valid %d, test %d, symbols %d", len(b.Graph), len(b.Splits["valid"]), len(b.Splits["test"]), len(b.Symbols))
	}
	m := NewMemory()
	st, err := m.Load(context.Background(), b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.NewFacts+st.Skipped != len(b.Graph) {
		t.Errorf("stats %+v", st)
	}
	rels, _ := m.Relations()
	if len(rels) != 12 {
		t.Errorf("%d relations, want 12", len(rels))
	}
}

func TestReadNTriples(t *testing.T) {
	good := `# a comment
<http://ex/s> <http://ex/p> <http://ex/o> .
_:b1 <http://ex/p> "plain" .
<http://ex/s>	<http://ex/p>	"tab\there \"quoted\" \u00e9\U0001F600"@en-GB .
<http://ex/s> <http://ex/p> "42"^^<http://www.w3.org/2001/XMLSchema#integer> . # trailing comment
<http://ex/\u0041> <http://ex/p> _:b2 .
`
	path := writeFile(t, t.TempDir(), "g.nt", good+"\r\n")
	b, err := ReadPath(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []NamedTriple{
		{"http://ex/s", "http://ex/p", "http://ex/o"},
		{"_:b1", "http://ex/p", "plain"},
		{"http://ex/s", "http://ex/p", "tab\there \"quoted\" é😀@en-GB"},
		{"http://ex/s", "http://ex/p", "42"},
		{"http://ex/A", "http://ex/p", "_:b2"},
	}
	if !reflect.DeepEqual(b.Graph, want) {
		t.Errorf("Graph = %q\nwant %q", b.Graph, want)
	}
	bad := []struct{ line, reason string }{
		{`<s> <p> <o>`, "missing final '.'"},
		{`<s> <p> .`, "missing object"},
		{`<s> <p> <o> . extra`, "unexpected text after '.'"},
		{`<s <p> <o> .`, "not allowed in IRI"},
		{`<s> <p> <o .`, "not allowed in IRI"},
		{`<s> <p> <o`, "unterminated IRI"},
		{`<> <p> <o> .`, "empty IRI"},
		{`"lit" <p> <o> .`, "bad subject"},
		{`<s> _:p <o> .`, "bad predicate"},
		{`<s> <p> "unterminated .`, "unterminated literal"},
		{`<s> <p> "bad \q escape" .`, "bad escape \\q"},
		{`<s> <p> "\u12" .`, "bad \\u escape"},
		{`<s> <p> "x"^^xsd:int .`, "want <datatype IRI>"},
		{`<s> <p> "x"@ .`, "empty language tag"},
		{`<s> <p> _: .`, "empty blank node label"},
		{`s p o .`, "bad subject"},
	}
	var sb strings.Builder
	for _, c := range bad {
		sb.WriteString(c.line + "\n")
	}
	sb.WriteString("<s> <p> \"\xff\" .\n")
	path = writeFile(t, t.TempDir(), "bad.nt", sb.String())
	_, err = ReadNTriples(path)
	var le *LoadError
	if !errors.As(err, &le) || len(le.Errs) != len(bad)+1 {
		t.Fatalf("got %v", err)
	}
	for i, c := range bad {
		if e := le.Errs[i]; e.Line != i+1 || !strings.Contains(e.Reason, c.reason) {
			t.Errorf("%s: got %d: %s, want %q", c.line, e.Line, e.Reason, c.reason)
		}
	}
	if e := le.Errs[len(bad)]; e.Reason != "invalid UTF-8" {
		t.Errorf("invalid UTF-8: got %s", e.Reason)
	}
}

func TestReadPathDispatch(t *testing.T) {
	dir := t.TempDir()
	tsv := writeFile(t, dir, "g.txt", "a\tr\tb\n")
	if b, err := ReadPath(tsv); err != nil || len(b.Graph) != 1 {
		t.Errorf("ReadPath(tsv) = %v, %v", b, err)
	}
	if _, err := ReadPath(filepath.Join(dir, "missing.tsv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadPath(missing) = %v", err)
	}
}

// FuzzReadTSV checks that the reader never panics, that accepted triples are
// well formed, and that writing them back and reading again is lossless.
func FuzzReadTSV(f *testing.F) {
	f.Add([]byte("a\tr\tb\r\nc\tr\td\n"))
	f.Add([]byte("\uFEFFa\tr\tb"))
	f.Add([]byte("x\n\ty\t\n\xff\t\t\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c collector
		ts, err := parseTSV(strings.NewReader(string(data)), "f", &c)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.errs) > 0 {
			return
		}
		var sb strings.Builder
		for _, tr := range ts {
			for _, s := range []string{tr.S, tr.R, tr.O} {
				if strings.TrimSpace(s) == "" || strings.ContainsAny(s, "\t\n") {
					t.Fatalf("bad field %q", s)
				}
			}
			fmt.Fprintf(&sb, "%s\t%s\t%s\n", tr.S, tr.R, tr.O)
		}
		if len(ts) > 0 && strings.HasPrefix(ts[0].S, "\uFEFF") {
			return // a BOM inside the data is stripped when it comes first
		}
		var c2 collector
		ts2, _ := parseTSV(strings.NewReader(sb.String()), "f", &c2)
		if len(c2.errs) > 0 || !reflect.DeepEqual(ts, ts2) {
			t.Fatalf("round trip: %q -> %q (%v)", ts, ts2, c2.errs)
		}
	})
}

// parseTSV reads head<TAB>relation<TAB>tail lines.
func parseTSV(r io.Reader, name string, c *collector) ([]NamedTriple, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return parseTSVString(string(data), name, c), nil
}
