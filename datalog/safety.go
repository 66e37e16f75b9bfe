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

// scope checks one scope: a rule's body with its head's terms (what
// "head"), or an aggregate's body with its target. inherited holds the
// variables bound outside the scope (an aggregate's grouping variables).
func (s *safety) scope(body []Literal, needs []Term, inherited map[string]bool, what string) {
	bound := map[string]bool{}
	for v := range inherited {
		bound[v] = true
	}
	// Variables bound by positive atoms.
	for i := range body {
		l := &body[i]
		if l.Kind != Positive {
			continue
		}
		for _, t := range l.Atom.Args {
			if t.Kind == Var && t.Value != "_" {
				bound[t.Value] = true
			}
		}
	}
	// Occurrences outside each aggregate of this scope, to tell its
	// grouping variables from its local ones.
	occurs := func(skip *Expr) map[string]bool {
		m := map[string]bool{}
		for v := range inherited {
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
		for _, t := range needs {
			walk(t)
		}
		for i := range body {
			for _, a := range litTerms(&body[i]) {
				walk(a)
			}
		}
		return m
	}
	// The variables a term needs bound: its own, and the grouping
	// variables of the aggregates in it.
	var needed func(t Term, f func(Term))
	needed = func(t Term, f func(Term)) {
		switch {
		case t.Kind == Var:
			f(t)
		case t.Kind == Compound && t.X.Agg:
			outside := occurs(t.X)
			t.Vars(func(v Term) {
				if v.Value != "_" && outside[v.Value] {
					f(v)
				}
			})
		case t.Kind == Compound:
			for _, a := range t.X.Args {
				needed(a, f)
			}
		}
	}
	ready := func(t Term) bool {
		ok := true
		needed(t, func(v Term) {
			if v.Value == "_" || !bound[v.Value] {
				ok = false
			}
		})
		return ok
	}
	// Equalities bind, in any order.
	for changed := true; changed; {
		changed = false
		for i := range body {
			l := &body[i]
			if l.Kind != Comparison || l.Op != OpEq {
				continue
			}
			for _, side := range [2][2]Term{{l.Left, l.Right}, {l.Right, l.Left}} {
				v, other := side[0], side[1]
				if v.Kind == Var && v.Value != "_" && !bound[v.Value] && ready(other) {
					bound[v.Value] = true
					changed = true
				}
			}
		}
	}
	report := func(t Term, where string) {
		needed(t, func(v Term) {
			switch {
			case v.Value == "_":
				s.errorf(v.Pos, "anonymous variable _ in %s", where)
			case !bound[v.Value]:
				s.errorf(v.Pos, "variable %s is not bound: it must occur in a positive atom of the %s (not inside an expression) or be assigned (%s = ...)",
					v.Value, bodyName(what), v.Value)
				bound[v.Value] = true // report it once
			}
		})
	}
	for _, t := range needs {
		if what == "head" && t.Kind == Var {
			if t.Value != "_" && !bound[t.Value] {
				s.errorf(t.Pos, "unsafe head variable %s: it occurs in no positive body atom and is not assigned", t.Value)
				bound[t.Value] = true
			}
			continue
		}
		report(t, "the "+what)
	}
	for i := range body {
		l := &body[i]
		switch l.Kind {
		case Comparison:
			report(l.Left, "a comparison")
			report(l.Right, "a comparison")
		case Builtin:
			s.builtin(l)
			for _, t := range l.Atom.Args {
				report(t, "a built-in test")
			}
		case Negated:
			for _, t := range l.Atom.Args {
				if t.Kind == Var && t.Value == "_" {
					continue
				}
				report(t, "a negated atom")
			}
		default:
			for _, t := range l.Atom.Args {
				if t.Kind == Compound {
					report(t, "an expression")
				}
			}
		}
	}
	// Each aggregate is a scope: its grouping variables bound here.
	for i := range body {
		for _, t := range litTerms(&body[i]) {
			s.aggregates(t, occurs)
		}
	}
	for _, t := range needs {
		s.aggregates(t, occurs)
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
