package maintain

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
)

// Re-derivation apart from propagation.
//
// The facts closeRemoval removed from a recursive stratum (call them R:
// every fact of the stratum whose confidence fell) are derived again by
// their relations' rederive twins, guarded by R. What a re-derived fact
// then derives matters only for facts of R: a fact outside R kept its best
// proof, and a derivation through a re-derived fact f is worth at most the
// one through f's old confidence, which that best proof already beat (when
// f came back no stronger than it was, and no rule rose: rules added or
// strengthened are evaluated whole afterwards). So rederive runs the twins
// to their own fixpoint first, as a stratum of their own: their delta
// rounds join a re-derived fact only into rule instances whose head is in
// R (the guard, which the planner places as soon as a bound argument
// reaches it), instead of through every rule that reads its relation. The
// facts of R that came back stronger than they were (through a fact that
// rose) then join the stratum's own rounds with everything else that rose,
// which propagate them everywhere. On a mined program, where a removed
// rule was the best proof of 419,180 facts of one relation read by
// thousands of rules, the stratum's rounds joined every one of them
// through all those rules again.

// rederiveApart reports whether the strata re-derive their removed facts
// apart from the propagation of what rose: when no relation has a
// subsumption or a size limit (those make a round's result depend on what
// else the round holds).
func (m *Materialisation) rederiveApart() bool {
	return len(m.opt.Subsume) == 0 && len(m.opt.Limit) == 0
}

// manyRemoved reports whether the removed facts are many enough, against
// the twins that re-derive them, to be re-derived apart and in groups: at
// least one removed fact per removedPerTwin twins. Re-derived apart, each
// twin is planned again in its group, and the groups' rounds plan every
// twin that reads what a round re-derived; with few removed facts, that
// planning is the update (the walkthrough's rule edit: 54 removed facts,
// 341 twins in 9 groups; its retracted base fact: 19 removed facts,
// 2,322 twins, 55 to 92 ms in memory where b16092d^1 took 20 to 59:
// docs/BENCHMARKS.md, "Small updates after the re-derivation groups");
// re-deriving them with the stratum's own rounds, as a subsumption or a
// size limit does, costs less.
func manyRemoved(removed map[int32][]int32, twins int) bool {
	n := 0
	for _, ts := range removed {
		n += len(ts)
	}
	return n*removedPerTwin >= twins
}

// removedPerTwin: see manyRemoved.
const removedPerTwin = 2

// demandSlack lowers the bound each demand sets by a relative 1e-12, so
// that rounding never cuts a derivation that would beat a fact's
// confidence.
const demandSlack = 1 - 1e-12

// byDemand returns the tuples of guard relation gi by decreasing
// confidence (their demands; then by index). A twin iterates a prefix of
// it, in this order: one slice for all the twins of a relation. (A copy a
// twin, in index order, held 170 MB at the peak of the pinned FB15k-237
// file's heaviest rule's removal.) The slice is the guard's buffer
// (guard.order), valid until the next group sorts it again.
func (m *Materialisation) byDemand(gi int32) []int32 {
	return m.guards[gi].order.Down(m.e.Rels[gi])
}

// minDemandThreshold is the least threshold setDemands bounds by.
const minDemandThreshold = 1e-9

// setDemands sets each guard tuple's confidence to the demand of the
// removed fact it holds: Min over the fact's confidence (a derivation
// times it below Min is below that confidence), or 1 while the fact has
// none (Min itself is then the bound).
func (m *Materialisation) setDemands() {
	e := m.e
	if e.Min < minDemandThreshold {
		return // no threshold: a demand near 0 would be no tuple
	}
	for gi, gd := range m.guards {
		g, src := e.Rels[gi], e.Rels[gd.h]
		for t, st := range gd.src {
			t := int32(t)
			d := 1.0
			if c := src.ConfAt(st); c > 0 {
				d = min(1, e.Min/(c*demandSlack))
			}
			if g.ConfAt(t) != d {
				g.Set(t, d, eval.ProvBase)
			}
		}
	}
}

// rederive runs the rederive plans ps of the twins tws (ps[i] of tws[i])
// to their fixpoint, and adds to inc the tuples of removed that came back
// stronger than they were before the update.
//
// The twins of each relation run strongest rule first, in groups that
// double: its strongest twin in the first, the next two in the second,
// then four, and so on, each group to the twins' fixpoint. Before a group,
// each guard tuple's confidence is set to the demand its removed fact now
// makes, Min over the confidence it has already come back with (1 while it
// has none, at most 1). The join cuts a derivation whose confidence times
// the demand is below Min (worker.try, the ordered chains, emit): one that
// cannot beat what the fact already has, which is most of what the weaker
// of a relation's hundreds of mined rules would enumerate. A twin after the
// first group iterates only the guard tuples its weight can serve (weight
// times demand at least Min): the others try would cut one by one.
func (m *Materialisation) rederive(s datalog.Stratum, ps []*eval.Plan, tws []int, removed, inc map[int32][]int32) error {
	e := m.e
	group := make([]int, len(ps))
	byHead := map[int32][]int{}
	for i, tw := range tws {
		h := e.Rules[tw].Head.Rel
		byHead[h] = append(byHead[h], i)
	}
	groups := 0
	for _, is := range byHead {
		slices.SortStableFunc(is, func(a, b int) int { return cmp.Compare(e.Rules[tws[b]].Weight, e.Rules[tws[a]].Weight) })
		for rank, i := range is {
			group[i] = bits.Len(uint(rank+1)) - 1
			groups = max(groups, group[i]+1)
		}
	}
	twins := datalog.Stratum{Rules: tws, Recursive: s.Recursive}
	for g := range groups {
		m.setDemands()
		needy := map[int32][]int32{}
		var run []*eval.Plan
		for i, p := range ps {
			if group[i] != g {
				continue
			}
			if g > 0 {
				// The guard tuples the twin's weight can still serve.
				r := e.Rules[tws[i]]
				gi := r.Body[0].Atom.Rel
				if _, ok := needy[gi]; !ok {
					needy[gi] = m.byDemand(gi)
				}
				d := needy[gi]
				n, _ := slices.BinarySearchFunc(d, r.Weight, func(t int32, w float64) int {
					if w*e.Rels[gi].ConfAt(t) < e.Min {
						return 1 // cut: after the prefix
					}
					return -1
				})
				if n == 0 {
					continue
				}
				p = e.MakeDemandPlan(r, tws[i], d[:n:n])
			}
			run = append(run, p)
		}
		if err := e.Fixpoint(twins, run); err != nil {
			return err
		}
	}
	for ri, ts := range removed {
		r := e.Rels[ri]
		for _, t := range ts {
			if r.ConfAt(t) > m.touch.OldOf(r, eval.Tkey(ri, t)).Conf {
				inc[ri] = append(inc[ri], t)
			}
		}
	}
	return nil
}
