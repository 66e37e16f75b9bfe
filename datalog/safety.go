package datalog

import (
	"fmt"
	"regexp"
)

// checkSafetyExpr appends the safety diagnostics of a rule with
// expressions, built-in tests, aggregates or equalities (checkSafety
// handles the rest, the bulk of mined files, faster).
//
// A variable is bound by a positive atom of the body (as an argument, not
// inside an expression), or by an equality whose other side is bound (`Y =
// X * 2`, `N = count : {...}`), in any order. Every other use needs it
// bound: the head, expressions, comparisons, negated atoms, built-in
// tests. An aggregate is checked as a scope of its own: the variables it
// shares with the rest of the rule (its grouping variables) must be bound
// outside it; the others are local and bound by its own body.
func checkSafetyExpr(r *Rule, ds Diagnostics) Diagnostics {
	counts := map[string]int{}
	first := map[string]Pos{}
	count := func(t Term) {
		if t.Value == "_" {
			return
		}
		if counts[t.Value]++; counts[t.Value] == 1 {
			first[t.Value] = t.Pos
		}
	}
	for _, t := range r.Head.Args {
		t.Vars(count)
	}
	for i := range r.Body {
		r.Body[i].Vars(count)
	}
	s := &safety{}
	for _, t := range r.Head.Args {
		if t.Kind == Var && t.Value == "_" {
			s.errorf(t.Pos, "anonymous variable _ in the head of a rule")
		}
	}
	s.scope(r.Body, r.Head.Args, nil, "head")
	for name, n := range counts {
		if n == 1 && name[0] != '_' {
			s.ds = append(s.ds, Diagnostic{first[name], Warning, fmt.Sprintf(
				"variable %s occurs only once (write _ or _%s if that is intended)", name, name)})
		}
	}
	ds = append(ds, s.ds...)
	return ds
}

type safety struct {
	ds Diagnostics
}

func (s *safety) errorf(p Pos, format string, args ...any) {
	s.ds = append(s.ds, Diagnostic{p, Error, fmt.Sprintf(format, args...)})
}

// scope is one scope of a rule being checked: a rule's body with its
// head's terms (what "head"), or an aggregate's body with its target;
// inherited holds the variables bound outside it (an aggregate's grouping
// variables), bound those bound so far.
type scope struct {
	s         *safety
	body      []Literal
	needs     []Term
	inherited map[string]bool
	what      string
	bound     map[string]bool
}

// scope checks one scope (see the type scope), then the aggregates in it.
func (s *safety) scope(body []Literal, needs []Term, inherited map[string]bool, what string) {
	sc := &scope{s: s, body: body, needs: needs, inherited: inherited, what: what, bound: map[string]bool{}}
	sc.bindAtoms()
	sc.bindEqualities()
	sc.checkNeeds()
	sc.checkLiterals()
	// Each aggregate is a scope: its grouping variables bound here.
	for i := range body {
		for _, t := range litTerms(&body[i]) {
			s.aggregates(t, sc.occurs)
		}
	}
	for _, t := range needs {
		s.aggregates(t, sc.occurs)
	}
}

// bindAtoms binds the inherited variables and those of positive atoms.
func (sc *scope) bindAtoms() {
	for v := range sc.inherited {
		sc.bound[v] = true
	}
	for i := range sc.body {
		l := &sc.body[i]
		if l.Kind != Positive {
			continue
		}
		for _, t := range l.Atom.Args {
			if t.Kind == Var && t.Value != "_" {
				sc.bound[t.Value] = true
			}
		}
	}
}

// occurs returns the variables that occur in the scope outside aggregate
// skip (and those inherited): they tell skip's grouping variables from its
// local ones.
func (sc *scope) occurs(skip *Expr) map[string]bool {
	m := map[string]bool{}
	for v := range sc.inherited {
		m[v] = true
	}
	var walk func(Term)
	walk = func(t Term) {
		switch {
		case t.Kind == Var:
			m[t.Value] = true
		case t.Kind == Compound && t.X != skip:
			for _, a := range t.X.Args {
				walk(a)
			}
			for i := range t.X.Body {
				for _, a := range litTerms(&t.X.Body[i]) {
					walk(a)
				}
			}
		}
	}
	for _, t := range sc.needs {
		walk(t)
	}
	for i := range sc.body {
		for _, a := range litTerms(&sc.body[i]) {
			walk(a)
		}
	}
	return m
}

// needed calls f for the variables term t needs bound: its own, and the
// grouping variables of the aggregates in it.
func (sc *scope) needed(t Term, f func(Term)) {
	switch {
	case t.Kind == Var:
		f(t)
	case t.Kind == Compound && t.X.Agg:
		outside := sc.occurs(t.X)
		t.Vars(func(v Term) {
			if v.Value != "_" && outside[v.Value] {
				f(v)
			}
		})
	case t.Kind == Compound:
		for _, a := range t.X.Args {
			sc.needed(a, f)
		}
	}
}

