package parser

import (
	"strconv"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/drumql/drumql/datalog"
)

// fast parses one statement (its tokens, ending with "." or "?") with a
// hand-written recursive-descent parser of the grammar in grammar.go and
// appends it to the program. It reports false, appending nothing, for any
// statement it does not accept (a syntax error, a lexical error, a number
// out of range, a query with a weight or a body): the participle path then
// parses the statement again and reports the problem. On every statement
// it accepts, it builds exactly the AST the participle path builds.
func (l *lowerer) fast(ts []lexer.Token) bool {
	f := fastParser{ts: ts}
	first := &ts[0]
	if first.Type == tokDirective {
		if first.Value != "@import" || len(ts) != 3 || ts[1].Type != tokString || !isPunct(&ts[2], ".") {
			return false
		}
		l.prog.Imports = append(l.prog.Imports, datalog.Import{Path: unquote(ts[1].Value), Pos: pos(first.Pos)})
		return true
	}
	weight, hasWeight := 1.0, false
	if first.Type == tokNumber {
		if len(ts) < 2 || !isPunct(&ts[1], "::") {
			return false
		}
		w, err := strconv.ParseFloat(first.Value, 64)
		if err != nil {
			return false
		}
		weight, hasWeight = w, true
		f.i = 2
	}
	head, ok := f.atom()
	if !ok {
		return false
	}
	var body []datalog.Literal
	if f.punct(":-") {
		n, depth := 1, 0
		for j := f.i; j < len(ts); j++ {
			switch {
			case isPunct(&ts[j], "("):
				depth++
			case isPunct(&ts[j], ")"):
				depth--
			case depth == 0 && isPunct(&ts[j], ","):
				n++
			}
		}
		body = make([]datalog.Literal, 0, n)
		for {
			lit, ok := f.literal()
			if !ok {
				return false
			}
			body = append(body, lit)
			if !f.punct(",") {
				break
			}
		}
	}
	if f.i != len(ts)-1 {
		return false
	}
	end := &ts[f.i]
	switch {
	case isPunct(end, "?"):
		if hasWeight || body != nil {
			return false
		}
		l.prog.Queries = append(l.prog.Queries, datalog.Query{Atom: head, Pos: pos(first.Pos)})
	case !isPunct(end, "."):
		return false
	case body == nil:
		l.prog.Facts = append(l.prog.Facts, datalog.Fact{Weight: weight, Atom: head, Pos: pos(first.Pos)})
	default:
		l.prog.Rules = append(l.prog.Rules, datalog.Rule{Weight: weight, Head: head, Body: body, Pos: pos(first.Pos)})
	}
	return true
}

func isPunct(t *lexer.Token, v string) bool { return t.Type == tokPunct && t.Value == v }

type fastParser struct {
	ts []lexer.Token
	i  int
}

func (f *fastParser) peek() *lexer.Token {
	if f.i < len(f.ts) {
		return &f.ts[f.i]
	}
	return &lexer.Token{Type: lexer.EOF}
}

func (f *fastParser) punct(v string) bool {
	if isPunct(f.peek(), v) {
		f.i++
		return true
	}
	return false
}

// atom parses name [ "(" [ term { "," term } ] ")" ].
func (f *fastParser) atom() (datalog.Atom, bool) {
	t := f.peek()
	if t.Type != tokIdent && t.Type != tokString {
		return datalog.Atom{}, false
	}
	f.i++
	a := datalog.Atom{Pred: t.Value, Pos: pos(t.Pos)}
	if t.Type == tokString {
		a.Pred = unquote(t.Value)
	}
	args, ok := f.args()
	a.Args = args
	return a, ok
}

func (f *fastParser) args() ([]datalog.Term, bool) {
	if !f.punct("(") {
		return nil, true
	}
	if f.punct(")") {
		return nil, true
	}
	n := 0
	for j := f.i; j < len(f.ts) && !isPunct(&f.ts[j], ")"); j++ {
		if isPunct(&f.ts[j], ",") {
			n++
		}
	}
	args := make([]datalog.Term, 0, n+1)
	for {
		t, ok := f.term()
		if !ok {
			return nil, false
		}
		args = append(args, t)
		if f.punct(")") {
			return args, true
		}
		if !f.punct(",") {
			return nil, false
		}
	}
}

func (f *fastParser) term() (datalog.Term, bool) {
	t := f.peek()
	f.i++
	p := pos(t.Pos)
	switch t.Type {
	case tokVar:
		return datalog.Term{Kind: datalog.Var, Value: t.Value, Pos: p}, true
	case tokIdent:
		return datalog.Term{Kind: datalog.Symbol, Value: t.Value, Pos: p}, true
	case tokString:
		return datalog.Term{Kind: datalog.Symbol, Value: unquote(t.Value), Pos: p}, true
	case tokNumber:
		v, ok := datalog.CanonicalNumber(t.Value)
		return datalog.Term{Kind: datalog.Number, Value: v, Pos: p}, ok
	}
	return datalog.Term{}, false
}

func (f *fastParser) op() (datalog.CmpOp, bool) {
	t := f.peek()
	if t.Type != tokPunct {
		return 0, false
	}
	op, ok := cmpOps[t.Value]
	if ok {
		f.i++
	}
	return op, ok
}

// literal parses "not" atom | (Var | Number) op term | name [ args | op term ].
func (f *fastParser) literal() (datalog.Literal, bool) {
	t := f.peek()
	lit := datalog.Literal{Pos: pos(t.Pos)}
	var ok bool
	switch {
	case t.Type == tokIdent && t.Value == "not":
		f.i++
		if n := f.peek(); n.Type == tokIdent && datalog.Builtins[n.Value] > 0 {
			return lit, false // the participle path reports it
		}
		lit.Kind = datalog.Negated
		lit.Atom, ok = f.atom()
		return lit, ok
	case t.Type == tokVar || t.Type == tokNumber:
		lit.Kind = datalog.Comparison
		if lit.Left, ok = f.term(); !ok {
			return lit, false
		}
		if lit.Op, ok = f.op(); !ok {
			return lit, false
		}
		lit.Right, ok = f.term()
		return lit, ok
	case t.Type == tokIdent && (datalog.Builtins[t.Value] > 0 || t.Value == "true" || t.Value == "false"):
		return lit, false // a built-in test: the participle path parses it
	case t.Type == tokIdent || t.Type == tokString:
		if f.i+1 < len(f.ts) && f.ts[f.i+1].Type == tokPunct {
			if _, isOp := cmpOps[f.ts[f.i+1].Value]; isOp {
				lit.Kind = datalog.Comparison
				lit.Left, _ = f.term()
				lit.Op, _ = f.op()
				lit.Right, ok = f.term()
				return lit, ok
			}
		}
		lit.Kind = datalog.Positive
		lit.Atom, ok = f.atom()
		return lit, ok
	}
	return lit, false
}
