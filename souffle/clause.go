package souffle

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Clauses: facts and rules, translated token by token into drumql's
// dialect, one a line of Program.Text.

// functors are Soufflé's functions and tests drumql has, by the name
// drumql calls them.
var functors = map[string]bool{
	"cat": true, "strlen": true, "substr": true, "to_number": true, "to_string": true,
	"min": true, "max": true, "abs": true, "contains": true, "match": true,
	"to_float": true, "to_unsigned": true, "itof": true, "itou": true, "utoi": true, "utof": true,
	"ftoi": true, "ftou": true, "fdiv": true, // fdiv: a division of floats (infix.go)
	"band": true, "bor": true, "bxor": true, "bnot": true, "bshl": true, "bshr": true, "bshru": true,
	"land": true, "lor": true, "lxor": true, "lnot": true, "ord": true, "autoinc": true,
}

// conversions are Soufflé's numeric conversions: those to a float or
// between integers are the value itself in drumql's untyped arithmetic
// (identity), those from a float to an integer truncate as to_number.
var conversions = map[string]string{
	"to_float": "", "to_unsigned": "", "itof": "", "itou": "", "utoi": "", "utof": "",
	"ftoi": "to_number", "ftou": "to_number",
}

// mathFunctors are the mathematical functions Soufflé's own tests call
// (tests/evaluation/math, disabled there) but its language does not have.
var mathFunctors = map[string]bool{"sin": true, "cos": true, "tan": true, "asin": true, "acos": true, "atan": true,
	"sinh": true, "cosh": true, "tanh": true, "asinh": true, "acosh": true, "atanh": true, "log": true, "exp": true}

// aggregators are Soufflé's aggregate functions.
var aggregators = map[string]bool{"count": true, "sum": true, "min": true, "max": true, "mean": true}

// clause translates one clause, up to its final "." at depth 0.
func (r *reader) clause() error {
	start := r.i
	depth := 0
	end := -1
	for j := r.i; j < len(r.ts); j++ {
		t := r.ts[j]
		if t.kind == tEOF || t.kind == tDirective {
			break
		}
		if t.kind != tPunct {
			continue
		}
		switch t.text {
		case "(", "{", "[":
			depth++
		case ")", "}", "]":
			depth--
		case ".":
			if depth == 0 {
				end = j
			}
		}
		if end >= 0 {
			break
		}
	}
	if end < 0 {
		return errAt(r.ts[start].at, "expected a clause ending with \".\", from %s", describe(r.ts[start]))
	}
	cl := r.ts[start : end+1]
	if sub, ok, err := r.subsumptive(cl); err != nil {
		return err
	} else if ok {
		cl = sub
	}
	cl = r.records(casts(dollars(hoistRanges(cl))))
	ts := infix(cl, r.kindVars(cl, "float"), unsignedVars(cl, r.kindVars(cl, "unsigned")))
	r.i = end + 1
	vars := variableNames(ts)
	inHead := true
	texts := make([]string, len(ts))
	skip := false // the token is dropped
	for k, t := range ts {
		if skip {
			skip = false
			continue
		}
		var next token
		if k+1 < len(ts) {
			next = ts[k+1]
		}
		text := t.text
		switch t.kind {
		case tIdent:
			call := next.kind == tPunct && next.text == "("
			switch {
			case call && (functors[t.text] || aggregators[t.text] || t.text == "range"):
				r.p.counters = r.p.counters || t.text == "autoinc"
			case call && !r.declared[t.text] && mathFunctors[t.text]:
				return unsupported(t.at, t.text+": mathematical functors (sin, cos, log, exp, ...) are not in Soufflé's language, which rejects them too")
			case call && !r.declared[t.text]:
				return errAt(t.at, "relation %s is not declared (.decl %s(...)), and no functor is named so", t.text, t.text)
			case call:
				text = `"` + t.text + `"` // a relation: its name as written (an identifier)
			case aggregators[t.text] && next.kind != tEOF && !(next.kind == tPunct && (next.text == "," || next.text == ")" || next.text == "=")):
			case t.text == "true" || t.text == "false" || t.text == "_":
			default:
				text = vars[t.text]
				r.p.sourceNames[text] = t.text
			}
		case tNumber:
			n, err := number(t)
			if err != nil {
				return err
			}
			text = n
		case tPunct:
			if t.text == "-" && k+2 < len(ts) && ts[k+1].text == "-" && ts[k+2].kind == tNumber && (k == 0 || ts[k-1].kind == tPunct && ts[k-1].text != ")") {
				skip = true // --2 is 2 (two unary minuses)
				continue
			}
			switch t.text {
			case "$":
				return unsupported(t.at, "algebraic data types and autoinc ($)")
			case "@":
				return unsupported(t.at, "user-defined functors (@f(...))")
			case ":-":
				inHead = false
			case "<=":
				if inHead {
					return unsupported(t.at, "subsumption (<=)")
				}
			}
		}
		texts[k] = text
	}
	floatStrings(ts, texts)
	badPatterns(ts, texts)
	if err := r.ranges(ts, texts); err != nil {
		return err
	}
	r.emitAll(ts, texts, 0, len(ts))
	r.out.WriteByte('\n')
	r.p.lines = append(r.p.lines, r.cur)
	r.cur, r.col = nil, 0
	return nil
}

