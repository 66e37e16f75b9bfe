package souffle

// Soufflé's binary operator words (x band y) become calls of drumql's
// functions of the same name (band(x, y)), with Soufflé's precedences;
// the unary ones (bnot x, lnot x) apply to the rest of their operand.

// wordOps are the binary operator words by precedence, lowest first.
var wordOps = map[string]int{
	"lor": 1, "lxor": 2, "land": 3, "bor": 4, "bxor": 5, "band": 6, "bshl": 7, "bshr": 7, "bshru": 7,
}

var unaryOps = map[string]bool{"bnot": true, "lnot": true}

// isWordOp reports whether ts[i] is an operator word.
func isWordOp(ts []token, i int) bool {
	t := ts[i]
	return t.kind == tIdent && (wordOps[t.text] > 0 || unaryOps[t.text])
}

// infix rewrites the operator words of a clause's tokens into calls.
func infix(ts []token) []token {
	for i := range ts {
		if isWordOp(ts, i) {
			return rewriteSeq(ts)
		}
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
func rewriteSeq(ts []token) []token {
	var out []token
	start, depth := 0, 0
	for i, t := range ts {
		switch {
		case isOpen(t):
			depth++
		case isClose(t):
			depth--
		case depth == 0 && t.kind == tPunct && delimiters[t.text]:
			out = append(out, rewriteExpr(ts[start:i])...)
			out = append(out, t)
			start = i + 1
		}
	}
	return append(out, rewriteExpr(ts[start:])...)
}

// rewriteExpr rewrites one expression: split at its loosest operator word
// (the rightmost of the loosest: they associate to the left).
func rewriteExpr(seg []token) []token {
	at, prec, depth := -1, 0, 0
	for i, t := range seg {
		switch {
		case isOpen(t):
			depth++
		case isClose(t):
			depth--
		case depth == 0 && t.kind == tIdent && wordOps[t.text] > 0 && i > 0:
			if p := wordOps[t.text]; at < 0 || p <= prec {
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
			out = append(out, rewriteExpr(a)...)
		}
		return append(out, token{kind: tPunct, text: ")", at: op.at})
	}
	switch {
	case at > 0:
		return call(seg[at], seg[:at], seg[at+1:])
	case len(seg) > 1 && seg[0].kind == tIdent && unaryOps[seg[0].text] && !(seg[1].kind == tPunct && seg[1].text == "(" && matching(seg, 1) == len(seg)-1):
		return call(seg[0], seg[1:])
	}
	// no operator word at this depth: rewrite inside the groups
	var out []token
	for i := 0; i < len(seg); i++ {
		if !isOpen(seg[i]) {
			out = append(out, seg[i])
			continue
		}
		end := closing(seg, i)
		out = append(out, seg[i])
		out = append(out, rewriteSeq(seg[i+1:end])...)
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
