package souffle

import (
	"slices"
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// Aggregate witnesses, as in Soufflé: a variable bound only inside a min
// or max aggregate and used outside it (in the head, say) takes the values
// of the solutions that reach the aggregate's value:
//
//	tallest(s, n) :- n = max h : { student(s, h) }.
//
// is evaluated as
//
//	tallest(s, n) :- n = max h : { student(s1, h) }, student(s, h2), h2 = max h : { student(s1, h) }.
//
// The aggregate's witnesses are renamed inside it (they are local to it),
// a copy of its body (its other local variables renamed) joins the rule,
// and the copy of its target is equated with the aggregate; a tie gives
// one tuple per solution. A witness of an aggregate nested in another is
// grounded in the rule's body, as Soufflé does; count, sum and mean take
// no witness (Soufflé rejects them too).

// aggInfo is one aggregate of a rule: its expression, the variables bound
// in the scopes around it and the aggregates nested in it.
type aggInfo struct {
	x     *datalog.Expr
	term  datalog.Term
	bound map[string]bool
	inner []*aggInfo
}

// groundWitnesses rewrites the witnesses of rule r's aggregates.
func (p *Program) groundWitnesses(r *datalog.Rule) error {
	has := false
	r.Aggregates(func(datalog.Term) { has = true })
	if !has {
		return nil
	}
	// r gets its own copy: its literals may be shared with other rules
	r.Head.Args = copyTerms(r.Head.Args)
	body := make([]datalog.Literal, len(r.Body))
	for i, l := range r.Body {
		body[i] = copyLit(l)
	}
	r.Body = body
	// `_ = min ...`: the aggregate's value, unused, is a variable of its
	// own (a comparison takes no _)
	for i := range r.Body {
		l := &r.Body[i]
		for _, side := range []*datalog.Term{&l.Left, &l.Right} {
			if l.Kind == datalog.Comparison && side.Kind == datalog.Var && side.Value == "_" {
				side.Value = "_agg" + strconv.Itoa(i)
			}
		}
	}
	var all []*aggInfo
	collectAggs(r.Body, r.Head.Args, nil, &all)
	total := varCounts(r)
	witnesses := map[*aggInfo][]string{}
	for _, a := range all {
		inside := map[string]int{}
		a.term.Vars(func(v datalog.Term) { inside[v.Value]++ })
		var ws []string
		for name, k := range inside {
			if name != "_" && total[name] > k && !a.bound[name] && !innerWitness(a, name, total) {
				ws = append(ws, name)
			}
		}
		if len(ws) > 0 {
			slices.Sort(ws)
			witnesses[a] = ws
		}
	}
	changed := false
	for _, a := range all {
		ws := witnesses[a]
		if len(ws) == 0 {
			continue
		}
		if a.x.Op != "min" && a.x.Op != "max" {
			name := ws[0]
			if n, ok := p.sourceNames[name]; ok {
				name = n
			}
			at := a.term.Pos
			return errAt(pos{at.File, at.Line, at.Col}, "unsupported: aggregate witnesses of %s (%s is bound only inside it; Soufflé takes witnesses of min and max only)", a.x.Op, name)
		}
		p.ground(r, a, ws)
		changed = true
	}
	if changed {
		r.LocalizeAggregates()
	}
	return nil
}

// innerWitness reports whether name is a witness of an aggregate nested
// in a (then it is grounded for that one, not for a).
func innerWitness(a *aggInfo, name string, total map[string]int) bool {
	for _, in := range a.inner {
		inside := 0
		in.term.Vars(func(v datalog.Term) {
			if v.Value == name {
				inside++
			}
		})
		if inside > 0 && total[name] > inside && !in.bound[name] || innerWitness(in, name, total) {
			return true
		}
	}
	return false
}

// ground rewrites the witnesses ws of aggregate a of rule r.
func (p *Program) ground(r *datalog.Rule, a *aggInfo, ws []string) {
	used := varCounts(r)
	fresh := func(name string) string {
		for k := 1; ; k++ {
			s := "_" + strings.TrimLeft(name, "_") + "_w" + strconv.Itoa(k) // _: it may occur once
			if used[s] == 0 {
				used[s] = 1
				return s
			}
		}
	}
	// the copy of the body: its local variables (those only in a, not
	// witnesses) renamed
	inside := map[string]int{}
	a.term.Vars(func(v datalog.Term) { inside[v.Value]++ })
	witness := map[string]bool{}
	for _, w := range ws {
		witness[w] = true
	}
	locals := map[string]string{}
	for name, k := range inside {
		if name != "_" && !witness[name] && used[name] <= k {
			locals[name] = fresh(name)
		}
	}
	var lits []datalog.Literal
	for _, l := range a.x.Body {
		lits = append(lits, renameLit(copyLit(l), locals))
	}
	target := renameTerm(copyTerm(a.x.Args[0]), locals)
	// the witnesses renamed inside the aggregate
	inner := map[string]string{}
	for _, w := range ws {
		inner[w] = fresh(w)
	}
	renamed := renameTerm(copyTerm(a.term), inner)
	*a.x = *renamed.X
	clone := copyTerm(renamed)
	at := a.term.Pos
	lits = append(lits, datalog.Literal{Kind: datalog.Comparison, Op: datalog.OpEq, Left: target, Right: clone, Pos: at})
	r.Body = append(r.Body, lits...)
}

// collectAggs appends the aggregates of a scope (a rule's body and head,
// or an aggregate's body and target) to all, with outer the variables
// bound around the scope; it returns them.
func collectAggs(body []datalog.Literal, needs []datalog.Term, outer map[string]bool, all *[]*aggInfo) []*aggInfo {
	bound := map[string]bool{}
	for v := range outer {
		bound[v] = true
	}
	for _, l := range body {
		switch {
		case l.Kind == datalog.Positive:
			for _, t := range l.Atom.Args {
				if t.Kind == datalog.Var {
					bound[t.Value] = true
				}
			}
		case l.Kind == datalog.Comparison && l.Op == datalog.OpEq:
			for _, t := range []datalog.Term{l.Left, l.Right} {
				if t.Kind == datalog.Var {
					bound[t.Value] = true
				}
			}
		}
	}
	var mine []*aggInfo
	var visit func(t datalog.Term)
	visit = func(t datalog.Term) {
		if t.Kind != datalog.Compound {
			return
		}
		if t.X.Agg {
			a := &aggInfo{x: t.X, term: t, bound: bound}
			*all = append(*all, a)
			mine = append(mine, a)
			a.inner = collectAggs(t.X.Body, t.X.Args, bound, all)
			return
		}
		for _, arg := range t.X.Args {
			visit(arg)
		}
	}
	for _, t := range needs {
		visit(t)
	}
	for _, l := range body {
		visit(l.Left)
		visit(l.Right)
		for _, t := range l.Atom.Args {
			visit(t)
		}
	}
	return mine
}

// varCounts returns how often each variable occurs in r.
func varCounts(r *datalog.Rule) map[string]int {
	n := map[string]int{}
	f := func(t datalog.Term) { n[t.Value]++ }
	for _, t := range r.Head.Args {
		t.Vars(f)
	}
	for i := range r.Body {
		r.Body[i].Vars(f)
	}
	return n
}

func copyTerms(ts []datalog.Term) []datalog.Term {
	out := make([]datalog.Term, len(ts))
	for i, t := range ts {
		out[i] = copyTerm(t)
	}
	return out
}

// copyTerm returns a deep copy of t.
func copyTerm(t datalog.Term) datalog.Term {
	if t.Kind != datalog.Compound {
		return t
	}
	x := *t.X
	x.Args = copyTerms(t.X.Args)
	x.Body = make([]datalog.Literal, len(t.X.Body))
	for i, l := range t.X.Body {
		x.Body[i] = copyLit(l)
	}
	t.X = &x
	return t
}

// copyLit returns a deep copy of l.
func copyLit(l datalog.Literal) datalog.Literal {
	l.Left, l.Right = copyTerm(l.Left), copyTerm(l.Right)
	l.Atom.Args = copyTerms(l.Atom.Args)
	return l
}

// renameTerm renames the variables of t (a copy of its own) by m.
func renameTerm(t datalog.Term, m map[string]string) datalog.Term {
	switch t.Kind {
	case datalog.Var:
		if to, ok := m[t.Value]; ok {
			t.Value = to
		}
	case datalog.Compound:
		for i := range t.X.Args {
			t.X.Args[i] = renameTerm(t.X.Args[i], m)
		}
		for i := range t.X.Body {
			t.X.Body[i] = renameLit(t.X.Body[i], m)
		}
	}
	return t
}

// renameLit renames the variables of l (a copy of its own) by m.
func renameLit(l datalog.Literal, m map[string]string) datalog.Literal {
	l.Left, l.Right = renameTerm(l.Left, m), renameTerm(l.Right, m)
	for i := range l.Atom.Args {
		l.Atom.Args[i] = renameTerm(l.Atom.Args[i], m)
	}
	return l
}
