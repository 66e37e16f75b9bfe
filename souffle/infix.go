package souffle

import "strings"

// Soufflé's binary operator words (x band y) become calls of drumql's
// functions of the same name (band(x, y)), with Soufflé's precedences;
// the unary ones (bnot x, lnot x) apply to the rest of their operand. A
// division with a float operand (a float constant, a variable of a float
// attribute, a conversion to float) becomes fdiv (1.0 / 2 is 0.5, as
// for Soufflé's floats; drumql's / of two whole numbers is an integer
// division).

// wordOps are the binary operator words by precedence, lowest first.
var wordOps = map[string]int{
	"lor": 1, "lxor": 2, "land": 3, "bor": 4, "bxor": 5, "band": 6, "bshl": 7, "bshr": 7, "bshru": 7,
}

var unaryOps = map[string]bool{"bnot": true, "lnot": true}

// arithOps are the arithmetic operators by precedence, above the words.
var arithOps = map[string]int{"+": 8, "-": 8, "*": 9, "/": 9, "%": 9, "^": 10}

// rewriter rewrites the expressions of one clause; floats are its
// variables of float attributes, unsigned those of unsigned values.
type rewriter struct {
	floats, unsigned map[string]bool
}

// uMask is the largest unsigned value: Soufflé's default build has 32-bit
// unsigned values, and its arithmetic on them wraps around (0u - 1u is
// 4294967295). An unsigned operation's result is taken band uMask.
const uMask = "4294967295"

// unsignedConversions convert to unsigned.
var unsignedConversions = map[string]bool{"to_unsigned": true, "itou": true, "ftou": true}

// isUnsignedConst reports whether t is an unsigned constant (1u).
func isUnsignedConst(t token) bool {
	return t.kind == tNumber && strings.HasSuffix(t.text, "u") && !strings.HasPrefix(t.text, "0x")
}

// unsignedy reports whether an operand shows an unsigned value: an
// unsigned constant, a variable of unsigned values or a conversion to
// unsigned.
func unsignedy(seg []token, vars map[string]bool) bool {
	for i, t := range seg {
		call := i+1 < len(seg) && seg[i+1].text == "("
		switch {
		case isUnsignedConst(t):
			return true
		case t.kind == tIdent && !call && vars[t.text]:
			return true
		case t.kind == tIdent && call && unsignedConversions[t.text]:
			return true
		}
	}
	return false
}

// unsignedVars returns the variables of a clause that hold unsigned
// values: those of unsigned attributes (attrs), and those equated with an
// expression of unsigned values (x = 5u, y = x + 1u).
func unsignedVars(ts []token, attrs map[string]bool) map[string]bool {
	m := map[string]bool{}
	for v := range attrs {
		m[v] = true
	}
	// the operand before and after each "=" at its depth
	for changed := true; changed; {
		changed = false
		for i, t := range ts {
			if t.kind != tPunct || t.text != "=" {
				continue
			}
			lo, hi := operandBounds(ts, i)
			left, right := ts[lo:i], ts[i+1:hi]
			for _, side := range [][2][]token{{left, right}, {right, left}} {
				v, e := side[0], side[1]
				if len(v) == 1 && v[0].kind == tIdent && !m[v[0].text] && unsignedy(e, m) {
					m[v[0].text] = true
					changed = true
				}
			}
		}
	}
	return m
}

// operandBounds returns the extent lo..hi (exclusive) of the operands of
// the comparison at ts[at]: up to the delimiters at its depth.
func operandBounds(ts []token, at int) (int, int) {
	lo, depth := at, 0
	for lo > 0 {
		t := ts[lo-1]
		if isClose(t) {
			depth++
		} else if isOpen(t) {
			if depth == 0 {
				break
			}
			depth--
		} else if depth == 0 && t.kind == tPunct && delimiters[t.text] {
			break
		}
		lo--
	}
	hi := at + 1
	depth = 0
	for hi < len(ts) {
		t := ts[hi]
		if isOpen(t) {
			depth++
		} else if isClose(t) {
			if depth == 0 {
				break
			}
			depth--
		} else if depth == 0 && t.kind == tPunct && delimiters[t.text] {
			break
		}
		hi++
	}
	return lo, hi
}

// floaty reports whether an operand shows a float: a float constant, a
// variable of a float attribute or a conversion to float.
func (rw *rewriter) floaty(seg []token) bool {
	for i, t := range seg {
		switch {
		case t.kind == tNumber && !strings.HasPrefix(t.text, "0x") && strings.ContainsAny(t.text, ".eE"):
			return true
		case t.kind == tIdent && rw.floats[t.text] && !(i+1 < len(seg) && seg[i+1].text == "("):
			return true
		case t.kind == tIdent && (t.text == "to_float" || t.text == "itof" || t.text == "utof"):
			return true
		}
	}
	return false
}

// operandEnd reports whether t ends an operand (so that an operator
// after it is binary).
func operandEnd(t token) bool {
	return t.kind == tIdent || t.kind == tNumber || t.kind == tString || isClose(t)
}

// isWordOp reports whether ts[i] is an operator word.
func isWordOp(ts []token, i int) bool {
	t := ts[i]
	return t.kind == tIdent && (wordOps[t.text] > 0 || unaryOps[t.text])
}

