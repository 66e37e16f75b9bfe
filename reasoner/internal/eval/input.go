package eval

import "slices"

// Input relations without a unique index.
//
// A relation that no rule derives is only read: its tuples come from the
// store, distinct, and a lean evaluation (Evaluate) adds nothing else to
// it unless the program states facts of it. Its unique index, which only
// the check that a tuple is new needs, was then most of what loading it
// cost (reach-1m: a million edges inserted into a hash table of 8 bytes a
// slot at a load of at most 3/4). The store gives a relation's facts in
// increasing order of their ids (store.Mem and drumql run's input columns
// both do), so LoadStore keeps them as they come, strictly increasing,
// without the index (Relation.sorted): Find searches the sorted columns,
// and the first Add (a program fact of the relation, a tuple out of order
// from another store) builds the index over what is there, after which
// the relation is like any other. Which tuples a relation holds and in
// which order does not change, so neither does the evaluation.

// sortedInput reports whether LoadStore may load r, still empty, without
// its unique index: a lean relation that no rule of the program derives.
func (e *Evaluator) sortedInput(r *Relation) bool {
	return r.Lean && r.Arity > 0 && r.N == 0 && !e.heads[r.Name]
}

// load appends the stored tuple t, absent from r, keeping r sorted (without
// a unique index) while the tuples come in increasing order.
func (r *Relation) load(t []uint32, c float64, prov int32) {
	if r.sorted && r.N > 0 && slices.Compare(t, r.Tuple(int32(r.N-1))) <= 0 {
		r.indexAll()
	}
	if i := r.add(t, c, prov); !r.sorted && r.Arity > 0 {
		r.Unique.insert(r, i)
	}
}

// search returns the index of the tuple t in the sorted relation r, or -1.
func (r *Relation) search(t []uint32) int32 {
	lo, hi := 0, r.N
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if slices.Compare(r.Tuple(int32(m)), t) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < r.N && slices.Equal(r.Tuple(int32(lo)), t) {
		return int32(lo)
	}
	return -1
}

// indexAll ends r's sorted state: it builds the unique index over every
// tuple, sized for them at once.
func (r *Relation) indexAll() {
	r.sorted = false
	r.Unique.Grow(r, max(16, 2*r.N))
	for i := range int32(r.N) {
		r.Unique.insert(r, i)
	}
}

// fillSorted is hashIndex.fill for a sorted relation and an index whose
// bound positions are a prefix of the tuple (mask 1<<j - 1): the tuples of
// a key are then consecutive, so each key is probed for once, at the last
// of its tuples (the chain's head), and each tuple's next is the one before
// it; the table is sized for the keys, not the tuples (reach-1m's index of
// a million edges by source: 100,000 keys, 2 MB of slots instead of 16).
// The chains and their heads are those fill makes.
func (ix *hashIndex) fillSorted(r *Relation) {
	keys := 0
	for i := range int32(r.N) {
		if i == 0 || !SameKey(ix.mask, r.Tuple(i), r.Tuple(i-1)) {
			keys++
		}
	}
	ix.Next = make([]int32, r.N)
	ix.Grow(r, max(16, 2*keys))
	for i := range int32(r.N) {
		t := r.Tuple(i)
		if i > 0 && SameKey(ix.mask, t, r.Tuple(i-1)) {
			ix.Next[i] = i - 1
		} else {
			ix.Next[i] = -1
			ix.count++
		}
		if i+1 == int32(r.N) || !SameKey(ix.mask, t, r.Tuple(i+1)) {
			h, hash, _ := ix.slot(r, t)
			ix.Slots[h] = slotOf(i, hash)
		}
	}
}

// prefixMask reports whether mask binds exactly the first positions.
func prefixMask(mask uint32) bool { return mask&(mask+1) == 0 }