// ready reports whether every variable t needs is bound.
func (sc *scope) ready(t Term) bool {
	ok := true
	sc.needed(t, func(v Term) {
		if v.Value == "_" || !sc.bound[v.Value] {
			ok = false
		}
	})
	return ok
}

// bindEqualities binds, in any order, the variable side of an equality
// whose other side is ready.
func (sc *scope) bindEqualities() {
	for changed := true; changed; {
		changed = false
		for i := range sc.body {
			l := &sc.body[i]
			if l.Kind != Comparison || l.Op != OpEq {
				continue
			}
			for _, side := range [2][2]Term{{l.Left, l.Right}, {l.Right, l.Left}} {
				v, other := side[0], side[1]
				if v.Kind == Var && v.Value != "_" && !sc.bound[v.Value] && sc.ready(other) {
					sc.bound[v.Value] = true
					changed = true
				}
			}
		}
	}
}

// report reports each variable t needs that is anonymous or unbound (once).
func (sc *scope) report(t Term, where string) {
	sc.needed(t, func(v Term) {
		switch {
		case v.Value == "_":
			sc.s.errorf(v.Pos, "anonymous variable _ in %s", where)
		case !sc.bound[v.Value]:
			sc.s.errorf(v.Pos, "variable %s is not bound: it must occur in a positive atom of the %s (not inside an expression) or be assigned (%s = ...)",
				v.Value, bodyName(sc.what), v.Value)
			sc.bound[v.Value] = true // report it once
		}
	})
}

// checkNeeds checks the head's (or the target's) terms.
func (sc *scope) checkNeeds() {
	for _, t := range sc.needs {
		if sc.what == "head" && t.Kind == Var {
			if t.Value != "_" && !sc.bound[t.Value] {
				sc.s.errorf(t.Pos, "unsafe head variable %s: it occurs in no positive body atom and is not assigned", t.Value)
				sc.bound[t.Value] = true
			}
			continue
		}
		sc.report(t, "the "+sc.what)
	}
}

// checkLiterals checks what each literal needs bound.
func (sc *scope) checkLiterals() {
	for i := range sc.body {
		l := &sc.body[i]
		switch l.Kind {
		case Comparison:
			sc.report(l.Left, "a comparison")
			sc.report(l.Right, "a comparison")
		case Builtin:
			sc.s.builtin(l)
			for _, t := range l.Atom.Args {
				sc.report(t, "a built-in test")
			}
		case Negated:
			for _, t := range l.Atom.Args {
				if t.Kind == Var && t.Value == "_" {
					continue
				}
				sc.report(t, "a negated atom")
			}
		default:
			for _, t := range l.Atom.Args {
				if t.Kind == Compound {
					sc.report(t, "an expression")
				}
			}
		}
	}
}

func (s *safety) aggregates(t Term, occurs func(*Expr) map[string]bool) {
	if t.Kind != Compound {
		return
	}
	if !t.X.Agg {
		for _, a := range t.X.Args {
			s.aggregates(a, occurs)
		}
		return
	}
	outside := occurs(t.X)
	group := map[string]bool{}
	t.Vars(func(v Term) {
		if outside[v.Value] {
			group[v.Value] = true
		}
	})
	s.scope(t.X.Body, t.X.Args, group, "aggregate")
}

func bodyName(what string) string {
	if what == "aggregate" {
		return "aggregate's body"
	}
	return "body"
}

// litTerms returns the terms of a literal.
func litTerms(l *Literal) []Term {
	if l.Kind == Comparison {
		return []Term{l.Left, l.Right}
	}
	return l.Atom.Args
}

// builtin checks a built-in test's arity and, when it is a constant, its
// regular expression.
func (s *safety) builtin(l *Literal) {
	n := Builtins[l.Atom.Pred]
	if len(l.Atom.Args) != n {
		s.errorf(l.Pos, "%s takes %d arguments, not %d", l.Atom.Pred, n, len(l.Atom.Args))
		return
	}
	if l.Atom.Pred == "match" {
		if re := l.Atom.Args[0]; re.Kind == Symbol {
			if _, err := regexp.Compile(re.Value); err != nil {
				s.errorf(re.Pos, "match: bad regular expression %s: %v", re, err)
			}
		}
	}
}

// needsExprSafety reports whether r needs checkSafetyExpr: it has
// expressions, built-in tests or equalities.
func needsExprSafety(r *Rule) bool {
	if r.HasCompound() {
		return true
	}
	for i := range r.Body {
		if r.Body[i].Kind == Comparison && r.Body[i].Op == OpEq {
			return true
		}
	}
	return false
}
