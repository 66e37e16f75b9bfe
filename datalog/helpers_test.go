package datalog

// Small constructors for hand-built programs in tests.

func v(name string) Term { return Term{Kind: Var, Value: name} }
func s(name string) Term { return Term{Kind: Symbol, Value: name} }
func n(text string) Term { return Term{Kind: Number, Value: text} }

func atom(pred string, args ...Term) Atom { return Atom{Pred: pred, Args: args} }

func pos(a Atom) Literal { return Literal{Kind: Positive, Atom: a} }
func neg(a Atom) Literal { return Literal{Kind: Negated, Atom: a} }

func rule(w float64, head Atom, body ...Literal) Rule {
	return Rule{Weight: w, Head: head, Body: body}
}

// at returns r with its position set.
func at(r Rule, file string, line int) Rule {
	r.Pos = Pos{File: file, Line: line, Col: 1}
	return r
}
