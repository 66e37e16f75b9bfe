package oracle

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// # Evaluation

// oxStatus is how the evaluation of a term or literal ended.
type oxStatus uint8

const (
	oxOK      oxStatus = iota
	oxUnbound          // a variable it needs is not bound (its assignment failed)
	oxErr              // an evaluation error
	oxNone             // it does not hold (an aggregate without a value, a failed test)
)

// oxVal is the value of a term: a name, and the product of the
// confidences of the aggregates evaluated in it.
type oxVal struct {
	name string
	conf float64
	st   oxStatus
	err  string
}

// oxEval evaluates a program's rules over db.
type oxEval struct {
	db  DB
	min float64
	// groups are the grouping variables of every aggregate, sorted.
	groups map[*datalog.Expr][]string
	// aggMemo holds the value of an aggregate for values of its grouping
	// variables; possibleMemo whether its body may fail for them. The
	// relations an aggregate reads are complete before it is evaluated.
	aggMemo      map[string]oxVal
	possibleMemo map[string]bool
}

// oxScopeGroups records the grouping variables of the aggregates of a
// scope: a rule's body with its head's arguments, or an aggregate's body
// with its target (inherited: the grouping variables of the aggregate).
// An aggregate's grouping variables are its variables that occur in its
// scope outside it (or are inherited).
func oxScopeGroups(body []datalog.Literal, needs []datalog.Term, inherited map[string]bool, out map[*datalog.Expr][]string) {
	var terms []datalog.Term
	terms = append(terms, needs...)
	for i := range body {
		terms = append(terms, oxLitTerms(&body[i])...)
	}
	var aggs []datalog.Term // the aggregates of this scope, not of nested scopes
	var find func(t datalog.Term)
	find = func(t datalog.Term) {
		if t.Kind != datalog.Compound {
			return
		}
		if t.X.Agg {
			aggs = append(aggs, t)
			return
		}
		for _, a := range t.X.Args {
			find(a)
		}
	}
	for _, t := range terms {
		find(t)
	}
	for _, agg := range aggs {
		outside := maps.Clone(inherited)
		if outside == nil {
			outside = map[string]bool{}
		}
		var walk func(t datalog.Term)
		walk = func(t datalog.Term) {
			switch {
			case t.Kind == datalog.Var:
				outside[t.Value] = true
			case t.Kind == datalog.Compound && t.X != agg.X:
				for _, a := range t.X.Args {
					walk(a)
				}
				for i := range t.X.Body {
					for _, a := range oxLitTerms(&t.X.Body[i]) {
						walk(a)
					}
				}
			}
		}
		for _, t := range terms {
			walk(t)
		}
		group := map[string]bool{}
		agg.Vars(func(v datalog.Term) {
			if v.Value != "_" && outside[v.Value] {
				group[v.Value] = true
			}
		})
		out[agg.X] = slices.Sorted(maps.Keys(group))
		oxScopeGroups(agg.X.Body, agg.X.Args, group, out)
	}
}

func oxLitTerms(l *datalog.Literal) []datalog.Term {
	if l.Kind == datalog.Comparison {
		return []datalog.Term{l.Left, l.Right}
	}
	return l.Atom.Args
}

// oxAnon is the key under which a join records the value of the anonymous
// argument j of body literal i (it tells solutions of aggregates apart).
func oxAnon(i, j int) string { return fmt.Sprintf("_#%d.%d", i, j) }

// joins calls f with every combination of one fact for each positive atom
// of body (those for which use returns true; all when use is nil) that is
// consistent with env0: a variable argument binds or must be the same
// symbol, a constant argument matches the values it equals, an anonymous
// argument matches anything, an expression argument is left for settle.
// f receives its own copy of the bindings, the facts by literal index and
// the product of their confidences.
func (o *oxEval) joins(body []datalog.Literal, env0 map[string]string, use func(i int) bool,
	f func(env map[string]string, facts [][]string, conf float64)) {
	facts := make([][]string, len(body))
	var rec func(i int, env map[string]string, conf float64)
	rec = func(i int, env map[string]string, conf float64) {
		for i < len(body) && (body[i].Kind != datalog.Positive || use != nil && !use(i)) {
			i++
		}
		if i == len(body) {
			f(maps.Clone(env), slices.Clone(facts), conf)
			return
		}
		l := &body[i]
		for k, fc := range o.db[l.Atom.Pred] {
			args := Key(k)
			if len(args) != len(l.Atom.Args) {
				continue
			}
			env2 := maps.Clone(env)
			ok := true
			for j, tm := range l.Atom.Args {
				switch {
				case tm.Kind == datalog.Compound:
				case tm.Kind == datalog.Var && tm.Value == "_":
					env2[oxAnon(i, j)] = args[j]
				case tm.Kind == datalog.Var:
					if v, bound := env2[tm.Value]; bound {
						ok = ok && v == args[j]
					} else {
						env2[tm.Value] = args[j]
					}
				default:
					ok = ok && oracleMatches(tm, args[j])
				}
			}
			if ok {
				facts[i] = args
				rec(i+1, env2, conf*fc)
			}
		}
		facts[i] = nil
	}
	rec(0, maps.Clone(env0), 1)
}

