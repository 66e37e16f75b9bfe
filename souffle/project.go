package souffle

import (
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// Soufflé evaluates an aggregate whose body has more than one atom, or an
// aggregate nested in it, over a relation of its body's solutions that
// holds the named variables only: `_` is not part of a solution there
// (count : { b(x, _), x > 1 } counts the values of x), where a body of
// one atom is scanned tuple by tuple (count : b(x, _) counts the tuples).
// drumql's aggregates count distinct solutions, anonymous positions
// included; so in such a body each atom with a `_` is replaced by its
// projection on the other positions, a relation of its own (the `_` of
// different atoms are independent, so the solutions are those of the
// body projected on its named variables).

// projectAggregates rewrites the aggregates of rule r; projections holds
// the projection relations made so far, by name, and new ones are added
// to prog's rules.
func projectAggregates(r *datalog.Rule, prog *datalog.Program, projections map[string]bool) {
	r.Aggregates(func(t datalog.Term) {
		atoms, nested := 0, false
		for _, l := range t.X.Body {
			if l.Kind == datalog.Positive {
				atoms++
			}
		}
		for i := range t.X.Body {
			visitAggs(t.X.Body[i], func(*datalog.Expr) { nested = true })
		}
		if atoms < 2 && !nested {
			return
		}
		for i := range t.X.Body {
			l := &t.X.Body[i]
			if l.Kind != datalog.Positive {
				continue
			}
			if name, rule, ok := projection(l.Atom); ok {
				if !projections[name] {
					projections[name] = true
					prog.Rules = append(prog.Rules, rule)
				}
				var args []datalog.Term
				for _, a := range l.Atom.Args {
					if !(a.Kind == datalog.Var && a.Value == "_") {
						args = append(args, a)
					}
				}
				l.Atom = datalog.Atom{Pred: name, Args: args, Pos: l.Atom.Pos}
			}
		}
	})
}

// projection returns the relation of atom a's projection on its positions
// that are not `_` (named pred/_x_ with an x per position kept), and the
// rule that defines it; ok is false when a has no `_`.
func projection(a datalog.Atom) (string, datalog.Rule, bool) {
	var mask strings.Builder
	head := datalog.Atom{Pos: a.Pos}
	body := datalog.Atom{Pred: a.Pred, Pos: a.Pos, Args: make([]datalog.Term, len(a.Args))}
	anon := false
	for i, t := range a.Args {
		if t.Kind == datalog.Var && t.Value == "_" {
			mask.WriteByte('_')
			body.Args[i] = t
			anon = true
			continue
		}
		mask.WriteByte('x')
		v := datalog.Term{Kind: datalog.Var, Value: "V" + strconv.Itoa(i), Pos: t.Pos}
		body.Args[i] = v
		head.Args = append(head.Args, v)
	}
	if !anon {
		return "", datalog.Rule{}, false
	}
	head.Pred = a.Pred + "/" + mask.String()
	lit := datalog.Literal{Kind: datalog.Positive, Atom: body, Pos: a.Pos}
	return head.Pred, datalog.Rule{Weight: 1, Head: head, Body: []datalog.Literal{lit}, Pos: a.Pos}, true
}
