package oracle

import (
	"cmp"
	"fmt"
	"math"
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

// DB is a database of facts with their confidences.
type DB map[string]map[string]float64 // pred -> args joined by \x00 -> confidence

func (db DB) set(pred string, args []string, c float64) bool {
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

// Naive evaluates p over base with threshold minConf: with the expression
// oracle (Expr) when p needs it, else with NaivePlain.
func Naive(t testing.TB, base []store.NamedTriple, p *datalog.Program, minConf float64) DB {
	if oracleNeedsExpr(p) {
		return oracleExprDB(t, base, p, minConf) // expressions, built-ins, aggregates, assignments
	}
	return NaivePlain(t, base, p, minConf)
}

// NaivePlain is the oracle of programs without expressions, built-in
// tests or equalities.
func NaivePlain(t testing.TB, base []store.NamedTriple, p *datalog.Program, minConf float64) DB {
	db := DB{}
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
									args := Key(k)
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
						args := Key(k)
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

// Answers lists the oracle's answers to q as FormatAnswers would.
func Answers(db DB, q datalog.Atom) []eval.Answer {
	best := map[string]float64{}
	var keys [][]string
	for k, c := range db[q.Pred] {
		args := Key(k)
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

// SameAnswers compares answer sets, confidences within a relative 1e-9.
func SameAnswers(got, want []eval.Answer) error {
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

// Key splits a fact key of DB into its arguments (none for a
// nullary fact, whose key is empty).
func Key(k string) []string {
	if k == "" {
		return nil
	}
	return strings.Split(k, "\x00")
}
