package souffle

import (
	"strconv"
	"strings"
)

// Records: a record [a, b] is a symbol that encodes its fields, each as
// its length in eight digits then its text ("[00000001a00000002bc]" for
// [a, bc]); nil is the symbol "nil". A record is built with drumql's
// string functions (cat, strlen, substr, to_string) and taken apart with
// them: field k starts after the lengths and texts of the fields before
// it. A record pattern in a positive body atom (s([n, r])) becomes a
// variable and the tests that take it apart (it is not nil, n is its
// first field, r its second), and so does `x = [a, b]` when a field has a
// variable that no positive atom binds; every other record is built. The
// outputs print records as Soufflé does ([1, [2, nil]]).

// lenDigits is the width of a field's length in a record's encoding.
const lenDigits = 8

// records rewrites the records of a clause (ts, its final "." included).
func (r *reader) records(ts []token) []token {
	has := false
	for _, t := range ts {
		has = has || t.kind == tPunct && t.text == "[" || t.kind == tIdent && t.text == "nil"
	}
	if !has {
		return ts
	}
	rw := &recordRewriter{r: r, ts: ts, bound: map[string]bool{}}
	neck := -1
	depth := 0
	for i, t := range ts {
		switch {
		case isOpen(t):
			depth++
		case isClose(t):
			depth--
		case depth == 0 && t.text == ":-":
			neck = i
		}
	}
	rw.neck = neck
	for j := neck + 1; neck >= 0 && j+1 < len(ts); j++ {
		if rw.positiveAtom(j) {
			m := matching(ts, j+1)
			for _, t := range ts[j+2 : min(m, len(ts))] {
				if t.kind == tIdent {
					rw.bound[t.text] = true
				}
			}
		}
	}
	return rw.seq(0, len(ts))
}

// recordRewriter rewrites the records of one clause.
type recordRewriter struct {
	r     *reader
	ts    []token
	neck  int
	bound map[string]bool // variables of positive body atoms
}

// positiveAtom reports whether ts[j] starts a positive atom of the body.
func (rw *recordRewriter) positiveAtom(j int) bool {
	ts := rw.ts
	return j > rw.neck && rw.neck >= 0 && ts[j].kind == tIdent && rw.r.declared[ts[j].text] &&
		j+1 < len(ts) && ts[j+1].text == "(" && !(ts[j-1].kind == tPunct && ts[j-1].text == "!")
}

func (rw *recordRewriter) fresh(at pos) token {
	rw.r.nrec++
	return token{kind: tIdent, text: "_rec" + strconv.Itoa(rw.r.nrec), at: at}
}

// seq rewrites ts[lo:hi].
func (rw *recordRewriter) seq(lo, hi int) []token {
	ts := rw.ts
	var out []token
	for i := lo; i < hi; i++ {
		t := ts[i]
		switch {
		case t.kind == tIdent && t.text == "nil" && !(i+1 < hi && ts[i+1].text == "("):
			out = append(out, token{kind: tString, text: `"nil"`, at: t.at})
		case rw.positiveAtom(i):
			m := matching(ts, i+1)
			out = rw.atom(out, i, m)
			i = m
		case t.kind == tPunct && t.text == "[":
			e := closing(ts, i)
			if i > rw.neck && rw.neck >= 0 {
				if x, ok := rw.assigned(i, e, lo, hi); ok {
					// x = [a, b] (or [a, b] = x): take x apart
					if x < i {
						out = out[:len(out)-2]
					}
					out = append(out, rw.destructure([]token{ts[x]}, i, e)...)
					i = max(e, x)
					continue
				}
			}
			out = append(out, rw.build(i, e)...)
			i = e
		default:
			out = append(out, t)
		}
	}
	return out
}

// assigned returns the variable of `x = [...]` or `[...] = x` around the
// record ts[i..e] when one of its fields has a variable no positive atom
// binds (then the record is taken apart, not built).
func (rw *recordRewriter) assigned(i, e, lo, hi int) (int, bool) {
	ts := rw.ts
	free := false
	for _, t := range ts[i:e] {
		free = free || t.kind == tIdent && t.text != "nil" && t.text != "_" && !rw.bound[t.text]
	}
	if !free {
		return 0, false
	}
	ends := func(k int) bool {
		return k < lo || k >= hi || ts[k].kind == tPunct && (ts[k].text == "," || ts[k].text == ":-" || ts[k].text == "{" ||
			ts[k].text == "(" || ts[k].text == ";" || ts[k].text == "}" || ts[k].text == ")" || ts[k].text == ".")
	}
	switch {
	case i-2 >= lo && ts[i-1].text == "=" && ts[i-2].kind == tIdent && ends(i-3) && ends(e+1):
		return i - 2, true
	case e+2 < hi && ts[e+1].text == "=" && ts[e+2].kind == tIdent && ends(i-1) && ends(e+3):
		return e + 2, true
	}
	return 0, false
}

// atom rewrites the positive atom ts[i..m]: each argument that is a
// record pattern becomes a variable, taken apart after the atom.
func (rw *recordRewriter) atom(out []token, i, m int) []token {
	ts := rw.ts
	var after []token
	head := []token{ts[i], ts[i+1]}
	for k, a := range splitArgs(ts, i+2, m) {
		if k > 0 {
			head = append(head, token{kind: tPunct, text: ",", at: ts[a[0]].at})
		}
		if ts[a[0]].text == "[" && closing(ts, a[0]) == a[1]-1 {
			v := rw.fresh(ts[a[0]].at)
			head = append(head, v)
			after = append(after, token{kind: tPunct, text: ",", at: v.at})
			after = append(after, rw.destructure([]token{v}, a[0], a[1]-1)...)
			continue
		}
		head = append(head, rw.seq(a[0], a[1])...)
	}
	head = append(head, ts[m])
	if len(after) == 0 {
		return append(out, head...)
	}
	braced := len(out) > 0 && out[len(out)-1].text == ":" // count : a([x, _])
	if braced {
		out = append(out, token{kind: tPunct, text: "{", at: ts[i].at})
	}
	out = append(out, head...)
	out = append(out, after...)
	if braced {
		out = append(out, token{kind: tPunct, text: "}", at: ts[m].at})
	}
	return out
}

