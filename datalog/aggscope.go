package datalog

import "strconv"

// LocalizeAggregates gives the local variables of r's aggregates names of
// their own, so that a name used inside an aggregate and elsewhere in the
// rule means two variables, as in Soufflé:
//
//	p(Y, W) :- Y = min Z : { a(Z) }, W = max Z : { a(Z) }.
//	r(Y) :- Y = min Z + Y : { a(A, Z), a(B, Y), A != B }.
//
// An aggregate's grouping variables are those that occur in its scope (the
// rule, or the aggregate it is nested in) outside every aggregate, except
// the variable it assigns (`Y = min ...`) when no positive atom of the
// scope binds it; the others are local to it. A local variable whose name
// occurs elsewhere in the rule is renamed (Z to Z_1, the first free
// suffix) in a copy of the aggregate; r is otherwise unchanged, and a rule
// without such a clash is left as it is.
func (r *Rule) LocalizeAggregates() {
	hasAgg := false
	r.Aggregates(func(Term) { hasAgg = true })
	if !hasAgg {
		return
	}
	// the head's arguments and the body may be shared with other rules
	// (several heads, alternatives): r gets its own
	r.Head.Args = append([]Term(nil), r.Head.Args...)
	r.Body = append([]Literal(nil), r.Body...)
	lz := &localizer{rule: r}
	lz.scope(r.Body, r.Head.Args, nil)
}

type localizer struct {
	rule *Rule
}

// counts returns how often each variable occurs in the whole rule.
func (lz *localizer) counts() map[string]int {
	n := map[string]int{}
	f := func(t Term) { n[t.Value]++ }
	for _, t := range lz.rule.Head.Args {
		t.Vars(f)
	}
	for i := range lz.rule.Body {
		lz.rule.Body[i].Vars(f)
	}
	return n
}

// fresh returns name with the first suffix _1, _2, ... that no variable of
// the rule has.
func (lz *localizer) fresh(name string, used map[string]int) string {
	for k := 1; ; k++ {
		s := name + "_" + strconv.Itoa(k)
		if used[s] == 0 {
			return s
		}
	}
}

// scope localizes the aggregates of one scope: body with the terms needs
// (a rule's head, an aggregate's target), inherited the variables bound
// outside it. Its literals and terms are replaced in place by copies.
func (lz *localizer) scope(body []Literal, needs []Term, inherited map[string]bool) {
	top := map[string]bool{}
	for v := range inherited {
		top[v] = true
	}
	positive := map[string]bool{}
	for v := range inherited {
		positive[v] = true
	}
	for _, t := range needs {
		topVars(t, top)
	}
	for i := range body {
		l := &body[i]
		for _, t := range litTerms(l) {
			topVars(t, top)
			if l.Kind == Positive && t.Kind == Var {
				positive[t.Value] = true
			}
		}
	}
	fix := func(t Term, assigned string) Term {
		return mapAggs(t, func(a Term) Term { return lz.aggregate(a, top, positive, assigned) })
	}
	for i := range needs {
		needs[i] = fix(needs[i], "")
	}
	for i := range body {
		l := &body[i]
		switch l.Kind {
		case Comparison:
			left, right := "", ""
			if l.Op == OpEq && l.Left.Kind == Var {
				right = l.Left.Value
			}
			if l.Op == OpEq && l.Right.Kind == Var {
				left = l.Right.Value
			}
			l.Left, l.Right = fix(l.Left, left), fix(l.Right, right)
		default:
			args := make([]Term, len(l.Atom.Args))
			for j, t := range l.Atom.Args {
				args[j] = fix(t, "")
			}
			l.Atom.Args = args
		}
	}
}

// aggregate returns aggregate a with its clashing local variables renamed
// and its own nested aggregates localized.
func (lz *localizer) aggregate(a Term, top, positive map[string]bool, assigned string) Term {
	group := map[string]bool{}
	inside := map[string]int{}
	a.Vars(func(v Term) {
		inside[v.Value]++
		if top[v.Value] && !(v.Value == assigned && !positive[v.Value]) {
			group[v.Value] = true
		}
	})
	x := copyExpr(a.X)
	a.X = x
	used := lz.counts()
	for name, k := range inside {
		if name == "_" || group[name] || used[name] <= k {
			continue
		}
		to := lz.fresh(name, used)
		used[to] = k
		a = renameVar(a, name, to)
	}
	lz.scope(a.X.Body, a.X.Args, group)
	return a
}

// topVars adds the variables of t outside aggregates to m.
func topVars(t Term, m map[string]bool) {
	switch {
	case t.Kind == Var && t.Value != "_":
		m[t.Value] = true
	case t.Kind == Compound && !t.X.Agg:
		for _, a := range t.X.Args {
			topVars(a, m)
		}
	}
}

// mapAggs returns t with each outermost aggregate a in it replaced by f(a)
// (the expressions around it copied).
func mapAggs(t Term, f func(Term) Term) Term {
	if t.Kind != Compound {
		return t
	}
	if t.X.Agg {
		return f(t)
	}
	x := *t.X
	x.Args = make([]Term, len(t.X.Args))
	for i, a := range t.X.Args {
		x.Args[i] = mapAggs(a, f)
	}
	t.X = &x
	return t
}

// copyExpr returns a deep copy of x.
func copyExpr(x *Expr) *Expr {
	c := *x
	c.Args = make([]Term, len(x.Args))
	for i, a := range x.Args {
		c.Args[i] = copyTerm(a)
	}
	c.Body = make([]Literal, len(x.Body))
	for i, l := range x.Body {
		c.Body[i] = copyLiteral(l)
	}
	return &c
}

func copyTerm(t Term) Term {
	if t.Kind == Compound {
		t.X = copyExpr(t.X)
	}
	return t
}

func copyLiteral(l Literal) Literal {
	l.Left, l.Right = copyTerm(l.Left), copyTerm(l.Right)
	args := make([]Term, len(l.Atom.Args))
	for i, a := range l.Atom.Args {
		args[i] = copyTerm(a)
	}
	l.Atom.Args = args
	return l
}

// renameVar renames variable from to to everywhere in t (which it
// modifies: t is a copy of the rule's term).
func renameVar(t Term, from, to string) Term {
	switch t.Kind {
	case Var:
		if t.Value == from {
			t.Value = to
		}
	case Compound:
		for i := range t.X.Args {
			t.X.Args[i] = renameVar(t.X.Args[i], from, to)
		}
		for i := range t.X.Body {
			l := &t.X.Body[i]
			l.Left, l.Right = renameVar(l.Left, from, to), renameVar(l.Right, from, to)
			for j := range l.Atom.Args {
				l.Atom.Args[j] = renameVar(l.Atom.Args[j], from, to)
			}
		}
	}
	return t
}
