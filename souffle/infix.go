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
// variables of float attributes.
type rewriter struct {
	floats map[string]bool
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

// infix rewrites the operator words of a clause's tokens into calls, and
// its divisions of floats into fdiv; floats are the clause's variables of
// float attributes.
func infix(ts []token, floats map[string]bool) []token {
	rw := &rewriter{floats: floats}
	division := false
	for i := range ts {
		if isWordOp(ts, i) {
			return rw.rewriteSeq(ts)
		}
		division = division || ts[i].kind == tPunct && ts[i].text == "/"
	}
	if division && rw.floaty(ts) {
		return rw.rewriteSeq(ts)
	}
	return ts
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
		return call(seg[at], seg[:at], seg[at+1:])
	case at > 0 && seg[at].text == "/" && (rw.floaty(seg[:at]) || rw.floaty(seg[at+1:])):
		return call(token{kind: tIdent, text: "fdiv", at: seg[at].at}, seg[:at], seg[at+1:])
	case at > 0 && at+1 < len(seg):
		out := paren(seg[:at])
		out = append(out, seg[at])
		return append(out, paren(seg[at+1:])...)
	case len(seg) > 1 && seg[0].kind == tIdent && unaryOps[seg[0].text] && !(seg[1].kind == tPunct && seg[1].text == "(" && matching(seg, 1) == len(seg)-1):
		return call(seg[0], seg[1:])
	}
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
