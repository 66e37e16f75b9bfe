package eval

// Columns is a relation's state as a materialisation image keeps it
// (reasoner/maintain): its tuple count, live tuples, chunked columns and
// indexes. The slices are the relation's own, not copies.
type Columns struct {
	N, Alive int
	Weighted bool
	Tuples   [][]uint32 // chunked as Relation's, Arity words a tuple
	Conf     [][]float64
	Prov     [][]int32
	// Unique is the unique index, or, when UniquePos is set, only its
	// number of slots (Restore places each tuple i at slot UniquePos[i],
	// its hash computed again: a third of the bytes of the slots).
	Unique    IndexImage
	UniquePos []uint32
	Idx       []IndexImage // the secondary indexes whose chains are clean
}

// IndexImage is a hash index's state: its slots and chains (see hashIndex).
type IndexImage struct {
	Mask    uint32
	Slots   []uint64
	Count   int
	Next    []int32
	Ordered int32
	Rest    []int32
}

func (ix *hashIndex) image() IndexImage {
	return IndexImage{Mask: ix.mask, Slots: ix.Slots, Count: ix.count, Next: ix.Next, Ordered: ix.ordered, Rest: ix.rest}
}

// Columns returns r's columns and indexes. A secondary index with dirty
// chains (a confidence rose since they were ordered) is left out: Restore
// builds it again.
func (r *Relation) Columns() Columns {
	c := Columns{N: r.N, Alive: r.Alive, Weighted: r.weighted, Tuples: r.tuples, Conf: r.Conf, Prov: r.Prov, Unique: r.Unique.image()}
	for _, ix := range r.Idx {
		if len(ix.dirty) == 0 {
			c.Idx = append(c.Idx, ix.image())
		}
	}
	return c
}

// UniquePositions returns the slot of each of r's tuples in its unique
// index (Columns.UniquePos).
func (r *Relation) UniquePositions() []uint32 {
	pos := make([]uint32, r.N)
	for p, s := range r.Unique.Slots {
		if s != 0 {
			pos[slotTuple(s)] = uint32(p)
		}
	}
	return pos
}

// Restore replaces r's tuples, columns and unique index by c's, taking
// them over. Each secondary index r has (compiled plans hold them) takes
// c's index of the same mask, or is built again from the tuples when c has
// none.
func (r *Relation) Restore(c Columns) {
	r.N, r.Alive, r.weighted = c.N, c.Alive, c.Weighted
	r.tuples, r.Conf, r.Prov = c.Tuples, c.Conf, c.Prov
	r.Unique.Slots, r.Unique.count = c.Unique.Slots, c.Unique.Count
	if c.UniquePos != nil {
		for i, p := range c.UniquePos {
			t := int32(i)
			r.Unique.Slots[p] = slotOf(t, hashKey(r.Unique.mask, r.Tuple(t)))
		}
	}
	for mask, ix := range r.Idx {
		*ix = hashIndex{mask: mask}
		found := false
		for _, im := range c.Idx {
			if im.Mask == mask {
				ix.Slots, ix.count, ix.Next, ix.ordered, ix.rest = im.Slots, im.Count, im.Next, im.Ordered, im.Rest
				found = true
			}
		}
		if found {
			continue
		}
		ix.Next = make([]int32, 0, r.N)
		ix.Grow(r, max(16, 2*r.N))
		if r.weighted {
			ix.OrderChains(r, r.ByConfidence())
		} else {
			for i := range int32(r.N) {
				ix.insert(r, i)
			}
		}
	}
}

// HasChoice reports whether r keeps the choice-domain keys its tuples took
// (Options.Choice), which Columns does not hold.
func (r *Relation) HasChoice() bool { return r.choice != nil }

// Locals is the number of local symbols the table assigned (ids the store
// does not have).
func (s *Symtab) Locals() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.lnames)
}
