package eval

import (
	"slices"

	"github.com/drumql/drumql/datalog"
)

// step is one literal of a join plan.
type step struct {
	lit   *clit
	rel   *Relation
	relI  int32
	mask  uint32 // bound positions
	ix    *hashIndex
	bind  []int32 // per position: slot to bind, or -1
	check []int32 // per position: slot to compare with (bound earlier in this atom or before), or -1
	delta []int32 // the delta tuples when this is the delta step
	// numbers is set when the atom has a number constant, which each
	// tuple is checked against. It is part of mask (numKey) when its
	// symbol is the only one equal to it (Symtab.soleNumber): the plan
	// then looks the constant up by that id while the symbol table's
	// numberGen is numGen, and scans the relation (scanKeyed) after.
	numbers bool
	numKey  uint32
	numGen  uint64
	// exists is set for a positive atom whose arguments are all "_" (an
	// existence test): only its strongest tuple is tried.
	exists bool
	// assign is, for an equality that binds a variable, its slot (-1 for
	// other steps); assignRight: the variable is the right side.
	assign      int32
	assignRight bool
}

// Plan is a rule's body in evaluation order; the first step may iterate a
// delta.
type Plan struct {
	Rule  *Crule
	ri    int
	steps []step
	agg   bool // an aggregate's body: solutions are folded, not emitted
	// fac, when set, evaluates the plan factorised (factor.go); steps
	// is then empty.
	fac *facPlan
}

// MakePlan orders the body of r greedily. The delta literal (if deltaAt >=
// 0) comes first, whatever its bound arguments. Then, before each positive
// literal and after the last, every other literal that can be placed is:
// a negation once all its variables are bound, a comparison or built-in
// test once both sides (all arguments) can be computed, and an equality
// that can assign a variable not bound by any atom once its other side
// can (the variable it binds counts as bound from then on). The positive
// literal placed next is chosen by nextAtom: one whose arguments are all
// bound (a lookup) before any other, then one with some bound argument
// before one with none, then a magic guard, then the relation with fewer
// tuples, then the one with more bound arguments, then the earlier in the
// body. A bound argument is a symbol constant or a variable bound by an
// earlier step (or pre bound); a number constant and _ are not (a number
// constant is checked on each tuple, and is part of the index key only
// when its symbol is the only one equal to it: numberKey).
func (e *Evaluator) MakePlan(r *Crule, ri int, deltaAt int, delta []int32) *Plan {
	return e.makePlanBound(r, ri, deltaAt, delta, nil)
}

// makePlanBound is makePlan with the variables pre bound before the body
// (an aggregate's grouping variables). It also plans the bodies of the
// rule's aggregates, once per stratum: the relations they read are in lower
// strata, complete by now.
func (e *Evaluator) makePlanBound(r *Crule, ri int, deltaAt int, delta []int32, pre []int32) *Plan {
	for j := range r.Body {
		l := &r.Body[j]
		for _, x := range append([]*cexpr{l.lx, l.rx}, l.bargs...) {
			e.planAggregates(x)
		}
	}
	if pre == nil && r.fac != nil && !e.noFactor {
		if fp := e.facPlanOf(r, deltaAt, delta); fp != nil {
			return &Plan{Rule: r, ri: ri, fac: fp}
		}
	}
	return e.orderBody(r, ri, deltaAt, delta, pre, r.byFanout && !r.agg && pre == nil)
}

// orderBody is the greedy order of makePlanBound, each next atom chosen by
// nextAtom or, when byFanout is set, by nextAtomByFanout.
func (e *Evaluator) orderBody(r *Crule, ri int, deltaAt int, delta []int32, pre []int32, byFanout bool) *Plan {
	pl := newPlanner(e, r, ri, pre)
	if deltaAt >= 0 {
		pl.addAtom(deltaAt, delta)
	}
	next := pl.nextAtom
	if byFanout {
		next = pl.nextAtomByFanout
	}
	for {
		pl.placeFilters()
		best := next()
		if best < 0 {
			break
		}
		pl.addAtom(best, nil)
	}
	pl.placeFilters()
	return pl.p
}

