package eval

// memCheckEvery is how many candidate facts apply merges between two
// checks of the memory cap (checkMemoryAhead).
const memCheckEvery = 1 << 16

// growthWithin is what adding n more tuples to the relations could
// allocate at once: the new slots of every hash index that n inserts take
// past its load limit, and the new chain arrays of those whose chains run
// out of room. An index of millions of tuples doubles by hundreds of MB in
// one allocation, which a check of the memory in use alone sees only once
// it is made (a 14M-fact closure under a 700 MB cap peaked at 780 MB).
func (e *Evaluator) growthWithin(n int) int64 {
	var g int64
	for _, r := range e.Rels {
		if r.Shared {
			continue
		}
		g += r.Unique.growthWithin(n)
		for _, ix := range r.Idx {
			g += ix.growthWithin(n)
		}
	}
	return g
}

// growthWithin is what n more inserts into ix could allocate at once (see
// insert and Grow).
func (ix *hashIndex) growthWithin(n int) int64 {
	var g int64
	if ix.seg != nil {
		// n inserts split at most one segment per 3/8 of a segment's
		// slots, and may double the directory.
		return 8*int64(segLen)*int64(n/(3*segLen/8)+1) + 16*int64(len(ix.seg.dir))
	}
	if c := ix.count + n; 2*c > len(ix.Slots) && (!ix.full || 4*c > 3*len(ix.Slots)) {
		g += 8 * 2 * int64(len(ix.Slots)) // Grow doubles the slots
	}
	if !ix.unique && len(ix.Next)+n > cap(ix.Next) {
		g += 4 * int64(2*cap(ix.Next)+n) // append grows Next by at most twice
	}
	return g
}
