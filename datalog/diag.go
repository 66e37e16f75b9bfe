package datalog

import (
	"bytes"
	"cmp"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Severity tells errors from warnings.
type Severity uint8

// The severities of a diagnostic.
const (
	Error   Severity = iota // the program cannot be used
	Warning                 // the program can be used, but something looks wrong
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one positioned problem in a program.
type Diagnostic struct {
	Pos      Pos
	Severity Severity
	Msg      string
}

// String returns `file:line:col: severity: message`.
func (d Diagnostic) String() string {
	b := d.Pos.appendTo(nil)
	if len(b) > 0 {
		b = append(b, ": "...)
	}
	b = append(b, d.Severity.String()...)
	b = append(b, ": "...)
	b = append(b, d.Msg...)
	return string(b)
}

// Diagnostics is a list of diagnostics, usually in source order. It
// implements error; use [Diagnostics.Err] to get a nil error when there is
// no error among them.
type Diagnostics []Diagnostic

// Error returns the diagnostics one per line, as [Diagnostic.String] writes
// them.
func (ds Diagnostics) Error() string {
	var sb strings.Builder
	for i, d := range ds {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(d.String())
	}
	return sb.String()
}

// HasErrors reports whether a diagnostic has severity Error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Err returns ds as an error when it holds at least one error, and nil
// otherwise (warnings alone are not an error).
func (ds Diagnostics) Err() error {
	if ds.HasErrors() {
		return ds
	}
	return nil
}

// Sort orders the diagnostics by file, line and column (keeping the order
// of diagnostics at the same position), files in order of first appearance.
func (ds Diagnostics) Sort() {
	rank := map[string]int{}
	for _, d := range ds {
		if _, ok := rank[d.Pos.File]; !ok {
			rank[d.Pos.File] = len(rank)
		}
	}
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(rank[a.Pos.File], rank[b.Pos.File]),
			cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
	})
}

// Render writes each diagnostic as `file:line:col: severity: message`,
// followed, when source returns the file's text and the line exists, by the
// source line and a caret line with ^ under the column (columns count
// characters; tabs are kept so the caret lines up). A line longer than 100
// characters is shown as an excerpt of 100 around the column, with "…"
// where it is cut, and control characters and invalid UTF-8 are shown as
// U+FFFD, so that no file (binary or huge) is echoed whole or raw. source
// may be nil.
func (ds Diagnostics) Render(w io.Writer, source func(file string) []byte) error {
	var b []byte
	for _, d := range ds {
		b = append(b[:0], d.String()...)
		b = append(b, '\n')
		if source != nil && d.Pos.Line > 0 {
			if line, ok := sourceLine(source(d.Pos.File), d.Pos.Line); ok {
				line, col := excerptLine(line, d.Pos.Col)
				b = append(b, line...)
				b = append(b, '\n')
				if col > 0 {
					b = appendCaret(b, line, col)
				}
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// Format returns the diagnostics as [Diagnostics.Render] writes them, the
// sources given by file name.
func (ds Diagnostics) Format(sources map[string]string) string {
	var sb strings.Builder
	_ = ds.Render(&sb, func(file string) []byte {
		s, ok := sources[file]
		if !ok {
			return nil
		}
		return []byte(s)
	})
	return sb.String()
}

// sourceLine returns line n (1-based) of src without its line ending.
func sourceLine(src []byte, n int) ([]byte, bool) {
	if src == nil {
		return nil, false
	}
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return nil, false
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return bytes.TrimSuffix(src, []byte("\r")), true
}

func appendCaret(b, line []byte, col int) []byte {
	n := 1
	for _, r := range string(line) {
		if n >= col {
			break
		}
		if r == '\t' {
			b = append(b, '\t')
		} else {
			b = append(b, ' ')
		}
		n++
	}
	for ; n < col; n++ {
		b = append(b, ' ')
	}
	return append(b, "^\n"...)
}

// maxShownLine is how many characters of a source line Render shows.
const maxShownLine = 100

// excerptLine returns the part of line that Render shows and the column of
// col in it: the whole line when it has at most maxShownLine characters,
// otherwise maxShownLine of them around col, with "…" where it is cut.
// Control characters other than tab, and bytes that are not UTF-8, become
// U+FFFD (one character each, as the scanner counts them).
func excerptLine(line []byte, col int) ([]byte, int) {
	n := utf8.RuneCount(line) // an invalid byte counts one, as in range
	from, to := 0, n
	if n > maxShownLine {
		from = max(0, min(col-1-maxShownLine/2, n-maxShownLine))
		to = from + maxShownLine
	}
	var out []byte
	if from > 0 {
		out = append(out, "…"...)
		col = col - from + 1
	}
	i := 0
	for _, r := range string(line) {
		if i >= to {
			break
		}
		if i >= from {
			if r < 0x20 && r != '\t' || r == 0x7f {
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		}
		i++
	}
	if to < n {
		out = append(out, "…"...)
	}
	return out, col
}