// infix rewrites the operator words of a clause's tokens into calls, its
// divisions of floats into fdiv and its operations on unsigned values
// into their results band uMask; floats are the clause's variables of
// float attributes, unsigned those of unsigned values.
func infix(ts []token, floats, unsigned map[string]bool) []token {
	rw := &rewriter{floats: floats, unsigned: unsigned}
	division, arith := false, false
	for i := range ts {
		if isWordOp(ts, i) {
			return rw.rewriteSeq(ts)
		}
		division = division || ts[i].kind == tPunct && ts[i].text == "/"
		arith = arith || ts[i].kind == tPunct && arithOps[ts[i].text] > 0
	}
	if division && rw.floaty(ts) || arith && unsignedy(ts, unsigned) {
		return rw.rewriteSeq(ts)
	}
	return ts
}

// wrap returns the tokens of band(e, uMask) when e is an operation on
// unsigned values (it wraps around), else e.
func (rw *rewriter) wrap(e []token, operands ...[]token) []token {
	u := false
	for _, o := range operands {
		u = u || unsignedy(o, rw.unsigned)
	}
	if !u || len(e) == 0 {
		return e
	}
	at := e[0].at
	out := []token{{kind: tIdent, text: "band", at: at}, {kind: tPunct, text: "(", at: at}}
	out = append(out, e...)
	return append(out, token{kind: tPunct, text: ",", at: at}, token{kind: tNumber, text: uMask, at: at},
		token{kind: tPunct, text: ")", at: at})
}

// delimiters end an expression at their depth.
var delimiters = map[string]bool{
	",": true, ";": true, ":-": true, ".": true, "=": true, "!=": true, "<": true, "<=": true,
	">": true, ">=": true, ":": true, "!": true,
}

func isOpen(t token) bool {
	return t.kind == tPunct && (t.text == "(" || t.text == "{" || t.text == "[")
}
func isClose(t token) bool {
	return t.kind == tPunct && (t.text == ")" || t.text == "}" || t.text == "]")
}

// rewriteSeq rewrites each expression of ts (between delimiters at depth
// 0), keeping the delimiters.
func (rw *rewriter) rewriteSeq(ts []token) []token {
	var out []token
	start, depth := 0, 0
	for i, t := range ts {
		switch {
		case isOpen(t):
			depth++
		case isClose(t):
			depth--
		case depth == 0 && t.kind == tPunct && delimiters[t.text]:
			out = append(out, rw.rewriteExpr(ts[start:i])...)
			out = append(out, t)
			start = i + 1
		}
	}
	return append(out, rw.rewriteExpr(ts[start:])...)
}

// rewriteExpr rewrites one expression: split at its loosest binary
// operator (the rightmost of the loosest, as they associate to the left;
// the leftmost ^).
func (rw *rewriter) rewriteExpr(seg []token) []token {
	at, prec, depth := -1, 0, 0
	for i, t := range seg {
		switch {
		case isOpen(t):
			depth++
		case isClose(t):
			depth--
		case depth > 0 || i == 0 || !operandEnd(seg[i-1]):
		case t.kind == tIdent && wordOps[t.text] > 0, t.kind == tPunct && arithOps[t.text] > 0:
			p := wordOps[t.text] + arithOps[t.text]
			if at < 0 || p < prec || p == prec && t.text != "^" {
				at, prec = i, p
			}
		}
	}
	call := func(op token, args ...[]token) []token {
		out := []token{op, {kind: tPunct, text: "(", at: op.at}}
		for k, a := range args {
			if k > 0 {
				out = append(out, token{kind: tPunct, text: ",", at: op.at})
			}
			out = append(out, rw.rewriteExpr(a)...)
		}
		return append(out, token{kind: tPunct, text: ")", at: op.at})
	}
	paren := func(a []token) []token {
		out := []token{{kind: tPunct, text: "(", at: a[0].at}}
		out = append(out, rw.rewriteExpr(a)...)
		return append(out, token{kind: tPunct, text: ")", at: a[len(a)-1].at})
	}
	switch {
	case at > 0 && seg[at].kind == tIdent:
		return rw.wrap(call(seg[at], seg[:at], seg[at+1:]), seg)
	case at > 0 && seg[at].text == "/" && (rw.floaty(seg[:at]) || rw.floaty(seg[at+1:])):
		return call(token{kind: tIdent, text: "fdiv", at: seg[at].at}, seg[:at], seg[at+1:])
	case at > 0 && at+1 < len(seg):
		out := paren(seg[:at])
		out = append(out, seg[at])
		return rw.wrap(append(out, paren(seg[at+1:])...), seg)
	case len(seg) > 1 && seg[0].kind == tIdent && unaryOps[seg[0].text] && !(seg[1].kind == tPunct && seg[1].text == "(" && matching(seg, 1) == len(seg)-1):
		return rw.wrap(call(seg[0], seg[1:]), seg)
	case len(seg) > 1 && seg[0].kind == tIdent && unaryOps[seg[0].text]:
		return rw.wrap(rw.rewriteGroups(seg), seg)
	}
	return rw.rewriteGroups(seg)
}

// rewriteGroups rewrites inside the groups of seg (which has no operator
// at its depth).
func (rw *rewriter) rewriteGroups(seg []token) []token {
	// no operator at this depth: rewrite inside the groups
	var out []token
	for i := 0; i < len(seg); i++ {
		if !isOpen(seg[i]) {
			out = append(out, seg[i])
			continue
		}
		end := closing(seg, i)
		out = append(out, seg[i])
		out = append(out, rw.rewriteSeq(seg[i+1:end])...)
		if end < len(seg) {
			out = append(out, seg[end])
		}
		i = end
	}
	return out
}

// closing returns the index of the bracket that closes seg[open] (any
// kind), or len(seg).
func closing(seg []token, open int) int {
	depth := 0
	for j := open; j < len(seg); j++ {
		switch {
		case isOpen(seg[j]):
			depth++
		case isClose(seg[j]):
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return len(seg)
}