// planner orders one rule's body (makePlanBound).
type planner struct {
	e     *Evaluator
	r     *Crule
	p     *Plan
	bound []bool // variables bound by the steps so far
	used  []bool // body literals placed
	// atomVar marks the variables a positive atom binds: such a variable
	// is never assigned, an equality with it is a filter, which compares
	// numbers by value (P = 1.5 keeps price(a, 1.50)), where a binding
	// would match by symbol.
	atomVar []bool
}

func newPlanner(e *Evaluator, r *Crule, ri int, pre []int32) *planner {
	pl := &planner{e: e, r: r, p: &Plan{Rule: r, ri: ri, agg: r.agg},
		bound: make([]bool, r.nvars), used: make([]bool, len(r.Body)), atomVar: make([]bool, r.nvars)}
	for _, v := range pre {
		pl.bound[v] = true
	}
	for j := range r.Body {
		if l := &r.Body[j]; l.Kind == datalog.Positive {
			for _, t := range l.Atom.Args {
				if t.V >= 0 {
					pl.atomVar[t.V] = true
				}
			}
		}
	}
	return pl
}

// isBound reports whether t is bound: a symbol constant or a bound
// variable. A number constant binds a comparison side (isSet), but in an
// atom it is a filter (it matches every symbol written as that number),
// which the order of the atoms does not count (addAtom may still look it
// up: numberKey).
func (pl *planner) isBound(t Term) bool { return t.V == SlotConst || (t.V >= 0 && pl.bound[t.V]) }

func (pl *planner) isSet(t Term) bool { return pl.isBound(t) || t.V == SlotNumber }

// ready reports whether a comparison side (x, or the term t) can be
// evaluated.
func (pl *planner) ready(x *cexpr, t Term) bool {
	if x == nil {
		return pl.isSet(t)
	}
	ok := true
	x.vars(func(v int32) { ok = ok && pl.bound[v] })
	if ok && x.callsAutoinc() {
		// autoinc() numbers each solution of the positive atoms: it is
		// evaluated after them
		for j := range pl.r.Body {
			ok = ok && (pl.used[j] || pl.r.Body[j].Kind != datalog.Positive)
		}
	}
	return ok
}

// assignable reports whether side (x, t) of l is a variable not bound yet
// that an equality can bind.
func (pl *planner) assignable(l *clit, x *cexpr, t Term) bool {
	if l.op != datalog.OpEq || l.filter || x != nil || t.V < 0 || pl.bound[t.V] {
		return false
	}
	// a variable of a positive atom is compared by value, unless the
	// other side is never a number (then binding it, and looking the atom
	// up by it, matches the same tuples)
	return !pl.atomVar[t.V] || l.rx != nil && l.rx.neverNumber() || l.lx != nil && l.lx.neverNumber()
}

// addAtom places atom literal j, iterating the delta d when not nil.
func (pl *planner) addAtom(j int, d []int32) {
	l := &pl.r.Body[j]
	pl.used[j] = true
	rel := pl.e.Rels[l.Atom.Rel]
	s := step{lit: l, rel: rel, relI: l.Atom.Rel, delta: d, assign: -1}
	s.bind = make([]int32, len(l.Atom.Args))
	s.check = make([]int32, len(l.Atom.Args))
	local := map[int32]bool{}
	for k, t := range l.Atom.Args {
		s.bind[k], s.check[k] = -1, -1
		switch {
		case t.V == SlotConst:
			s.mask |= 1 << uint(k)
		case t.V == slotWildcard:
		case t.V == SlotNumber:
			s.numbers = true
			if pl.numberKey(l, d, rel, t, &s.numGen) {
				s.mask |= 1 << uint(k)
				s.numKey |= 1 << uint(k)
			}
		case pl.bound[t.V]:
			s.mask |= 1 << uint(k)
		case local[t.V]:
			s.check[k] = t.V
		default:
			local[t.V] = true
			s.bind[k] = t.V
		}
	}
	for v := range local {
		pl.bound[v] = true
	}
	// (not in an aggregate's body, whose solutions each count)
	s.exists = l.Kind == datalog.Positive && !l.guard && !pl.p.agg && len(l.Atom.Args) > 0 &&
		!slices.ContainsFunc(l.Atom.Args, func(t Term) bool { return t.V != slotWildcard })
	if l.Kind == datalog.Positive || l.Kind == datalog.Negated {
		full := uint32(1)<<uint(rel.Arity) - 1
		if d == nil && s.mask != 0 && s.mask != full {
			s.ix = rel.Index(s.mask)
		}
	}
	pl.p.steps = append(pl.p.steps, s)
}

