package maintain

import (
	"slices"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
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
	return f.w, int32(eval.ProvFact0 - f.idx), true
}

// remove lowers tuple t of relation ri to what it holds without its
// current derivation: its program fact, or nothing.
func (m *Materialisation) remove(ri, t int32) {
	r := m.e.Rels[ri]
	m.touch.Before(r, ri, t)
	c, p, ok := m.edbValue(ri, r.Tuple(t))
	if !ok {
		c, p = 0, eval.ProvDeleted
	}
	r.Set(t, c, p)
}

// raise sets relation ri's tuple args to at least confidence c with
// provenance p, adding it if absent.
func (m *Materialisation) raise(ri int32, args []uint32, c float64, p int32) {
	r := m.e.Rels[ri]
	if t := r.Find(args); t >= 0 {
		if r.ConfAt(t) < c || (p == eval.ProvBase && r.ProvAt(t) != eval.ProvBase) {
			m.touch.Before(r, ri, t)
			r.Set(t, c, p)
		}
		return
	}
	t := r.Add(args, c, p)
	m.touch.Added(ri, t)
}

// removeBelow removes the derived facts below min (a raised threshold):
// every derivation of them is below it too.
func (m *Materialisation) removeBelow(min float64) {
	for ri, r := range m.e.Rels {
		if r.Internal {
			continue
		}
		for t := range int32(r.Len()) {
			if c := r.ConfAt(t); c > 0 && c < min {
				m.touch.Before(r, int32(ri), t)
				r.Set(t, 0, eval.ProvDeleted)
			}
		}
	}
}

// eachHeld calls fn with every change of cs to a relation the
// materialisation holds whole (read from the store): facts of other
// relations are read by no rule.
func (m *Materialisation) eachHeld(cs []FactChange, fn func(ri int32, r *eval.Relation, c FactChange)) error {
	e := m.e
	for _, c := range cs {
		name, err := e.Syms.Name(c.Fact.Rel)
		if err != nil {
			return err
		}
		if ri, ok := e.RelIdx[eval.RelKey(name, len(c.Fact.Args))]; ok && m.loaded[ri] {
			fn(ri, e.Rels[ri], c)
		}
	}
	return nil
}

// baseChanges applies added and removed base facts to the relations the
// materialisation holds.
func (m *Materialisation) baseChanges(cs []FactChange) error {
	return m.eachHeld(cs, func(ri int32, r *eval.Relation, c FactChange) {
		if c.Added {
			m.raise(ri, c.Fact.Args, 1, eval.ProvBase)
		} else if t := r.Find(c.Fact.Args); t >= 0 && r.ProvAt(t) == eval.ProvBase {
			m.remove(ri, t)
		}
	})
}

