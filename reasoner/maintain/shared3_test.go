// Test helpers shared with the evaluator's tests (reasoner/internal/eval),
// copied: a package's test files cannot be imported by another's.

package maintain

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

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

// From the reasoner's oracle_test.go.

type oracleDB map[string]map[string]float64

func (db oracleDB) set(pred string, args []string, c float64) bool {
	m := db[pred]
	if m == nil {
		m = map[string]float64{}
		db[pred] = m
	}
	k := strings.Join(args, "\x00")
	if old, ok := m[k]; ok && old >= c {
		return false
	}
	m[k] = c
	return true
}

var oracleNumberSyntax = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// oracleOperand is a comparison side: a name, and a value when a number.
type oracleOperand struct {
	name string
	num  bool
	f    float64
}

// oracleValue is a value of the database as an operand.
func oracleValue(name string) oracleOperand {
	if !oracleNumberSyntax.MatchString(name) {
		return oracleOperand{name: name}
	}
	f, err := strconv.ParseFloat(name, 64)
	return oracleOperand{name: name, num: err == nil, f: f}
}

// oracleTerm is term tm as an operand, variables looked up in env.
func oracleTerm(tm datalog.Term, env map[string]string) oracleOperand {
	switch tm.Kind {
	case datalog.Var:
		return oracleValue(env[tm.Value])
	case datalog.Number:
		f, err := strconv.ParseFloat(tm.Value, 64)
		if err != nil {
			panic(err)
		}
		return oracleOperand{name: tm.Value, num: true, f: f}
	default:
		return oracleOperand{name: tm.Value}
	}
}

func oracleCompare(a, b oracleOperand) int {
	if a.num && b.num {
		return cmp.Compare(a.f, b.f)
	}
	return strings.Compare(a.name, b.name)
}

// oracleMatches reports whether constant tm matches the value named v.
func oracleMatches(tm datalog.Term, v string) bool {
	return oracleCompare(oracleTerm(tm, nil), oracleValue(v)) == 0
}

func oracle(t testing.TB, base []store.NamedTriple, p *datalog.Program, minConf float64) oracleDB {
	if oracleNeedsExpr(p) {
		return oracleExprDB(t, base, p, minConf) // expressions, built-ins, aggregates, assignments
	}
	return oracleNaive(t, base, p, minConf)
}

// oracleNaive is the oracle of programs without expressions, built-in
// tests or equalities.
func oracleNaive(t testing.TB, base []store.NamedTriple, p *datalog.Program, minConf float64) oracleDB {
	db := oracleDB{}
	for _, tr := range base {
		db.set(tr.R, []string{tr.S, tr.O}, 1)
	}
	for _, f := range p.Facts {
		var args []string
		for _, a := range f.Atom.Args {
			args = append(args, a.Value)
		}
		if f.Weight >= minConf {
			db.set(f.Atom.Pred, args, f.Weight)
		}
	}
	strata, ds := datalog.Stratify(p)
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	for _, s := range strata {
		for changed := true; changed; {
			changed = false
			for _, ri := range s.Rules {
				r := &p.Rules[ri]
				var rec func(i int, env map[string]string, c float64)
				rec = func(i int, env map[string]string, c float64) {
					if i == len(r.Body) {
						// check negations and comparisons
						for _, l := range r.Body {
							switch l.Kind {
							case datalog.Comparison:
								c := oracleCompare(oracleTerm(l.Left, env), oracleTerm(l.Right, env))
								ok := map[datalog.CmpOp]bool{datalog.OpEq: c == 0, datalog.OpNe: c != 0, datalog.OpLt: c < 0,
									datalog.OpLe: c <= 0, datalog.OpGt: c > 0, datalog.OpGe: c >= 0}[l.Op]
								if !ok {
									return
								}
							case datalog.Negated:
								// not p holds to degree 1 - c, c the
								// highest confidence of a matching
								// fact of p (0 when none matches).
								best := 0.0
								for k, fc := range db[l.Atom.Pred] {
									args := oracleKey(k)
									if len(args) != len(l.Atom.Args) {
										continue
									}
									match := true
									for j, tm := range l.Atom.Args {
										switch {
										case tm.Kind == datalog.Var && tm.Value == "_":
										case tm.Kind == datalog.Var:
											match = match && env[tm.Value] == args[j]
										default:
											match = match && oracleMatches(tm, args[j])
										}
									}
									if match {
										best = max(best, fc)
									}
								}
								c *= 1 - best
							}
						}
						var head []string
						for _, tm := range r.Head.Args {
							if tm.Kind == datalog.Var {
								head = append(head, env[tm.Value])
							} else {
								head = append(head, tm.Value)
							}
						}
						w := c * r.Weight
						if w > 0 && w >= minConf && db.set(r.Head.Pred, head, w) {
							changed = true
						}
						return
					}
					l := r.Body[i]
					if l.Kind != datalog.Positive {
						rec(i+1, env, c)
						return
					}
					for k, fc := range db[l.Atom.Pred] {
						args := oracleKey(k)
						if len(args) != len(l.Atom.Args) {
							continue
						}
						env2 := map[string]string{}
						for a, b := range env {
							env2[a] = b
						}
						ok := true
						for j, tm := range l.Atom.Args {
							switch {
							case tm.Kind != datalog.Var:
								ok = ok && oracleMatches(tm, args[j])
							case tm.Value == "_":
							default:
								if v, bound := env2[tm.Value]; bound {
									ok = ok && v == args[j]
								} else {
									env2[tm.Value] = args[j]
								}
							}
						}
						if ok {
							rec(i+1, env2, c*fc)
						}
					}
				}
				rec(0, map[string]string{}, 1)
			}
		}
	}
	return db
}