// numberKey reports whether number constant t of literal l (over rel,
// iterating delta d when not nil) is looked up by its symbol rather than
// checked on every tuple: in a positive atom that is not the delta step,
// when no other symbol is equal to it (Symtab.soleNumber; gen receives the
// generation that holds for), and when rel is not much smaller than the
// store's symbols, whose names the first such check reads (a scan of the
// relation would cost less).
func (pl *planner) numberKey(l *clit, d []int32, rel *Relation, t Term, gen *uint64) bool {
	if l.Kind != datalog.Positive || d != nil || uint64(rel.Len())*16 < uint64(pl.e.Syms.NStore) {
		return false
	}
	g, ok := pl.e.Syms.soleNumber(t.C, t.F)
	if ok {
		*gen = g
	}
	return ok
}

// placeFilters places every literal other than a positive atom whose
// variables are bound, and every equality that can bind one, until none is
// left to place.
func (pl *planner) placeFilters() {
	for changed := true; changed; {
		changed = false
		for j := range pl.r.Body {
			if !pl.used[j] && pl.r.Body[j].Kind != datalog.Positive && pl.placeFilter(j) {
				changed = true
			}
		}
	}
}

// placeFilter places literal j (not a positive atom) when it can be, and
// reports whether it did.
func (pl *planner) placeFilter(j int) bool {
	l := &pl.r.Body[j]
	switch l.Kind {
	case datalog.Comparison:
		lr, rr := pl.ready(l.lx, l.L), pl.ready(l.rx, l.R)
		st := step{lit: l, assign: -1}
		switch {
		case lr && rr:
		case rr && pl.assignable(l, l.lx, l.L):
			st.assign = l.L.V
		case lr && pl.assignable(l, l.rx, l.R):
			st.assign, st.assignRight = l.R.V, true
		default:
			return false
		}
		if st.assign >= 0 {
			pl.bound[st.assign] = true
		}
		pl.used[j] = true
		pl.p.steps = append(pl.p.steps, st)
	case datalog.Builtin:
		for _, x := range l.bargs {
			if !pl.ready(x, Term{}) {
				return false
			}
		}
		pl.used[j] = true
		pl.p.steps = append(pl.p.steps, step{lit: l, assign: -1})
	default:
		for _, t := range l.Atom.Args {
			if t.V >= 0 && !pl.bound[t.V] {
				return false
			}
		}
		pl.addAtom(j, nil)
	}
	return true
}

// nextAtom returns the best positive literal to place next: one whose
// arguments are all bound (a lookup) before any other, then one with some
// bound argument before one with none, then a magic guard, then the
// relation with fewer tuples, then the one with more bound arguments, then
// the earlier in the body (see isBound); -1 when none is left.
func (pl *planner) nextAtom() int {
	r := pl.r
	best, bestFull, bestN, bestSize := -1, false, 0, 0
	for j := range r.Body {
		l := &r.Body[j]
		if pl.used[j] || l.Kind != datalog.Positive {
			continue
		}
		n := 0
		for _, t := range l.Atom.Args {
			if pl.isBound(t) {
				n++
			}
		}
		full := n == len(l.Atom.Args)
		size := pl.e.Rels[l.Atom.Rel].Len()
		better := best < 0
		if !better {
			switch {
			case full != bestFull:
				better = full
			case (n > 0) != (bestN > 0):
				better = n > 0
			case l.guard != r.Body[best].guard:
				better = l.guard
			case size != bestSize:
				better = size < bestSize
			default:
				better = n > bestN
			}
		}
		if better {
			best, bestFull, bestN, bestSize = j, full, n, size
		}
	}
	return best
}

// planAggregates plans the bodies of the aggregates of x (and of those
// nested in them), once per stratum; a new plan starts with an empty cache
// of results.
func (e *Evaluator) planAggregates(x *cexpr) {
	x.aggregates(func(a *cagg) {
		if a.plan != nil && a.planned == e.Strata {
			return
		}
		a.plan = e.makePlanBound(a.rule, -1, -1, nil, a.group)
		a.planned = e.Strata
		a.mu.Lock()
		a.cache = nil
		a.mu.Unlock()
		if a.target != nil {
			e.planAggregates(a.target)
		}
	})
}
