package souffle

import (
	"strconv"

	"github.com/drumql/drumql/datalog"
)

// range(A, B[, S]) with bounds that are not constants: `V = range(A, B)`
// becomes an atom "range/N"(A, B, V) over a relation of its own, whose
// rules enumerate the values for the bounds the clause demands:
//
//	"range/N?"(A, B) :- the clause's positive atoms and equalities.
//	"range/N"(a, b, a) :- "range/N?"(a, b), a != b.
//	"range/N"(a, b, v + 1) :- "range/N"(a, b, v), a < b, v + 1 < b.
//	"range/N"(a, b, v - 1) :- "range/N"(a, b, v), a > b, v - 1 > b.
//
// (with a step S: from a while below b for S > 0, above it for S < 0).
// The demand rule's body is an over-approximation (the clause's positive
// atoms and equalities that read no range, negations left out), so the
// atom keeps the clause's meaning.

// arguments returns the number of arguments of a call's tokens (between
// its parentheses): the commas at depth 0, plus one.
func arguments(ts []token) int {
	if len(ts) == 0 {
		return 0
	}
	n, depth := 1, 0
	for _, t := range ts {
		switch {
		case isOpen(t):
			depth++
		case isClose(t):
			depth--
		case depth == 0 && t.text == ",":
			n++
		}
	}
	return n
}

// variableRange rewrites V = range(...) (range at k, its ")" at m, the
// variable at v) of n bounds into an atom of a relation of its own.
func (r *reader) variableRange(ts []token, texts []string, k, m, v, n int) {
	name := "range/" + strconv.Itoa(len(r.p.varRanges)+1)
	r.p.varRanges = append(r.p.varRanges, varRange{name: name, bounds: n})
	cols := make([]Col, n+1)
	for i := range cols {
		cols[i] = Col{Name: "x" + strconv.Itoa(i), Type: "number"}
	}
	r.p.Decls[name] = &Decl{Name: name, Cols: cols, At: ts[k].at}
	r.p.Decls[name+"?"] = &Decl{Name: name + "?", Cols: cols[:n], At: ts[k].at}
	vt := texts[v]
	if v < k { // V = range(...)
		texts[v], texts[v+1], texts[k], texts[k+1] = strconv.Quote(name)+"(", "", "", ""
	} else { // range(...) = V
		texts[k], texts[k+1], texts[m+1], texts[m+2] = strconv.Quote(name)+"(", "", "", ""
	}
	texts[m] = ", " + vt + ")"
}

// varRange is a range relation of a clause (variableRange): its name and
// its number of bounds (2 or 3).
type varRange struct {
	name   string
	bounds int
}

// rangeRules adds the demand rules and the rules of the range relations.
func (p *Program) rangeRules(prog *datalog.Program) {
	if len(p.varRanges) == 0 {
		return
	}
	isRange := map[string]bool{}
	for _, vr := range p.varRanges {
		isRange[vr.name] = true
	}
	n := len(prog.Rules)
	for i := 0; i < n; i++ {
		r := &prog.Rules[i]
		demand(r.Body, nil, isRange, r.Pos, prog)
	}
	for _, vr := range p.varRanges {
		prog.Rules = append(prog.Rules, enumeration(vr)...)
	}
}

// demand adds a demand rule for each range atom of a scope (body, with
// outer the positive atoms and equalities of the scopes around it), and
// for those of the aggregates in it.
func demand(body, outer []datalog.Literal, isRange map[string]bool, at datalog.Pos, prog *datalog.Program) {
	lits := append([]datalog.Literal(nil), outer...)
	for _, l := range body {
		if (l.Kind == datalog.Positive || l.Kind == datalog.Comparison && l.Op == datalog.OpEq) && !readsRange(l, isRange) {
			lits = append(lits, l)
		}
	}
	for _, l := range body {
		if l.Kind == datalog.Positive && isRange[l.Atom.Pred] {
			args := l.Atom.Args[:len(l.Atom.Args)-1]
			prog.Rules = append(prog.Rules, datalog.Rule{Weight: 1, Pos: at,
				Head: datalog.Atom{Pred: l.Atom.Pred + "?", Args: args, Pos: l.Pos},
				Body: append([]datalog.Literal(nil), lits...)})
		}
		visitAggs(l, func(x *datalog.Expr) { demand(x.Body, lits, isRange, at, prog) })
	}
}