// splitArgs returns the extents [lo, hi) of the arguments of ts[lo:hi]
// (split at the commas at depth 0).
func splitArgs(ts []token, lo, hi int) [][2]int {
	var args [][2]int
	start, depth := lo, 0
	for j := lo; j < hi; j++ {
		switch {
		case isOpen(ts[j]):
			depth++
		case isClose(ts[j]):
			depth--
		case depth == 0 && ts[j].text == ",":
			args = append(args, [2]int{start, j})
			start = j + 1
		}
	}
	if start < hi {
		args = append(args, [2]int{start, hi})
	}
	return args
}

// build returns the tokens that build the record ts[i..e]:
// cat("[", LEN(f1), f1, ..., "]").
func (rw *recordRewriter) build(i, e int) []token {
	at := rw.ts[i].at
	p := func(s string) token { return token{kind: tPunct, text: s, at: at} }
	id := func(s string) token { return token{kind: tIdent, text: s, at: at} }
	str := func(s string) token { return token{kind: tString, text: strconv.Quote(s), at: at} }
	out := []token{id("cat"), p("("), str("[")}
	for _, a := range splitArgs(rw.ts, i+1, e) {
		f := rw.seq(a[0], a[1])
		// substr(to_string(100000000 + strlen(f)), 1, 8)
		out = append(out, p(","), id("substr"), p("("), id("to_string"), p("("),
			token{kind: tNumber, text: "1" + strings.Repeat("0", lenDigits), at: at}, p("+"), id("strlen"), p("("))
		out = append(out, f...)
		out = append(out, p(")"), p(")"), p(","), token{kind: tNumber, text: "1", at: at}, p(","),
			token{kind: tNumber, text: strconv.Itoa(lenDigits), at: at}, p(")"), p(","), p("("))
		out = append(out, f...)
		out = append(out, p(")"))
	}
	return append(out, p(","), str("]"), p(")"))
}

// destructure returns the tests that take record x apart by the pattern
// ts[i..e]: x is not nil, and each field equals its pattern (a field that
// is a record pattern is taken apart in turn).
func (rw *recordRewriter) destructure(x []token, i, e int) []token {
	at := rw.ts[i].at
	p := func(s string) token { return token{kind: tPunct, text: s, at: at} }
	out := append(append([]token(nil), x...), p("!="), token{kind: tString, text: `"nil"`, at: at})
	offset := []token{{kind: tNumber, text: "1", at: at}}
	for _, a := range splitArgs(rw.ts, i+1, e) {
		// the field's length: (substr(x, offset, 8) + 0)
		n := []token{p("("), {kind: tIdent, text: "substr", at: at}, p("(")}
		n = append(n, x...)
		n = append(n, p(","))
		n = append(n, offset...)
		n = append(n, p(","), token{kind: tNumber, text: strconv.Itoa(lenDigits), at: at}, p(")"), p("+"),
			token{kind: tNumber, text: "0", at: at}, p(")"))
		start := append([]token{p("(")}, offset...)
		start = append(start, p("+"), token{kind: tNumber, text: strconv.Itoa(lenDigits), at: at}, p(")"))
		field := []token{{kind: tIdent, text: "substr", at: at}, p("(")}
		field = append(field, x...)
		field = append(field, p(","))
		field = append(field, start...)
		field = append(field, p(","))
		field = append(field, n...)
		field = append(field, p(")"))
		next := append([]token{p("(")}, start...)
		next = append(next, p("+"))
		next = append(next, n...)
		offset = append(next, p(")"))
		f := rw.ts[a[0]:a[1]]
		switch {
		case len(f) == 1 && f[0].text == "_":
		case f[0].text == "[" && closing(rw.ts, a[0]) == a[1]-1:
			v := rw.fresh(f[0].at)
			out = append(out, p(","), v, p("="))
			out = append(out, field...)
			out = append(out, p(","))
			out = append(out, rw.destructure([]token{v}, a[0], a[1]-1)...)
		default:
			out = append(out, p(","))
			out = append(out, rw.seq(a[0], a[1])...)
			out = append(out, p("="))
			out = append(out, field...)
		}
	}
	return out
}

// formatRecord writes record v of type ty as Soufflé does: [1, [2, nil]].
func (p *Program) formatRecord(ty string, v string) string {
	for range 64 {
		if _, ok := p.Records[ty]; ok {
			break
		}
		ty = p.Types[ty]
	}
	fields := p.Records[ty]
	if v == "nil" || len(v) < 2 || v[0] != '[' {
		return v
	}
	var b strings.Builder
	b.WriteByte('[')
	rest := []rune(v[1:])
	for i, f := range fields {
		if len(rest) < lenDigits {
			return v
		}
		n, err := strconv.Atoi(string(rest[:lenDigits]))
		if err != nil || n > len(rest)-lenDigits {
			return v
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.format(f, string(rest[lenDigits:lenDigits+n])))
		rest = rest[lenDigits+n:]
	}
	b.WriteByte(']')
	return b.String()
}
