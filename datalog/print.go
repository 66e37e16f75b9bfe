package datalog

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsPlainName reports whether s can be written without quotes as a constant
// or predicate name: its first character satisfies [IsNameStart], the
// others [IsNamePart], and it is not the keyword "not". ASCII names match
// [a-z][A-Za-z0-9_]*; "zoë", "café" and "東京" are plain too.
func IsPlainName(s string) bool {
	if s == "" || s == "not" {
		return false
	}
	for i, r := range s {
		if i == 0 && !IsNameStart(r) || i > 0 && !IsNamePart(r) {
			return false // invalid UTF-8 decodes as U+FFFD, which is neither
		}
	}
	return true
}

// IsNameStart reports whether r can start an unquoted constant or
// predicate name: a letter that is neither uppercase nor titlecase (a
// lowercase letter, or a letter of a script without case).
func IsNameStart(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z'
	}
	return unicode.IsLetter(r) && !unicode.IsUpper(r) && !unicode.IsTitle(r)
}

// IsVarStart reports whether r starts a variable: an uppercase or
// titlecase letter, or the underscore.
func IsVarStart(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'A' && r <= 'Z' || r == '_'
	}
	return unicode.IsUpper(r) || unicode.IsTitle(r)
}

// IsNamePart reports whether r can follow the first character of an
// unquoted name or variable: a letter, a decimal digit, a combining mark
// (so that decomposed letters such as "e\u0301" stay in the name) or the
// underscore.
func IsNamePart(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc)
}

// QuoteName returns s as it is written in a program: unchanged when it is a
// plain name (see [IsPlainName]), otherwise double-quoted with escapes.
func QuoteName(s string) string {
	if IsPlainName(s) {
		return s
	}
	return string(appendQuoted(nil, s))
}

// appendName appends s, quoted when needed.
func appendName(dst []byte, s string) []byte {
	if IsPlainName(s) {
		return append(dst, s...)
	}
	return appendQuoted(dst, s)
}

const hexDigits = "0123456789abcdef"

// appendQuoted appends s as a double-quoted string. Bytes other than the
// quote, the backslash and control characters are copied as they are (so
// that any byte string survives a round trip).
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0 // s[start:i] is copied as it is, in one append
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
			continue
		}
		dst = append(dst, s[start:i]...)
		start = i + 1
		switch {
		case c == '"':
			dst = append(dst, '\\', '"')
		case c == '\\':
			dst = append(dst, '\\', '\\')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// CanonicalNumber checks that text is a number literal of the dialect
// (-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?) and returns its canonical text,
// the Value of a Number term: integers keep all their digits without
// leading zeros ("007" is "7", "-0" is "0"); decimals and exponents are
// converted to float64 and printed in the shortest 'g' form ("2.50" is
// "2.5", "1e2" is "100"). It reports false for malformed or out-of-range
// numbers.
func CanonicalNumber(text string) (string, bool) {
	if !isNumberSyntax(text) {
		return "", false
	}
	if !strings.ContainsAny(text, ".eE") {
		neg := text[0] == '-'
		digits := text
		if neg {
			digits = digits[1:]
		}
		digits = strings.TrimLeft(digits, "0")
		if digits == "" {
			return "0", true
		}
		if neg {
			return "-" + digits, true
		}
		return digits, true
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return "", false
	}
	if f == 0 {
		return "0", true
	}
	return strconv.FormatFloat(f, 'g', -1, 64), true
}

func isNumberSyntax(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > start
	}
	if !digits() {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}

// String returns the operator as written: = != < <= > >=.
func (op CmpOp) String() string {
	switch op {
	case OpEq:
		return "="
	case OpNe:
		return "!="
	case OpLt:
		return "<"
	case OpLe:
		return "<="
	case OpGt:
		return ">"
	case OpGe:
		return ">="
	}
	return "?op" + strconv.Itoa(int(op))
}

// String returns the kind's name: "variable", "symbol" or "number".
func (k TermKind) String() string {
	switch k {
	case Var:
		return "variable"
	case Symbol:
		return "symbol"
	case Number:
		return "number"
	}
	return "kind" + strconv.Itoa(int(k))
}

// String returns "file:line:col", leaving out the parts that are unknown.
func (p Pos) String() string {
	var b []byte
	b = p.appendTo(b)
	return string(b)
}

func (p Pos) appendTo(b []byte) []byte {
	b = append(b, p.File...)
	if p.Line > 0 {
		if p.File != "" {
			b = append(b, ':')
		}
		b = strconv.AppendInt(b, int64(p.Line), 10)
		if p.Col > 0 {
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(p.Col), 10)
		}
	}
	return b
}

