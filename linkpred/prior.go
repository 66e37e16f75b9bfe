package linkpred

import "github.com/drumql/drumql/store"

// SlotPrior ranks the candidates no rule reaches: it counts, per relation r,
// how many facts of r each entity fills the slot of that a query asks for,
// the object slot for tail prediction (h, r, ?) and the subject slot for head
// prediction (?, r, t). It is the rule r(X, c) weighted by c's share of r.
// Build it from the graph the rules were mined from (facts and train, never
// valid or test). It is read-only once built and safe for concurrent use.
type SlotPrior struct {
	rels map[store.ID]int // relation symbol -> relation index
	// per relation index and direction (0 object, 1 subject): the entities
	// that fill the slot (candidate positions) and their counts.
	ents   [][2][]int32
	counts [][2][]float32
}

// NewSlotPrior counts the slots of the binary facts of snap. entities is the
// candidate list of the evaluation (see [Options.Entities]): an entity of
// snap is recorded by its position in it, and left out when it is not in it.
// Within a slot, entities are listed in snap's entity order.
func NewSlotPrior(snap *store.Snapshot, entities []store.ID) *SlotPrior {
	pos := make(map[store.ID]int32, len(entities))
	for i, id := range entities {
		pos[id] = int32(i)
	}
	n := len(snap.Relations)
	p := &SlotPrior{rels: make(map[store.ID]int, n), ents: make([][2][]int32, n), counts: make([][2][]float32, n)}
	for ri, id := range snap.Relations {
		p.rels[id] = ri
		for dir, csr := range [2]*store.CSR{&snap.In[ri], &snap.Out[ri]} {
			for e := range len(csr.RowPtr) - 1 {
				if k := csr.RowPtr[e+1] - csr.RowPtr[e]; k > 0 {
					if c, ok := pos[snap.Entities[e]]; ok {
						p.ents[ri][dir] = append(p.ents[ri][dir], c)
						p.counts[ri][dir] = append(p.counts[ri][dir], float32(k))
					}
				}
			}
		}
	}
	return p
}

// Slot returns the entities (candidate positions) that fill rel's object
// slot (tail true: tail prediction) or subject slot, with the number of facts
// of rel in which each does. Both are nil for a relation the graph does not
// have. The slices belong to p: callers must not modify them.
func (p *SlotPrior) Slot(rel store.ID, tail bool) ([]int32, []float32) {
	ri, ok := p.rels[rel]
	if !ok {
		return nil, nil
	}
	dir := 1
	if tail {
		dir = 0
	}
	return p.ents[ri][dir], p.counts[ri][dir]
}

// Extend adds to the sparse scores s of q every entity that fills q's slot
// and is not listed yet, with score 0 and its count as the only
// tie-breaker: above the candidates nothing reaches, below any candidate
// with a positive score. The entities are not copied: the ranking reads
// the slot's list in place, so a slot of a million entities costs no
// memory per query.
func (p *SlotPrior) Extend(q Query, s *Scores) {
	s.prior, s.priorCounts = p.Slot(q.Rel, q.Inverse)
}
