package eval

import (
	"errors"
	"github.com/drumql/drumql/store"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/drumql/drumql/datalog"
)

// Expressions, built-in tests and aggregates (datalog.Expr): their
// compiled form and their evaluation by a worker. The semantics is
// docs/DIALECT.md's (its items Arithmetic, Strings and
// Aggregates) and doc.go's: every value is a symbol; a symbol whose name
// is written as a number is a number, an integer when its value is whole
// (and below 2^63 in magnitude), otherwise a float.

// cexpr is a compiled expression: a leaf term, an operator, a function or
// an aggregate.
type cexpr struct {
	op   string // "" for a leaf
	leaf Term
	args []*cexpr
	agg  *cagg
	src  datalog.Term // as written, for messages
}

// cagg is a compiled aggregate: its body is evaluated, for the values of
// its grouping variables, by a plan of its own (built with the rule's
// plans, when the relations it reads are complete: they are in lower
// strata).
type cagg struct {
	op     string // count, sum, min, max, mean
	expr   *cexpr // the aggregate's expression
	target *cexpr // nil for count
	rule   *Crule // the body as a rule: no head, weight 1, no provenance
	group  []int32
	plan   *Plan
	// planned is the stratum (evaluator.strata) the plan was made in.
	planned int

	mu    sync.Mutex
	cache map[string]aggResult // by the grouping variables' values
}

// aggResult is the value of an aggregate for one group.
type aggResult struct {
	v    value
	conf float64
	ok   bool // false: no value (min, max or mean of nothing)
}

// value is the value of an expression: a symbol (id set) or a computed
// name or number not yet interned.
type value struct {
	id    uint32
	hasID bool
	// numKnown: num (and isInt, i, f) say whether and which number it is.
	numKnown bool
	num      bool
	isInt    bool
	i        int64
	f        float64
	// named: name is the value's name (a computed string, which may be
	// written as a number: cat(0, 7) is the symbol "07", the number 7).
	named bool
	name  string
}

// nameValue is the value of a computed name.
func nameValue(s string) value {
	v, _ := numberOfName(s)
	v.named, v.name = true, s
	return v
}

// evalError is an evaluation error of a rule's expression; err, if not
// nil, is the sentinel it matches (ErrStringTooLong).
type evalError struct {
	msg string
	err error
}

func (e *evalError) Error() string { return e.msg }

func (e *evalError) Unwrap() error { return e.err }

// MaxString is the longest string an expression may make by default, in
// bytes: the store's longest name (a longer one could never be stored),
// and a bound on what a rule that grows strings (T = cat(S, S)) takes in
// memory. Options.MaxString lowers it.
const MaxString = store.MaxNameLen

// ErrStringTooLong is matched by the error of an evaluation stopped by an
// expression making a string longer than Options.MaxString.
var ErrStringTooLong = errors.New("a string longer than the limit")

// maxString is o.MaxString, defaulted and capped to MaxString.
func (o Options) maxString() int {
	if o.MaxString <= 0 || o.MaxString > MaxString {
		return MaxString
	}
	return o.MaxString
}

// maxExactInt is the magnitude up to which every integer is a float64.
const maxExactInt = 1 << 53

func intValue(i int64) value {
	return value{numKnown: true, num: true, isInt: true, i: i, f: float64(i)}
}

// floatValue returns f as a value: an integer when it is a whole number
// whose canonical text is read back as one.
func floatValue(f float64) value {
	if f == math.Trunc(f) && math.Abs(f) < maxExactInt {
		return intValue(int64(f))
	}
	return value{numKnown: true, num: true, f: f}
}

