package query

import (
	"cmp"
	"context"
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

// The naive oracle: apply every rule to every combination of facts, by
// brute force, until nothing changes; max-product confidences. It shares
// nothing with the engine but the AST and the stratification.

type oracleDB map[string]map[string]float64 // pred -> args joined by \x00 -> confidence

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

// The oracle's reading of constants (doc.go, "Constants"), written from the
// rule and not from the engine's code: a value is a number when its name is
// written as a number of the dialect; an unquoted number constant is a
// number, a name or quoted constant never is. Two operands compare as
// numbers when both are numbers, otherwise by name; a constant in an atom
// matches the values it equals.

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

// oracleAnswers lists the oracle's answers to q as formatAnswers would.
func oracleAnswers(db oracleDB, q datalog.Atom) []eval.Answer {
	best := map[string]float64{}
	var keys [][]string
	for k, c := range db[q.Pred] {
		args := oracleKey(k)
		if len(args) != len(q.Args) {
			continue
		}
		env := map[string]string{}
		var vals []string
		ok := true
		for j, tm := range q.Args {
			switch {
			case tm.Kind != datalog.Var:
				ok = ok && oracleMatches(tm, args[j])
			case tm.Value == "_":
			default:
				if v, bound := env[tm.Value]; bound {
					ok = ok && v == args[j]
				} else {
					env[tm.Value] = args[j]
					vals = append(vals, args[j])
				}
			}
		}
		if !ok {
			continue
		}
		vk := strings.Join(vals, "\x00")
		if old, seen := best[vk]; !seen {
			keys = append(keys, vals)
			best[vk] = c
		} else {
			best[vk] = max(old, c)
		}
	}
	as := make([]eval.Answer, 0, len(keys))
	for _, vals := range keys {
		as = append(as, eval.Answer{Values: vals, Confidence: best[strings.Join(vals, "\x00")]})
	}
	eval.SortAnswers(as)
	return as
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

// TestOracle compares the engine with the naive oracle on random programs
// and graphs, under every configuration (see configurations): Query (full
// evaluation for queries without constants, goal-directed with them), Count,
// Engine.Query (the chain fast path for s with a constant) and, after Infer,
// Query, QueryFunc and Count over the stored facts alone.
func TestOracle(t *testing.T) {
	ctx := context.Background()
	seeds := 200
	if testing.Short() {
		seeds = 30
	}
	confs := configurations()
	var chainOn, engineQueries int64
	var modes [eval.ModeRaceBottomUp + 1]int64
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		base, _, src := randomCase(rng, seed%2 == 1)
		p := mustParse(t, src)
		if datalog.Validate(p).HasErrors() {
			continue
		}
		db := oracle(t, base, p, eval.Exact)
		queries := randomQueries(rng, 9)
		for _, c := range confs {
			opt := c.opt
			opt.Work = &eval.WorkCounters{}
			st := newStore(t, tripleTSV(base))
			en, err := Prepare(ctx, st, p, opt)
			if err != nil {
				t.Fatal(err)
			}
			fail := func(format string, args ...any) {
				t.Helper()
				t.Fatalf("seed %d, %s: %s\nprogram:\n%s\nbase:\n%s", seed, c.name, fmt.Sprintf(format, args...), src, tripleTSV(base))
			}
			for _, qs := range queries {
				q := mustQuery(t, qs)
				if !slices.Contains(en.names, q.Pred) {
					continue // unknown predicate in this program
				}
				want := oracleAnswers(db, q)
				got, err := Query(ctx, st, p, q, opt)
				if err != nil {
					fail("Query %s: %v", qs, err)
				}
				if err := sameAnswers(got, want); err != nil {
					fail("Query %s: %v", qs, err)
				}
				var streamed []eval.Answer
				if err := QueryFunc(ctx, st, p, q, opt, keepAnswers(&streamed)); err != nil {
					fail("QueryFunc %s: %v", qs, err)
				}
				if err := sameAnswers(streamed, want); err != nil {
					fail("QueryFunc %s: %v", qs, err)
				}
				if n, err := Count(ctx, st, p, q, opt); err != nil || n != len(want) {
					fail("Count %s = %d, %v; want %d", qs, n, err, len(want))
				}
				got, err = en.Query(ctx, q)
				if err != nil {
					fail("Engine.Query %s: %v", qs, err)
				}
				if err := sameAnswers(got, want); err != nil {
					fail("Engine.Query %s: %v", qs, err)
				}
				if !opt.NoChain {
					engineQueries++
				}
			}
			if opt.NoChain && opt.Work.Chain.Load() != 0 {
				fail("the chain fast path ran though it is off")
			}
			chainOn += opt.Work.Chain.Load()
			for m := range modes {
				modes[m] += opt.Work.Modes[m].Load()
			}
			if _, err := eval.Infer(ctx, st, p, opt); err != nil {
				fail("Infer: %v", err)
			}
			for _, qs := range []string{"p(X, Y)?", "q(X, Y)?", "r(X)?", "s(X, Y)?", "p(X, X)?", "q(n1, Y)?", "p(X, n2)?",
				"q(n3, _)?", "p(_, Y)?", "s(n1, n4)?", "r(n5)?", "p(X, 1.5)?", "q(7, _)?", "v(X, Y)?"} {
				q := mustQuery(t, qs)
				if _, ok := db[q.Pred]; !ok {
					continue
				}
				got, err := Query(ctx, st, nil, q, opt)
				if err != nil {
					continue // predicate without facts: unknown to the store
				}
				want := oracleAnswers(db, q)
				for i := range want {
					want[i].Confidence = float64(float32(want[i].Confidence))
				}
				if err := sameAnswers(got, want); err != nil {
					fail("stored %s: %v", qs, err)
				}
				var streamed []eval.Answer
				if err := QueryFunc(ctx, st, nil, q, opt, keepAnswers(&streamed)); err != nil {
					fail("stored QueryFunc %s: %v", qs, err)
				}
				if err := sameAnswers(streamed, want); err != nil {
					fail("stored QueryFunc %s: %v", qs, err)
				}
				if n, err := Count(ctx, st, nil, q, opt); err != nil || n != len(want) {
					fail("stored Count %s = %d, %v; want %d", qs, n, err, len(want))
				}
			}
		}
	}
	t.Logf("query evaluations: %d plain, %d magic, %d magic with shared all-free goals, %d bottom-up by the cost check",
		modes[eval.ModePlain], modes[eval.ModeMagic], modes[eval.ModeShared], modes[eval.ModeBottomUp])
	if modes[eval.ModeMagic] == 0 || modes[eval.ModeShared] == 0 || modes[eval.ModeBottomUp] == 0 {
		t.Errorf("every goal-directed evaluation mode must be exercised")
	}
	// The chain fast path must be exercised, not only present: a good part
	// of the engine queries with it on must have taken it.
	t.Logf("chain fast path: %d of %d engine queries", chainOn, engineQueries)
	if chainOn*8 < engineQueries {
		t.Errorf("the chain fast path answered %d of %d engine queries, want at least 1/8", chainOn, engineQueries)
	}
}

// randomMinedCase makes a random graph over the relations h0, h1, ... and
// a program of the shape drumql mine writes over it: every relation is
// the head of weighted chain rules of one or two atoms over the relations
// (itself included, so the program is mutually recursive; `A != B` in
// two-atom bodies) and, for some, of rules with constants in the forms
// mine learns from the graph (`h(X, c) :- b(X, d).`, `h(X, c) :- b(X, _).`,
// and the same with the constant first). The latter demand their body
// relation with no argument bound, which is what makes the magic-set
// rewrite of such programs compute the whole model (see queryUnit).
func randomMinedCase(rng *rand.Rand) ([]store.NamedTriple, string) {
	nodes := 5 + rng.IntN(6)
	rels := 2 + rng.IntN(3)
	node := func() string { return fmt.Sprint("n", rng.IntN(nodes)) }
	rel := func() string { return fmt.Sprint("h", rng.IntN(rels)) }
	var base []store.NamedTriple
	seen := map[store.NamedTriple]bool{}
	for range 8 + rng.IntN(20) {
		tr := store.NamedTriple{S: node(), R: rel(), O: node()}
		if !seen[tr] {
			seen[tr] = true
			base = append(base, tr)
		}
	}
	weights := []string{"0.9", "0.75", "0.5", "0.3", "0.12", "0.05"}
	w := func() string { return weights[rng.IntN(len(weights))] }
	// atom writes b over x and y in either order.
	atom := func(b, x, y string) string {
		if rng.IntN(2) == 0 {
			x, y = y, x
		}
		return b + "(" + x + ", " + y + ")"
	}
	var src strings.Builder
	for h := range rels {
		head := fmt.Sprint("h", h)
		for range 1 + rng.IntN(4) {
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s.\n", w(), head, atom(rel(), "A", "B"))
			} else {
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s, %s, A != B.\n", w(), head, atom(rel(), "A", "C"), atom(rel(), "C", "B"))
			}
		}
		for range rng.IntN(3) {
			body := rel() + "(X, " + node() + ")"
			switch rng.IntN(4) {
			case 1:
				body = rel() + "(" + node() + ", X)"
			case 2:
				body = rel() + "(X, _)"
			case 3:
				body = rel() + "(_, X)"
			}
			if rng.IntN(2) == 0 {
				fmt.Fprintf(&src, "%s :: %s(X, %s) :- %s.\n", w(), head, node(), body)
			} else {
				fmt.Fprintf(&src, "%s :: %s(%s, X) :- %s.\n", w(), head, node(), body)
			}
		}
	}
	return base, src.String()
}

