package eval

import (
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"

	"github.com/drumql/drumql/datalog"
)

// Worker evaluates plans, appending candidate facts to a buffer.
type Worker struct {
	E     *Evaluator
	vals  []uint32
	probe []uint32
	refs  []uint32
	head  []uint32
	buf   *outBuf
	ticks int
	reads int // tuples tried (try)
	// demand is the confidence of the magic fact the current rule's guard
	// matched (1 before the guard, and in rules without one): what a fact
	// derived here can contribute to an answer is at most demand times its
	// confidence, so the threshold applies to that product (see
	// addMagicRule). The fact keeps its own confidence.
	demand float64
	Stop   *atomic.Bool
	cut    int64 // derivations dropped below the threshold
	// seen is what the current task decided about head facts (seen.go);
	// probes counts emit's lookups of a head relation.
	seen    headSet
	seenRel int32
	probes  int64
	busy    time.Duration // time in the tasks of a batch (runTasks)
	sink    uint64        // what headSet.touch loaded (kept so the loads stay)
	// rule is the rule being evaluated (for evaluation errors); err is the
	// first evaluation error of the task (see expr.go); acc is the
	// aggregate whose body is being evaluated, if any.
	rule *Crule
	err  *evalError
	acc  *aggAcc
	// Sink, when set, takes each derived head tuple and its confidence
	// instead of buf (rule scores keep only the best per candidate).
	Sink func(h []uint32, c float64)
	// fm is the memo of the factorised plan run (factor.go), one of fms
	// (factor_share.go); builds counts the far ends of V1 it built
	// (facRest); walk holds the levels of walks (factor_walk.go).
	fm     *facMemo
	fms    *facMemos
	builds int64
	walk   *[3]walkLevel
	// pairGs holds the guard's tuples of a pair plan's delta group
	// (factor_pair.go).
	pairGs []int32
}

// Prepare sizes the worker's bindings and provenance references for rule r.
func (w *Worker) Prepare(r *Crule) {
	if cap(w.vals) < r.nvars {
		w.vals = make([]uint32, r.nvars)
	}
	w.vals = w.vals[:r.nvars]
	if cap(w.refs) < r.RefWords() {
		w.refs = make([]uint32, r.RefWords())
	}
	w.refs = w.refs[:r.RefWords()]
	w.demand = 1
	w.rule = r
}

func (w *Worker) exec(p *Plan, lo, hi int) {
	w.Prepare(p.Rule)
	if p.fac != nil {
		w.execFac(p, lo, hi)
		return
	}
	if len(p.steps) == 0 {
		w.emit(p, 1)
		return
	}
	s := &p.steps[0]
	if s.exists {
		// an existence test: its strongest tuple in the range
		var t int32
		if s.delta != nil {
			if i := strongest(s.rel, s.delta[lo:hi], 0, 0); i >= 0 {
				t = s.delta[lo+int(i)]
			} else {
				t = -1
			}
		} else {
			t = strongest(s.rel, nil, int32(lo), int32(hi))
		}
		if t >= 0 {
			w.try(p, 0, t, 1)
		}
		return
	}
	if s.delta != nil {
		for _, t := range s.delta[lo:hi] {
			w.try(p, 0, t, 1)
		}
		return
	}
	if s.lit.Kind == datalog.Positive && s.mask == 0 {
		for t := int32(lo); t < int32(hi); t++ {
			w.try(p, 0, t, 1)
		}
		return
	}
	w.Join(p, 0, 1)
}

// try matches tuple t of step k against the bindings and continues the join.
func (w *Worker) try(p *Plan, k int, t int32, conf float64) {
	s := &p.steps[k]
	rel := s.rel
	w.reads++
	tup := rel.Tuple(t)
	if !w.constantsMatch(s, tup) {
		return
	}
	for i, v := range s.bind {
		if v >= 0 {
			w.vals[v] = tup[i]
		}
	}
	for i, v := range s.check {
		if v >= 0 && w.vals[v] != tup[i] {
			return
		}
	}
	c := conf
	if s.lit.guard {
		outer := w.demand
		w.demand = rel.ConfAt(t)
		if !p.Rule.crisp && c*p.Rule.Weight*w.demand < w.E.Min {
			w.cut++
		} else {
			w.Join(p, k+1, c)
		}
		w.demand = outer
		return
	}
	c *= rel.ConfAt(t)
	if s.lit.Prov >= 0 {
		w.refs[2*s.lit.Prov] = uint32(s.relI)
		w.refs[2*s.lit.Prov+1] = uint32(t)
	}
	if !p.Rule.crisp && c*p.Rule.Weight*w.demand < w.E.Min {
		w.cut++
		return
	}
	w.Join(p, k+1, c)
}

func (w *Worker) key(s *step) []uint32 {
	n := s.rel.Arity
	if cap(w.probe) < n {
		w.probe = make([]uint32, n)
	}
	pr := w.probe[:n]
	for m := s.mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		a := s.lit.Atom.Args[i]
		if a.V == SlotConst || a.V == SlotNumber {
			pr[i] = a.C
		} else {
			pr[i] = w.vals[a.V]
		}
	}
	return pr
}

