package parser

import (
	"sort"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/english"
)

// disjunct lowers a body into its alternatives: one conjunction of
// literals per rule it expands into (`a ; b` and parenthesised
// disjunctions inside a conjunction multiply out).
func (l *lowerer) disjunct(g *gDisjunct) ([][]datalog.Literal, bool) {
	var out [][]datalog.Literal
	for _, c := range g.Conjs {
		alts, ok := l.conjunct(c)
		if !ok {
			return nil, false
		}
		out = append(out, alts...)
	}
	return out, true
}

// maxAlternatives bounds the rules one body expands into.
const maxAlternatives = 4096

func (l *lowerer) conjunct(g *gConjunct) ([][]datalog.Literal, bool) {
	out := [][]datalog.Literal{make([]datalog.Literal, 0, len(g.Lits))}
	for _, gl := range g.Lits {
		alts, ok := l.literal(gl)
		if !ok {
			return nil, false
		}
		if len(alts) == 1 {
			for i := range out {
				out[i] = append(out[i], alts[0]...)
			}
			continue
		}
		if len(out)*len(alts) > maxAlternatives {
			l.errorf(gl.Pos, "this body expands into more than %d rules", maxAlternatives)
			return nil, false
		}
		next := make([][]datalog.Literal, 0, len(out)*len(alts))
		for _, o := range out {
			for _, a := range alts {
				next = append(next, append(append([]datalog.Literal(nil), o...), a...))
			}
		}
		out = next
	}
	return out, true
}

// literal lowers one literal; a parenthesised body gives its alternatives.
func (l *lowerer) literal(g *gLiteral) ([][]datalog.Literal, bool) {
	lit := datalog.Literal{Pos: pos(g.Pos)}
	var ok bool
	switch {
	case g.Neg != nil:
		lit.Kind = datalog.Negated
		if !strings.HasPrefix(g.Neg.Pred, `"`) && datalog.Builtins[g.Neg.Pred] > 0 {
			// !match(Re, S): the test does not hold
			lit.Kind, lit.Not = datalog.Builtin, true
		}
		lit.Atom, ok = l.atom(g.Neg)
	case g.Op != "":
		lit.Kind = datalog.Comparison
		lit.Op = cmpOps[g.Op]
		var ok2 bool
		lit.Left, ok = l.expr(g.Left)
		lit.Right, ok2 = l.expr(g.Right)
		ok = ok && ok2
	default:
		p := g.Left.single()
		switch {
		case p != nil && p.Paren != nil:
			return l.disjunct(p.Paren)
		case p == nil || p.Name == nil || p.Name.isAggregate():
			l.errorf(g.Left.Pos, "expected an atom or a comparison, not the expression %s", l.text(g.Left))
			return nil, false
		}
		n := p.Name
		switch {
		case n.Name == "true" && !n.Parens:
			return [][]datalog.Literal{{}}, true // holds: no literal
		case n.Name == "false" && !n.Parens:
			return nil, true // never holds: no rule
		}
		lit.Kind = datalog.Positive
		if !strings.HasPrefix(n.Name, `"`) && datalog.Builtins[n.Name] > 0 {
			lit.Kind = datalog.Builtin
		}
		lit.Atom, ok = l.atom(&gAtom{Pos: n.Pos, Pred: n.Name, Parens: n.Parens, Args: n.Args})
	}
	if !ok {
		return nil, false
	}
	return [][]datalog.Literal{{lit}}, true
}

// single returns the primary an expression consists of, or nil when it
// has operators.
func (g *gExpr) single() *gPrimary {
	if len(g.Right) > 0 || len(g.Left.Right) > 0 {
		return nil
	}
	u := g.Left.Left
	if u.Neg || u.Exp != nil {
		return nil
	}
	return u.Base
}

func (n *gName) isAggregate() bool {
	return n.Target != nil || n.Braced != nil || n.Single != nil || n.Colon
}

// text is the source text of an expression, for messages.
func (l *lowerer) text(g *gExpr) string {
	t, ok := l.exprQuiet(g)
	if !ok {
		return "here"
	}
	return cut(t.String(), maxTokenExcerpt)
}

func (l *lowerer) exprQuiet(g *gExpr) (datalog.Term, bool) {
	saved := len(l.ds)
	t, ok := l.expr(g)
	l.ds = l.ds[:saved]
	return t, ok
}

func binary(op string, a, b datalog.Term, p lexer.Position) datalog.Term {
	return datalog.ExprTerm(&datalog.Expr{Op: op, Args: []datalog.Term{a, b}}, pos(p))
}

// expr lowers an expression: a plain term when it is one, otherwise a
// Compound term.
func (l *lowerer) expr(g *gExpr) (datalog.Term, bool) {
	t, ok := l.product(g.Left)
	for _, a := range g.Right {
		r, ok2 := l.product(a.Right)
		ok = ok && ok2
		t = binary(a.Op, t, r, g.Pos)
	}
	return t, ok
}

func (l *lowerer) product(g *gProduct) (datalog.Term, bool) {
	t, ok := l.unary(g.Left)
	for _, f := range g.Right {
		r, ok2 := l.unary(f.Right)
		ok = ok && ok2
		t = binary(f.Op, t, r, g.Pos)
	}
	return t, ok
}

