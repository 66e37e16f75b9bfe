package datalog

// Expr is the expression of a Compound term: an arithmetic operator
// applied to its operands, a built-in function call, or an aggregate.
//
//	X + 1          Expr{Op: "+", Args: [X, 1]}
//	-X             Expr{Op: "neg", Args: [X]}
//	cat(A, "_x")   Expr{Op: "cat", Args: [A, "_x"]}
//	count : { parent(X, _) }            Expr{Op: "count", Agg: true, Body: [parent(X, _)]}
//	sum V : { score(X, V), V > 0 }      Expr{Op: "sum", Agg: true, Args: [V], Body: [...]}
//
// An aggregate's Args hold its target (none for count); its Body is a
// conjunction of literals, grouped by the variables it shares with the rest
// of the rule (see Validate).
type Expr struct {
	Op   string
	Args []Term
	Agg  bool      // an aggregate: Op is count, sum, min, max or mean
	Body []Literal // an aggregate's body
}

// The arithmetic operators, by precedence (Op of a binary Expr).
const (
	OpAdd = "+"
	OpSub = "-"
	OpMul = "*"
	OpDiv = "/"
	OpMod = "%"
	OpPow = "^"
	OpNeg = "neg" // unary minus
)

// Functions lists the built-in functions usable in expressions with their
// number of arguments; -2 means two or more (min, max and cat, as in
// Soufflé).
var Functions = map[string]int{
	"min": -2, "max": -2, "abs": 1, "fdiv": 2,
	"cat": -2, "strlen": 1, "substr": 3, "to_number": 1, "to_string": 1,
	// Soufflé's bitwise and logical operators, on integers (see BitFunctions)
	"band": 2, "bor": 2, "bxor": 2, "bshl": 2, "bshr": 2, "bshru": 2, "bnot": 1,
	"land": 2, "lor": 2, "lxor": 2, "lnot": 1,
	// ord(X): a number is itself, a name its number in the symbol table
	// (the store's dictionary, then the program's own constants): the
	// order in which the symbols were first seen, as Soufflé's ord
	"ord": 1,
	// autoinc(): Soufflé's counter, 0, 1, 2, ... in evaluation order (a
	// program that calls it is evaluated in one thread)
	"autoinc": 0,
}

// BitFunctions are the functions of Functions on 64-bit integers, with
// their results: band, bor, bxor, bnot (bitwise and, or, exclusive or,
// complement), bshl, bshr, bshru (shifts left, right arithmetic, right
// logical; a shift by 64 or more is 0, or -1 for bshr of a negative),
// land, lor, lxor, lnot (logical: 0 is false, every other integer true;
// the result is 1 or 0). A non-integer operand is an error.
func BitFunctions(op string, a, b int64) (int64, bool) {
	bit := func(c bool) int64 {
		if c {
			return 1
		}
		return 0
	}
	switch op {
	case "band":
		return a & b, true
	case "bor":
		return a | b, true
	case "bxor":
		return a ^ b, true
	case "bnot":
		return ^a, true
	case "bshl", "bshr", "bshru":
		switch {
		case b < 0 || b >= 64:
			if op == "bshr" && a < 0 {
				return -1, true
			}
			return 0, true
		case op == "bshl":
			return a << b, true
		case op == "bshr":
			return a >> b, true
		}
		return int64(uint64(a) >> b), true
	case "land":
		return bit(a != 0 && b != 0), true
	case "lor":
		return bit(a != 0 || b != 0), true
	case "lxor":
		return bit((a != 0) != (b != 0)), true
	case "lnot":
		return bit(a == 0), true
	}
	return 0, false
}

// Aggregators lists the aggregate functions; all but count take a target.
var Aggregators = map[string]bool{"count": true, "sum": true, "min": true, "max": true, "mean": true}

// Builtins lists the built-in tests, written as body literals, with their
// number of arguments: contains(Sub, S) holds when the name of S contains
// that of Sub, match(Re, S) when Re (Go regexp syntax) matches the whole
// name of S.
var Builtins = map[string]int{"contains": 2, "match": 2}

// IsAtom reports whether l is an atom over a predicate (positive or
// negated): not a comparison or a built-in test.
func (l *Literal) IsAtom() bool { return l.Kind == Positive || l.Kind == Negated }

// ExprTerm returns the Compound term of x at position p.
func ExprTerm(x *Expr, p Pos) Term { return Term{Kind: Compound, X: x, Pos: p} }