// randomCase makes a random graph and a random valid program over it.
func randomCase(rng *rand.Rand, withNeg bool) ([]store.NamedTriple, *datalog.Program, string) {
	nodes := 3 + rng.IntN(6)
	var base []store.NamedTriple
	seen := map[store.NamedTriple]bool{}
	for range 4 + rng.IntN(14) {
		tr := store.NamedTriple{S: fmt.Sprint("n", rng.IntN(nodes)), R: fmt.Sprint("e", rng.IntN(2)), O: fmt.Sprint("n", rng.IntN(nodes))}
		if !seen[tr] {
			seen[tr] = true
			base = append(base, tr)
		}
	}
	// v gives nodes values: numbers written in several ways and names.
	for range rng.IntN(6) {
		tr := store.NamedTriple{S: fmt.Sprint("n", rng.IntN(nodes)), R: "v", O: graphValues[rng.IntN(len(graphValues))]}
		if !seen[tr] {
			seen[tr] = true
			base = append(base, tr)
		}
	}
	// constant returns a constant for an argument: mostly a node, sometimes
	// a number or a quoted string.
	constant := func() string {
		if rng.IntN(3) == 0 {
			return programValues[rng.IntN(len(programValues))]
		}
		return fmt.Sprint("n", rng.IntN(nodes))
	}
	idb := []string{"p", "q", "r"}
	arity := map[string]int{"e0": 2, "e1": 2, "p": 2, "q": 2, "r": 1, "v": 2}
	weights := []string{"", "0.9 :: ", "0.5 :: ", "0.8 :: "}
	var src strings.Builder
	// a few weighted facts
	for range rng.IntN(3) {
		fmt.Fprintf(&src, "%sp(n%d, %s).\n", weights[rng.IntN(4)], rng.IntN(nodes), constant())
	}
	// Most cases also define s by chain rules alone (a pure chain head, so
	// that Engine.Query takes the chain fast path for s with a constant).
	preds := []string{"e0", "e1", "p", "q", "r", "v"}
	if rng.IntN(3) != 0 {
		arity["s"] = 2
		preds = append(preds, "s")
		for range 1 + rng.IntN(3) {
			fmt.Fprintf(&src, "%s%s.\n", weights[rng.IntN(4)], randomChainRule(rng))
		}
	}
	vars := []string{"X", "Y", "Z", "W"}
	for range 2 + rng.IntN(4) {
		hi := rng.IntN(len(idb))
		head := idb[hi]
		var body []string
		var bodyVars []string
		var valueVars []string // variables bound to values of v
		for range 1 + rng.IntN(3) {
			pr := preds[rng.IntN(len(preds))]
			var args []string
			for k := range arity[pr] {
				if rng.IntN(8) == 0 {
					args = append(args, constant())
					continue
				}
				v := vars[rng.IntN(len(vars))]
				args = append(args, v)
				bodyVars = append(bodyVars, v)
				if pr == "v" && k == 1 {
					valueVars = append(valueVars, v)
				}
			}
			body = append(body, pr+"("+strings.Join(args, ", ")+")")
		}
		if len(bodyVars) == 0 {
			continue
		}
		if withNeg && rng.IntN(3) == 0 && hi > 0 {
			neg := idb[rng.IntN(hi)]
			var args []string
			for range arity[neg] {
				switch rng.IntN(5) {
				case 0, 1:
					args = append(args, "_")
				case 2:
					args = append(args, constant())
				default:
					args = append(args, bodyVars[rng.IntN(len(bodyVars))])
				}
			}
			body = append(body, "not "+neg+"("+strings.Join(args, ", ")+")")
		}
		if rng.IntN(3) == 0 {
			ops := []string{"=", "!=", "<", "<=", ">", ">="}
			left, right := bodyVars[rng.IntN(len(bodyVars))], bodyVars[rng.IntN(len(bodyVars))]
			if rng.IntN(2) == 0 {
				right = programValues[rng.IntN(len(programValues))]
				if len(valueVars) > 0 && rng.IntN(4) != 0 {
					left = valueVars[rng.IntN(len(valueVars))]
				}
			}
			body = append(body, fmt.Sprintf("%s %s %s", left, ops[rng.IntN(len(ops))], right))
		}
		var hargs []string
		for range arity[head] {
			if rng.IntN(10) == 0 {
				hargs = append(hargs, constant())
			} else {
				hargs = append(hargs, bodyVars[rng.IntN(len(bodyVars))])
			}
		}
		fmt.Fprintf(&src, "%s%s(%s) :- %s.\n", weights[rng.IntN(4)], head, strings.Join(hargs, ", "), strings.Join(body, ", "))
	}
	return base, nil, src.String()
}