func (l *lowerer) unary(g *gUnary) (datalog.Term, bool) {
	t, ok := l.primary(g.Base)
	if g.Exp != nil {
		e, ok2 := l.unary(g.Exp)
		ok = ok && ok2
		t = binary(datalog.OpPow, t, e, g.Base.Pos)
	}
	if !g.Neg {
		return t, ok
	}
	if t.Kind == datalog.Number {
		// -2 written with a space is the number -2.
		v := "-" + t.Value
		if strings.HasPrefix(t.Value, "-") {
			v = t.Value[1:]
		} else if t.Value == "0" {
			v = "0"
		}
		t.Value, t.Pos = v, pos(g.Pos)
		return t, ok
	}
	return datalog.ExprTerm(&datalog.Expr{Op: datalog.OpNeg, Args: []datalog.Term{t}}, pos(g.Pos)), ok
}

func (l *lowerer) primary(g *gPrimary) (datalog.Term, bool) {
	switch {
	case g.Var != "" || g.Num != "":
		return l.term(&gTerm{Pos: g.Pos, Value: g.Var + g.Num})
	case g.Paren != nil:
		if len(g.Paren.Conjs) == 1 && len(g.Paren.Conjs[0].Lits) == 1 {
			if gl := g.Paren.Conjs[0].Lits[0]; gl.Neg == nil && gl.Op == "" {
				return l.expr(gl.Left)
			}
		}
		l.errorf(g.Pos, "expected an expression in parentheses, not a body")
		return datalog.Term{}, false
	}
	n := g.Name
	switch {
	case n.isAggregate():
		return l.aggregate(n)
	case !n.Parens:
		return l.term(&gTerm{Pos: n.Pos, Value: n.Name})
	}
	if strings.HasPrefix(n.Name, `"`) {
		l.errorf(n.Pos, "%s(...) in an expression: a function is a plain name (%s)", cut(n.Name, maxTokenExcerpt), functionList())
		return datalog.Term{}, false
	}
	arity, known := datalog.Functions[n.Name]
	switch {
	case !known:
		l.errorf(n.Pos, "unknown function %s (%s)", cut(n.Name, maxTokenExcerpt), functionList())
		return datalog.Term{}, false
	case arity < 0 && len(n.Args) < -arity:
		l.errorf(n.Pos, "%s takes %d or more arguments, not %d", n.Name, -arity, len(n.Args))
		return datalog.Term{}, false
	case arity >= 0 && arity != len(n.Args):
		l.errorf(n.Pos, "%s takes %d %s, not %d", n.Name, arity, english.Plural(arity, "argument", "arguments"), len(n.Args))
		return datalog.Term{}, false
	}
	x := &datalog.Expr{Op: n.Name, Args: make([]datalog.Term, len(n.Args))}
	ok := true
	for i, a := range n.Args {
		var ok2 bool
		x.Args[i], ok2 = l.expr(a)
		ok = ok && ok2
	}
	return datalog.ExprTerm(x, pos(n.Pos)), ok
}

func (l *lowerer) aggregate(n *gName) (datalog.Term, bool) {
	if strings.HasPrefix(n.Name, `"`) || !datalog.Aggregators[n.Name] {
		l.errorf(n.Pos, "unknown aggregate %s (count, sum, min, max or mean: N = count : { p(X) })", cut(n.Name, maxTokenExcerpt))
		return datalog.Term{}, false
	}
	x := &datalog.Expr{Op: n.Name, Agg: true}
	if n.Colon {
		// min (Z + 1) : { a(Z) }: the parenthesised arguments are the target
		if len(n.Args) != 1 {
			l.errorf(n.Pos, "%s takes one target, not %d: N = %s V : { p(X, V) }", n.Name, len(n.Args), n.Name)
			return datalog.Term{}, false
		}
		m := *n
		m.Parens, m.Colon, m.Target, m.Braced, m.Single = false, false, n.Args[0], n.PBody, n.PAtom
		n = &m
	}
	switch {
	case n.Name == "count" && n.Target != nil:
		l.errorf(n.Target.Pos, "count takes no target: N = count : { p(X) }")
		return datalog.Term{}, false
	case n.Name != "count" && n.Target == nil:
		l.errorf(n.Pos, "%s needs a target: N = %s V : { p(X, V) }", n.Name, n.Name)
		return datalog.Term{}, false
	case n.Target != nil:
		t, ok := l.expr(n.Target)
		if !ok {
			return datalog.Term{}, false
		}
		x.Args = []datalog.Term{t}
	}
	if n.Single != nil {
		a, ok := l.atom(n.Single)
		if !ok {
			return datalog.Term{}, false
		}
		x.Body = []datalog.Literal{{Kind: datalog.Positive, Atom: a, Pos: a.Pos}}
		if !strings.HasPrefix(n.Single.Pred, `"`) && datalog.Builtins[a.Pred] > 0 {
			x.Body[0].Kind = datalog.Builtin
		}
	} else {
		alts, ok := l.conjunct(n.Braced)
		if !ok {
			return datalog.Term{}, false
		}
		if len(alts) != 1 {
			l.errorf(n.Pos, "an aggregate's body cannot have alternatives (;)")
			return datalog.Term{}, false
		}
		x.Body = alts[0]
	}
	return datalog.ExprTerm(x, pos(n.Pos)), true
}

// functionList names the built-in functions with their arities.
func functionList() string {
	names := make([]string, 0, len(datalog.Functions))
	for f := range datalog.Functions {
		names = append(names, f)
	}
	sort.Strings(names)
	return "the functions are " + strings.Join(names, ", ")
}
