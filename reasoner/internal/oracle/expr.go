package oracle

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// The expression oracle: the naive oracle (see oracle) extended with
// expressions, built-in functions and tests, and aggregates, written from
// the documented semantics (docs/DIALECT.md: Arithmetic,
// Strings, Aggregates; doc.go's values) and not from the engine's code. Like the naive oracle it applies every rule to every
// combination of facts, by brute force, until nothing changes, with
// max-product confidences.
//
// Evaluation errors are classified, since whether an evaluation meets one
// may depend on the order in which it evaluates a rule's literals:
//
//   - definite: a combination of facts matches every positive atom of a
//     rule, every literal that can be evaluated holds (a negation does not
//     make the confidence 0, no aggregate lacks a value), the confidence
//     of what is known reaches the threshold, and a literal or head
//     argument fails. Every complete (bottom-up) evaluation of the rule
//     must meet it, whatever the order of its literals;
//   - possible: some literal, head argument or aggregate fails for a
//     partial combination (any subset of the positive atoms, any
//     assignments that can be made), in whatever state the others are. A
//     bottom-up evaluation that meets no possible error meets no error;
//   - under demand: a goal-directed evaluation may bind a rule's head
//     variables to any value (the query's constants, values of other
//     relations) before its body; a rule that uses one of them in an
//     expression or a match test may fail on it (oxDemandRisky).
//
// A combination with a definite error derives nothing in the oracle's
// database.

// oracleExprResult is the outcome of the expression oracle.
type oracleExprResult struct {
	DB DB
	// err is the first definite error met, nil when none.
	Err error
	// errPreds holds the head predicates of the rules with a definite
	// error.
	ErrPreds map[string]bool
	// possible is set when a bottom-up evaluation may meet an error (it
	// is set when err is).
	Possible bool
	// demand is set when a goal-directed evaluation may meet an error (it
	// is set when possible is); risky holds the head predicates of the
	// rules that may fail under demand (see oxDemandRisky and
	// oracleDemandErr).
	Demand bool
	risky  map[string]bool
}

// oracleNeedsExpr reports whether p needs the expression oracle: a rule
// with an expression, a built-in test or an equality (which may be an
// assignment).
func oracleNeedsExpr(p *datalog.Program) bool {
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.HasCompound() {
			return true
		}
		for _, l := range r.Body {
			if l.Kind == datalog.Comparison && l.Op == datalog.OpEq {
				return true
			}
		}
	}
	return false
}

// oracleExprDB is the expression oracle's database for a program that
// must evaluate without error.
func oracleExprDB(t testing.TB, base []store.NamedTriple, p *datalog.Program, minConf float64) DB {
	t.Helper()
	res := Expr(t, base, p, minConf)
	if res.Err != nil {
		t.Fatalf("oracle: %v", res.Err)
	}
	return res.DB
}

// Expr evaluates p over base with threshold minConf.
func Expr(t testing.TB, base []store.NamedTriple, p *datalog.Program, minConf float64) *oracleExprResult {
	t.Helper()
	o := &oxEval{db: DB{}, min: minConf, groups: map[*datalog.Expr][]string{},
		aggMemo: map[string]oxVal{}, possibleMemo: map[string]bool{}}
	for _, tr := range base {
		o.db.set(tr.R, []string{tr.S, tr.O}, 1)
	}
	for _, f := range p.Facts {
		var args []string
		for _, a := range f.Atom.Args {
			args = append(args, a.Value)
		}
		if f.Weight >= minConf {
			o.db.set(f.Atom.Pred, args, f.Weight)
		}
	}
	strata, ds := datalog.Stratify(p)
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	res := &oracleExprResult{DB: o.db, ErrPreds: map[string]bool{}}
	for i := range p.Rules {
		r := &p.Rules[i]
		oxScopeGroups(r.Body, r.Head.Args, nil, o.groups)
	}
	for _, s := range strata {
		for changed := true; changed; {
			changed = false
			for _, ri := range s.Rules {
				r := &p.Rules[ri]
				o.joins(r.Body, map[string]string{}, nil, func(env map[string]string, facts [][]string, fc float64) {
					out := o.settle(r.Body, r.Head.Args, env, facts)
					c := fc * out.conf * r.Weight
					if c <= 0 || c < o.min {
						return // below the threshold: may be pruned before the failing literal
					}
					switch out.st {
					case oxOK:
						if o.db.set(r.Head.Pred, out.vals, c) {
							changed = true
						}
					case oxErr:
						if res.Err == nil {
							res.Err = errors.New(out.err)
						}
						res.ErrPreds[r.Head.Pred] = true
					}
				})
			}
		}
	}
	res.Possible = res.Err != nil
	for i := range p.Rules {
		r := &p.Rules[i]
		if !res.Possible && o.possibleScope(r.Body, r.Head.Args, map[string]string{}) {
			res.Possible = true
		}
		r.Aggregates(func(t datalog.Term) {
			if !res.Possible && o.possibleUngrouped(t) {
				res.Possible = true
			}
		})
	}
	res.Demand = res.Possible
	res.risky = map[string]bool{}
	for i := range p.Rules {
		if oxDemandRisky(&p.Rules[i], o.groups) {
			res.Demand = true
			res.risky[p.Rules[i].Head.Pred] = true
		}
	}
	return res
}