// Join extends the partial match of plan p at step k, of confidence conf,
// with the matches of step k, and emits the complete ones.
func (w *Worker) Join(p *Plan, k int, conf float64) {
	if !w.tick() {
		return
	}
	if k == len(p.steps) {
		if p.agg {
			w.fold(conf)
		} else {
			w.emit(p, conf)
		}
		return
	}
	s := &p.steps[k]
	l := s.lit
	switch l.Kind {
	case datalog.Comparison:
		c, ok := 1.0, true
		switch {
		case s.assign >= 0:
			c, ok = w.assign(s)
		case l.lx != nil || l.rx != nil:
			c, ok = w.compareExpr(l)
		default:
			ok = w.compare(l)
		}
		if !ok {
			return
		}
		w.continueAfter(p, k, conf*c)
	case datalog.Builtin:
		c, ok := w.builtin(l)
		if !ok {
			return
		}
		w.continueAfter(p, k, conf*c)
	case datalog.Negated:
		// not p holds to degree 1 - c, c the confidence of the best
		// matching fact of p (see doc.go, "Semantics").
		t, c := w.negMatch(s)
		if c >= 1 {
			return
		}
		if l.Prov >= 0 {
			if t >= 0 {
				w.refs[2*l.Prov] = uint32(s.relI)
				w.refs[2*l.Prov+1] = uint32(t)
			} else {
				w.refs[2*l.Prov], w.refs[2*l.Prov+1] = NoMatch, NoMatch
			}
		}
		conf *= 1 - c
		if !p.Rule.crisp && conf*p.Rule.Weight*w.demand < w.E.Min {
			w.cut++
			return
		}
		w.Join(p, k+1, conf)
	default:
		rel := s.rel
		full := uint32(1)<<uint(rel.Arity) - 1
		switch {
		case s.numKey != 0 && w.E.Syms.numberGen.Load() != s.numGen:
			w.scanKeyed(p, k, conf)
		case s.exists:
			if t := strongest(rel, nil, 0, int32(rel.Len())); t >= 0 {
				w.try(p, k, t, conf)
			}
		case s.mask == 0:
			for t := range int32(rel.Len()) {
				w.try(p, k, t, conf)
			}
		case s.mask == full:
			if t := rel.Find(w.key(s)); t >= 0 {
				w.try(p, k, t, conf)
			}
		default:
			// A tuple too weak for try ends an ordered chain (order.go).
			ordered := !s.lit.guard && !p.Rule.crisp && s.ix.ordered > 0
			var cw chainWalk // the ordered part contiguous (chainpack.go)
			for cw.start(s.ix, rel, w.key(s)); cw.T >= 0; cw.next() {
				t := cw.T
				if ordered && cw.p >= 0 && conf*cw.C*p.Rule.Weight*w.demand < w.E.Min {
					if n, ok := cw.weakRest(); ok {
						w.cut += int64(n)
						break
					}
					ordered = false // a dirty chain: read it whole
				}
				w.try(p, k, t, conf)
			}
		}
	}
}

// scanKeyed is Join's step k when a number constant of its key may have
// gained an equal symbol since the plan (see step.numKey): every tuple
// that has the step's other key values is tried, and try checks the
// numbers.
func (w *Worker) scanKeyed(p *Plan, k int, conf float64) {
	s := &p.steps[k]
	key := slices.Clone(w.key(s))
	rest := s.mask &^ s.numKey
	for t := range int32(s.rel.Len()) {
		tup := s.rel.Tuple(t)
		ok := true
		for m := rest; m != 0 && ok; m &= m - 1 {
			i := bits.TrailingZeros32(m)
			ok = tup[i] == key[i]
		}
		if ok {
			w.try(p, k, t, conf)
		}
	}
}

// constantsMatch reports whether tuple tup has the constants of step s's
// atom: a symbol constant is the symbol itself, a number constant matches
// every symbol equal to it as a number (see doc.go).
func (w *Worker) constantsMatch(s *step, tup []uint32) bool {
	for i, a := range s.lit.Atom.Args {
		switch {
		case a.V == SlotConst && tup[i] != a.C:
			return false
		case a.V == SlotNumber && !w.E.Syms.EqualsNumber(tup[i], a.C, a.F):
			return false
		}
	}
	return true
}

// negMatch returns the fact of step s's negated atom with the highest
// confidence among those matching the bindings, and that confidence; -1 and
// 0 when none matches. The search stops at a fact of confidence 1.
func (w *Worker) negMatch(s *step) (int32, float64) {
	rel := s.rel
	if rel.Len() == 0 {
		return -1, 0
	}
	best, bc := int32(-1), 0.0
	consider := func(t int32) bool {
		if s.numbers && !w.constantsMatch(s, rel.Tuple(t)) {
			return true
		}
		if c := rel.ConfAt(t); c > bc {
			best, bc = t, c
		}
		return bc < 1
	}
	full := uint32(1)<<uint(rel.Arity) - 1
	switch {
	case s.mask == 0:
		for t := range int32(rel.Len()) {
			if !consider(t) {
				break
			}
		}
	case s.mask == full && !s.numbers:
		if t := rel.Find(w.key(s)); t >= 0 {
			consider(t)
		}
	default:
		for t := s.ix.First(rel, w.key(s)); t >= 0; t = s.ix.After(t) {
			if !consider(t) {
				break
			}
		}
	}
	return best, bc
}

