package query

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// The expression oracle: the naive oracle (see oracle) extended with
// expressions, built-in functions and tests, and aggregates, written from
// the documented semantics (the README's dialect section: Arithmetic,
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
	db oracleDB
	// err is the first definite error met, nil when none.
	err error
	// errPreds holds the head predicates of the rules with a definite
	// error.
	errPreds map[string]bool
	// possible is set when a bottom-up evaluation may meet an error (it
	// is set when err is).
	possible bool
	// demand is set when a goal-directed evaluation may meet an error (it
	// is set when possible is); risky holds the head predicates of the
	// rules that may fail under demand (see oxDemandRisky and
	// oracleDemandErr).
	demand bool
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
func oracleExprDB(t testing.TB, base []store.NamedTriple, p *datalog.Program, minConf float64) oracleDB {
	t.Helper()
	res := oracleExpr(t, base, p, minConf)
	if res.err != nil {
		t.Fatalf("oracle: %v", res.err)
	}
	return res.db
}

// oracleExpr evaluates p over base with threshold minConf.
func oracleExpr(t testing.TB, base []store.NamedTriple, p *datalog.Program, minConf float64) *oracleExprResult {
	t.Helper()
	o := &oxEval{db: oracleDB{}, min: minConf, groups: map[*datalog.Expr][]string{},
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
	res := &oracleExprResult{db: o.db, errPreds: map[string]bool{}}
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
						if res.err == nil {
							res.err = errors.New(out.err)
						}
						res.errPreds[r.Head.Pred] = true
					}
				})
			}
		}
	}
	res.possible = res.err != nil
	for i := range p.Rules {
		r := &p.Rules[i]
		if !res.possible && o.possibleScope(r.Body, r.Head.Args, map[string]string{}) {
			res.possible = true
		}
		r.Aggregates(func(t datalog.Term) {
			if !res.possible && o.possibleUngrouped(t) {
				res.possible = true
			}
		})
	}
	res.demand = res.possible
	res.risky = map[string]bool{}
	for i := range p.Rules {
		if oxDemandRisky(&p.Rules[i], o.groups) {
			res.demand = true
			res.risky[p.Rules[i].Head.Pred] = true
		}
	}
	return res
}