// String returns the term as written: a variable's name, a number's text, or
// a symbol quoted when needed (a symbol that looks like a number is quoted so
// that it stays a symbol).
func (t Term) String() string { return string(t.appendTo(nil)) }

func (t Term) appendTo(b []byte) []byte {
	switch t.Kind {
	case Compound:
		return appendExpr(b, t, plainLeaf)
	case Symbol:
		return appendName(b, t.Value)
	default:
		return append(b, t.Value...)
	}
}

// String returns the atom as written, `pred(arg, ...)`, or `pred` alone when
// it has no arguments.
func (a Atom) String() string { return string(a.appendTo(nil)) }

func (a Atom) appendTo(b []byte) []byte {
	return appendArgs(appendName(b, a.Pred), a.Args, Term.appendTo)
}

// appendArgs appends `(arg, ...)`, nothing when there are no arguments,
// writing each with term.
func appendArgs(b []byte, args []Term, term func(Term, []byte) []byte) []byte {
	if len(args) == 0 {
		return b
	}
	b = append(b, '(')
	for i, t := range args {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = term(t, b)
	}
	return append(b, ')')
}

// String returns the literal as written: an atom, `not atom`, or
// `left op right`.
func (l Literal) String() string { return string(l.appendTo(nil)) }

func (l Literal) appendTo(b []byte) []byte { return appendLiteral(b, &l, plainLeaf) }

func appendWeight(b []byte, w float64) []byte {
	if w == 1 {
		return b
	}
	b = strconv.AppendFloat(b, w, 'g', -1, 64)
	return append(b, " :: "...)
}

// String returns the rule in canonical form, `[w ::] head :- body.`,
// preceded by its Comment as `% ` lines.
func (r Rule) String() string { return string(r.appendTo(nil)) }

func (r Rule) appendTo(b []byte) []byte {
	if r.Comment != "" {
		for line := range strings.SplitSeq(r.Comment, "\n") {
			b = append(b, '%')
			if line != "" {
				b = append(b, ' ')
				b = append(b, strings.TrimRight(line, "\r")...)
			}
			b = append(b, '\n')
		}
	}
	b = appendWeight(b, r.Weight)
	b = r.Head.appendTo(b)
	b = appendBody(b, r.Body)
	return append(b, '.')
}

func appendBody(b []byte, body []Literal) []byte {
	if len(body) == 0 {
		return b
	}
	b = append(b, " :- "...)
	return appendLiterals(b, body, plainLeaf)
}

// String returns the fact as written, `[w ::] atom.`.
func (f Fact) String() string {
	b := appendWeight(nil, f.Weight)
	b = f.Atom.appendTo(b)
	return string(append(b, '.'))
}

// String returns the query as written, `atom?`.
func (q Query) String() string { return q.Atom.String() + "?" }

// String returns the directive as written, `@import "path".`.
func (i Import) String() string {
	return "@import " + string(appendQuoted(nil, i.Path)) + "."
}

// String returns the program in canonical form; see [Program.Format].
func (p *Program) String() string {
	var sb strings.Builder
	_ = p.Format(&sb)
	return sb.String()
}

// String returns the directive as written, `@min 0.1.`.
func (t Threshold) String() string { return string(t.appendTo(nil)) }

func (t Threshold) appendTo(b []byte) []byte {
	b = append(b, "@min "...)
	b = strconv.AppendFloat(b, t.Min, 'g', -1, 64)
	return append(b, '.')
}

