package eval

import (
	"math"
	"slices"

	"github.com/drumql/drumql/datalog"
)

// Aggregates: their evaluation per group, the fold of their solutions, and
// their proof nodes.

// aggregate evaluates aggregate expression x for the current values of its
// grouping variables, from the cache when it was computed before.
func (w *Worker) aggregate(x *cexpr) aggResult {
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
	w.Join(a.plan, 0, 1)
	w.acc, w.demand = outerAcc, outerDemand
	if w.err != nil || w.Stop.Load() {
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
func (w *Worker) fold(conf float64) {
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
func (w *Worker) finish(acc *aggAcc) aggResult {
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
func (w *Worker) sum(acc *aggAcc) (value, bool) {
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
	if _, ok := NumberValue(name); ok {
		return datalog.Term{Kind: datalog.Number, Value: name}
	}
	return datalog.Term{Kind: datalog.Symbol, Value: name}
}

// aggregateProofs returns the proof nodes of the aggregates of rule, from
// the words of a provenance record (see aggRef).
func (e *Evaluator) aggregateProofs(rule *Crule, words []uint32) []*Proof {
	names := make(map[int32]string, len(rule.slots))
	for n, s := range rule.slots {
		names[s] = n
	}
	var out []*Proof
	for j := range rule.Body {
		for _, ar := range rule.Body[j].aggs {
			w := words[ar.at : ar.at+4+len(ar.x.agg.group)]
			if w[1] == 0 && w[2] == 0 && w[3] == 0 {
				continue // not recorded (a proof read back from the store)
			}
			sub := map[string]datalog.Term{}
			for i, g := range ar.x.agg.group {
				sub[names[g]] = valueTerm(e.Syms.mustName(w[4+i]))
			}
			text := substituteTerm(ar.x.src, sub).String()
			if w[1] == 1 {
				text += " = " + valueTerm(e.Syms.mustName(w[0])).String()
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