// graphValues are the values of v in generated graphs: numbers written in
// several ways (7 and 007, 1.5 and 1.50 and 15e-1 are equal as numbers),
// and names that are not numbers.
var graphValues = []string{"7", "007", "7.0", "10", "1.5", "1.50", "15e-1", "-2", "abc", "n1", "1.5x", "+7"}

// programValues are the constants generated programs use besides nodes:
// unquoted numbers (compared by value) and quoted strings (symbols, compared
// by name).
var programValues = []string{"7", "007", "10", "1.5", "1.50", "2", "-2", `"7"`, `"007"`, `"1.50"`, `"abc"`, "abc"}

// randomChainRule returns a chain rule for s: a path of one to three e0/e1
// atoms from X to Y, each in either direction, in a shuffled order,
// sometimes with X != Y, and on paths of three steps sometimes with object
// identity (X != Y, X != Z2, Z1 != Y) or part of it.
func randomChainRule(rng *rand.Rand) string {
	n := 1 + rng.IntN(3)
	vars := []string{"X"}
	for k := 1; k < n; k++ {
		vars = append(vars, fmt.Sprint("Z", k))
	}
	vars = append(vars, "Y")
	var body []string
	for k := range n {
		a, b := vars[k], vars[k+1]
		if rng.IntN(2) == 0 {
			a, b = b, a
		}
		body = append(body, fmt.Sprintf("e%d(%s, %s)", rng.IntN(2), a, b))
	}
	switch k := rng.IntN(6); {
	case k < 2:
		body = append(body, "X != Y")
	case k == 2 && n == 3:
		// Object identity along X -> Z1 -> Z2 -> Y (the fast path's
		// form), the comparisons either way round.
		body = append(body, "Y != X", "X != Z2", "Z1 != Y")
	case k == 3 && n == 3:
		body = append(body, "X != Z2", "Z1 != Y") // not a form of the fast path
	}
	rng.Shuffle(len(body), func(i, j int) { body[i], body[j] = body[j], body[i] })
	return "s(X, Y) :- " + strings.Join(body, ", ")
}

func tripleTSV(base []store.NamedTriple) string {
	var b strings.Builder
	for _, tr := range base {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", tr.S, tr.R, tr.O)
	}
	return b.String()
}

// sameAnswers compares answer sets, confidences within a relative 1e-9.
func sameAnswers(got, want []eval.Answer) error {
	key := func(a eval.Answer) string { return strings.Join(a.Values, " ") }
	g := map[string]float64{}
	for _, a := range got {
		if _, dup := g[key(a)]; dup {
			return fmt.Errorf("duplicate answer %q", key(a))
		}
		g[key(a)] = a.Confidence
	}
	w := map[string]float64{}
	for _, a := range want {
		w[key(a)] = a.Confidence
	}
	var diffs []string
	for k, c := range w {
		gc, ok := g[k]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("missing %q %g", k, c))
		} else if math.Abs(gc-c) > 1e-9*c {
			diffs = append(diffs, fmt.Sprintf("%q: got %g want %g", k, gc, c))
		}
	}
	for k, c := range g {
		if _, ok := w[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("extra %q %g", k, c))
		}
	}
	slices.Sort(diffs)
	if len(diffs) > 0 {
		return fmt.Errorf("%s", strings.Join(diffs, "; "))
	}
	return nil
}

func randomQueries(rng *rand.Rand, nodes int) []string {
	qs := []string{"p(X, Y)?", "q(X, Y)?", "r(X)?", "p(X, X)?"}
	for range 4 {
		n := fmt.Sprint("n", rng.IntN(nodes))
		m := fmt.Sprint("n", rng.IntN(nodes))
		qs = append(qs, "p("+n+", Y)?", "q(X, "+n+")?", "r("+n+")?", "p("+n+", "+m+")?", "q("+n+", _)?",
			"s("+n+", Y)?", "s(X, "+m+")?")
	}
	v := programValues[rng.IntN(len(programValues))]
	w := programValues[rng.IntN(len(programValues))]
	qs = append(qs, "p(X, "+v+")?", "q("+w+", Y)?", "r("+v+")?", "v(X, "+w+")?", "v(n1, "+v+")?")
	return qs
}

// oracleKey splits a fact key of oracleDB into its arguments (none for a
// nullary fact, whose key is empty).
func oracleKey(k string) []string {
	if k == "" {
		return nil
	}
	return strings.Split(k, "\x00")
}
