package tsv

import (
	"fmt"
	"iter"
	"strings"
	"unicode/utf8"
)

// Triple is one well-formed line. The fields are substrings of the input.
type Triple struct {
	Head, Relation, Tail string
	Line                 int // 1-based
}

// Error is one malformed line.
type Error struct {
	File string
	Line int // 1-based
	// Col is the 1-based column, in characters, of the field the error is
	// about; 1 for errors of the whole line.
	Col int
	// Field is the field an empty-field error is about, 1 (head),
	// 2 (relation) or 3 (tail); 0 for errors of the whole line.
	Field  int
	Reason string
}

// Error formats the error as file:line: reason.
func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason) }

const bom = "\uFEFF"

// Lines yields the 1-based number and the text of every line of s that is
// not blank, without its line ending, after skipping a leading byte order
// mark (see the package doc). The texts are substrings of s.
func Lines(s string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		rest := strings.TrimPrefix(s, bom)
		n := 0
		for len(rest) > 0 {
			n++
			var line string
			line, rest, _ = strings.Cut(rest, "\n")
			line = strings.TrimRight(line, "\r")
			if strings.TrimSpace(line) == "" {
				continue
			}
			if !yield(n, line) {
				return
			}
		}
	}
}

// Parse yields the lines of s, the contents of the file name, in order:
// each well-formed line as a Triple with a nil error, each malformed one as
// a zero Triple and an *Error. Blank lines yield nothing.
func Parse(name, s string) iter.Seq2[Triple, error] {
	return func(yield func(Triple, error) bool) {
		for n, line := range Lines(s) {
			t, err := ParseLine(line)
			if err != nil {
				err.File, err.Line = name, n
				if !yield(Triple{}, err) {
					return
				}
				continue
			}
			t.Line = n
			if !yield(t, nil) {
				return
			}
		}
	}
}

// ParseLine splits one line, without its line ending, into a Triple (with
// Line 0) or returns an *Error with Col, Field and Reason set.
func ParseLine(line string) (Triple, *Error) {
	if !utf8.ValidString(line) {
		return Triple{}, &Error{Col: 1, Reason: "invalid UTF-8"}
	}
	if i := strings.IndexByte(line, 0); i >= 0 {
		return Triple{}, &Error{Col: utf8.RuneCountInString(line[:i]) + 1, Reason: "a NUL byte"}
	}
	h, rest, ok1 := strings.Cut(line, "\t")
	r, t, ok2 := strings.Cut(rest, "\t")
	if !ok1 || !ok2 || strings.IndexByte(t, '\t') >= 0 {
		return Triple{}, &Error{Col: 1, Reason: fmt.Sprintf(
			"want 3 tab-separated fields (head, relation, tail), got %d", strings.Count(line, "\t")+1)}
	}
	for i, f := range [3]string{h, r, t} {
		if strings.TrimSpace(f) == "" {
			col := 1
			switch i {
			case 1:
				col = utf8.RuneCountInString(h) + 2
			case 2:
				col = utf8.RuneCountInString(h) + utf8.RuneCountInString(r) + 3
			}
			return Triple{}, &Error{Col: col, Field: i + 1, Reason: "empty " + [3]string{"head", "relation", "tail"}[i]}
		}
	}
	return Triple{Head: h, Relation: r, Tail: t}, nil
}

// Escape returns s as one TSV or table cell: a backslash, tab, newline or
// carriage return in it is written \\, \t, \n or \r, so that a value
// stays one cell of one line; s itself when it has none of them.
func Escape(s string) string {
	if !strings.ContainsAny(s, "\\\t\n\r") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