func (w *Worker) value(t Term) uint32 {
	if t.V == SlotConst || t.V == SlotNumber {
		return t.C
	}
	return w.vals[t.V]
}

// number returns, when comparison side t (whose symbol is id) is a number,
// its value. A symbol constant is never a number; a variable's value is a
// number when its name is written as one.
func (w *Worker) number(t Term, id uint32) (float64, bool) {
	switch t.V {
	case SlotConst:
		return 0, false
	case SlotNumber:
		return t.F, true
	}
	return w.E.Syms.Number(id)
}

func (w *Worker) compare(l *clit) bool {
	c := 0
	if a, b := w.value(l.L), w.value(l.R); a != b {
		fa, na := w.number(l.L, a)
		fb, nb := w.number(l.R, b)
		if !(na && nb) && (l.op == datalog.OpEq || l.op == datalog.OpNe) {
			// two symbols compared by name: distinct symbols have
			// distinct names
			return l.op == datalog.OpNe
		}
		c = w.E.Syms.compare(a, fa, na, b, fb, nb)
	}
	return opHolds(l.op, c)
}

func (w *Worker) emit(p *Plan, conf float64) {
	r := p.Rule
	c := conf * r.Weight
	if r.crisp {
		c = 1
	}
	if c*w.demand < w.E.Min {
		w.cut++
		return
	}
	hrel := w.E.Rels[r.Head.Rel]
	if cap(w.head) < hrel.Arity {
		w.head = make([]uint32, hrel.Arity)
	}
	h := w.head[:hrel.Arity]
	for i, a := range r.Head.Args {
		h[i] = w.value(a)
	}
	if w.Sink != nil {
		if hrel.CheckEmit {
			w.probes++
			if t := hrel.Find(h); t >= 0 && hrel.ConfAt(t) >= c {
				return
			}
		}
		w.Sink(h, c)
		return
	}
	if hrel.CheckEmit {
		// The task's own decisions first (seen.go), then the relation.
		key, packed := headKey(h)
		if w.seenRel != r.Head.Rel {
			w.seen.reset() // a task has one head; this is for safety
			w.seenRel = r.Head.Rel
		}
		if packed && w.seen.covers(key, c) {
			return
		}
		w.probes++
		if t := hrel.Find(h); t >= 0 && hrel.ConfAt(t) >= c {
			if packed {
				w.seen.note(key, hrel.ConfAt(t))
			}
			return
		}
		if packed {
			w.seen.note(key, c) // buffered below at c, or better already
		}
	}
	ri := uint32(p.ri)
	if r.copy {
		ri = ^uint32(0)
	}
	var refs []uint32
	if w.E.Prov || r.copy {
		refs = w.refs
	}
	w.buf.put(w.E, uint32(r.Head.Rel), ri, h, refs, c)
}

// continueAfter goes on with the join after step k, an expression step
// (comparison, assignment, built-in test) that brought the confidence to
// conf: it records the step's aggregates in the provenance and applies the
// threshold when they lowered it.
func (w *Worker) continueAfter(p *Plan, k int, conf float64) {
	l := p.steps[k].lit
	if len(l.aggs) > 0 {
		if w.E.Prov {
			w.recordAggregates(l)
		}
		if !p.Rule.crisp && conf*p.Rule.Weight*w.demand < w.E.Min {
			w.cut++
			return
		}
	}
	w.Join(p, k+1, conf)
}

// recordAggregates writes the value, the confidence and the grouping
// values of l's aggregates into the provenance words (see aggRef).
func (w *Worker) recordAggregates(l *clit) {
	for _, ar := range l.aggs {
		r := w.aggregate(ar.x)
		words := w.refs[ar.at : ar.at+4+len(ar.x.agg.group)]
		words[0], words[1] = 0, 0
		if r.ok {
			if id, ok := w.intern(&r.v); ok {
				words[0], words[1] = id, 1
			}
		}
		bits := math.Float64bits(r.conf)
		words[2], words[3] = uint32(bits), uint32(bits>>32)
		for i, g := range ar.x.agg.group {
			words[4+i] = w.vals[g]
		}
	}
}

// strongest returns the tuple of rel of the highest confidence (the first
// of them) among ts when it is not nil (then its index in ts), else among
// lo..hi-1; -1 when there is none. It stops at a tuple of confidence 1.
func strongest(rel *Relation, ts []int32, lo, hi int32) int32 {
	best, bc := int32(-1), -1.0
	if ts != nil {
		for i, t := range ts {
			if c := rel.ConfAt(t); c > bc {
				best, bc = int32(i), c
				if c >= 1 {
					break
				}
			}
		}
		return best
	}
	for t := lo; t < hi; t++ {
		if c := rel.ConfAt(t); c > bc {
			best, bc = t, c
			if c >= 1 {
				break
			}
		}
	}
	return best
}
