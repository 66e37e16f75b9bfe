package reasoner

import (
	"slices"

	"github.com/drumql/drumql/datalog"
)

// edbValue is the confidence and provenance that relation ri's tuple t has
// without rules: its program fact's, if the program has one the threshold
// keeps. Base facts are never asked: a tuple removed by an update is not
// one (any more).
func (m *Materialisation) edbValue(ri int32, t []uint32) (float64, int32, bool) {
	if len(m.facts) == 0 {
		return 0, 0, false
	}
	f, ok := m.facts[factKey(ri, t)]
	if !ok {
		return 0, 0, false
	}
	return f.w, int32(provFact0 - f.idx), true
}

// remove lowers tuple t of relation ri to what it holds without its
// current derivation: its program fact, or nothing.
func (m *Materialisation) remove(ri, t int32) {
	r := m.e.rels[ri]
	m.touch.before(r, ri, t)
	c, p, ok := m.edbValue(ri, r.tuple(t))
	if !ok {
		c, p = 0, provDeleted
	}
	r.set(t, c, p)
}

// raise sets relation ri's tuple args to at least confidence c with
// provenance p, adding it if absent.
func (m *Materialisation) raise(ri int32, args []uint32, c float64, p int32) {
	r := m.e.rels[ri]
	if t := r.find(args); t >= 0 {
		if r.confAt(t) < c || (p == provBase && r.provAt(t) != provBase) {
			m.touch.before(r, ri, t)
			r.set(t, c, p)
		}
		return
	}
	t := r.add(args, c, p)
	m.touch.added(ri, t)
}

// removeBelow removes the derived facts below min (a raised threshold):
// every derivation of them is below it too.
func (m *Materialisation) removeBelow(min float64) {
	for ri, r := range m.e.rels {
		if r.internal {
			continue
		}
		for t := range int32(r.len()) {
			if c := r.confAt(t); c > 0 && c < min {
				m.touch.before(r, int32(ri), t)
				r.set(t, 0, provDeleted)
			}
		}
	}
}

// eachHeld calls fn with every change of cs to a relation the
// materialisation holds whole (read from the store): facts of other
// relations are read by no rule.
func (m *Materialisation) eachHeld(cs []FactChange, fn func(ri int32, r *relation, c FactChange)) error {
	e := m.e
	for _, c := range cs {
		name, err := e.syms.name(c.Fact.Rel)
		if err != nil {
			return err
		}
		if ri, ok := e.relIdx[relKey(name, len(c.Fact.Args))]; ok && m.loaded[ri] {
			fn(ri, e.rels[ri], c)
		}
	}
	return nil
}

// baseChanges applies added and removed base facts to the relations the
// materialisation holds.
func (m *Materialisation) baseChanges(cs []FactChange) error {
	return m.eachHeld(cs, func(ri int32, r *relation, c FactChange) {
		if c.Added {
			m.raise(ri, c.Fact.Args, 1, provBase)
		} else if t := r.find(c.Fact.Args); t >= 0 && r.provAt(t) == provBase {
			m.remove(ri, t)
		}
	})
}

// removeByRule removes the facts whose best proof is by rule ci (or its
// twin).
func (m *Materialisation) removeByRule(ci int) {
	for _, k := range m.factsOfRule(ci) {
		m.remove(untkey(k))
	}
}

// maintain brings stratum s up to date with what changed below it (and the
// base and rule changes applied to its relations): removal of the facts
// whose proofs reach a fall, re-derivation of them, propagation of what
// rose. added holds the rules to evaluate whole.
func (m *Materialisation) maintain(s datalog.Stratum, added map[int]bool) error {
	e := m.e
	heads := map[int32]bool{}
	for _, ci := range s.Rules {
		heads[e.rules[ci].head.rel] = true
	}
	// What changed so far: below the stratum (or in its relations, from
	// base facts, program facts and rules).
	var seeds []uint64
	inc := map[int32][]int32{}
	fell, rose := map[int32]bool{}, map[int32]bool{}
	for i, k := range m.touch.order {
		ri, t := untkey(k)
		r := e.rels[ri]
		oc, nc := m.touch.old[i].conf, r.confAt(t)
		switch {
		case nc < oc:
			fell[ri] = true
			if heads[ri] {
				seeds = append(seeds, k)
				continue
			}
			m.rev.each(k, func(dep uint64) {
				if dr, _ := untkey(dep); heads[dr] && m.proofUses(dep, k) {
					seeds = append(seeds, dep)
				}
			})
		case nc > oc:
			rose[ri] = true
			inc[ri] = append(inc[ri], t)
		}
	}
	// Negation: a negated relation that rose weakens the rule's
	// derivations (its facts are removed and derived again); one that
	// fell strengthens them (the rule is evaluated whole).
	whole := map[int]bool{}
	for _, ci := range s.Rules {
		if added[ci] {
			whole[ci] = true
		}
		for _, l := range e.rules[ci].body {
			if l.kind != datalog.Negated {
				continue
			}
			if rose[l.atom.rel] {
				seeds = append(seeds, m.factsOfRule(ci)...)
			}
			if fell[l.atom.rel] {
				whole[ci] = true
			}
		}
	}
	removed := m.closeRemoval(seeds, heads)
	if e.gate != nil {
		if err := e.gate(0); err != nil {
			return err
		}
	}
	ps, err := m.rederivePlans(s, removed)
	if err != nil {
		return err
	}
	for _, ci := range s.Rules {
		if whole[ci] {
			ps = append(ps, e.makePlan(e.rules[ci], ci, -1, nil))
		}
	}
	for ri, ts := range inc {
		slices.Sort(ts)
		inc[ri] = slices.Compact(ts)
	}
	ps = append(ps, e.deltaPlans(s.Rules, inc, nil)...)
	if err := e.fixpoint(s, ps); err != nil {
		return err
	}
	e.strata++
	for gi := range m.guards {
		m.clearGuard(gi)
	}
	// Index the proofs the stratum made.
	for _, k := range m.touch.order {
		if ri, _ := untkey(k); heads[ri] {
			m.rev.addProof(m, k)
		}
	}
	return nil
}