// needs calls f with the variables term t needs bound to be evaluated:
// its own, and the grouping variables of its aggregates (not their local
// ones).
func (o *oxEval) needs(t datalog.Term, f func(string)) {
	switch {
	case t.Kind == datalog.Var:
		f(t.Value)
	case t.Kind == datalog.Compound && t.X.Agg:
		for _, g := range o.groups[t.X] {
			f(g)
		}
	case t.Kind == datalog.Compound:
		for _, a := range t.X.Args {
			o.needs(a, f)
		}
	}
}

// ready reports whether every variable t needs is bound in env.
func (o *oxEval) ready(t datalog.Term, env map[string]string) bool {
	ok := true
	o.needs(t, func(v string) {
		if _, bound := env[v]; !bound || v == "_" {
			ok = false
		}
	})
	return ok
}

func oxRank(s oxStatus) int { return int(s) } // oxNone > oxErr > oxUnbound > oxOK

// term evaluates t in env.
func (o *oxEval) term(t datalog.Term, env map[string]string) oxVal {
	switch t.Kind {
	case datalog.Var:
		v, ok := env[t.Value]
		if !ok || t.Value == "_" {
			return oxVal{st: oxUnbound, conf: 1}
		}
		return oxVal{name: v, conf: 1}
	case datalog.Symbol, datalog.Number:
		return oxVal{name: t.Value, conf: 1}
	}
	if t.X.Agg {
		return o.aggregate(t, env)
	}
	res := oxVal{conf: 1}
	names := make([]string, len(t.X.Args))
	for k, a := range t.X.Args {
		v := o.term(a, env)
		res.conf *= v.conf
		if oxRank(v.st) > oxRank(res.st) {
			res.st, res.err = v.st, v.err
		}
		names[k] = v.name
	}
	if res.st != oxOK {
		return res
	}
	name, err := oxApply(t.X.Op, names)
	if err != nil {
		return oxVal{st: oxErr, conf: 1, err: fmt.Sprintf("%s: %v in %s with arguments %q", t.Pos, err, t, names)}
	}
	res.name = name
	return res
}

// operand evaluates a comparison side: a number constant is a number, a
// symbol constant never is, any other value is a number when its name is
// written as one.
func (o *oxEval) operand(t datalog.Term, env map[string]string) (oracleOperand, oxVal) {
	v := o.term(t, env)
	if v.st != oxOK {
		return oracleOperand{}, v
	}
	if t.Kind == datalog.Symbol || t.Kind == datalog.Number {
		return oracleTerm(t, nil), v
	}
	return oracleValue(v.name), v
}

// oxOutcome is what the literals of a scope give for one join.
type oxOutcome struct {
	vals []string // the values of the scope's needs (head arguments, target)
	conf float64  // the product of the negations' (1 - c) and the aggregates' confidences
	st   oxStatus // oxOK, oxNone (a literal does not hold) or oxErr
	err  string
}

