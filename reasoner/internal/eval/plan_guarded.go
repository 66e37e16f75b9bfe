package eval

import (
	"math"

	"github.com/drumql/drumql/datalog"
)

// MakeGuardedPlan is MakePlan for a rule whose literal deltaAt iterates a
// delta that binds most of its variables (a rederive twin's guard, which
// binds the head's arguments): after it, among the positive atoms with some
// argument bound and some free, the next is the one with the fewest tuples
// per key of its bound arguments (the relation's size over the number of
// keys of its index on them: fanout), where MakePlan takes
// the smaller relation. With a person and a country bound, an atom on the
// person has a few tuples per key, one on the country thousands, however
// small its relation. A factorised rule, or one with aggregates, is planned
// by MakePlan. A rule compiled with RuleMeta.ByFanout is planned so by
// MakePlan too, its delta plans included: a twin's delta rounds start from
// a re-derived fact, whose arguments bind the guard's first ones, and the
// guard's tuples per such key may be many more than the body atom's: an
// edge removed from FB15k-237's 4.0M-fact closure took away 1,593 facts of
// 49 sources (33 a source, far more for some), and the twins' rounds,
// which joined each re-derived fact with the guard's tuples of its source
// first, made 686,298 joins; through the edges (6.8 a node), 44,504.
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
	return e.orderBody(r, ri, deltaAt, delta, nil, true)
}

// MakeDemandPlan is MakeGuardedPlan of a rederive twin r, whose guard
// (literal 0) holds demands as its confidences, for the guard's tuples ts
// that r's weight can serve (weight times demand at least the threshold):
// a prefix of the guard's tuples by decreasing confidence. A pair plan
// (factor_pair.go) takes all the guard's tuples instead, in the grouping
// that the twins of its relation share, and cuts the others by their
// demand as it meets them, a group at a time: each twin's own grouping of
// its prefix held 99 MB at the peak of the update that removed the pinned
// FB15k-237 file's heaviest rule. Its groups' bounds and the paths it
// emits are those of the prefix (a group's strongest demand is a tuple of
// it, if it has one).
func (e *Evaluator) MakeDemandPlan(r *Crule, ri int, ts []int32) *Plan {
	if sh := r.fac; sh != nil && sh.pair && sh.gate == 0 && !e.noFactor && !r.agg {
		ts = nil
	}
	return e.MakeGuardedPlan(r, ri, 0, ts)
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
	bestF := pl.fanout(best, math.Inf(1))
	for j := range pl.r.Body {
		l := &pl.r.Body[j]
		if pl.used[j] || l.Kind != datalog.Positive || l.guard {
			continue
		}
		if n, full := pl.boundArgs(j); n == 0 || full {
			continue
		}
		if f := pl.fanout(j, bestF); f < bestF {
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
// arguments: its relation's size over the keys of its index on them. The
// index is built if needed (the plan looks the atom up by it if it is
// chosen), unless the atom cannot beat below: its relation's size over
// the most keys it can have (the symbols to the power of its bound
// arguments) is a lower bound of its fanout, returned when at least below.
// On FB15k-237's 4.0M-fact closure that bound is 273 tuples per source,
// the edges' fanout 6.8: a rederive twin's plan builds no index of the
// closure by source only to leave it unused.
func (pl *planner) fanout(j int, below float64) float64 {
	l := &pl.r.Body[j]
	rel := pl.e.Rels[l.Atom.Rel]
	var mask uint32
	n := 0
	for k, t := range l.Atom.Args {
		if pl.isBound(t) {
			mask |= 1 << uint(k)
			n++
		}
	}
	ix := rel.builtIndex(mask)
	if ix == nil {
		syms := float64(pl.e.Syms.NStore) + float64(pl.e.Syms.Locals())
		if lb := float64(rel.Len()) / max(1, math.Pow(syms, float64(n))); lb >= below {
			return lb
		}
		ix = rel.Index(mask)
	}
	if ix.count == 0 {
		return float64(rel.Len())
	}
	return float64(rel.Len()) / float64(ix.count)
}
