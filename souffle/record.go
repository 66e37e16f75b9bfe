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
		has = has || t.kind == tPunct && (t.text == "[" || t.text == "$") || t.kind == tIdent && t.text == "nil"
	}
	if !has {
		return ts
	}
	rw := &recordRewriter{r: r, ts: ts, bound: map[string]bool{}}
	neck := lastOutside(ts, ":-")
	rw.neck = neck
	rw.known = map[string]bool{}
	for j := neck + 1; neck >= 0 && j+1 < len(ts); j++ {
		if rw.positiveAtom(j) {
			m := matching(ts, j+1)
			for _, t := range ts[j+2 : min(m, len(ts))] {
				if t.kind == tIdent {
					rw.bound[t.text] = true
				}
			}
			for _, a := range splitArgs(ts, j+2, m) {
				if a[1] == a[0]+1 && ts[a[0]].kind == tIdent {
					rw.known[ts[a[0]].text] = true
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
	// known are the variables bound before the atom being rewritten: the
	// arguments of positive atoms, and the fields of the record patterns
	// taken apart so far
	known map[string]bool
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
		case rw.structEnd(i) > 0:
			e := rw.structEnd(i)
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
	for j := i; j < e; j++ {
		t := ts[j]
		free = free || t.kind == tIdent && t.text != "nil" && t.text != "_" && !rw.bound[t.text] && ts[j-1].text != "$"
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
	var before, after []token
	head := []token{ts[i], ts[i+1]}
	for k, a := range splitArgs(ts, i+2, m) {
		if k > 0 {
			head = append(head, token{kind: tPunct, text: ",", at: ts[a[0]].at})
		}
		if rw.structEnd(a[0]) == a[1]-1 {
			v := rw.fresh(ts[a[0]].at)
			head = append(head, v)
			if rw.buildable(a[0], a[1]) {
				// its fields are known: also built before the atom,
				// which can then be looked up
				before = append(before, v, token{kind: tPunct, text: "=", at: v.at})
				before = append(before, rw.build(a[0], a[1]-1)...)
				before = append(before, token{kind: tPunct, text: ",", at: v.at})
			}
			for _, t := range ts[a[0]:a[1]] {
				if t.kind == tIdent {
					rw.known[t.text] = true
				}
			}
			after = append(after, token{kind: tPunct, text: ",", at: v.at})
			after = append(after, rw.destructure([]token{v}, a[0], a[1]-1)...)
			continue
		}
		head = append(head, rw.seq(a[0], a[1])...)
	}
	head = append(head, ts[m])
	if len(after) == 0 && len(before) == 0 {
		return append(out, head...)
	}
	braced := len(out) > 0 && out[len(out)-1].text == ":" // count : a([x, _])
	if braced {
		out = append(out, token{kind: tPunct, text: "{", at: ts[i].at})
	}
	out = append(out, before...)
	out = append(out, head...)
	out = append(out, after...)
	if braced {
		out = append(out, token{kind: tPunct, text: "}", at: ts[m].at})
	}
	return out
}

// buildable reports whether the record pattern ts[lo:hi] can be built: it
// has no _ and its variables are known.
func (rw *recordRewriter) buildable(lo, hi int) bool {
	for j := lo; j < hi; j++ {
		t := rw.ts[j]
		if t.kind == tIdent && t.text != "nil" && !(j+1 < hi && rw.ts[j+1].text == "(") && rw.ts[j-1].text != "$" &&
			(t.text == "_" || !rw.known[t.text]) {
			return false
		}
	}
	return true
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

// structEnd returns the index of the last token of the record or
// constructor that starts at ts[i] ([...], $C(...), $C), or 0.
func (rw *recordRewriter) structEnd(i int) int {
	ts := rw.ts
	switch {
	case ts[i].kind == tPunct && ts[i].text == "[":
		return closing(ts, i)
	case ts[i].kind == tPunct && ts[i].text == "$" && i+1 < len(ts) && ts[i+1].kind == tIdent:
		if i+2 < len(ts) && ts[i+2].text == "(" {
			return matching(ts, i+2)
		}
		return i + 1
	}
	return 0
}

// shape returns the encoding's prefix of the record or constructor
// ts[i..e] ("[", "$C[", or "$C" for a constructor without fields) and
// the extents of its fields.
func (rw *recordRewriter) shape(i, e int) (string, [][2]int) {
	ts := rw.ts
	if ts[i].text == "[" {
		return "[", splitArgs(ts, i+1, e)
	}
	if e == i+1 {
		return "$" + ts[i+1].text, nil
	}
	return "$" + ts[i+1].text + "[", splitArgs(ts, i+3, e)
}

// build returns the tokens that build the record or constructor ts[i..e]:
// cat("[", LEN(f1), f1, ..., "]").
func (rw *recordRewriter) build(i, e int) []token {
	at := rw.ts[i].at
	p := func(s string) token { return token{kind: tPunct, text: s, at: at} }
	id := func(s string) token { return token{kind: tIdent, text: s, at: at} }
	str := func(s string) token { return token{kind: tString, text: strconv.Quote(s), at: at} }
	prefix, fields := rw.shape(i, e)
	if len(fields) == 0 {
		return []token{str(prefix)}
	}
	out := []token{id("cat"), p("("), str(prefix)}
	for _, a := range fields {
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
	num := func(n int) token { return token{kind: tNumber, text: strconv.Itoa(n), at: at} }
	prefix, fields := rw.shape(i, e)
	var out []token
	switch {
	case prefix == "[": // a record: not nil
		out = append(append(out, x...), p("!="), token{kind: tString, text: `"nil"`, at: at})
	case len(fields) == 0: // $C
		out = append(append(out, x...), p("="), token{kind: tString, text: strconv.Quote(prefix), at: at})
	default: // $C(...): substr(x, 0, len("$C[")) = "$C["
		out = append(out, token{kind: tIdent, text: "substr", at: at}, p("("))
		out = append(out, x...)
		out = append(out, p(","), num(0), p(","), num(len(prefix)), p(")"), p("="),
			token{kind: tString, text: strconv.Quote(prefix), at: at})
	}
	offset := []token{num(len(prefix))}
	for _, a := range fields {
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
		case rw.structEnd(a[0]) == a[1]-1:
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

// formatRecord writes record or constructor v of type ty as Soufflé
// does: [1, [2, nil]], $Int(0), $Mon.
func (p *Program) formatRecord(ty string, v string) string {
	for range 64 {
		if _, ok := p.Records[ty]; ok {
			break
		}
		ty = p.Types[ty]
	}
	fields := p.Records[ty]
	open, end := "[", "]"
	if strings.HasPrefix(v, "$") {
		ctor, _, _ := strings.Cut(v, "[")
		fs, ok := p.ctors[ctor]
		if !ok || len(fs) == 0 {
			return v
		}
		fields, open, end = fs, ctor+"(", ")"
		v = v[len(ctor):]
	}
	if v == "nil" || len(v) < 2 || v[0] != '[' {
		return v
	}
	var b strings.Builder
	b.WriteString(open)
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
	b.WriteString(end)
	return b.String()
}
