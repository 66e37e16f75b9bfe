package eval

import "github.com/drumql/drumql/datalog"

// MakeGuardedPlan is MakePlan for a rule whose literal deltaAt iterates a
// delta that binds most of its variables (a rederive twin's guard, which
// binds the head's arguments): after it, among the positive atoms with some
// argument bound and some free, the next is the one with the fewest tuples
// per key of its bound arguments (the relation's size over the number of
// keys of its index on them, built if needed), where MakePlan takes
// the smaller relation. With a person and a country bound, an atom on the
// person has a few tuples per key, one on the country thousands, however
// small its relation. A factorised rule, or one with aggregates, is planned
// by MakePlan.
func (e *Evaluator) MakeGuardedPlan(r *Crule, ri int, deltaAt int, delta []int32) *Plan {
	if r.fac != nil && !e.noFactor || r.agg {
		return e.MakePlan(r, ri, deltaAt, delta)
	}
	for j := range r.Body {
		l := &r.Body[j]
		for _, x := range append([]*cexpr{l.lx, l.rx}, l.bargs...) {
			e.planAggregates(x)
		}
	}
	pl := newPlanner(e, r, ri, nil)
	pl.addAtom(deltaAt, delta)
	for {
		pl.placeFilters()
		best := pl.nextAtomByFanout()
		if best < 0 {
			break
		}
		pl.addAtom(best, nil)
	}
	pl.placeFilters()
	return pl.p
}

// nextAtomByFanout is nextAtom, but among atoms with some argument bound
// and some free it takes the one of fewest tuples per bound key (fanout).
func (pl *planner) nextAtomByFanout() int {
	best := pl.nextAtom()
	if best < 0 {
		return best
	}
	if n, full := pl.boundArgs(best); n == 0 || full {
		return best
	}
	bestF := pl.fanout(best)
	for j := range pl.r.Body {
		l := &pl.r.Body[j]
		if pl.used[j] || l.Kind != datalog.Positive || l.guard {
			continue
		}
		if n, full := pl.boundArgs(j); n == 0 || full {
			continue
		}
		if f := pl.fanout(j); f < bestF {
			best, bestF = j, f
		}
	}
	return best
}

// boundArgs returns the number of bound arguments of body literal j, and
// whether all are.
func (pl *planner) boundArgs(j int) (int, bool) {
	args := pl.r.Body[j].Atom.Args
	n := 0
	for _, t := range args {
		if pl.isBound(t) {
			n++
		}
	}
	return n, n == len(args)
}

// fanout estimates the tuples of body literal j per key of its bound
// arguments: its relation's size over the keys of its index on them (the
// index is built if needed: the plan of an atom with bound arguments looks
// it up by an index anyway).
func (pl *planner) fanout(j int) float64 {
	l := &pl.r.Body[j]
	rel := pl.e.Rels[l.Atom.Rel]
	var mask uint32
	for k, t := range l.Atom.Args {
		if pl.isBound(t) {
			mask |= 1 << uint(k)
		}
	}
	ix := rel.Index(mask)
	if ix.count == 0 {
		return float64(rel.Len())
	}
	return float64(rel.Len()) / float64(ix.count)
}