// DemandErr reports whether a goal-directed evaluation of query q
// may fail: a bottom-up one may, or a rule that may fail under demand
// (res.risky) defines a predicate q depends on that may be demanded with
// an argument bound: q's own predicate when q has a constant, or one that
// the body (or an aggregate's) of a rule q depends on calls with an
// argument that is a constant, an expression or a variable occurring
// elsewhere in the rule.
func DemandErr(p *datalog.Program, res *oracleExprResult, q datalog.Atom) bool {
	if res.Possible {
		return true
	}
	bindable := map[string]bool{}
	if slices.ContainsFunc(q.Args, func(t datalog.Term) bool { return t.Kind != datalog.Var }) {
		bindable[q.Pred] = true
	}
	cone := map[string]bool{q.Pred: true}
	for changed := true; changed; {
		changed = false
		for i := range p.Rules {
			r := &p.Rules[i]
			if cone[r.Head.Pred] {
				r.BodyAtoms(func(l *datalog.Literal, _ bool) {
					if !cone[l.Atom.Pred] {
						cone[l.Atom.Pred] = true
						changed = true
					}
				})
			}
		}
	}
	for i := range p.Rules {
		r := &p.Rules[i]
		if !cone[r.Head.Pred] {
			continue // not evaluated for q
		}
		uses := map[string]int{}
		count := func(t datalog.Term) {
			if t.Value != "_" {
				uses[t.Value]++
			}
		}
		for _, t := range r.Head.Args {
			t.Vars(count)
		}
		for j := range r.Body {
			r.Body[j].Vars(count)
		}
		r.BodyAtoms(func(l *datalog.Literal, _ bool) {
			for _, t := range l.Atom.Args {
				if t.Kind == datalog.Var && t.Value == "_" {
					continue
				}
				if t.Kind != datalog.Var || uses[t.Value] > 1 {
					bindable[l.Atom.Pred] = true
				}
			}
		})
	}
	for pred := range cone {
		if res.risky[pred] && bindable[pred] {
			return true
		}
	}
	return false
}

// # Values

// oxNum is a number: an integer (int64) or a float.
type oxNum struct {
	isInt bool
	i     int64
	f     float64
}

// oxTwo63 is 2^63.
const oxTwo63 = 9223372036854775808.0

// oxReadNum reads the value named name: a number when the name is written
// as a number of the dialect; an integer when its value is a whole number
// of magnitude below 2^63 (a name without a fraction or exponent read
// exactly as an int64), otherwise a float.
func oxReadNum(name string) (oxNum, bool) {
	if !oracleNumberSyntax.MatchString(name) {
		return oxNum{}, false
	}
	if !strings.ContainsAny(name, ".eE") {
		if i, err := strconv.ParseInt(name, 10, 64); err == nil && i != math.MinInt64 {
			return oxNum{isInt: true, i: i}, true
		}
	}
	f, err := strconv.ParseFloat(name, 64)
	if err != nil {
		return oxNum{}, false
	}
	if f == math.Trunc(f) && math.Abs(f) < oxTwo63 {
		return oxNum{isInt: true, i: int64(f)}, true
	}
	return oxNum{f: f}, true
}

func (n oxNum) float() float64 {
	if n.isInt {
		return float64(n.i)
	}
	return n.f
}

// text is the canonical text of n: decimal for an integer, the shortest
// 'g' form for a float.
func (n oxNum) text() string {
	if n.isInt {
		return strconv.FormatInt(n.i, 10)
	}
	return strconv.FormatFloat(n.f, 'g', -1, 64)
}

// oxCmpNum compares two numbers by value.
func oxCmpNum(a, b oxNum) int {
	if a.isInt && b.isInt {
		return cmp.Compare(a.i, b.i)
	}
	return cmp.Compare(a.float(), b.float())
}

// oxFloat names a float result: a whole number of magnitude below 2^53
// (where every integer is a float64) as that integer, negative zero as 0,
// any other as its shortest 'g' form; NaN and infinities are errors.
func oxFloat(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("the result %v is not a finite number", f)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10), nil
	}
	return strconv.FormatFloat(f, 'g', -1, 64), nil
}

// oxInt names an integer result computed exactly; one outside int64 is an
// overflow.
func oxInt(b *big.Int) (string, error) {
	if !b.IsInt64() {
		return "", fmt.Errorf("integer overflow (%s)", b)
	}
	return b.String(), nil
}