// oracleDemandErr reports whether a goal-directed evaluation of query q
// may fail: a bottom-up one may, or a rule that may fail under demand
// (res.risky) defines a predicate q depends on that may be demanded with
// an argument bound: q's own predicate when q has a constant, or one that
// the body (or an aggregate's) of a rule q depends on calls with an
// argument that is a constant, an expression or a variable occurring
// elsewhere in the rule.
func oracleDemandErr(p *datalog.Program, res *oracleExprResult, q datalog.Atom) bool {
	if res.possible {
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

// oxApply applies operator or function op to the values named args and
// names the result.
func oxApply(op string, args []string) (string, error) {
	switch op {
	case "cat":
		return strings.Join(args, ""), nil
	case "strlen":
		return strconv.Itoa(utf8.RuneCountInString(args[0])), nil
	case "to_string":
		return args[0], nil
	case "to_number":
		n, ok := oxReadNum(args[0])
		if !ok {
			return "", fmt.Errorf("to_number: %s is not a number", args[0])
		}
		return n.text(), nil
	case "substr":
		var ns [2]int64
		for k, a := range args[1:] {
			n, ok := oxReadNum(a)
			if !ok || !n.isInt || n.i < 0 {
				return "", fmt.Errorf("substr: %s is not an integer >= 0", a)
			}
			ns[k] = n.i
		}
		rs := []rune(args[0])
		i, n := ns[0], ns[1]
		if i >= int64(len(rs)) {
			return "", nil
		}
		end := int64(len(rs))
		if n < end-i {
			end = i + n
		}
		return string(rs[i:end]), nil
	}
	if op == datalog.OpAdd {
		// + of a name that is not a number concatenates the names
		for _, a := range args {
			if _, ok := oxReadNum(a); !ok {
				return strings.Join(args, ""), nil
			}
		}
	}
	if (op == "min" || op == "max") && len(args) > 2 {
		// min and max of more than two: pairwise, left to right
		r, err := oxApply(op, args[:2])
		if err != nil {
			return "", err
		}
		return oxApply(op, append([]string{r}, args[2:]...))
	}
	nums := make([]oxNum, len(args))
	ints := true
	for k, a := range args {
		n, ok := oxReadNum(a)
		if !ok {
			return "", fmt.Errorf("%s is not a number", a)
		}
		nums[k] = n
		ints = ints && n.isInt
	}
	a := nums[0]
	if len(nums) == 1 {
		switch op {
		case datalog.OpNeg:
			if ints {
				return oxInt(new(big.Int).Neg(big.NewInt(a.i)))
			}
			return oxFloat(-a.f)
		case "abs":
			if ints {
				return oxInt(new(big.Int).Abs(big.NewInt(a.i)))
			}
			return oxFloat(math.Abs(a.f))
		}
		panic("oracle: unknown operator " + op)
	}
	b := nums[1]
	switch op {
	case "min", "max":
		c := oxCmpNum(a, b)
		r := a
		if op == "min" && c > 0 || op == "max" && c < 0 {
			r = b
		}
		if ints {
			return r.text(), nil
		}
		return oxFloat(r.float())
	case "fdiv":
		if b.float() == 0 {
			return "", errors.New("division by zero")
		}
		return oxFloat(a.float() / b.float())
	}
	if ints {
		x, y := big.NewInt(a.i), big.NewInt(b.i)
		switch op {
		case datalog.OpAdd:
			return oxInt(x.Add(x, y))
		case datalog.OpSub:
			return oxInt(x.Sub(x, y))
		case datalog.OpMul:
			return oxInt(x.Mul(x, y))
		case datalog.OpDiv, datalog.OpMod:
			if b.i == 0 {
				return "", errors.New("division by zero")
			}
			if op == datalog.OpDiv {
				return oxInt(x.Quo(x, y)) // truncated toward zero
			}
			return oxInt(x.Rem(x, y)) // the sign of the dividend
		case datalog.OpPow:
			if b.i < 0 {
				return oxFloat(math.Pow(float64(a.i), float64(b.i)))
			}
			return oxIntPow(a.i, b.i)
		}
		panic("oracle: unknown operator " + op)
	}
	x, y := a.float(), b.float()
	switch op {
	case datalog.OpAdd:
		return oxFloat(x + y)
	case datalog.OpSub:
		return oxFloat(x - y)
	case datalog.OpMul:
		return oxFloat(x * y)
	case datalog.OpDiv:
		return oxFloat(x / y)
	case datalog.OpMod:
		return oxFloat(math.Mod(x, y))
	case datalog.OpPow:
		return oxFloat(math.Pow(x, y))
	}
	panic("oracle: unknown operator " + op)
}

// oxIntPow is a^b for integers, b >= 0, exactly.
func oxIntPow(a, b int64) (string, error) {
	switch {
	case b == 0:
		return "1", nil
	case a == 0 || a == 1:
		return strconv.FormatInt(a, 10), nil
	case a == -1 && b%2 == 0:
		return "1", nil
	case a == -1:
		return "-1", nil
	case b > 64: // |a| >= 2
		return "", fmt.Errorf("integer overflow (%d ^ %d)", a, b)
	}
	return oxInt(new(big.Int).Exp(big.NewInt(a), big.NewInt(b), nil))
}

// oxAggregateValue is aggregate op over the targets of its solutions (one
// per solution; none for count). ok is false when it has no value.
func oxAggregateValue(op string, targets []string, count int) (name string, ok bool, err error) {
	sum := func() (string, error) {
		nums := make([]oxNum, len(targets))
		ints := true
		for k, t := range targets {
			n, ok := oxReadNum(t)
			if !ok {
				return "", fmt.Errorf("%s: %s is not a number", op, t)
			}
			nums[k] = n
			ints = ints && n.isInt
		}
		if ints {
			s := new(big.Int)
			for _, n := range nums {
				s.Add(s, big.NewInt(n.i))
			}
			return oxInt(s)
		}
		fs := make([]float64, len(nums))
		for k, n := range nums {
			fs[k] = n.float()
		}
		slices.Sort(fs)
		s := 0.0
		for _, f := range fs {
			s += f
		}
		return oxFloat(s)
	}
	switch op {
	case "count":
		return strconv.Itoa(count), true, nil
	case "sum":
		s, err := sum()
		return s, true, err
	}
	if len(targets) == 0 {
		return "", false, nil
	}
	switch op {
	case "mean":
		s, err := sum()
		if err != nil {
			return "", true, err
		}
		m, err := oxApply("fdiv", []string{s, strconv.Itoa(len(targets))})
		return m, true, err
	case "min", "max":
		nums := make([]oxNum, len(targets))
		numeric := true
		for k, t := range targets {
			nums[k], ok = oxReadNum(t)
			numeric = numeric && ok
		}
		sign := 1
		if op == "max" {
			sign = -1
		}
		best := 0
		for k := range targets {
			var c int
			if numeric {
				c = oxCmpNum(nums[k], nums[best])
			} else {
				c = strings.Compare(targets[k], targets[best])
			}
			if c*sign < 0 {
				best = k
			}
		}
		if numeric {
			return nums[best].text(), true, nil
		}
		return targets[best], true, nil
	}
	panic("oracle: unknown aggregate " + op)
}

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
	db  oracleDB
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
			args := oracleKey(k)
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
			best := 0.0
			for k, fc := range o.db[l.Atom.Pred] {
				args := oracleKey(k)
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