// removeByRule removes the facts whose best proof is by rule ci (or its
// twin).
func (m *Materialisation) removeByRule(ci int) {
	for _, k := range m.factsOfRule(ci) {
		m.remove(eval.Untkey(k))
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
		heads[e.Rules[ci].Head.Rel] = true
	}
	// What changed so far: below the stratum (or in its relations, from
	// base facts, program facts and rules).
	var seeds []uint64
	inc := map[int32][]int32{}
	fell, rose := map[int32]bool{}, map[int32]bool{}
	for i, k := range m.touch.Order {
		ri, t := eval.Untkey(k)
		r := e.Rels[ri]
		oc, nc := m.touch.Old[i].Conf, r.ConfAt(t)
		switch {
		case nc < oc:
			fell[ri] = true
			if heads[ri] {
				seeds = append(seeds, k)
				continue
			}
			m.buildRev()
			m.rev.each(k, func(dep uint64) {
				if dr, _ := eval.Untkey(dep); heads[dr] && m.proofUses(dep, k) {
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
		for _, l := range e.Rules[ci].Body {
			if l.Kind != datalog.Negated {
				continue
			}
			if rose[l.Atom.Rel] {
				seeds = append(seeds, m.factsOfRule(ci)...)
			}
			if fell[l.Atom.Rel] {
				whole[ci] = true
			}
		}
	}
	removed := m.closeRemoval(seeds, heads)
	if e.Gate != nil {
		if err := e.Gate(0); err != nil {
			return err
		}
	}
	ps, tws, err := m.rederivePlans(s, removed)
	if err != nil {
		return err
	}
	if m.rederiveApart() && len(ps) > 0 && manyRemoved(removed, len(tws)) {
		if err := m.rederive(s, ps, tws, removed, inc); err != nil {
			return err
		}
		ps = nil
	}
	for _, ci := range s.Rules {
		if whole[ci] {
			ps = append(ps, e.MakePlan(e.Rules[ci], ci, -1, nil))
		}
	}
	for ri, ts := range inc {
		slices.Sort(ts)
		inc[ri] = slices.Compact(ts)
	}
	ps = append(ps, e.DeltaPlans(s.Rules, inc, nil)...)
	if err := e.Fixpoint(s, ps); err != nil {
		return err
	}
	e.Strata++
	for gi := range m.guards {
		m.clearGuard(gi)
	}
	// Index the proofs the stratum made.
	for _, k := range m.touch.Order {
		if ri, _ := eval.Untkey(k); heads[ri] {
			m.rev.addProof(m, k)
		}
	}
	return nil
}

// factsOfRule returns the facts whose best proof is by rule ci.
func (m *Materialisation) factsOfRule(ci int) []uint64 {
	e := m.e
	ri := e.Rules[ci].Head.Rel
	r := e.Rels[ri]
	var out []uint64
	for t := range int32(r.Len()) {
		if p := r.ProvAt(t); p >= 0 && m.main[e.Pool.Rule(p)] == ci {
			out = append(out, eval.Tkey(ri, t))
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
	seen := eval.TupleSet{At: &m.seenAt}
	for len(seeds) > 0 {
		k := seeds[len(seeds)-1]
		seeds = seeds[:len(seeds)-1]
		if !seen.Add(k) {
			continue
		}
		ri, t := eval.Untkey(k)
		if !heads[ri] {
			continue
		}
		r := e.Rels[ri]
		if p := r.ProvAt(t); p >= 0 {
			m.remove(ri, t)
		}
		if o := m.touch.OldOf(r, k); r.ConfAt(t) < o.Conf || r.ProvAt(t) == eval.ProvDeleted {
			out[ri] = append(out[ri], t)
		}
		m.buildRev()
		m.rev.each(k, func(dep uint64) {
			if dr, _ := eval.Untkey(dep); heads[dr] && seen.Index(dep) < 0 && m.proofUses(dep, k) {
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
	dr, dt := eval.Untkey(dep)
	p := e.Rels[dr].ProvAt(dt)
	if p < 0 {
		return false
	}
	rule := e.Rules[e.Pool.Rule(p)]
	_, refs := e.Pool.Record(p, rule.Nprov)
	kr, kt := eval.Untkey(k)
	for j := range rule.Npos {
		if int32(refs[2*j]) == kr && int32(refs[2*j+1]) == kt {
			return true
		}
	}
	return false
}

// rederivePlans returns the plans that derive the removed facts again from
// what is left: per relation, the rederive twins of the stratum's rules
// that derive it, their guard holding the removed tuples; and the twins.
func (m *Materialisation) rederivePlans(s datalog.Stratum, removed map[int32][]int32) ([]*eval.Plan, []int, error) {
	e := m.e
	var ps []*eval.Plan
	var tws []int
	// The twins of one guard read all its tuples: one slice for them all
	// (a slice a twin held 516 MB when the pinned FB15k-237 file's
	// heaviest rule was removed, 419,180 tuples for each of its
	// relation's hundreds of twins). No plan writes its delta.
	alls := map[int32][]int32{}
	want := map[int32]uint32{}
	for _, ci := range s.Rules {
		h := e.Rules[ci].Head.Rel
		ts := removed[h]
		if len(ts) == 0 {
			continue
		}
		tw, err := m.twinOf(ci)
		if err != nil {
			return nil, nil, err
		}
		tws = append(tws, tw)
		gi := e.Rules[tw].Body[0].Atom.Rel
		if _, ok := alls[gi]; !ok {
			g := m.fillGuard(gi, h, ts)
			all := make([]int32, g.Len())
			for i := range all {
				all[i] = int32(i)
			}
			alls[gi] = all
		}
		guardMasks(e.Rules[tw], want)
	}
	if len(tws) >= prepareTwins {
		e.PrepareIndexes(want)
	}
	for _, tw := range tws {
		r := e.Rules[tw]
		ps = append(ps, e.MakeGuardedPlan(r, tw, 0, alls[r.Body[0].Atom.Rel]))
	}
	return ps, tws, nil
}

// prepareTwins is the number of rederive twins from which rederivePlans
// builds the indexes their plans may look up after the guard before it
// plans them (eval.Evaluator.PrepareIndexes), on all threads. Hundreds of
// twins use nearly all of them: of the 392 it builds when the pinned
// FB15k-237 file's heaviest rule is removed, the plans built all but one
// without it (3.2 s on one core for their 421 indexes). A few twins'
// plans choose among them by fanout, and may use one of each pair: those
// are built as plans ask.
const prepareTwins = 64

// guardMasks adds to want, for each binary atom of twin r's body after its
// guard, the position its guard (or a constant) binds when it binds one
// of the two: the index a plan's step after the guard looks up
// (eval.Evaluator.PrepareIndexes).
func guardMasks(r *eval.Crule, want map[int32]uint32) {
	bound := map[int32]bool{}
	for _, t := range r.Body[0].Atom.Args {
		bound[t.V] = t.V >= 0
	}
	for _, l := range r.Body[1:] {
		if l.Kind != datalog.Positive || len(l.Atom.Args) != 2 {
			continue
		}
		var m uint32
		for p, t := range l.Atom.Args {
			if t.V == eval.SlotConst || bound[t.V] {
				m |= 1 << p
			}
		}
		if m == 1 || m == 2 {
			want[l.Atom.Rel] |= m
		}
	}
}

// guard is a filled rederive guard: the relation h whose removed tuples
// it holds; for each of its tuples the tuple of h it copies (the stratum
// appends to h, never moves a tuple), which setDemands reads before every
// group of twins instead of looking each up again; and the buffers of its
// order by demand (byDemand), sorted again for every group.
type guard struct {
	h     int32
	src   []int32
	order *eval.ConfOrder
}

// fillGuard gives guard relation gi the tuples ts of relation h (once per
// stratum) and returns it.
func (m *Materialisation) fillGuard(gi, h int32, ts []int32) *eval.Relation {
	e := m.e
	if _, ok := m.guards[gi]; ok {
		return e.Rels[gi]
	}
	old := e.Rels[gi]
	g := eval.NewRelation(old.Name, old.Arity)
	g.Internal, g.Display = true, ""
	src := e.Rels[h]
	at := make([]int32, 0, len(ts))
	for _, t := range ts {
		if g.Find(src.Tuple(t)) < 0 {
			g.Add(src.Tuple(t), 1, eval.ProvBase)
			at = append(at, t)
		}
	}
	e.Rels[gi] = g
	m.guards[gi] = guard{h: h, src: at, order: new(eval.ConfOrder)}
	return g
}

// clearGuard empties guard relation gi.
func (m *Materialisation) clearGuard(gi int32) {
	e := m.e
	old := e.Rels[gi]
	g := eval.NewRelation(old.Name, old.Arity)
	g.Internal, g.Display = true, ""
	e.Rels[gi] = g
	delete(m.guards, gi)
}
