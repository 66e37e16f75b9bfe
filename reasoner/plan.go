package reasoner

import "github.com/drumql/drumql/datalog"

// step is one literal of a join plan.
type step struct {
	lit   *clit
	rel   *relation
	relI  int32
	mask  uint32 // bound positions
	ix    *hashIndex
	bind  []int32 // per position: slot to bind, or -1
	check []int32 // per position: slot to compare with (bound earlier in this atom or before), or -1
	delta []int32 // the delta tuples when this is the delta step
	// numbers is set when the atom has a number constant, which each
	// tuple is checked against (it is not part of mask).
	numbers bool
}

// plan is a rule's body in evaluation order; the first step may iterate a
// delta.
type plan struct {
	rule  *crule
	ri    int
	steps []step
}

// makePlan orders the body of r greedily: first the delta literal (if
// deltaAt >= 0), then repeatedly the best remaining positive literal: one
// whose arguments are all bound (a lookup) before any other, then one with
// some bound argument before one with none, then a magic guard, then the
// smaller relation, then the one with more bound arguments; negations and
// comparisons as soon as their variables are bound.
func (e *evaluator) makePlan(r *crule, ri int, deltaAt int, delta []int32) *plan {
	p := &plan{rule: r, ri: ri}
	bound := make([]bool, r.nvars)
	used := make([]bool, len(r.body))
	// A number constant binds a comparison side, but in an atom it is a
	// filter (it matches every symbol written as that number), not an
	// index key.
	isBound := func(t term) bool { return t.v == slotConst || (t.v >= 0 && bound[t.v]) }
	isSet := func(t term) bool { return isBound(t) || t.v == slotNumber }
	addAtom := func(j int, d []int32) {
		l := &r.body[j]
		used[j] = true
		rel := e.rels[l.atom.rel]
		s := step{lit: l, rel: rel, relI: l.atom.rel, delta: d}
		s.bind = make([]int32, len(l.atom.args))
		s.check = make([]int32, len(l.atom.args))
		local := map[int32]bool{}
		for k, t := range l.atom.args {
			s.bind[k], s.check[k] = -1, -1
			switch {
			case t.v == slotConst:
				s.mask |= 1 << uint(k)
			case t.v == slotWildcard:
			case t.v == slotNumber:
				s.numbers = true
			case bound[t.v]:
				s.mask |= 1 << uint(k)
			case local[t.v]:
				s.check[k] = t.v
			default:
				local[t.v] = true
				s.bind[k] = t.v
			}
		}
		for v := range local {
			bound[v] = true
		}
		if l.kind == datalog.Positive || l.kind == datalog.Negated {
			full := uint32(1)<<uint(rel.arity) - 1
			if d == nil && s.mask != 0 && s.mask != full {
				s.ix = rel.index(s.mask)
			}
		}
		p.steps = append(p.steps, s)
	}
	placeFilters := func() {
		for j := range r.body {
			l := &r.body[j]
			if used[j] || l.kind == datalog.Positive {
				continue
			}
			ok := true
			if l.kind == datalog.Comparison {
				ok = isSet(l.l) && isSet(l.r)
			} else {
				for _, t := range l.atom.args {
					if t.v >= 0 && !bound[t.v] {
						ok = false
					}
				}
			}
			if ok {
				if l.kind == datalog.Comparison {
					used[j] = true
					p.steps = append(p.steps, step{lit: l})
				} else {
					addAtom(j, nil)
				}
			}
		}
	}
	if deltaAt >= 0 {
		addAtom(deltaAt, delta)
	}
	for {
		placeFilters()
		best, bestFull, bestN, bestSize := -1, false, 0, 0
		for j := range r.body {
			l := &r.body[j]
			if used[j] || l.kind != datalog.Positive {
				continue
			}
			n := 0
			for _, t := range l.atom.args {
				if isBound(t) {
					n++
				}
			}
			full := n == len(l.atom.args)
			size := e.rels[l.atom.rel].len()
			better := best < 0
			if !better {
				switch {
				case full != bestFull:
					better = full
				case (n > 0) != (bestN > 0):
					better = n > 0
				case l.guard != r.body[best].guard:
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
		if best < 0 {
			break
		}
		addAtom(best, nil)
	}
	placeFilters()
	return p
}
