package eval

import (
	"slices"

	"github.com/drumql/drumql/datalog"
)

// Subsumption of a recursive relation (Options.Subsume), as Soufflé
// evaluates it: after each round of the relation's stratum, the round's
// new tuples that a tuple of the relation dominates are rejected, then
// the tuples of the relation that a new tuple left dominates are deleted.
// Both are removed as maintenance removes a tuple: confidence 0, which no
// join reads (the threshold cuts it), no negation sees and no answer
// lists; a later derivation of one adds it again, as a new tuple checked
// in its round. Domination is what the relation's domination rules
// derive: rules whose head is the predicate Options.Subsume names and
// whose first two positive atoms read the relation, the dominated tuple
// first, the dominating one second (`"r/dominated"(x) :- r(x), r(y),
// body, x != y.`). Run as plans over the round's tuples only, into their
// head relation, whose tuples found are removed again (that relation's own
// stratum, later, finds what dominates what in the end: nothing).

// subsumeRound applies the subsumptions of the relations of in to the
// round's new tuples delta (sorted), which it updates. After the first
// round of a stratum with a subsumed relation (firstRules: the rules that
// read none of the stratum's relations), every tuple of the stratum's
// relations is new, as in Soufflé: the facts of the program and the store
// included.
func (e *Evaluator) subsumeRound(in map[int32]bool, delta map[int32][]int32, first bool) error {
	if !e.subsumes(in) {
		return nil
	}
	rels := make([]int32, 0, len(in))
	for ri := range in {
		rels = append(rels, ri)
	}
	slices.Sort(rels)
	if first {
		for _, ri := range rels {
			r := e.Rels[ri]
			delta[ri] = delta[ri][:0]
			for t := range int32(r.Len()) {
				if r.ConfAt(t) > 0 {
					delta[ri] = append(delta[ri], t)
				}
			}
		}
	}
	for _, ri := range rels {
		r := e.Rels[ri]
		head, ok := e.subsume[r.Name]
		if !ok || len(delta[ri]) == 0 {
			continue
		}
		rules := e.dominationRules(ri, head)
		if len(rules) == 0 {
			continue
		}
		// Rejected: new tuples that a tuple of the relation dominates.
		rejected, err := e.dominated(rules, 0, ri, delta[ri])
		if err != nil {
			return err
		}
		e.removeTuples(r, rejected)
		delta[ri] = slices.DeleteFunc(delta[ri], func(t int32) bool { return r.ConfAt(t) == 0 })
		if len(delta[ri]) == 0 {
			continue
		}
		// Deleted: tuples of the relation that a new tuple dominates.
		deleted, err := e.dominated(rules, 1, ri, delta[ri])
		if err != nil {
			return err
		}
		e.removeTuples(r, deleted)
		delta[ri] = slices.DeleteFunc(delta[ri], func(t int32) bool { return r.ConfAt(t) == 0 })
	}
	return nil
}

// domRule is a domination rule: its index and the body positions of the
// dominated atom and of the dominating one.
type domRule struct {
	ri   int
	lits [2]int
}

// dominationRules returns the rules whose head is the predicate head and
// whose first two positive atoms read relation ri.
func (e *Evaluator) dominationRules(ri int32, head string) []domRule {
	var out []domRule
	for i, cr := range e.Rules {
		if e.Rels[cr.Head.Rel].Name != head {
			continue
		}
		d, n := domRule{ri: i}, 0
		for j := range cr.Body {
			if l := &cr.Body[j]; l.Kind == datalog.Positive && n < 2 {
				if l.Atom.Rel != ri {
					break
				}
				d.lits[n] = j
				n++
			}
		}
		if n == 2 {
			out = append(out, d)
		}
	}
	return out
}

// dominated returns the tuples of relation ri that the rules find
// dominated when their atom `which` (0: the dominated, 1: the dominating)
// reads only the tuples ts.
func (e *Evaluator) dominated(rules []domRule, which int, ri int32, ts []int32) ([]int32, error) {
	dom := e.Rules[rules[0].ri].Head.Rel
	dr, r := e.Rels[dom], e.Rels[ri]
	e.roundDelta, e.facGroups = map[int32][]int32{ri: ts}, map[deltaKey]*facGrouping{}
	var ps []*Plan
	for _, d := range rules {
		ps = append(ps, e.MakePlan(e.Rules[d.ri], d.ri, d.lits[which], ts))
	}
	e.roundDelta, e.facGroups = nil, nil
	found := map[int32][]int32{}
	if err := e.round(ps, found); err != nil {
		return nil, err
	}
	var out []int32
	for _, t := range found[dom] {
		if k := r.Find(dr.Tuple(t)); k >= 0 && r.ConfAt(k) > 0 {
			out = append(out, k)
		}
	}
	e.removeTuples(dr, found[dom])
	return out, nil
}

// removeTuples removes the tuples ts of r (confidence 0).
func (e *Evaluator) removeTuples(r *Relation, ts []int32) {
	for _, t := range ts {
		if r.ConfAt(t) > 0 {
			r.Set(t, 0, r.ProvAt(t))
		}
	}
	r.reorderIndexes()
}

// subsumes reports whether a relation of in has a subsumption
// (Options.Subsume).
func (e *Evaluator) subsumes(in map[int32]bool) bool {
	for ri := range in {
		if _, ok := e.subsume[e.Rels[ri].Name]; ok {
			return true
		}
	}
	return false
}

// firstRules returns the rules of stratum s's first round: all of them,
// or, when a relation of s has a subsumption and s is recursive, those
// that read none of s's relations (Soufflé evaluates them, removes the
// dominated tuples, then iterates the others from every tuple).
func (e *Evaluator) firstRules(s datalog.Stratum) []int {
	if len(e.subsume) == 0 || !s.Recursive {
		return s.Rules
	}
	in := map[int32]bool{}
	for _, ri := range s.Rules {
		in[e.Rules[ri].Head.Rel] = true
	}
	if !e.subsumes(in) {
		return s.Rules
	}
	var out []int
	for _, ri := range s.Rules {
		reads := false
		for j := range e.Rules[ri].Body {
			if l := &e.Rules[ri].Body[j]; l.Kind == datalog.Positive && in[l.Atom.Rel] {
				reads = true
			}
		}
		if !reads {
			out = append(out, ri)
		}
	}
	return out
}