// factsOfRule returns the facts whose best proof is by rule ci.
func (m *Materialisation) factsOfRule(ci int) []uint64 {
	e := m.e
	ri := e.rules[ci].head.rel
	r := e.rels[ri]
	var out []uint64
	for t := range int32(r.len()) {
		if p := r.provAt(t); p >= 0 && m.main[e.pool.rule(p)] == ci {
			out = append(out, tkey(ri, t))
		}
	}
	return out
}

// closeRemoval removes the seeds and, within the relations of heads, every
// fact whose best proof uses a removed or fallen fact, and returns the
// removed tuples of those relations by relation.
func (m *Materialisation) closeRemoval(seeds []uint64, heads map[int32]bool) map[int32][]int32 {
	e := m.e
	out := map[int32][]int32{}
	seen := tupleSet{at: &m.seenAt}
	for len(seeds) > 0 {
		k := seeds[len(seeds)-1]
		seeds = seeds[:len(seeds)-1]
		if !seen.add(k) {
			continue
		}
		ri, t := untkey(k)
		if !heads[ri] {
			continue
		}
		r := e.rels[ri]
		if p := r.provAt(t); p >= 0 {
			m.remove(ri, t)
		}
		if o := m.touch.oldOf(r, k); r.confAt(t) < o.conf || r.provAt(t) == provDeleted {
			out[ri] = append(out[ri], t)
		}
		m.rev.each(k, func(dep uint64) {
			if dr, _ := untkey(dep); heads[dr] && seen.index(dep) < 0 && m.proofUses(dep, k) {
				seeds = append(seeds, dep)
			}
		})
	}
	return out
}

// proofUses reports whether the best proof of tuple dep uses tuple k as a
// positive body fact.
func (m *Materialisation) proofUses(dep, k uint64) bool {
	e := m.e
	dr, dt := untkey(dep)
	p := e.rels[dr].provAt(dt)
	if p < 0 {
		return false
	}
	rule := e.rules[e.pool.rule(p)]
	_, refs := e.pool.record(p, rule.nprov)
	kr, kt := untkey(k)
	for j := range rule.npos {
		if int32(refs[2*j]) == kr && int32(refs[2*j+1]) == kt {
			return true
		}
	}
	return false
}

// rederivePlans returns the plans that derive the removed facts again from
// what is left: per relation, the rederive twins of the stratum's rules
// that derive it, their guard holding the removed tuples.
func (m *Materialisation) rederivePlans(s datalog.Stratum, removed map[int32][]int32) ([]*plan, error) {
	e := m.e
	var ps []*plan
	for _, ci := range s.Rules {
		h := e.rules[ci].head.rel
		ts := removed[h]
		if len(ts) == 0 {
			continue
		}
		tw, err := m.twinOf(ci)
		if err != nil {
			return nil, err
		}
		gi := e.rules[tw].body[0].atom.rel
		g := m.fillGuard(gi, h, ts)
		all := make([]int32, g.len())
		for i := range all {
			all[i] = int32(i)
		}
		ps = append(ps, e.makePlan(e.rules[tw], tw, 0, all))
	}
	return ps, nil
}

// fillGuard gives guard relation gi the tuples ts of relation h (once per
// stratum) and returns it.
func (m *Materialisation) fillGuard(gi, h int32, ts []int32) *relation {
	e := m.e
	if _, ok := m.guards[gi]; ok {
		return e.rels[gi]
	}
	old := e.rels[gi]
	g := newRelation(old.name, old.arity)
	g.internal, g.display = true, ""
	src := e.rels[h]
	for _, t := range ts {
		if g.find(src.tuple(t)) < 0 {
			g.add(src.tuple(t), 1, provBase)
		}
	}
	e.rels[gi] = g
	m.guards[gi] = h
	return g
}

// clearGuard empties guard relation gi.
func (m *Materialisation) clearGuard(gi int32) {
	e := m.e
	old := e.rels[gi]
	g := newRelation(old.name, old.arity)
	g.internal, g.display = true, ""
	e.rels[gi] = g
	delete(m.guards, gi)
}
