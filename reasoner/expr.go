package reasoner

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/drumql/drumql/datalog"
)

// Expressions, built-in tests and aggregates (datalog.Expr): their
// compiled form and their evaluation by a worker. The semantics is the
// README's (dialect section, "Arithmetic, strings and aggregates") and
// doc.go's: every value is a symbol; a symbol whose name is written as a
// number is a number, an integer when its value is whole (and below 2^63
// in magnitude), otherwise a float.

// cexpr is a compiled expression: a leaf term, an operator, a function or
// an aggregate.
type cexpr struct {
	op   string // "" for a leaf
	leaf term
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
	rule   *crule // the body as a rule: no head, weight 1, no provenance
	group  []int32
	plan   *plan
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

// evalError is an evaluation error of a rule's expression.
type evalError struct {
	msg string
}

func (e *evalError) Error() string { return e.msg }

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
	f, ok := numberValue(name)
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
func compileExpr(t datalog.Term, termOf func(datalog.Term) (term, error), agg func(datalog.Term) (*cagg, error)) (*cexpr, error) {
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
		if x.leaf.v >= 0 {
			f(x.leaf.v)
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

// --- evaluation ---

// fail records the first evaluation error of the worker's task and stops
// its join.
func (w *worker) fail(msg string) {
	if w.err == nil {
		w.err = &evalError{msg: msg}
	}
}

// errorIn formats an evaluation error of expression x of the current rule.
func (w *worker) errorIn(x *cexpr, format string, args ...any) {
	var b strings.Builder
	r := w.rule
	if r != nil && r.pos.Line > 0 {
		b.WriteString(r.pos.String())
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, format, args...)
	b.WriteString(" in ")
	b.WriteString(x.src.String())
	// The values of the variables the expression reads.
	if r != nil {
		var parts []string
		seen := map[string]bool{}
		x.src.Vars(func(v datalog.Term) {
			s, ok := r.slots[v.Value]
			if !ok || seen[v.Value] || v.Value == "_" {
				return
			}
			seen[v.Value] = true
			parts = append(parts, v.Value+" = "+valueTerm(w.e.syms.mustName(w.vals[s])).String())
		})
		if len(parts) > 0 {
			b.WriteString(" with ")
			b.WriteString(strings.Join(parts, ", "))
		}
	}
	w.fail(b.String())
}

// leafValue is the value of a leaf term under the current bindings.
func (w *worker) leafValue(t term) value {
	switch t.v {
	case slotConst:
		return value{id: t.c, hasID: true}
	case slotNumber:
		v := floatValue(t.f)
		v.id, v.hasID = t.c, true
		if !v.isInt {
			// keep the exact reading of big integers
			v, _ = numberOfName(w.e.syms.mustName(t.c))
			v.id, v.hasID = t.c, true
		}
		return v
	}
	return value{id: w.vals[t.v], hasID: true}
}

// number fills v's number fields; it reports whether v is a number.
func (w *worker) numberOf(v *value) bool {
	if v.numKnown {
		return v.num
	}
	id := v.id
	if f, ok := w.e.syms.number(id); !ok {
		v.numKnown = true
		return false
	} else if f == math.Trunc(f) && math.Abs(f) < maxExactInt {
		*v = intValue(int64(f))
	} else {
		*v, _ = numberOfName(w.e.syms.mustName(id))
	}
	v.id, v.hasID = id, true
	return true
}

// nameOf returns the name of v.
func (w *worker) nameOf(v *value) string {
	switch {
	case v.hasID:
		return w.e.syms.mustName(v.id)
	case v.named:
		return v.name
	}
	return v.canonical()
}

// intern returns v's symbol id, interning a computed value.
func (w *worker) intern(v *value) (uint32, bool) {
	if v.hasID {
		return v.id, true
	}
	id, err := w.e.syms.computed(w.nameOf(v))
	if err != nil {
		w.fail(err.Error())
		return 0, false
	}
	return id, true
}

// eval evaluates x under the current bindings. It returns the value, the
// confidence of the aggregates it used (1 without), and false when it has
// no value (an aggregate of nothing) or failed (w.err set).
func (w *worker) eval(x *cexpr) (value, float64, bool) {
	if x.op == "" {
		return w.leafValue(x.leaf), 1, true
	}
	if x.agg != nil {
		r := w.aggregate(x)
		return r.v, r.conf, r.ok && w.err == nil
	}
	conf := 1.0
	var buf [3]value
	args := buf[:0]
	if len(x.args) > len(buf) {
		args = make([]value, 0, len(x.args))
	}
	args = args[:len(x.args)]
	for i, a := range x.args {
		v, c, ok := w.eval(a)
		if !ok {
			return value{}, 0, false
		}
		args[i], conf = v, conf*c
	}
	v, ok := w.apply(x, args)
	return v, conf, ok
}

// numbers checks that every argument is a number, reporting the first
// that is not.
func (w *worker) numbers(x *cexpr, args []value) bool {
	for i := range args {
		if !w.numberOf(&args[i]) {
			w.errorIn(x, "%s is not a number", valueTerm(w.nameOf(&args[i])))
			return false
		}
	}
	return true
}

// finite returns f as a value, or fails on NaN and infinities.
func (w *worker) finite(x *cexpr, f float64) (value, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		w.errorIn(x, "the result is not a finite number")
		return value{}, false
	}
	return floatValue(f), true
}

func (w *worker) apply(x *cexpr, a []value) (value, bool) {
	switch x.op {
	case datalog.OpAdd:
		if !w.numberOf(&a[0]) || !w.numberOf(&a[1]) {
			// + of a name that is not a number concatenates (as
			// Soufflé's + of symbols)
			return nameValue(w.nameOf(&a[0]) + w.nameOf(&a[1])), true
		}
		return w.arith(x, a[0], a[1])
	case datalog.OpSub, datalog.OpMul, datalog.OpDiv, datalog.OpMod, datalog.OpPow, "fdiv", "min", "max":
		if !w.numbers(x, a) {
			return value{}, false
		}
		v, ok := w.arith(x, a[0], a[1])
		for _, b := range a[2:] { // min and max of more than two
			if !ok {
				break
			}
			v, ok = w.arith(x, v, b)
		}
		return v, ok
	case datalog.OpNeg, "abs":
		if !w.numbers(x, a) {
			return value{}, false
		}
		v := a[0]
		if x.op == "abs" && !(v.isInt && v.i < 0 || !v.isInt && v.f < 0) {
			return v, true
		}
		if v.isInt {
			if v.i == math.MinInt64 {
				w.errorIn(x, "integer overflow")
				return value{}, false
			}
			return intValue(-v.i), true
		}
		return floatValue(-v.f), true
	case "cat":
		var b strings.Builder
		for i := range a {
			b.WriteString(w.nameOf(&a[i]))
		}
		return nameValue(b.String()), true
	case "strlen":
		return intValue(int64(utf8.RuneCountInString(w.nameOf(&a[0])))), true
	case "substr":
		if !w.numbers(x, a[1:]) {
			return value{}, false
		}
		if !a[1].isInt || !a[2].isInt || a[1].i < 0 || a[2].i < 0 {
			w.errorIn(x, "substr takes a start and a length that are integers >= 0")
			return value{}, false
		}
		s := []rune(w.nameOf(&a[0]))
		lo := min(a[1].i, int64(len(s)))
		hi := lo + min(a[2].i, int64(len(s))-lo)
		return nameValue(string(s[lo:hi])), true
	case "to_number":
		if !w.numberOf(&a[0]) {
			w.errorIn(x, "%s is not a number", valueTerm(w.nameOf(&a[0])))
			return value{}, false
		}
		// the number, named canonically ("007" is 7)
		v := a[0]
		v.hasID, v.named = false, false
		return v, true
	case "to_string":
		return a[0], true
	}
	w.errorIn(x, "unknown function %s", x.op)
	return value{}, false
}

// arith applies a binary numeric operator: integer arithmetic when both
// operands are integers, float64 otherwise (see the package comment).
func (w *worker) arith(x *cexpr, a, b value) (value, bool) {
	if x.op == "fdiv" {
		if b.f == 0 {
			w.errorIn(x, "division by zero")
			return value{}, false
		}
		return w.finite(x, a.f/b.f)
	}
	if a.isInt && b.isInt {
		i, j := a.i, b.i
		var r int64
		overflow := false
		switch x.op {
		case datalog.OpAdd:
			r = i + j
			overflow = (r > i) != (j > 0)
		case datalog.OpSub:
			r = i - j
			overflow = (r < i) != (j > 0)
		case datalog.OpMul:
			if i != 0 && j != 0 {
				r = i * j
				overflow = r/j != i || (i == -1 && j == math.MinInt64) || (j == -1 && i == math.MinInt64)
			}
		case datalog.OpDiv, datalog.OpMod:
			if j == 0 {
				w.errorIn(x, "division by zero")
				return value{}, false
			}
			if i == math.MinInt64 && j == -1 {
				if x.op == datalog.OpMod {
					return intValue(0), true
				}
				overflow = true
			} else if x.op == datalog.OpDiv {
				r = i / j
			} else {
				r = i % j
			}
		case datalog.OpPow:
			if j < 0 {
				return w.finite(x, math.Pow(float64(i), float64(j)))
			}
			r, overflow = intPow(i, j)
		case "min":
			r = min(i, j)
		case "max":
			r = max(i, j)
		}
		if overflow {
			w.errorIn(x, "integer overflow")
			return value{}, false
		}
		return intValue(r), true
	}
	f, g := a.f, b.f
	switch x.op {
	case datalog.OpAdd:
		return w.finite(x, f+g)
	case datalog.OpSub:
		return w.finite(x, f-g)
	case datalog.OpMul:
		return w.finite(x, f*g)
	case datalog.OpDiv:
		if g == 0 {
			w.errorIn(x, "division by zero")
			return value{}, false
		}
		return w.finite(x, f/g)
	case datalog.OpMod:
		if g == 0 {
			w.errorIn(x, "division by zero")
			return value{}, false
		}
		return w.finite(x, math.Mod(f, g))
	case datalog.OpPow:
		return w.finite(x, math.Pow(f, g))
	case "min":
		return floatValue(min(f, g)), true
	default: // max
		return floatValue(max(f, g)), true
	}
}

// intPow returns b^e for e >= 0, and whether it overflows int64.
func intPow(b, e int64) (int64, bool) {
	r := int64(1)
	for e > 0 {
		if e&1 == 1 {
			n := r * b
			if b != 0 && (n/b != r || (r == -1 && b == math.MinInt64)) {
				return 0, true
			}
			r = n
		}
		e >>= 1
		if e > 0 {
			n := b * b
			if b != 0 && n/b != b {
				return 0, true
			}
			b = n
		}
	}
	return r, false
}

// compareValues orders two values as comparisons do: numerically when
// both are numbers, otherwise by name (the same symbol is equal to itself).
func (w *worker) compareValues(a, b *value) int {
	if a.hasID && b.hasID && a.id == b.id {
		return 0
	}
	if w.numberOf(a) && w.numberOf(b) {
		if a.isInt && b.isInt {
			return cmp.Compare(a.i, b.i)
		}
		return cmp.Compare(a.f, b.f)
	}
	return strings.Compare(w.nameOf(a), w.nameOf(b))
}

// opHolds reports whether op holds of two operands that compare as c.
func opHolds(op datalog.CmpOp, c int) bool {
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
	default:
		return c >= 0
	}
}

// side evaluates one side of comparison l: its expression, or its term.
func (w *worker) side(x *cexpr, t term) (value, float64, bool) {
	if x != nil {
		return w.eval(x)
	}
	return w.leafValue(t), 1, true
}

// compareExpr evaluates comparison l with expressions; it returns the
// confidence of the aggregates it used and whether it holds.
func (w *worker) compareExpr(l *clit) (float64, bool) {
	a, ca, ok := w.side(l.lx, l.l)
	if !ok {
		return 0, false
	}
	b, cb, ok := w.side(l.rx, l.r)
	if !ok {
		return 0, false
	}
	return ca * cb, opHolds(l.op, w.compareValues(&a, &b))
}

// assign binds the variable of step s to the value of the other side of
// its equality; it returns the confidence of the aggregates it used.
func (w *worker) assign(s *step) (float64, bool) {
	l := s.lit
	x, t := l.rx, l.r
	if s.assignRight {
		x, t = l.lx, l.l
	}
	v, c, ok := w.side(x, t)
	if !ok {
		return 0, false
	}
	id, ok := w.intern(&v)
	if !ok {
		return 0, false
	}
	w.vals[s.assign] = id
	return c, true
}

// builtin evaluates a built-in test.
func (w *worker) builtin(l *clit) (float64, bool) {
	conf := 1.0
	var names [2]string
	for i, x := range l.bargs {
		v, c, ok := w.eval(x)
		if !ok {
			return 0, false
		}
		conf *= c
		names[i] = w.nameOf(&v)
	}
	switch l.builtin {
	case "contains":
		return conf, strings.Contains(names[1], names[0])
	default: // match
		// A pattern from the data that is not a regular expression
		// matches nothing (as in Soufflé); a constant one is an error of
		// the program (datalog.Validate).
		re, err := w.e.regexp(names[0])
		if err != nil {
			return 0, false
		}
		return conf, re.MatchString(names[1])
	}
}

// regexp returns the compiled form of pattern (anchored: it must match a
// whole name), cached.
func (e *evaluator) regexp(pattern string) (*regexp.Regexp, error) {
	e.reMu.Lock()
	defer e.reMu.Unlock()
	if re, ok := e.res[pattern]; ok {
		return re, nil
	}
	re, err := regexp.Compile(`^(?:` + pattern + `)$`)
	if err != nil {
		return nil, err
	}
	if e.res == nil {
		e.res = map[string]*regexp.Regexp{}
	}
	e.res[pattern] = re
	return re, nil
}

// aggregate evaluates aggregate expression x for the current values of its
// grouping variables, from the cache when it was computed before.
func (w *worker) aggregate(x *cexpr) aggResult {
	a := x.agg
	key := make([]byte, 0, 4*len(a.group))
	for _, g := range a.group {
		v := w.vals[g]
		key = append(key, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	a.mu.Lock()
	r, ok := a.cache[string(key)]
	a.mu.Unlock()
	if ok {
		return r
	}
	acc := &aggAcc{x: x, conf: 1}
	outerAcc, outerDemand := w.acc, w.demand
	w.acc, w.demand = acc, 1
	w.join(a.plan, 0, 1)
	w.acc, w.demand = outerAcc, outerDemand
	if w.err != nil || w.stop.Load() {
		return aggResult{}
	}
	r = w.finish(acc)
	if w.err != nil {
		return aggResult{}
	}
	a.mu.Lock()
	if a.cache == nil {
		a.cache = map[string]aggResult{}
	}
	a.cache[string(key)] = r
	a.mu.Unlock()
	return r
}

// aggAcc accumulates the solutions of an aggregate's body.
type aggAcc struct {
	x     *cexpr
	n     int64
	conf  float64 // the lowest confidence of a solution
	vals  []value
	best  value
	found bool
}

// fold adds one solution of the aggregate's body, of confidence conf.
func (w *worker) fold(conf float64) {
	acc := w.acc
	acc.n++
	acc.conf = min(acc.conf, conf)
	a := acc.x.agg
	if a.target == nil {
		return
	}
	v, c, ok := w.eval(a.target)
	if !ok {
		if w.err == nil {
			w.errorIn(a.target, "the target has no value")
		}
		return
	}
	acc.conf = min(acc.conf, c*conf)
	switch a.op {
	case "sum", "mean":
		if !w.numberOf(&v) {
			w.errorIn(acc.x, "%s is not a number", valueTerm(w.nameOf(&v)))
			return
		}
		acc.vals = append(acc.vals, v)
	case "min", "max":
		if !acc.found {
			acc.best, acc.found = v, true
			return
		}
		c := w.compareValues(&v, &acc.best)
		if a.op == "min" && c < 0 || a.op == "max" && c > 0 {
			acc.best = v
		}
	}
}

// finish computes an aggregate's value from its solutions.
func (w *worker) finish(acc *aggAcc) aggResult {
	a := acc.x.agg
	switch a.op {
	case "count":
		return aggResult{v: intValue(acc.n), conf: acc.conf, ok: true}
	case "min", "max":
		return aggResult{v: acc.best, conf: acc.conf, ok: acc.found}
	}
	sum, ok := w.sum(acc)
	if !ok {
		return aggResult{}
	}
	if a.op == "sum" {
		return aggResult{v: sum, conf: acc.conf, ok: true}
	}
	if acc.n == 0 {
		return aggResult{}
	}
	m, ok := w.finite(acc.x, sum.f/float64(acc.n))
	return aggResult{v: m, conf: acc.conf, ok: ok}
}

// sum adds the values of a sum or mean: exactly as integers while they all
// are, otherwise as floats in ascending order (the result does not depend
// on the order the solutions were found in).
func (w *worker) sum(acc *aggAcc) (value, bool) {
	ints := true
	for i := range acc.vals {
		ints = ints && acc.vals[i].isInt
	}
	if ints {
		var s int64
		for _, v := range acc.vals {
			n := s + v.i
			if (n > s) != (v.i > 0) {
				w.errorIn(acc.x, "integer overflow")
				return value{}, false
			}
			s = n
		}
		return intValue(s), true
	}
	fs := make([]float64, len(acc.vals))
	for i, v := range acc.vals {
		fs[i] = v.f
	}
	slices.Sort(fs)
	s := 0.0
	for _, f := range fs {
		s += f
	}
	return w.finite(acc.x, s)
}

// valueTerm is a symbol as a term, written as a number when it is one.
func valueTerm(name string) datalog.Term {
	if _, ok := numberValue(name); ok {
		return datalog.Term{Kind: datalog.Number, Value: name}
	}
	return datalog.Term{Kind: datalog.Symbol, Value: name}
}

// aggregateProofs returns the proof nodes of the aggregates of rule, from
// the words of a provenance record (see aggRef).
func (e *evaluator) aggregateProofs(rule *crule, words []uint32) []*Proof {
	names := make(map[int32]string, len(rule.slots))
	for n, s := range rule.slots {
		names[s] = n
	}
	var out []*Proof
	for j := range rule.body {
		for _, ar := range rule.body[j].aggs {
			w := words[ar.at : ar.at+4+len(ar.x.agg.group)]
			if w[1] == 0 && w[2] == 0 && w[3] == 0 {
				continue // not recorded (a proof read back from the store)
			}
			sub := map[string]datalog.Term{}
			for i, g := range ar.x.agg.group {
				sub[names[g]] = valueTerm(e.syms.mustName(w[4+i]))
			}
			text := substituteTerm(ar.x.src, sub).String()
			if w[1] == 1 {
				text += " = " + valueTerm(e.syms.mustName(w[0])).String()
			}
			conf := math.Float64frombits(uint64(w[2]) | uint64(w[3])<<32)
			out = append(out, &Proof{Fact: text, Confidence: conf, Weight: 1, Aggregate: true})
		}
	}
	return out
}

// substituteTerm returns t with the variables of sub replaced, also inside
// expressions and aggregates.
func substituteTerm(t datalog.Term, sub map[string]datalog.Term) datalog.Term {
	switch t.Kind {
	case datalog.Var:
		if s, ok := sub[t.Value]; ok {
			s.Pos = t.Pos
			return s
		}
	case datalog.Compound:
		x := *t.X
		x.Args = make([]datalog.Term, len(t.X.Args))
		for i, a := range t.X.Args {
			x.Args[i] = substituteTerm(a, sub)
		}
		x.Body = make([]datalog.Literal, len(t.X.Body))
		for i, l := range t.X.Body {
			l.Left, l.Right = substituteTerm(l.Left, sub), substituteTerm(l.Right, sub)
			args := make([]datalog.Term, len(l.Atom.Args))
			for k, a := range l.Atom.Args {
				args[k] = substituteTerm(a, sub)
			}
			l.Atom.Args = args
			x.Body[i] = l
		}
		t.X = &x
	}
	return t
}
