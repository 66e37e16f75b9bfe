package eval

import (
	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/store"
)

// DeadRules marks the rules of p that can derive nothing: a rule is live
// when every positive literal of its body is over a predicate (name and
// arity) that has facts, in the store (base facts, and derived facts when
// derived is set) or in the program, or that a live rule derives; the
// others are dead. It returns the marks by rule index and how many are
// dead. A mined file applied to a graph that lacks some of the relations
// it was mined on (an inductive test graph) has thousands of such rules:
// evaluated, each cost a scan or a goal-directed evaluation per query for
// nothing. Left out, they cost nothing, and the answers are the same.
func DeadRules(st store.Store, p *datalog.Program, derived bool) ([]bool, int, error) {
	live := map[string]bool{}
	rs, err := st.Relations()
	if err != nil {
		return nil, 0, pkgerr.Newf("reasoner: relations: %w", err)
	}
	for _, r := range rs {
		if r.Base > 0 || derived && r.Derived > 0 {
			live[RelKey(r.Name, r.Arity)] = true
		}
	}
	for i := range p.Facts {
		if a := &p.Facts[i].Atom; p.Facts[i].Weight >= 0 {
			live[RelKey(a.Pred, len(a.Args))] = true
		}
	}
	dead := make([]bool, len(p.Rules))
	for i := range dead {
		dead[i] = true
	}
	n := len(p.Rules)
	for changed := true; changed; {
		changed = false
		for i := range p.Rules {
			if !dead[i] {
				continue
			}
			r := &p.Rules[i]
			ok := true
			for _, l := range r.Body {
				if l.Kind == datalog.Positive && !live[RelKey(l.Atom.Pred, len(l.Atom.Args))] {
					ok = false
					break
				}
			}
			if ok {
				dead[i] = false
				n--
				live[RelKey(r.Head.Pred, len(r.Head.Args))] = true
				changed = true
			}
		}
	}
	return dead, n, nil
}

// WithoutDeadRules returns p without its dead rules (see deadRules), p
// itself when it has none, and how many it left out.
func WithoutDeadRules(st store.Store, p *datalog.Program, derived bool) (*datalog.Program, int, error) {
	dead, n, err := DeadRules(st, p, derived)
	if err != nil {
		return p, 0, err
	}
	return DropRules(p, dead, n), n, nil
}

// DropRules returns p without the n rules marked in dead (p itself when n
// is 0).
func DropRules(p *datalog.Program, dead []bool, n int) *datalog.Program {
	if n == 0 {
		return p
	}
	q := *p
	q.Rules = make([]datalog.Rule, 0, len(p.Rules)-n)
	for i := range p.Rules {
		if !dead[i] {
			q.Rules = append(q.Rules, p.Rules[i])
		}
	}
	return &q
}