// Vars calls f for every variable of t, also inside expressions (and the
// bodies of aggregates), in order of appearance.
func (t Term) Vars(f func(Term)) {
	switch t.Kind {
	case Var:
		f(t)
	case Compound:
		for _, a := range t.X.Args {
			a.Vars(f)
		}
		for i := range t.X.Body {
			t.X.Body[i].Vars(f)
		}
	}
}

// Vars calls f for every variable of l, also inside expressions and the
// bodies of aggregates, in order of appearance.
func (l *Literal) Vars(f func(Term)) {
	if l.Kind == Comparison {
		l.Left.Vars(f)
		l.Right.Vars(f)
		return
	}
	for _, t := range l.Atom.Args {
		t.Vars(f)
	}
}

// HasCompound reports whether the rule has an expression anywhere (in its
// head, an atom or a comparison) or a built-in test.
func (r *Rule) HasCompound() bool {
	for _, t := range r.Head.Args {
		if t.Kind == Compound {
			return true
		}
	}
	for i := range r.Body {
		l := &r.Body[i]
		if l.Kind == Builtin || l.Left.Kind == Compound || l.Right.Kind == Compound {
			return true
		}
		for _, t := range l.Atom.Args {
			if t.Kind == Compound {
				return true
			}
		}
	}
	return false
}

// Aggregates calls f for every aggregate term in the rule (outermost
// first; an aggregate inside another's body after it).
func (r *Rule) Aggregates(f func(Term)) {
	for _, a := range r.Head.Args {
		aggregatesIn(a, f)
	}
	for i := range r.Body {
		aggregatesInLiteral(&r.Body[i], f)
	}
}

func aggregatesIn(t Term, f func(Term)) {
	if t.Kind != Compound {
		return
	}
	if t.X.Agg {
		f(t)
	}
	for _, a := range t.X.Args {
		aggregatesIn(a, f)
	}
	for i := range t.X.Body {
		aggregatesInLiteral(&t.X.Body[i], f)
	}
}

func aggregatesInLiteral(l *Literal, f func(Term)) {
	aggregatesIn(l.Left, f)
	aggregatesIn(l.Right, f)
	for _, a := range l.Atom.Args {
		aggregatesIn(a, f)
	}
}

// BodyAtoms calls f for every literal of the rule's body over a predicate
// (positive or negated; built-in tests are not), also those in the bodies
// of aggregates, with inAgg set for those.
func (r *Rule) BodyAtoms(f func(l *Literal, inAgg bool)) {
	for i := range r.Body {
		if l := &r.Body[i]; l.IsAtom() {
			f(l, false)
		}
	}
	r.Aggregates(func(t Term) {
		for i := range t.X.Body {
			if l := &t.X.Body[i]; l.IsAtom() {
				f(l, true)
			}
		}
	})
}

// precedence of an expression's operator when printed: higher binds
// tighter.
func precedence(t Term) int {
	if t.Kind != Compound || t.X.Agg {
		return 5
	}
	switch t.X.Op {
	case OpAdd, OpSub:
		return 1
	case OpMul, OpDiv, OpMod:
		return 2
	case OpNeg:
		return 3
	case OpPow:
		return 4
	}
	return 5 // a function call
}

// appendExpr appends compound term t, writing each variable (and
// non-compound operand) with leaf.
func appendExpr(b []byte, t Term, leaf func([]byte, Term) []byte) []byte {
	sub := func(b []byte, a Term, parens bool) []byte {
		if parens {
			b = append(b, '(')
		}
		if a.Kind == Compound {
			b = appendExpr(b, a, leaf)
		} else {
			b = leaf(b, a)
		}
		if parens {
			b = append(b, ')')
		}
		return b
	}
	x := t.X
	p := precedence(t)
	switch {
	case x.Agg:
		b = append(b, x.Op...)
		if len(x.Args) > 0 {
			b = append(b, ' ')
			b = sub(b, x.Args[0], false)
		}
		b = append(b, " : { "...)
		b = appendLiterals(b, x.Body, leaf)
		return append(b, " }"...)
	case x.Op == OpNeg:
		a := x.Args[0]
		b = append(b, '-')
		parens := a.Kind == Number || a.Kind == Compound && precedence(a) < 5
		return sub(b, a, parens)
	case p == 5:
		b = append(b, x.Op...)
		b = append(b, '(')
		for i, a := range x.Args {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = sub(b, a, false)
		}
		return append(b, ')')
	case x.Op == OpPow:
		// right associative; the exponent may be negated without
		// parentheses
		b = sub(b, x.Args[0], precedence(x.Args[0]) <= p)
		b = append(b, " ^ "...)
		rp := precedence(x.Args[1])
		return sub(b, x.Args[1], rp < p && rp != 3)
	default:
		b = sub(b, x.Args[0], leftParens(x, p))
		b = append(b, ' ')
		b = append(b, x.Op...)
		b = append(b, ' ')
		return sub(b, x.Args[1], rightParens(x, p))
	}
}

