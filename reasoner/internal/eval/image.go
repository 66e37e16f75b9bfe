package eval

import "math/bits"

// Columns is a relation's state as a materialisation image keeps it
// (reasoner/maintain): its tuple count, live tuples, chunked columns and
// unique index. The slices are the relation's own, not copies. Secondary
// indexes are not kept: an index the size of the relation's unique one
// would make an image larger than the store's derived facts, and building
// one costs a pass over the tuples when an update first needs it.
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
}

// IndexImage is a unique index's state: its slots and their count.
type IndexImage struct {
	Slots []uint64
	Count int
}

// Columns returns r's columns and unique index.
func (r *Relation) Columns() Columns {
	if r.Unique.seg != nil {
		// A segmented index (a lean relation's) is not imaged: Restore
		// builds it again.
		return Columns{N: r.N, Alive: r.Alive, Weighted: r.weighted, Tuples: r.tuples, Conf: r.Conf, Prov: r.Prov}
	}
	return Columns{N: r.N, Alive: r.Alive, Weighted: r.weighted, Tuples: r.tuples, Conf: r.Conf, Prov: r.Prov,
		Unique: IndexImage{Slots: r.Unique.Slots, Count: r.Unique.count}}
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
// them over. A relation of tuples without a unique index in c (an image
// of an evaluation that dropped it: Infer's) gets one built at once.
// Each secondary index r has (compiled plans hold them) is built again
// from the tuples.
func (r *Relation) Restore(c Columns) {
	r.N, r.Alive, r.weighted = c.N, c.Alive, c.Weighted
	r.tuples, r.Conf, r.Prov = c.Tuples, c.Conf, c.Prov
	r.Unique.Slots, r.Unique.count, r.Unique.seg = c.Unique.Slots, c.Unique.Count, nil
	if c.UniquePos != nil {
		for i, p := range c.UniquePos {
			t := int32(i)
			r.Unique.Slots[p] = slotOf(t, hashKey(r.Unique.mask, r.Tuple(t)))
		}
	}
	if c.Unique.Slots == nil && r.Arity > 0 && r.N > 0 {
		r.Unique.place(r)
	}
	for mask, ix := range r.Idx {
		*ix = hashIndex{mask: mask}
		ix.fill(r)
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

// place builds the unique index ix of r, empty, over r's tuples, which
// are distinct: each goes to the first free slot from its hash's home,
// without comparing tuples. The table has the size the tuples' inserts
// one at a time would have grown it to. The tuples go in batches of
// placeBatch, each ordered by home with a counting sort on the home's top
// placeBits bits, so that the inserts walk the table (128 MiB for 4M
// tuples) in address order rather than at random (in a run of the
// 4.0M-fact closure's, 0.1 s of the 0.3 s the random order took).
func (ix *hashIndex) place(r *Relation) {
	size := 16
	for 2*r.N > size {
		size <<= 1
	}
	ix.Slots = make([]uint64, size)
	ix.count = r.N
	m := uint64(size - 1)
	insert := func(s uint64) {
		p := s >> 32 & m // slotOf keeps the hash's low 32 bits
		for ix.Slots[p] != 0 {
			p = (p + 1) & m
		}
		ix.Slots[p] = s
	}
	if size <= 1<<placeBits {
		for t := range int32(r.N) {
			insert(slotOf(t, hashKey(ix.mask, r.Tuple(t))))
		}
		return
	}
	shift := bits.Len(uint(size)) - 1 - placeBits
	buf := make([]uint64, min(r.N, placeBatch))
	sorted := make([]uint64, len(buf))
	var count [1<<placeBits + 1]int32
	for lo := 0; lo < r.N; lo += placeBatch {
		batch := buf[:min(r.N-lo, placeBatch)]
		count = [len(count)]int32{}
		for i := range batch {
			s := slotOf(int32(lo+i), hashKey(ix.mask, r.Tuple(int32(lo+i))))
			batch[i] = s
			count[s>>32&m>>shift+1]++
		}
		for b := 1; b < len(count); b++ {
			count[b] += count[b-1]
		}
		for _, s := range batch {
			b := s >> 32 & m >> shift
			sorted[count[b]] = s
			count[b]++
		}
		for _, s := range sorted[:len(batch)] {
			insert(s)
		}
	}
}

// The batches of place: placeBatch tuples, ordered by the top placeBits
// bits of their home slot.
const (
	placeBatch = 1 << 16
	placeBits  = 10
)