// readsRange reports whether literal l is a range atom or has one in the
// body of an aggregate.
func readsRange(l datalog.Literal, isRange map[string]bool) bool {
	if l.IsAtom() && isRange[l.Atom.Pred] {
		return true
	}
	found := false
	visitAggs(l, func(x *datalog.Expr) {
		for _, b := range x.Body {
			found = found || readsRange(b, isRange)
		}
	})
	return found
}

// visitAggs calls f for each outermost aggregate of literal l.
func visitAggs(l datalog.Literal, f func(*datalog.Expr)) {
	var in func(t datalog.Term)
	in = func(t datalog.Term) {
		if t.Kind != datalog.Compound {
			return
		}
		if t.X.Agg {
			f(t.X)
			return
		}
		for _, a := range t.X.Args {
			in(a)
		}
	}
	in(l.Left)
	in(l.Right)
	for _, a := range l.Atom.Args {
		in(a)
	}
}

// enumeration returns the rules that enumerate range relation vr.
func enumeration(vr varRange) []datalog.Rule {
	v := func(name string) datalog.Term { return datalog.Term{Kind: datalog.Var, Value: name} }
	num := func(s string) datalog.Term { return datalog.Term{Kind: datalog.Number, Value: s} }
	expr := func(op string, a, b datalog.Term) datalog.Term {
		return datalog.ExprTerm(&datalog.Expr{Op: op, Args: []datalog.Term{a, b}}, datalog.Pos{})
	}
	cmp := func(a datalog.Term, op datalog.CmpOp, b datalog.Term) datalog.Literal {
		return datalog.Literal{Kind: datalog.Comparison, Left: a, Op: op, Right: b}
	}
	atom := func(pred string, args ...datalog.Term) datalog.Literal {
		return datalog.Literal{Kind: datalog.Positive, Atom: datalog.Atom{Pred: pred, Args: args}}
	}
	rule := func(head datalog.Literal, body ...datalog.Literal) datalog.Rule {
		return datalog.Rule{Weight: 1, Head: head.Atom, Body: body}
	}
	a, b, s, x := v("A"), v("B"), v("S"), v("X")
	if vr.bounds == 2 {
		up, down := expr("+", x, num("1")), expr("-", x, num("1"))
		return []datalog.Rule{
			rule(atom(vr.name, a, b, a), atom(vr.name+"?", a, b), cmp(a, datalog.OpNe, b)),
			rule(atom(vr.name, a, b, up), atom(vr.name, a, b, x), cmp(a, datalog.OpLt, b), cmp(up, datalog.OpLt, b)),
			rule(atom(vr.name, a, b, down), atom(vr.name, a, b, x), cmp(a, datalog.OpGt, b), cmp(down, datalog.OpGt, b)),
		}
	}
	next := expr("+", x, s)
	zero := num("0")
	return []datalog.Rule{
		rule(atom(vr.name, a, b, s, a), atom(vr.name+"?", a, b, s), cmp(s, datalog.OpGt, zero), cmp(a, datalog.OpLt, b)),
		rule(atom(vr.name, a, b, s, a), atom(vr.name+"?", a, b, s), cmp(s, datalog.OpLt, zero), cmp(a, datalog.OpGt, b)),
		rule(atom(vr.name, a, b, s, next), atom(vr.name, a, b, s, x), cmp(s, datalog.OpGt, zero), cmp(next, datalog.OpLt, b)),
		rule(atom(vr.name, a, b, s, next), atom(vr.name, a, b, s, x), cmp(s, datalog.OpLt, zero), cmp(next, datalog.OpGt, b)),
	}
}
