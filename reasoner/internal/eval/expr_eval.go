package eval

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// Evaluation of expressions, comparisons, assignments and built-in tests
// by a worker, under the current bindings (see expr.go).

// fail records the first evaluation error of the worker's task and stops
// its join.
func (w *Worker) fail(msg string) {
	if w.err == nil {
		w.err = &evalError{msg: msg}
	}
}

// errorIn formats an evaluation error of expression x of the current rule.
func (w *Worker) errorIn(x *cexpr, format string, args ...any) {
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
			parts = append(parts, v.Value+" = "+valueTerm(w.E.Syms.mustName(w.vals[s])).String())
		})
		if len(parts) > 0 {
			b.WriteString(" with ")
			b.WriteString(strings.Join(parts, ", "))
		}
	}
	w.fail(b.String())
}

// side evaluates one side of comparison l: its expression, or its term.
func (w *Worker) side(x *cexpr, t Term) (value, float64, bool) {
	if x != nil {
		return w.eval(x)
	}
	return w.leafValue(t), 1, true
}

// compareExpr evaluates comparison l with expressions; it returns the
// confidence of the aggregates it used and whether it holds.
func (w *Worker) compareExpr(l *clit) (float64, bool) {
	a, ca, ok := w.side(l.lx, l.L)
	if !ok {
		return 0, false
	}
	b, cb, ok := w.side(l.rx, l.R)
	if !ok {
		return 0, false
	}
	return ca * cb, opHolds(l.op, w.compareValues(&a, &b))
}

// assign binds the variable of step s to the value of the other side of
// its equality; it returns the confidence of the aggregates it used.
func (w *Worker) assign(s *step) (float64, bool) {
	l := s.lit
	x, t := l.rx, l.R
	if s.assignRight {
		x, t = l.lx, l.L
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

// builtin evaluates a built-in test, negated or not: the confidence of
// its arguments, and whether it holds (false also when an argument has
// no value or failed).
func (w *Worker) builtin(l *clit) (float64, bool) {
	c, holds, ok := w.builtinTest(l)
	return c, ok && holds != l.not
}

// builtinTest evaluates a built-in test's arguments and the test; ok is
// false when an argument has no value or failed.
func (w *Worker) builtinTest(l *clit) (conf float64, holds, ok bool) {
	conf = 1.0
	var names [2]string
	for i, x := range l.bargs {
		v, c, ok := w.eval(x)
		if !ok {
			return 0, false, false
		}
		conf *= c
		names[i] = w.nameOf(&v)
	}
	switch l.builtin {
	case "contains":
		return conf, strings.Contains(names[1], names[0]), true
	default: // match
		// A pattern from the data that is not a regular expression
		// matches nothing (as in Soufflé); a constant one is an error of
		// the program (datalog.Validate).
		re, err := w.E.regexp(names[0])
		if err != nil {
			return conf, false, true
		}
		return conf, re.MatchString(names[1]), true
	}
}

// regexp returns the compiled form of pattern (anchored: it must match a
// whole name), cached.
func (e *Evaluator) regexp(pattern string) (*regexp.Regexp, error) {
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
