package maintain

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/drumql/drumql/reasoner/internal/eval"
)

// report classifies the tuples the update touched, and lists the changed
// facts that changed most first (then in relation order, and by their
// arguments' symbol ids: not by the tuples' positions, which differ
// between a materialisation resumed from the store and one from an
// image).
func (m *Materialisation) report() (Change, error) {
	e := m.e
	byChange := func(a, b changedTuple) int {
		ra, ta := eval.Untkey(a.k)
		rb, tb := eval.Untkey(b.k)
		return cmp.Or(cmp.Compare(math.Abs(b.nc-b.oc), math.Abs(a.nc-a.oc)), cmp.Compare(ra, rb),
			slices.Compare(e.Rels[ra].Tuple(ta), e.Rels[rb].Tuple(tb)))
	}
	var ch Change
	var cs []changedTuple
	full := false // cs was cut back to MaxChangedFacts once
	for i, k := range m.touch.Order {
		ri, t := eval.Untkey(k)
		r := e.Rels[ri]
		if r.Internal {
			continue
		}
		o := m.touch.Old[i]
		oc, op := o.Conf, o.Prov
		nc, np := r.ConfAt(t), r.ProvAt(t)
		oldD := oc > 0 && op != eval.ProvBase && op != eval.ProvDeleted
		newD := nc > 0 && np != eval.ProvBase && np != eval.ProvDeleted
		if !oldD {
			oc = 0
		}
		if !newD {
			nc = 0
		}
		switch {
		case !oldD && !newD:
			continue
		case !oldD:
			ch.Added++
		case !newD:
			ch.Removed++
		case !sameConfidence(oc, nc):
			ch.Reweighted++
		case op != np || oc != nc:
			// The same proof worth the same, or another proof worth as
			// much (to the last bits of float64, which multiplies in
			// another order).
			ch.Proofs++
			continue
		default:
			continue
		}
		// The largest changes first, in argument order among equals: only the
		// first MaxChangedFacts are listed, so the list is cut back to
		// them whenever it doubles, not sorted whole (an update can
		// change a million facts).
		c := changedTuple{k, oc, nc}
		if full && byChange(c, cs[MaxChangedFacts-1]) > 0 {
			continue // after the last one listed so far
		}
		cs = append(cs, c)
		if len(cs) == 2*MaxChangedFacts {
			slices.SortFunc(cs, byChange)
			cs, full = cs[:MaxChangedFacts], true
		}
	}
	slices.SortFunc(cs, byChange)
	for _, c := range cs[:min(len(cs), MaxChangedFacts)] {
		ri, t := eval.Untkey(c.k)
		f, err := m.changed(e.Rels[ri], t, c.oc, c.nc)
		if err != nil {
			return ch, err
		}
		ch.Facts = append(ch.Facts, f)
	}
	return ch, nil
}

// changedTuple is a derived tuple (tkey k) whose confidence went from oc
// to nc.
type changedTuple struct {
	k      uint64
	oc, nc float64
}

// sameConfidence reports whether two confidences are equal within 1e-12
// relative: two computations of one proof that multiply in another order.
func sameConfidence(a, b float64) bool {
	return math.Abs(a-b) <= 1e-12*max(math.Abs(a), math.Abs(b))
}

// changed describes tuple t of r for a Change.
func (m *Materialisation) changed(r *eval.Relation, t int32, oc, nc float64) (ChangedFact, error) {
	f := ChangedFact{Pred: r.Display, Old: oc, New: nc}
	for _, a := range r.Tuple(t) {
		n, err := m.e.Syms.Name(a)
		if err != nil {
			return f, err
		}
		f.Args = append(f.Args, n)
	}
	return f, nil
}

