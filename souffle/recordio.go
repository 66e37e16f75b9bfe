package souffle

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Records and constructors in fact files: [1, [2, nil]], $Rect(2, 3),
// $Dot, each field read as its type (a symbol field quoted or not), into
// the encoding of record.go.

// encode returns the encoding of a record or constructor: its prefix
// ("[", "$C[", or "$C" alone), then each field as its length in eight
// digits and its text.
func encode(prefix string, fields []string) string {
	if len(fields) == 0 {
		return prefix
	}
	var b strings.Builder
	b.WriteString(prefix)
	for _, f := range fields {
		fmt.Fprintf(&b, "%0*d%s", lenDigits, utf8.RuneCountInString(f), f)
	}
	b.WriteByte(']')
	return b.String()
}

// recordReader reads one record field of a fact file.
type recordReader struct {
	p *Program
	s string
	i int
}

// readRecord reads s, a value of the record or algebraic data type ty.
func (p *Program) readRecord(ty, s string) (string, error) {
	rr := &recordReader{p: p, s: s}
	v, err := rr.value(Col{Type: ty})
	if err != nil {
		return "", err
	}
	rr.space()
	if rr.i < len(rr.s) {
		return "", fmt.Errorf("%q: unexpected %q after a value of %s", s, rr.s[rr.i:], ty)
	}
	return v, nil
}

func (rr *recordReader) space() {
	for rr.i < len(rr.s) && (rr.s[rr.i] == ' ' || rr.s[rr.i] == '\t') {
		rr.i++
	}
}

func (rr *recordReader) expect(c byte) error {
	rr.space()
	if rr.i >= len(rr.s) || rr.s[rr.i] != c {
		return fmt.Errorf("%q: expected %q at offset %d", rr.s, c, rr.i)
	}
	rr.i++
	return nil
}

// value reads a value of column c's type.
func (rr *recordReader) value(c Col) (string, error) {
	rr.space()
	if rr.p.kind(c.Type) != "record" {
		text, err := rr.primitive()
		if err != nil {
			return "", err
		}
		return rr.p.value(c, text)
	}
	if strings.HasPrefix(rr.s[rr.i:], "nil") {
		rr.i += 3
		return "nil", nil
	}
	if strings.HasPrefix(rr.s[rr.i:], "$") {
		j := rr.i + 1
		for j < len(rr.s) && isIdentPart(rr.s[j]) {
			j++
		}
		ctor := rr.s[rr.i:j]
		cols, ok := rr.p.ctors[ctor]
		if !ok {
			return "", fmt.Errorf("%q: no constructor %s", rr.s, ctor)
		}
		rr.i = j
		if len(cols) == 0 {
			return ctor, nil
		}
		return rr.fields(ctor+"[", cols, '(', ')')
	}
	ty := c.Type
	for range 64 {
		if _, ok := rr.p.Records[ty]; ok {
			break
		}
		ty = rr.p.Types[ty]
	}
	return rr.fields("[", rr.p.Records[ty], '[', ']')
}

// fields reads the fields cols between open and end.
func (rr *recordReader) fields(prefix string, cols []Col, open, end byte) (string, error) {
	if err := rr.expect(open); err != nil {
		return "", err
	}
	vals := make([]string, len(cols))
	for k, c := range cols {
		if k > 0 {
			if err := rr.expect(','); err != nil {
				return "", err
			}
		}
		v, err := rr.value(c)
		if err != nil {
			return "", err
		}
		vals[k] = v
	}
	if err := rr.expect(end); err != nil {
		return "", err
	}
	return encode(prefix, vals), nil
}

// primitive reads a symbol or number field: a quoted string, or the text
// up to the next , ] or ) (trimmed).
func (rr *recordReader) primitive() (string, error) {
	if rr.i < len(rr.s) && rr.s[rr.i] == '"' {
		j := rr.i + 1
		for j < len(rr.s) && rr.s[j] != '"' {
			if rr.s[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(rr.s) {
			return "", fmt.Errorf("%q: unterminated string", rr.s)
		}
		text := unquote(rr.s[rr.i : j+1])
		rr.i = j + 1
		return text, nil
	}
	j := rr.i
	for j < len(rr.s) && !strings.ContainsRune(",])", rune(rr.s[j])) {
		j++
	}
	text := strings.TrimSpace(rr.s[rr.i:j])
	rr.i = j
	if text == "" {
		return "", fmt.Errorf("%q: expected a value at offset %d", rr.s, j)
	}
	return text, nil
}