// Format writes the program in canonical form: the directives (the
// threshold, then the aggregation directives), imports, facts, rules, the
// rule groups and queries, each group in slice order, one per line, the groups separated by
// a blank line. The output parses back to the same program, positions and
// rule comments aside. A program with several `@min` directives (files
// merged) is written with one, its [Program.Threshold]: the smallest, which
// is what the merged program means (a file sets one threshold).
func (p *Program) Format(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var b []byte
	sep := false
	group := func(n int, item func(i int, b []byte) []byte) error {
		if n == 0 {
			return nil
		}
		if sep {
			if err := bw.WriteByte('\n'); err != nil {
				return err
			}
		}
		sep = true
		for i := range n {
			b = item(i, b[:0])
			b = append(b, '\n')
			if _, err := bw.Write(b); err != nil {
				return err
			}
		}
		return nil
	}
	th, hasTh := p.Threshold()
	nth := 0
	if hasTh {
		nth = 1
	}
	if err := group(nth+len(p.Aggregates), func(i int, b []byte) []byte {
		if i < nth {
			return Threshold{Min: th}.appendTo(b)
		}
		return p.Aggregates[i-nth].appendTo(b)
	}); err != nil {
		return err
	}
	if err := group(len(p.Imports), func(i int, b []byte) []byte {
		return append(b, p.Imports[i].String()...)
	}); err != nil {
		return err
	}
	if err := group(len(p.Facts), func(i int, b []byte) []byte {
		f := &p.Facts[i]
		b = appendWeight(b, f.Weight)
		b = f.Atom.appendTo(b)
		return append(b, '.')
	}); err != nil {
		return err
	}
	if err := group(len(p.Rules), func(i int, b []byte) []byte {
		return p.Rules[i].appendTo(b)
	}); err != nil {
		return err
	}
	if err := group(len(p.RuleGroups), func(i int, b []byte) []byte {
		return p.RuleGroups[i].appendTo(b)
	}); err != nil {
		return err
	}
	if err := group(len(p.Queries), func(i int, b []byte) []byte {
		b = p.Queries[i].Atom.appendTo(b)
		return append(b, '?')
	}); err != nil {
		return err
	}
	return bw.Flush()
}

// Key returns the rule's canonical identity: its canonical text with the
// variables renamed V0, V1, ... in order of first occurrence (head first,
// then the body left to right; every `_` is a fresh variable). The weight,
// positions and comment are not part of the key, the order of the body
// literals is. Rules with equal keys are the same rule.
func (r Rule) Key() string {
	var names []string
	var index map[string]int // used instead of names once there are many
	count := 0
	b := make([]byte, 0, 256)
	term := func(t Term) {
		if t.Kind != Var {
			b = t.appendTo(b)
			return
		}
		n := -1
		if t.Value != "_" {
			if index != nil {
				if i, ok := index[t.Value]; ok {
					n = i
				}
			} else {
				for i, s := range names {
					if s == t.Value {
						n = i
						break
					}
				}
			}
		}
		if n < 0 {
			n = count
			count++
			if index == nil && len(names) == 16 {
				index = make(map[string]int, 32)
				for i, s := range names {
					if s != "_" {
						index[s] = i
					}
				}
			}
			if index != nil {
				index[t.Value] = n
			} else {
				names = append(names, t.Value)
			}
		}
		b = append(b, 'V')
		b = strconv.AppendInt(b, int64(n), 10)
	}
	leaf := func(bb []byte, t Term) []byte {
		b = bb
		term(t)
		return b
	}
	b = appendName(b, r.Head.Pred)
	if len(r.Head.Args) > 0 {
		b = append(b, '(')
		for i, t := range r.Head.Args {
			if i > 0 {
				b = append(b, ", "...)
			}
			if t.Kind == Compound {
				b = appendExpr(b, t, leaf)
			} else {
				term(t)
			}
		}
		b = append(b, ')')
	}
	for i := range r.Body {
		if i == 0 {
			b = append(b, " :- "...)
		} else {
			b = append(b, ", "...)
		}
		b = appendLiteral(b, &r.Body[i], leaf)
	}
	b = append(b, '.')
	return string(b)
}
