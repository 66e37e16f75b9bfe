package oracle

import (
	"fmt"
	"maps"
	"slices"

	"github.com/drumql/drumql/datalog"
)

// aggregate evaluates aggregate t for the values its grouping variables
// have in env.
func (o *oxEval) aggregate(t datalog.Term, env map[string]string) oxVal {
	env0 := map[string]string{}
	for _, g := range o.groups[t.X] {
		v, ok := env[g]
		if !ok {
			return oxVal{st: oxUnbound, conf: 1}
		}
		env0[g] = v
	}
	key := fmt.Sprintf("%p\x00%s", t.X, oxEnvKey(env0))
	if v, ok := o.aggMemo[key]; ok {
		return v
	}
	v := o.aggregateOf(t, env0)
	o.aggMemo[key] = v
	return v
}

// aggregateOf evaluates aggregate t with its grouping variables bound by
// env0. Its solutions are the distinct assignments of its body's
// variables (anonymous positions included) that satisfy its body, each
// with the best confidence of the joins that give it; those below the
// threshold do not count. Its confidence is the lowest of its solutions'
// (1 when none).
func (o *oxEval) aggregateOf(t datalog.Term, env0 map[string]string) oxVal {
	x := t.X
	type solution struct {
		conf   float64
		target string
	}
	sols := map[string]solution{}
	failure := ""
	o.joins(x.Body, env0, nil, func(env map[string]string, facts [][]string, fc float64) {
		out := o.settle(x.Body, x.Args, env, facts)
		c := fc * out.conf
		if c <= 0 || c < o.min {
			return
		}
		switch out.st {
		case oxErr:
			if failure == "" {
				failure = out.err
			}
		case oxOK:
			k := oxEnvKey(env)
			target := ""
			if len(out.vals) > 0 {
				target = out.vals[0]
			}
			if s, seen := sols[k]; !seen || s.conf < c {
				sols[k] = solution{c, target}
			}
		}
	})
	if failure != "" {
		return oxVal{st: oxErr, conf: 1, err: failure}
	}
	conf := 1.0
	var targets []string
	for _, k := range slices.Sorted(maps.Keys(sols)) {
		conf = min(conf, sols[k].conf)
		targets = append(targets, sols[k].target)
	}
	if x.Op == "count" {
		targets = nil
	}
	name, ok, err := oxAggregateValue(x.Op, targets, len(sols))
	switch {
	case err != nil:
		return oxVal{st: oxErr, conf: 1, err: fmt.Sprintf("%s: %v in %s with %v", t.Pos, err, t, env0)}
	case !ok:
		return oxVal{st: oxNone, conf: 1}
	}
	return oxVal{name: name, conf: conf}
}

// # Possible errors

// possibleScope reports whether evaluating a scope (body with needs) with
// env0 bound may fail in some order: some subset of its positive atoms
// joined, the assignments made as far as they go, some term whose
// variables are bound (or aggregate whose grouping variables are) fails.
func (o *oxEval) possibleScope(body []datalog.Literal, needs []datalog.Term, env0 map[string]string) bool {
	var atoms []int
	for i := range body {
		if body[i].Kind == datalog.Positive {
			atoms = append(atoms, i)
		}
	}
	for mask := range 1 << len(atoms) {
		use := func(i int) bool { return mask&(1<<slices.Index(atoms, i)) != 0 }
		found := false
		o.joins(body, env0, use, func(env map[string]string, _ [][]string, _ float64) {
			found = found || o.possiblePartial(body, needs, env)
		})
		if found {
			return true
		}
	}
	return false
}

// possiblePartial reports whether a partial join (env) of a scope may
// fail.
func (o *oxEval) possiblePartial(body []datalog.Literal, needs []datalog.Term, env map[string]string) bool {
	for changed := true; changed; {
		changed = false
		for i := range body {
			l := &body[i]
			if l.Kind != datalog.Comparison || l.Op != datalog.OpEq {
				continue
			}
			for _, side := range [2][2]datalog.Term{{l.Left, l.Right}, {l.Right, l.Left}} {
				v, other := side[0], side[1]
				if v.Kind != datalog.Var || v.Value == "_" {
					continue
				}
				if _, bound := env[v.Value]; bound || !o.ready(other, env) {
					continue
				}
				val := o.term(other, env)
				if val.st == oxErr {
					return true
				}
				if val.st == oxOK {
					env[v.Value] = val.name
					changed = true
				}
			}
		}
	}
	var fails func(t datalog.Term) bool
	fails = func(t datalog.Term) bool {
		if t.Kind != datalog.Compound {
			return false
		}
		if !t.X.Agg {
			for _, a := range t.X.Args {
				if fails(a) {
					return true
				}
			}
		}
		if !o.ready(t, env) {
			return false
		}
		if o.term(t, env).st == oxErr {
			return true
		}
		return t.X.Agg && o.possibleGrouped(t, env)
	}
	for i := range body {
		l := &body[i]
		for _, t := range oxLitTerms(l) {
			if fails(t) {
				return true
			}
		}
		if l.Kind == datalog.Builtin && o.ready(l.Atom.Args[0], env) && o.ready(l.Atom.Args[1], env) {
			a, b := o.term(l.Atom.Args[0], env), o.term(l.Atom.Args[1], env)
			if a.st == oxOK && b.st == oxOK {
				if _, err := oxBuiltin(l.Atom.Pred, a.name, b.name); err != nil {
					return true
				}
			}
		}
	}
	for _, t := range needs {
		if fails(t) {
			return true
		}
	}
	return false
}