// diffMaterialisations reports the derived facts that differ between a and
// b (over the same store; their symbol tables may differ).
func diffMaterialisations(a, b *Materialisation) (Change, error) {
	var ch Change
	derived := func(r *eval.Relation, t int32) (float64, bool) {
		p := r.ProvAt(t)
		c := r.ConfAt(t)
		return c, c > 0 && p != eval.ProvBase && p != eval.ProvDeleted && p != eval.ProvStored
	}
	note := func(m *Materialisation, r *eval.Relation, t int32, oc, nc float64) error {
		if len(ch.Facts) >= MaxChangedFacts {
			return nil
		}
		f, err := m.changed(r, t, oc, nc)
		ch.Facts = append(ch.Facts, f)
		return err
	}
	// find returns the tuple of relation pred/arity in to equal to tuple t
	// of from, or nil, -1.
	var buf []uint32
	find := func(from, to *Materialisation, r *eval.Relation, t int32) (*eval.Relation, int32, error) {
		i, ok := to.e.RelIdx[eval.RelKey(r.Name, r.Arity)]
		if !ok {
			return nil, -1, nil
		}
		tup := r.Tuple(t)
		if from.e.Syms != to.e.Syms {
			buf = buf[:0]
			for _, a := range tup {
				n, err := from.e.Syms.Name(a)
				if err != nil {
					return nil, -1, err
				}
				x, ok := to.e.Syms.Lookup(n)
				if !ok {
					return nil, -1, nil
				}
				buf = append(buf, x)
			}
			tup = buf
		}
		rt := to.e.Rels[i]
		return rt, rt.Find(tup), nil
	}
	for _, rb := range b.e.Rels {
		if rb.Internal {
			continue
		}
		for t := range int32(rb.Len()) {
			nc, nd := derived(rb, t)
			oc, od := 0.0, false
			ra, k, err := find(b, a, rb, t)
			if err != nil {
				return ch, err
			}
			if k >= 0 {
				oc, od = derived(ra, k)
			}
			switch {
			case nd && !od:
				ch.Added++
				err = note(b, rb, t, 0, nc)
			case od && !nd:
				ch.Removed++
				err = note(b, rb, t, oc, 0)
			case od && nd && !sameConfidence(oc, nc):
				ch.Reweighted++
				err = note(b, rb, t, oc, nc)
			}
			if err != nil {
				return ch, err
			}
		}
	}
	for _, ra := range a.e.Rels {
		if ra.Internal {
			continue
		}
		for t := range int32(ra.Len()) {
			oc, od := derived(ra, t)
			if !od {
				continue
			}
			_, k, err := find(a, b, ra, t)
			if err != nil {
				return ch, err
			}
			if k >= 0 {
				continue // counted above
			}
			ch.Removed++
			if err := note(a, ra, t, oc, 0); err != nil {
				return ch, err
			}
		}
	}
	return ch, nil
}

// String summarises the change: "+3 −1 ~2 facts".
func (c Change) String() string {
	s := fmt.Sprintf("+%d −%d ~%d facts", c.Added, c.Removed, c.Reweighted)
	if c.Full {
		s += " (recomputed)"
	}
	return s
}

// ProofsByRule returns, per rule of the program (in its order), the
// number of facts of the materialisation whose best proof is by that rule
// (a rederive twin's proofs count for its rule). bench/ruleuse prints it:
// bench/maintain.sh edits the rule with the most.
func (m *Materialisation) ProofsByRule() []int {
	e := m.e
	pos := make([]int, len(e.Rules)) // compiled rule -> program position
	for i := range pos {
		pos[i] = -1
	}
	for i, ci := range m.ruleOf {
		pos[ci] = i
	}
	n := make([]int, len(m.ruleOf))
	for _, r := range e.Rels {
		if r.Internal {
			continue
		}
		for t := range int32(r.N) {
			p := r.ProvAt(t)
			if p < 0 || r.ConfAt(t) == 0 {
				continue
			}
			if at := pos[m.main[e.Pool.Rule(p)]]; at >= 0 {
				n[at]++
			}
		}
	}
	return n
}