// TestOracleMinedShape compares queries with constants over programs of
// the shape of mined files (randomMinedCase) with the naive oracle, with
// magic sets on and off, at the default Min and at 0.1 (query's default):
// the cost check sends most of them to bottom-up evaluation, which must
// answer as the magic-set rewrite does. Infer at the same Min must store
// what the oracle derives.
func TestOracleMinedShape(t *testing.T) {
	ctx := context.Background()
	seeds := 40
	if testing.Short() {
		seeds = 15
	}
	var modes [eval.ModeRaceBottomUp + 1]int64
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		base, src := randomMinedCase(rng)
		p := mustParse(t, src)
		st := newStore(t, tripleTSV(base))
		var queries []string
		for range 6 {
			h, a, b := fmt.Sprint("h", rng.IntN(2)), fmt.Sprint("n", rng.IntN(5)), fmt.Sprint("n", rng.IntN(5))
			queries = append(queries, h+"(X, "+a+")?", h+"("+a+", Y)?", h+"("+a+", "+b+")?")
		}
		for _, minConf := range []float64{eval.Exact, eval.RankMin, 0.1} {
			db := oracle(t, base, p, minConf)
			for _, magic := range []string{"alone", "race", "off"} {
				opt := eval.Options{Min: minConf, Threads: 2, NoMagic: magic == "off", NoRace: magic == "alone", Work: &eval.WorkCounters{}}
				for _, qs := range queries {
					q := mustQuery(t, qs)
					got, err := Query(ctx, st, p, q, opt)
					if err != nil {
						t.Fatalf("seed %d, %s: %v\nprogram:\n%s", seed, qs, err, src)
					}
					if err := sameAnswers(got, oracleAnswers(db, q)); err != nil {
						t.Fatalf("seed %d, min %g, magic %s, %s: %v\nprogram:\n%s\nbase:\n%s", seed, minConf, magic, qs, err, src, tripleTSV(base))
					}
				}
				if magic == "alone" {
					for m := range modes {
						modes[m] += opt.Work.Modes[m].Load()
					}
				}
			}
			// Infer at the same Min stores what the oracle derives (rules
			// of weight 0.05 are left out at 0.1: they derive nothing kept).
			ist := newStore(t, tripleTSV(base))
			if _, err := eval.Infer(ctx, ist, p, eval.Options{Min: minConf, Threads: 2}); err != nil {
				t.Fatalf("seed %d, min %g: Infer: %v\nprogram:\n%s", seed, minConf, err, src)
			}
			for _, qs := range queries {
				q := mustQuery(t, qs)
				got, err := Query(ctx, ist, nil, q, eval.Options{Min: minConf})
				if err != nil {
					continue // a predicate without facts is unknown to the store
				}
				want := oracleAnswers(db, q)
				for i := range want {
					want[i].Confidence = float64(float32(want[i].Confidence))
				}
				if err := sameAnswers(got, want); err != nil {
					t.Fatalf("seed %d, min %g, stored %s after Infer: %v\nprogram:\n%s\nbase:\n%s", seed, minConf, qs, err, src, tripleTSV(base))
				}
			}
		}
	}
	t.Logf("query evaluations: %d magic, %d magic with shared all-free goals, %d bottom-up by the cost check",
		modes[eval.ModeMagic], modes[eval.ModeShared], modes[eval.ModeBottomUp])
	if modes[eval.ModeBottomUp] == 0 || modes[eval.ModeShared] == 0 || modes[eval.ModeMagic] == 0 {
		t.Errorf("every evaluation mode must be exercised")
	}
}

// oracleKey splits a fact key of oracleDB into its arguments (none for a
// nullary fact, whose key is empty).
func oracleKey(k string) []string {
	if k == "" {
		return nil
	}
	return strings.Split(k, "\x00")
}