// emitAll emits the translations of tokens lo..hi-1. Soufflé's to_number
// of a float truncates it towards zero: to_number(E) is emitted as
// (to_number(E) - to_number(E) % 1).
func (r *reader) emitAll(ts []token, texts []string, lo, hi int) {
	for k := lo; k < hi; k++ {
		t := ts[k]
		if unsignedConversions[t.text] && t.kind == tIdent && texts[k] == t.text && k+1 < hi && ts[k+1].text == "(" {
			// to_unsigned(E) is E band uMask (-1 is 4294967295); ftou
			// truncates E first
			m := matching(ts, k+1)
			if m < hi {
				r.emit("band", t.at)
				r.emit("(", t.at)
				texts[k] = conversions[t.text]
				r.emitAll(ts, texts, k, m+1)
				r.emit(",", t.at)
				r.emit(uMask, t.at)
				r.emit(")", t.at)
				k = m
				continue
			}
		}
		if to, ok := conversions[t.text]; ok && t.kind == tIdent && k+1 < hi && ts[k+1].text == "(" {
			texts[k] = to // the parenthesised argument alone, or to_number(...)
			if to == "" {
				continue
			}
		}
		if t.kind == tIdent && texts[k] == "to_number" && k+1 < hi && ts[k+1].text == "(" {
			m := matching(ts, k+1)
			if m < hi {
				r.emit("(", t.at)
				r.emit(texts[k], t.at)
				r.emitAll(ts, texts, k+1, m+1)
				r.emit("-", t.at)
				r.emit(texts[k], t.at)
				r.emitAll(ts, texts, k+1, m+1)
				r.emit("%", t.at)
				r.emit("1", t.at)
				r.emit(")", t.at)
				k = m
				continue
			}
		}
		if texts[k] != "" {
			r.emit(texts[k], t.at)
		}
	}
}

// floatStrings writes to_string of a float constant as Soufflé does, with
// six decimals (to_string(3.14) is "3.140000").
func floatStrings(ts []token, texts []string) {
	for k := 0; k+3 < len(ts); k++ {
		if ts[k].text != "to_string" || ts[k+1].text != "(" || ts[k+2].kind != tNumber || ts[k+3].text != ")" ||
			strings.HasPrefix(ts[k+2].text, "0x") || !strings.ContainsAny(ts[k+2].text, ".eE") {
			continue
		}
		f, err := strconv.ParseFloat(ts[k+2].text, 64)
		if err != nil {
			continue
		}
		texts[k] = strconv.Quote(strconv.FormatFloat(f, 'f', 6, 64))
		texts[k+1], texts[k+2], texts[k+3] = "", "", ""
	}
}

// badPatterns replaces each test match(P, S) (negated or not) whose
// constant pattern P is no regular expression by false: in Soufflé such
// a test fails either way, with a warning.
func badPatterns(ts []token, texts []string) {
	for k := 0; k+3 < len(ts); k++ {
		if ts[k].kind != tIdent || ts[k].text != "match" || ts[k+1].text != "(" || ts[k+2].kind != tString {
			continue
		}
		if !badRegexp(unquote(ts[k+2].text)) {
			continue
		}
		m := matching(ts, k+1)
		if m >= len(ts) {
			continue
		}
		texts[k] = "false"
		for j := k + 1; j <= m; j++ {
			texts[j] = ""
		}
		if k > 0 && ts[k-1].kind == tPunct && ts[k-1].text == "!" {
			texts[k-1] = ""
		}
	}
}

// repetition is a well-formed bound of a repetition: {n}, {n,}, {n,m}.
var repetition = regexp.MustCompile(`^\{[0-9]+(,[0-9]*)?\}`)

// badRegexp reports whether p is no regular expression for Soufflé (C++'s
// ECMAScript grammar): one Go rejects, or a "{" that starts no
// repetition bound (Go reads it as a literal brace).
func badRegexp(p string) bool {
	if _, err := regexp.Compile(p); err != nil {
		return true
	}
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			if !repetition.MatchString(p[i:]) {
				return true
			}
		}
	}
	return false
}

