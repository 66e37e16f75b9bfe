package tsv

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// result renders what Parse yields, one string per yielded item:
// "line: head|relation|tail" or "line:col: reason (field n)".
func result(name, s string) []string {
	var out []string
	for t, err := range Parse(name, s) {
		if err != nil {
			e := err.(*Error)
			if e.File != name {
				out = append(out, "wrong file "+e.File)
			}
			out = append(out, fmt.Sprintf("%d:%d: %s (field %d)", e.Line, e.Col, e.Reason, e.Field))
			continue
		}
		out = append(out, fmt.Sprintf("%d: %s|%s|%s", t.Line, t.Head, t.Relation, t.Tail))
	}
	return out
}

const fields2 = "want 3 tab-separated fields (head, relation, tail), got 2"

// TestParse covers the format, and in particular every input on which the
// two readers this package replaces disagreed (marked "was:"): the store
// importer (drumql load) and parser.ParseTriples (@import).
func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"Empty", "", nil},
		{"LF", "a\tr\tb\nc\tr\td\n", []string{"1: a|r|b", "2: c|r|d"}},
		{"NoFinalNewline", "a\tr\tb", []string{"1: a|r|b"}},
		{"CRLF", "a\tr\tb\r\nc\tr\td\r\n", []string{"1: a|r|b", "2: c|r|d"}},
		{"BOM", "\uFEFFa\tr\tb\n", []string{"1: a|r|b"}},
		{"BOMNotFirst", "a\tr\tb\n\uFEFFc\tr\td\n", []string{"1: a|r|b", "2: \uFEFFc|r|d"}},
		{"BOMOnlyOnce", "\uFEFF\uFEFFa\tr\tb", []string{"1: \uFEFFa|r|b"}},
		{"Unicode", "Zoë\t/people/ç\t東京\n", []string{"1: Zoë|/people/ç|東京"}},
		{"CRInsideField", "a\tr\tb\rc\n", []string{"1: a|r|b\rc"}},
		{"LoneCRIsNotALineEnd", "a\tr\tb\rc\tr\td\n", []string{"1:1: want 3 tab-separated fields (head, relation, tail), got 5 (field 0)"}},
		{"BlankLinesCount", "\n\r\n\na\tr\tb\n\n", []string{"4: a|r|b"}},
		{"SpacesAroundNamesKept", " a \t r\tb \n", []string{"1:  a | r|b "}},
		{"SpacesNotTabs", "a r b\n", []string{"1:1: want 3 tab-separated fields (head, relation, tail), got 1 (field 0)"}},
		{"Comment", "# family\na\tr\tb\n", []string{"1:1: want 3 tab-separated fields (head, relation, tail), got 1 (field 0)", "2: a|r|b"}},
		{"HashIsAName", "#a\tr\tb\n", []string{"1: #a|r|b"}},
		{"OneField", "a\n", []string{"1:1: want 3 tab-separated fields (head, relation, tail), got 1 (field 0)"}},
		{"TwoFields", "a\tr\n", []string{"1:1: " + fields2 + " (field 0)"}},
		{"FourFields", "a\tr\tb\tc\n", []string{"1:1: want 3 tab-separated fields (head, relation, tail), got 4 (field 0)"}},
		{"TrailingTab", "a\tr\tb\t\n", []string{"1:1: want 3 tab-separated fields (head, relation, tail), got 4 (field 0)"}},
		{"EmptyHead", "\tr\tb\n", []string{"1:1: empty head (field 1)"}},
		{"EmptyRelation", "a\t\tb\n", []string{"1:3: empty relation (field 2)"}},
		{"EmptyTail", "a\tr\t\r\n", []string{"1:5: empty tail (field 3)"}},
		{"EmptyFieldColumnInCharacters", "Zoë\tr\t\n", []string{"1:7: empty tail (field 3)"}},
		{"FirstEmptyFieldWins", "\t\tb\n", []string{"1:1: empty head (field 1)"}},
		{"InvalidUTF8", "a\tr\t\xff\n", []string{"1:1: invalid UTF-8 (field 0)"}},
		{"InvalidUTF8BeforeFieldCount", "\xff\n", []string{"1:1: invalid UTF-8 (field 0)"}},
		{"GoodLinesAfterBad", "x\na\tr\tb\n", []string{"1:1: want 3 tab-separated fields (head, relation, tail), got 1 (field 0)", "2: a|r|b"}},

		// was: importer skipped these blank lines; ParseTriples reported them.
		{"SpacesOnlyLine", "   \na\tr\tb\n", []string{"2: a|r|b"}},
		{"TabsOnlyLine", "\t\t\na\tr\tb\n", []string{"2: a|r|b"}},
		{"TabOnlyLine", "\t\n", nil},
		{"CRsOnlyLine", "\r\r\n", nil},
		{"NBSPOnlyLine", "\u00a0\n", nil},
		// was: importer dropped every trailing CR; ParseTriples one, keeping
		// "b\r" as the tail.
		{"ExtraCRs", "a\tr\tb\r\r\n", []string{"1: a|r|b"}},
		// was: importer rejected white-space fields; ParseTriples kept them as
		// names.
		{"SpaceHead", " \tr\tb\n", []string{"1:1: empty head (field 1)"}},
		{"SpaceRelation", "a\t \tb\n", []string{"1:3: empty relation (field 2)"}},
		{"SpaceTail", "a\tr\t  \n", []string{"1:5: empty tail (field 3)"}},
		{"NBSPTail", "a\tr\t\u00a0\n", []string{"1:5: empty tail (field 3)"}},
		// The two agreed on the field count of a line with CRs inside.
		{"SpaceTailThenCR", "a\tr\t \r\n", []string{"1:5: empty tail (field 3)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := result("g.tsv", tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestErrorFormat(t *testing.T) {
	for _, err := range Parse("dir/g.tsv", "a\tr\tb\n\nx\n") {
		if err == nil {
			continue
		}
		if got, want := err.Error(), "dir/g.tsv:3: "+strings.Replace(fields2, "2", "1", 1); got != want {
			t.Errorf("Error() = %q, want %q", got, want)
		}
		return
	}
	t.Fatal("no error")
}

func TestLines(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\uFEFFa\r\n\n  \nb c\r\r\n\t\n\td", []string{"1:a", "4:b c", "6:\td"}},
		{"x\ty", []string{"1:x\ty"}},
	}
	for _, tc := range tests {
		var got []string
		for n, text := range Lines(tc.in) {
			got = append(got, fmt.Sprintf("%d:%s", n, text))
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Lines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestEarlyBreak checks that both iterators stop when the loop breaks.
func TestEarlyBreak(t *testing.T) {
	in := "a\tr\tb\nx\nc\tr\td\n"
	n := 0
	for range Parse("f", in) {
		n++
		if n == 2 {
			break
		}
	}
	m := 0
	for range Lines(in) {
		m++
		break
	}
	if n != 2 || m != 1 {
		t.Errorf("yielded %d and %d items after break", n, m)
	}
}

// oracle is a plain reading of the format in the package doc, line by line
// with strings.Split, against which the fuzz test checks Parse.
func oracle(s string) []string {
	s = strings.TrimPrefix(s, "\uFEFF")
	var out []string
	for i, line := range strings.Split(s, "\n") {
		for strings.HasSuffix(line, "\r") {
			line = line[:len(line)-1]
		}
		n := i + 1
		switch fs := strings.Split(line, "\t"); {
		case strings.TrimSpace(line) == "":
		case !utf8.ValidString(line), strings.Contains(line, "\x00"):
			out = append(out, fmt.Sprintf("%d: bad", n))
		case len(fs) != 3:
			out = append(out, fmt.Sprintf("%d: bad", n))
		case slices.ContainsFunc(fs, func(f string) bool { return strings.TrimSpace(f) == "" }):
			out = append(out, fmt.Sprintf("%d: bad", n))
		default:
			out = append(out, fmt.Sprintf("%d: %q", n, fs))
		}
	}
	return out
}

// FuzzTSV checks Parse against the oracle, the well-formedness of what it
// accepts, the columns of its errors, and that writing the accepted triples
// back and reading them again is lossless.
func FuzzTSV(f *testing.F) {
	for _, s := range []string{
		"a\tr\tb\r\nc\tr\td\n", "\uFEFFa\tr\tb", "x\n\ty\t\n\xff\t\t\n", "\t\t\n \r\r\n",
		"a\t \tb\n", "a\tr\tb\r\r\n", "a\tr\t\u00a0", "Zoë\tr\t\n", "# c\na\tr\tb\t\n", "\x00\t0\t0",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := string(data)
		var got []string
		var ts []Triple
		last := 0
		for tr, err := range Parse("f", s) {
			if err != nil {
				e := err.(*Error)
				if e.Line <= last || e.Col < 1 || e.Field < 0 || e.Field > 3 {
					t.Fatalf("bad error %+v after line %d", e, last)
				}
				last = e.Line
				got = append(got, fmt.Sprintf("%d: bad", e.Line))
				continue
			}
			if tr.Line <= last {
				t.Fatalf("line %d after %d", tr.Line, last)
			}
			last = tr.Line
			for _, fld := range []string{tr.Head, tr.Relation, tr.Tail} {
				if strings.TrimSpace(fld) == "" || strings.ContainsAny(fld, "\t\n") || strings.HasSuffix(fld, "\r") && fld == tr.Tail {
					t.Fatalf("bad field %q in %+v", fld, tr)
				}
			}
			ts = append(ts, tr)
			got = append(got, fmt.Sprintf("%d: %q", tr.Line, []string{tr.Head, tr.Relation, tr.Tail}))
		}
		if want := oracle(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("Parse(%q)\n got %q\nwant %q", s, got, want)
		}
		var sb strings.Builder
		for _, tr := range ts {
			fmt.Fprintf(&sb, "%s\t%s\t%s\n", tr.Head, tr.Relation, tr.Tail)
		}
		if len(ts) > 0 && strings.HasPrefix(ts[0].Head, "\uFEFF") {
			return // a byte order mark is skipped when it comes first
		}
		i := 0
		for tr, err := range Parse("f", sb.String()) {
			i++
			if err != nil || i > len(ts) || tr.Head != ts[i-1].Head || tr.Relation != ts[i-1].Relation || tr.Tail != ts[i-1].Tail || tr.Line != i {
				t.Fatalf("round trip of %q: item %d = %+v, %v", sb.String(), i, tr, err)
			}
		}
		if i != len(ts) {
			t.Fatalf("round trip: %d triples, want %d", i, len(ts))
		}
	})
}

// BenchmarkParse reads 100,000 lines; it should allocate nothing per line.
func BenchmarkParse(b *testing.B) {
	var sb strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&sb, "/m/0%d\t/people/person/spouse\t/m/1%d\r\n", i, i)
	}
	s := sb.String()
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, err := range Parse("f", s) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 100_000 {
			b.Fatal(n)
		}
	}
}