// settle evaluates, for one join of body's positive atoms (env, facts),
// the assignments (in any order, each as soon as its other side can be
// evaluated), then every other literal and the expression arguments of
// the positive atoms, then needs. A literal that does not hold wins over
// an error (some order evaluates it first); an error wins over a literal
// that cannot be evaluated because an assignment failed.
func (o *oxEval) settle(body []datalog.Literal, needs []datalog.Term, env map[string]string, facts [][]string) oxOutcome {
	out := oxOutcome{conf: 1}
	unbound := false
	fail := func(v oxVal) {
		switch v.st {
		case oxNone:
			out.st = oxNone
		case oxErr:
			if out.st == oxOK {
				out.st, out.err = oxErr, v.err
			}
		case oxUnbound:
			unbound = true
		}
	}
	done := make([]bool, len(body))
	for i := range body {
		l := &body[i]
		done[i] = l.Kind == datalog.Positive && !slices.ContainsFunc(l.Atom.Args, func(t datalog.Term) bool { return t.Kind == datalog.Compound })
	}
	for changed := true; changed; {
		changed = false
		for i := range body {
			l := &body[i]
			if done[i] || l.Kind != datalog.Comparison || l.Op != datalog.OpEq {
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
				done[i] = true
				val := o.term(other, env)
				out.conf *= val.conf
				if val.st == oxOK {
					env[v.Value] = val.name
					changed = true
				} else {
					fail(val)
				}
				break
			}
		}
	}
	for i := range body {
		if done[i] {
			continue
		}
		l := &body[i]
		switch l.Kind {
		case datalog.Positive:
			for j, a := range l.Atom.Args {
				if a.Kind != datalog.Compound {
					continue
				}
				v := o.term(a, env)
				out.conf *= v.conf
				if v.st != oxOK {
					fail(v)
				} else if oracleCompare(oracleValue(v.name), oracleValue(facts[i][j])) != 0 {
					fail(oxVal{st: oxNone})
				}
			}
		case datalog.Negated:
			vals := make([]string, len(l.Atom.Args))
			ok := true
			for j, a := range l.Atom.Args {
				if a.Kind != datalog.Compound && a.Kind != datalog.Var || a.Kind == datalog.Var && a.Value == "_" {
					continue
				}
				v := o.term(a, env)
				out.conf *= v.conf
				if v.st != oxOK {
					fail(v)
					ok = false
				}
				vals[j] = v.name
			}
			if !ok {
				continue
			}
			best := o.bestMatch(l, vals)
			if best >= 1 {
				fail(oxVal{st: oxNone})
			}
			out.conf *= 1 - best
		case datalog.Comparison:
			a, va := o.operand(l.Left, env)
			b, vb := o.operand(l.Right, env)
			out.conf *= va.conf * vb.conf
			if va.st != oxOK || vb.st != oxOK {
				fail(va)
				fail(vb)
				continue
			}
			if !oxHolds(l.Op, oracleCompare(a, b)) {
				fail(oxVal{st: oxNone})
			}
		case datalog.Builtin:
			va := o.term(l.Atom.Args[0], env)
			vb := o.term(l.Atom.Args[1], env)
			out.conf *= va.conf * vb.conf
			if va.st != oxOK || vb.st != oxOK {
				fail(va)
				fail(vb)
				continue
			}
			holds, err := oxBuiltin(l.Atom.Pred, va.name, vb.name)
			holds = holds != l.Not
			switch {
			case err != nil:
				fail(oxVal{st: oxErr, err: fmt.Sprintf("%s: %v", l.Pos, err)})
			case !holds:
				fail(oxVal{st: oxNone})
			}
		}
	}
	for _, t := range needs {
		v := o.term(t, env)
		out.conf *= v.conf
		if v.st != oxOK {
			fail(v)
		}
		out.vals = append(out.vals, v.name)
	}
	if unbound && out.st == oxOK {
		panic(fmt.Sprintf("oracle: a variable is unbound though nothing failed (env %v)", env))
	}
	return out
}

// bestMatch is the highest confidence of a fact matching the negated
// literal l, whose arguments have the values vals (those of anonymous
// variables unused): 0 when none matches.
func (o *oxEval) bestMatch(l *datalog.Literal, vals []string) float64 {
	best := 0.0
	for k, fc := range o.db[l.Atom.Pred] {
		args := Key(k)
		if len(args) != len(l.Atom.Args) {
			continue
		}
		match := true
		for j, tm := range l.Atom.Args {
			switch {
			case tm.Kind == datalog.Var && tm.Value == "_":
			case tm.Kind == datalog.Var:
				match = match && vals[j] == args[j]
			case tm.Kind == datalog.Compound:
				match = match && oracleCompare(oracleValue(vals[j]), oracleValue(args[j])) == 0
			default:
				match = match && oracleMatches(tm, args[j])
			}
		}
		if match {
			best = max(best, fc)
		}
	}
	return best
}

func oxHolds(op datalog.CmpOp, c int) bool {
	switch op {
	case datalog.OpEq:
		return c == 0
	case datalog.OpNe:
		return c != 0
	case datalog.OpLt:
		return c < 0
	case datalog.OpLe:
		return c <= 0
	case datalog.OpGt:
		return c > 0
	case datalog.OpGe:
		return c >= 0
	}
	panic("oracle: unknown comparison")
}

// oxBuiltin is the built-in test pred over the values named a and b:
// contains(Sub, S), match(Re, S).
func oxBuiltin(pred, a, b string) (bool, error) {
	switch pred {
	case "contains":
		return strings.Contains(b, a), nil
	case "match":
		// A pattern of the data that is not a regular expression
		// matches nothing.
		re, err := regexp.Compile("^(?:" + a + ")$")
		if err != nil {
			return false, nil
		}
		return re.MatchString(b), nil
	}
	panic("oracle: unknown built-in " + pred)
}

// oxEnvKey encodes bindings, for telling solutions apart.
func oxEnvKey(env map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(env)) {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(env[k])
		b.WriteByte(0)
	}
	return b.String()
}
