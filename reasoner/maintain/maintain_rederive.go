package maintain

import (
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

// rederiveApart reports whether stratum s re-derives its removed facts
// apart from the propagation of what rose: a recursive stratum whose
// relations have no subsumption and no size limit (those make a round's
// result depend on what else the round holds).
func (m *Materialisation) rederiveApart(s datalog.Stratum) bool {
	return s.Recursive && len(m.opt.Subsume) == 0 && len(m.opt.Limit) == 0
}

// rederive runs the rederive plans ps of the twins tws to their fixpoint,
// and adds to inc the tuples of removed that came back stronger than they
// were before the update.
func (m *Materialisation) rederive(ps []*eval.Plan, tws []int, removed, inc map[int32][]int32) error {
	e := m.e
	if err := e.Fixpoint(datalog.Stratum{Rules: tws, Recursive: true}, ps); err != nil {
		return err
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