// matching returns the index of the parenthesis that closes ts[open].
func matching(ts []token, open int) int {
	depth := 0
	for j := open; j < len(ts); j++ {
		if ts[j].kind != tPunct {
			continue
		}
		switch ts[j].text {
		case "(":
			depth++
		case ")":
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return len(ts)
}

// emit appends text from at to the current line of the translation.
func (r *reader) emit(text string, at pos) {
	if r.col > 0 {
		r.out.WriteByte(' ')
		r.col++
	} else {
		r.col = 1
	}
	r.cur = append(r.cur, span{col: r.col, at: at})
	r.out.WriteString(text)
	r.col += len(text)
}

// variableNames maps the variables of a clause (names not followed by
// "(") to drumql variables: the name itself when it starts with an
// uppercase letter, else the name capitalised when no other variable has
// that name, else V_ and the name.
func variableNames(ts []token) map[string]string {
	names := map[string]bool{}
	for _, t := range ts {
		if t.kind == tIdent {
			names[t.text] = true
		}
	}
	m := map[string]string{}
	for n := range names {
		switch c := n[0]; {
		case c >= 'A' && c <= 'Z':
			m[n] = n
		case c == '_' && len(n) > 1:
			m[n] = n
		case c == '?':
			m[n] = "Q_" + n[1:]
		default:
			up := string(unicode.ToUpper(rune(c))) + n[1:]
			if names[up] {
				up = "V_" + n
			}
			m[n] = up
		}
	}
	return m
}

// number returns a Soufflé number in drumql's notation: hexadecimal and
// binary integers in decimal.
func number(t token) (string, error) {
	s := strings.TrimSuffix(t.text, "u")
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0b") {
		base := 16
		if s[1] == 'b' {
			base = 2
		}
		v, ok := new(big.Int).SetString(s[2:], base)
		if !ok {
			return "", errAt(t.at, "malformed number %s", t.text)
		}
		return v.String(), nil
	}
	return s, nil
}

// kindVars returns the variables of a clause that are arguments of an
// attribute of primitive type kind (float, unsigned).
func (r *reader) kindVars(ts []token, kind string) map[string]bool {
	m := map[string]bool{}
	for k := 0; k+1 < len(ts); k++ {
		d, ok := r.p.Decls[ts[k].text]
		if ts[k].kind != tIdent || !ok || ts[k+1].text != "(" {
			continue
		}
		col, depth := 0, 0
		for j := k + 1; j < len(ts); j++ {
			t := ts[j]
			switch {
			case isOpen(t):
				depth++
			case isClose(t):
				depth--
			case depth == 1 && t.text == ",":
				col++
			case depth == 1 && t.kind == tIdent && (ts[j-1].text == "(" || ts[j-1].text == ",") &&
				col < len(d.Cols) && r.p.kind(d.Cols[col].Type) == kind:
				m[t.text] = true
			}
			if depth == 0 {
				break
			}
		}
	}
	return m
}

// dollars rewrites `$` not followed by a constructor name, Soufflé's old
// spelling of autoinc(), as autoinc().
func dollars(ts []token) []token {
	var out []token
	for i, t := range ts {
		if t.kind != tPunct || t.text != "$" || i+1 < len(ts) && ts[i+1].kind == tIdent {
			if out != nil {
				out = append(out, t)
			}
			continue
		}
		if out == nil {
			out = append(make([]token, 0, len(ts)+2), ts[:i]...)
		}
		out = append(out, token{kind: tIdent, text: "autoinc", at: t.at},
			token{kind: tPunct, text: "(", at: t.at}, token{kind: tPunct, text: ")", at: t.at})
	}
	if out == nil {
		return ts
	}
	return out
}

// casts drops Soufflé's casts: as(E, T) is (E), E's value taken as one of
// type T.
func casts(ts []token) []token {
	var out []token
	for i := 0; i < len(ts); i++ {
		if ts[i].kind != tIdent || ts[i].text != "as" || i+1 >= len(ts) || ts[i+1].text != "(" {
			out = append(out, ts[i])
			continue
		}
		m := matching(ts, i+1)
		args := splitArgs(ts, i+2, m)
		if m >= len(ts) || len(args) != 2 {
			out = append(out, ts[i])
			continue
		}
		out = append(out, ts[i+1])
		out = append(out, casts(ts[args[0][0]:args[0][1]])...)
		out = append(out, ts[m])
		i = m
	}
	return out
}

// lastOutside returns the index of the last token of ts whose text is
// text outside every bracket, or -1.
func lastOutside(ts []token, text string) int {
	at, depth := -1, 0
	for i, t := range ts {
		switch {
		case isOpen(t):
			depth++
		case isClose(t):
			depth--
		case depth == 0 && t.text == text:
			at = i
		}
	}
	return at
}