// leftParens reports whether appendExpr parenthesises the left operand of
// x, a binary operator other than "^" of precedence p: when it binds less
// tightly, and, for "%" and "-", when it would end like a name. After a
// name, "%" starts a comment, and "-" makes the name the start of an
// aggregate ("a -0 : {...}").
func leftParens(x *Expr, p int) bool {
	return precedence(x.Args[0]) < p || (x.Op == OpMod || x.Op == OpSub) && !endsWithOperand(x.Args[0])
}

// rightParens reports whether appendExpr parenthesises the right operand
// of x, as leftParens: when it binds no more tightly (the operators are
// left associative), and, for "%", when it would not start like an
// operand (the parser reads "%" as the remainder only before one).
func rightParens(x *Expr, p int) bool {
	return precedence(x.Args[1]) <= p || x.Op == OpMod && !startsWithOperand(x.Args[1])
}

// endsWithOperand reports whether t, printed by appendExpr, ends with a
// variable, a number or a closing parenthesis: what the parser takes a
// following "%" as the remainder operator after (a name or a quoted
// symbol before it, or an aggregate's closing brace, starts a comment),
// and a following "-" as the minus operator after (a name before it
// starts an aggregate).
func endsWithOperand(t Term) bool {
	switch t.Kind {
	case Var, Number:
		return true
	case Compound:
	default:
		return false
	}
	x := t.X
	p := precedence(t)
	switch {
	case x.Agg:
		return false
	case x.Op == OpNeg:
		a := x.Args[0]
		return a.Kind == Number || a.Kind == Compound && precedence(a) < 5 || endsWithOperand(a)
	case p == 5:
		return true // a call ends with ")"
	case x.Op == OpPow:
		rp := precedence(x.Args[1])
		return rp < p && rp != 3 || endsWithOperand(x.Args[1])
	}
	return rightParens(x, p) || endsWithOperand(x.Args[1])
}

// startsWithOperand reports whether t, printed by appendExpr, starts with
// a variable, a number, "(" or "-": what the parser needs after a "%" at
// the start of a literal to read it as the remainder.
func startsWithOperand(t Term) bool {
	switch t.Kind {
	case Var, Number:
		return true
	case Compound:
	default:
		return false
	}
	x := t.X
	p := precedence(t)
	switch {
	case x.Agg, p == 5:
		return false // a name first
	case x.Op == OpNeg:
		return true
	case x.Op == OpPow:
		return precedence(x.Args[0]) <= p || startsWithOperand(x.Args[0])
	}
	return leftParens(x, p) || startsWithOperand(x.Args[0])
}

// appendLiterals appends body literals separated by ", ", writing terms
// with leaf.
func appendLiterals(b []byte, body []Literal, leaf func([]byte, Term) []byte) []byte {
	for i := range body {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendLiteral(b, &body[i], leaf)
	}
	return b
}

// appendLiteral appends l, writing terms with leaf (expressions through
// appendExpr).
func appendLiteral(b []byte, l *Literal, leaf func([]byte, Term) []byte) []byte {
	term := func(b []byte, t Term) []byte {
		if t.Kind == Compound {
			return appendExpr(b, t, leaf)
		}
		return leaf(b, t)
	}
	atom := func(b []byte, a *Atom, builtin bool) []byte {
		if !builtin && (Builtins[a.Pred] > 0 || len(a.Args) == 0 && (a.Pred == "true" || a.Pred == "false")) {
			b = appendQuoted(b, a.Pred) // a predicate, not the built-in test
		} else {
			b = appendName(b, a.Pred)
		}
		return appendArgs(b, a.Args, func(t Term, b []byte) []byte { return term(b, t) })
	}
	switch l.Kind {
	case Negated:
		b = append(b, "not "...)
		return atom(b, &l.Atom, false)
	case Comparison:
		b = term(b, l.Left)
		b = append(b, ' ')
		b = append(b, l.Op.String()...)
		b = append(b, ' ')
		return term(b, l.Right)
	case Builtin:
		if l.Not {
			b = append(b, "not "...)
		}
		return atom(b, &l.Atom, true)
	default:
		return atom(b, &l.Atom, false)
	}
}

// plainLeaf writes a non-compound term as written.
func plainLeaf(b []byte, t Term) []byte { return t.appendTo(b) }