// numberOfName reads a name as a number of the dialect.
func numberOfName(name string) (value, bool) {
	f, ok := NumberValue(name)
	if !ok {
		return value{numKnown: true}, false
	}
	if !strings.ContainsAny(name, ".eE") {
		if i, err := strconv.ParseInt(name, 10, 64); err == nil {
			return intValue(i), true
		}
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		if math.Abs(f) < maxExactInt {
			return intValue(int64(f)), true
		}
		if c, ok := datalog.CanonicalNumber(name); ok && !strings.ContainsAny(c, ".eE") {
			if i, err := strconv.ParseInt(c, 10, 64); err == nil {
				return intValue(i), true
			}
		}
	}
	return value{numKnown: true, num: true, f: f}, true
}

// canonical returns the name of a number value.
func (v *value) canonical() string {
	if v.isInt {
		return strconv.FormatInt(v.i, 10)
	}
	if v.f == 0 {
		return "0"
	}
	return strconv.FormatFloat(v.f, 'g', -1, 64)
}

// compileExpr compiles expression term t; termOf compiles its leaves, agg
// its aggregates.
func compileExpr(t datalog.Term, termOf func(datalog.Term) (Term, error), agg func(datalog.Term) (*cagg, error)) (*cexpr, error) {
	if t.Kind != datalog.Compound {
		lt, err := termOf(t)
		return &cexpr{leaf: lt, src: t}, err
	}
	x := &cexpr{op: t.X.Op, src: t}
	if t.X.Agg {
		a, err := agg(t)
		if a != nil {
			a.expr = x
		}
		x.agg = a
		return x, err
	}
	for _, a := range t.X.Args {
		c, err := compileExpr(a, termOf, agg)
		if err != nil {
			return nil, err
		}
		x.args = append(x.args, c)
	}
	return x, nil
}

// exprVars calls f for the variable slots an expression reads: its own
// leaves and the grouping variables of its aggregates.
func (x *cexpr) vars(f func(int32)) {
	switch {
	case x == nil:
	case x.agg != nil:
		for _, g := range x.agg.group {
			f(g)
		}
	case x.op == "":
		if x.leaf.V >= 0 {
			f(x.leaf.V)
		}
	default:
		for _, a := range x.args {
			a.vars(f)
		}
	}
}

// aggregates calls f for the aggregates of x.
func (x *cexpr) aggregates(f func(*cagg)) {
	if x == nil {
		return
	}
	if x.agg != nil {
		f(x.agg)
		return
	}
	for _, a := range x.args {
		a.aggregates(f)
	}
}

// callsAutoinc reports whether rule r calls autoinc().
func callsAutoinc(r *datalog.Rule) bool {
	var in func(t datalog.Term) bool
	in = func(t datalog.Term) bool {
		if t.Kind != datalog.Compound {
			return false
		}
		if t.X.Op == "autoinc" {
			return true
		}
		for _, a := range t.X.Args {
			if in(a) {
				return true
			}
		}
		for i := range t.X.Body {
			l := &t.X.Body[i]
			if in(l.Left) || in(l.Right) || slices.ContainsFunc(l.Atom.Args, in) {
				return true
			}
		}
		return false
	}
	if slices.ContainsFunc(r.Head.Args, in) {
		return true
	}
	for i := range r.Body {
		l := &r.Body[i]
		if in(l.Left) || in(l.Right) || slices.ContainsFunc(l.Atom.Args, in) {
			return true
		}
	}
	return false
}

// callsAutoinc reports whether x calls autoinc() (outside the bodies of
// aggregates).
func (x *cexpr) callsAutoinc() bool {
	if x == nil || x.agg != nil {
		return false
	}
	return x.op == "autoinc" || slices.ContainsFunc(x.args, (*cexpr).callsAutoinc)
}

// neverNumber reports whether x's value is never a number: a cat whose
// first argument is a symbol constant that starts with a character no
// number starts with (see NumberValue), such as Soufflé's records
// ("[...]").
func (x *cexpr) neverNumber() bool {
	if x == nil || x.op != "cat" || len(x.args) == 0 {
		return false
	}
	first := x.args[0].src
	return first.Kind == datalog.Symbol && first.Value != "" && first.Value[0] != '-' &&
		(first.Value[0] < '0' || first.Value[0] > '9')
}
