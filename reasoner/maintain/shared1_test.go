// Test helpers shared with the evaluator's tests (reasoner/internal/eval),
// copied: a package's test files cannot be imported by another's.

package maintain

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// From the reasoner's bench_test.go.

// fb15k loads fb15k-237 from $DRUMQL_DATASETS (default ../shared/datasets
// from the repository root), or skips.
func fb15k(b *testing.B) store.Store {
	dir := os.Getenv("DRUMQL_DATASETS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "datasets")
	}
	dir = filepath.Join(dir, "fb15k-237")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("fb15k-237 not found at %s (set DRUMQL_DATASETS): %v", dir, err)
	}
	batch, err := store.ReadDataset(dir)
	if err != nil {
		b.Fatal(err)
	}
	st := store.NewMemory()
	if _, err := st.Load(context.Background(), batch, nil); err != nil {
		b.Fatal(err)
	}
	return st
}

// From the reasoner's helpers_test.go.

// newStore returns a memory store holding the triples of tsv
// (subject<TAB>relation<TAB>object lines).
func newStore(t testing.TB, tsv string) *store.Mem {
	t.Helper()
	st := store.NewMemory()
	loadTSV(t, st, tsv)
	return st
}

// loadTSV loads the triples of tsv (subject<TAB>relation<TAB>object lines)
// into st.
func loadTSV(t testing.TB, st store.Store, tsv string) {
	t.Helper()
	var b store.Batch
	for line := range strings.SplitSeq(tsv, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("bad triple line %q", line)
		}
		b.Graph = append(b.Graph, store.NamedTriple{S: f[0], R: f[1], O: f[2]})
	}
	if _, err := st.Load(context.Background(), &b, nil); err != nil {
		t.Fatal(err)
	}
}

func mustParse(t testing.TB, src string) *datalog.Program {
	t.Helper()
	p, err := parser.ParseString("test.dl", src)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return p
}

func mustQuery(t testing.TB, src string) datalog.Atom {
	t.Helper()
	q, err := parser.ParseQuery(src)
	if err != nil {
		t.Fatalf("parse query %q: %v", src, err)
	}
	return q.Atom
}

// formatAnswers prints answers one a line: values then the confidence.
func formatAnswers(as []eval.Answer) string {
	var b strings.Builder
	for _, a := range as {
		vs := slices.Clone(a.Values)
		if len(vs) == 0 {
			vs = []string{"true"}
		}
		fmt.Fprintf(&b, "%s %.6g\n", strings.Join(vs, " "), a.Confidence)
	}
	return b.String()
}

// answerSet is formatAnswers sorted by line: answers whose confidences
// are equal to six digits may come in either order (two evaluations that
// join a rule's body in different orders multiply its confidences in
// different orders, which can differ in the last bit).
func answerSet(as []eval.Answer) string {
	lines := strings.SplitAfter(formatAnswers(as), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "")
}

// derivedDump prints every derived fact of st, "atom confidence", sorted.
func derivedDump(t testing.TB, st store.Store) string {
	t.Helper()
	rs, err := st.Relations()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range rs {
		for d, err := range st.ScanDerived(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, fmt.Sprintf("%s %.6g", factString(t, st, d.Fact), d.Confidence))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func factString(t testing.TB, st store.Store, f store.Fact) string {
	t.Helper()
	pred, err := st.Name(f.Rel)
	if err != nil {
		t.Fatal(err)
	}
	a := datalog.Atom{Pred: pred}
	for _, id := range f.Args {
		n, err := st.Name(id)
		if err != nil {
			t.Fatal(err)
		}
		a.Args = append(a.Args, eval.SymTerm(n))
	}
	return a.String()
}

// From the reasoner's oracle_expr_test.go.

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
