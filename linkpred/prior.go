package linkpred

import (
	"slices"
	"sort"

	"github.com/drumql/drumql/store"
)

// SlotPrior ranks the candidates no rule reaches: it counts, per relation r,
// how many facts of r each entity fills the slot of that a query asks for,
// the object slot for tail prediction (h, r, ?) and the subject slot for head
// prediction (?, r, t). It is the rule r(X, c) weighted by c's share of r.
// Build it from the graph the rules were mined from (facts and train, never
// valid or test). It is read-only once built and safe for concurrent use.
type SlotPrior struct {
	rels  map[store.ID]int // relation symbol -> relation index
	slots [][2]priorSlot   // per relation index and direction (0 object, 1 subject)
}

// priorSlot is the prior of one slot of one relation. A query's ranking
// reads it in place, in time logarithmic in its size: a slot of a hub
// relation (who has this gender) holds most of the graph's entities, and
// every query of that slot shares it.
type priorSlot struct {
	ents   []int32   // the entities that fill the slot (candidate positions), ascending
	counts []float32 // counts[k]: the facts in which ents[k] fills it
	sorted []float32 // counts, ascending
}

// NewSlotPrior counts the slots of the binary facts of snap. entities is the
// candidate list of the evaluation (see [Options.Entities]): an entity of
// snap is recorded by its position in it, and left out when it is not in it.
func NewSlotPrior(snap *store.Snapshot, entities []store.ID) *SlotPrior {
	pos := make(map[store.ID]int32, len(entities))
	for i, id := range entities {
		pos[id] = int32(i)
	}
	n := len(snap.Relations)
	p := &SlotPrior{rels: make(map[store.ID]int, n), slots: make([][2]priorSlot, n)}
	type entry struct {
		e int32
		c float32
	}
	var es []entry
	for ri, id := range snap.Relations {
		p.rels[id] = ri
		for dir, csr := range [2]*store.CSR{&snap.In[ri], &snap.Out[ri]} {
			es = es[:0]
			for j := range csr.Stored() {
				if k := csr.RowPtr[j+1] - csr.RowPtr[j]; k > 0 {
					if c, ok := pos[snap.Entities[csr.RowAt(j)]]; ok {
						es = append(es, entry{c, float32(k)})
					}
				}
			}
			if len(es) == 0 {
				continue
			}
			slices.SortFunc(es, func(a, b entry) int { return int(a.e) - int(b.e) })
			s := &p.slots[ri][dir]
			s.ents, s.counts = make([]int32, len(es)), make([]float32, len(es))
			for k, x := range es {
				s.ents[k], s.counts[k] = x.e, x.c
			}
			s.sorted = slices.Clone(s.counts)
			slices.Sort(s.sorted)
		}
	}
	return p
}

// slot returns the prior of rel's object slot (tail true) or subject slot,
// or nil for a relation the graph does not have.
func (p *SlotPrior) slot(rel store.ID, tail bool) *priorSlot {
	ri, ok := p.rels[rel]
	if !ok {
		return nil
	}
	dir := 1
	if tail {
		dir = 0
	}
	s := &p.slots[ri][dir]
	if len(s.ents) == 0 {
		return nil
	}
	return s
}

// Slot returns the entities (candidate positions, ascending) that fill
// rel's object slot (tail true: tail prediction) or subject slot, with the
// number of facts of rel in which each does. Both are nil for a relation the
// graph does not have. The slices belong to p: callers must not modify them.
func (p *SlotPrior) Slot(rel store.ID, tail bool) ([]int32, []float32) {
	s := p.slot(rel, tail)
	if s == nil {
		return nil, nil
	}
	return s.ents, s.counts
}

// Extend adds to the sparse scores s of q every entity that fills q's slot
// and is not listed yet, with score 0 and its count as the only
// tie-breaker: above the candidates nothing reaches, below any candidate
// with a positive score. The entities are not copied: the ranking reads
// the slot in place, so a slot of a million entities costs no memory and
// no time per query.
func (p *SlotPrior) Extend(q Query, s *Scores) {
	s.prior = p.slot(q.Rel, q.Inverse)
}

// count returns the count of candidate e in the slot, or false when e does
// not fill it.
func (s *priorSlot) count(e int32) (float32, bool) {
	k, ok := slices.BinarySearch(s.ents, e)
	if !ok {
		return 0, false
	}
	return s.counts[k], true
}

// compareAll counts the entities of the slot whose key (0, [count]) ranks
// above the key (as, at) and those that tie with it (see compareKeys).
func (s *priorSlot) compareAll(as float32, at []float32) (gt, eq int) {
	n := len(s.sorted)
	switch cmpFloat(0, as) {
	case 1:
		return n, 0
	case -1:
		return 0, 0
	}
	if len(at) == 0 {
		return n, 0 // (0, [c]) is longer than (0, [])
	}
	t := fixNaN(at[0])
	lo := sort.Search(n, func(i int) bool { return s.sorted[i] >= t })
	hi := sort.Search(n, func(i int) bool { return s.sorted[i] > t })
	if len(at) == 1 {
		eq = hi - lo
	} // else (0, [t]) is shorter than (0, [t, ...]): below it
	return n - hi, eq
}