// possibleGrouped reports whether the body of aggregate t may fail with
// its grouping variables bound as in env.
func (o *oxEval) possibleGrouped(t datalog.Term, env map[string]string) bool {
	env0 := map[string]string{}
	for _, g := range o.groups[t.X] {
		env0[g] = env[g]
	}
	key := fmt.Sprintf("%p\x00%s", t.X, oxEnvKey(env0))
	if v, ok := o.possibleMemo[key]; ok {
		return v
	}
	v := o.possibleScope(t.X.Body, t.X.Args, env0)
	o.possibleMemo[key] = v
	return v
}

// possibleUngrouped reports whether aggregate t may fail when evaluated
// for every group at once (its grouping variables free, bound by its
// body): its body may fail, or its value may for a group its body binds.
func (o *oxEval) possibleUngrouped(t datalog.Term) bool {
	if o.possibleScope(t.X.Body, t.X.Args, map[string]string{}) {
		return true
	}
	found := false
	o.joins(t.X.Body, map[string]string{}, nil, func(env map[string]string, _ [][]string, _ float64) {
		if found || !o.ready(t, env) {
			return
		}
		found = o.term(t, env).st == oxErr
	})
	return found
}

// oxDemandRisky reports whether a goal-directed evaluation of r, which
// may bind its head variables to any value before its body, may fail on
// such a value: an operation that can fail (arithmetic, a function other
// than cat, strlen and to_string, a match test's pattern) has an operand that
// depends on a head variable (through assignments, or an aggregate grouped
// by one), in the rule or in the body of one of its aggregates.
func oxDemandRisky(r *datalog.Rule, groups map[*datalog.Expr][]string) bool {
	tainted := map[string]bool{}
	for _, a := range r.Head.Args {
		if a.Kind == datalog.Var && a.Value != "_" {
			tainted[a.Value] = true
		}
	}
	return oxRiskyScope(r.Body, r.Head.Args, tainted, groups)
}

func oxRiskyScope(body []datalog.Literal, needs []datalog.Term, tainted map[string]bool, groups map[*datalog.Expr][]string) bool {
	// taintedTerm: t's value may depend on a tainted variable.
	var taintedTerm func(t datalog.Term) bool
	taintedTerm = func(t datalog.Term) bool {
		switch {
		case t.Kind == datalog.Var:
			return tainted[t.Value]
		case t.Kind == datalog.Compound && t.X.Agg:
			// count, sum and mean are numbers; min and max any value
			return (t.X.Op == "min" || t.X.Op == "max") && slices.ContainsFunc(groups[t.X], func(g string) bool { return tainted[g] })
		case t.Kind == datalog.Compound:
			return slices.ContainsFunc(t.X.Args, taintedTerm)
		}
		return false
	}
	var riskyTerm func(t datalog.Term) bool
	riskyTerm = func(t datalog.Term) bool {
		switch {
		case t.Kind != datalog.Compound:
			return false
		case t.X.Agg:
			inner := map[string]bool{}
			for _, g := range groups[t.X] {
				inner[g] = tainted[g]
			}
			return oxRiskyScope(t.X.Body, t.X.Args, inner, groups)
		case slices.ContainsFunc(t.X.Args, riskyTerm):
			return true
		}
		safe := t.X.Op == "cat" || t.X.Op == "strlen" || t.X.Op == "to_string"
		return !safe && slices.ContainsFunc(t.X.Args, taintedTerm)
	}
	for changed := true; changed; {
		changed = false
		for _, l := range body {
			if l.Kind != datalog.Comparison || l.Op != datalog.OpEq {
				continue
			}
			for _, side := range [2][2]datalog.Term{{l.Left, l.Right}, {l.Right, l.Left}} {
				if v := side[0]; v.Kind == datalog.Var && v.Value != "_" && !tainted[v.Value] && taintedTerm(side[1]) {
					tainted[v.Value] = true
					changed = true
				}
			}
		}
	}
	for _, l := range body {
		if l.Kind == datalog.Builtin && l.Atom.Pred == "match" && taintedTerm(l.Atom.Args[0]) { // the pattern
			return true
		}
		if slices.ContainsFunc(oxLitTerms(&l), riskyTerm) {
			return true
		}
	}
	return slices.ContainsFunc(needs, riskyTerm)
}
