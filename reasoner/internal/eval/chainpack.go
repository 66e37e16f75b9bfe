package eval

import "math/bits"

// Contiguous ordered chains.
//
// A walk along an index chain by its links costs a tuple three dependent
// cache misses: the link, the confidence and the tuple's other value. On
// the pinned FB15k-237 file half of infer's CPU went to such walks
// (facBuild). When OrderChains orders an index it also lays every chain's
// ordered part out contiguously in ix.pk, in chain order: per tuple its
// confidence (as ConfAt returns it), its far value (the first position the
// index does not bind) and its index. Each chain comes after an entry of
// tuple -1 that holds where it ends (where the next such entry is, or the
// last entry of pk, also of tuple -1). The link of an ordered tuple is
// then no longer needed, and its Next holds its position in pk instead
// (After follows either).
//
// A walk (chainWalk) reads the new tuples in front of the ordered part by
// their links, and the ordered part from pk, sequentially. When a
// tuple's confidence changes (Relation.Set, whatever the direction of the
// change), confChanged writes it into pk too and marks the chain dirty: its
// walk reads every tuple, cutting none. The writers that bypass Set
// (maintenance's recomputation of the confidences, an image's columns)
// order every index anew afterwards, which lays pk out again.

// chainEnt is a tuple of an ordered chain laid out contiguously.
type chainEnt struct {
	c   float64 // its confidence (kept up to date by confChanged)
	far uint32  // its value at the first position the index does not bind
	t   int32   // its index; -1 ends the chain
}

// farPos is the first position of a tuple of arity that mask does not
// bind.
func farPos(mask uint32) int { return bits.TrailingZeros32(^mask) }

// layOut lays the chains of ix, just linked in order, out in ix.pk (see
// above), each tuple's Next becoming its position there.
func (ix *hashIndex) layOut(r *Relation) {
	far := farPos(ix.mask)
	n := r.N + ix.count + 1
	if cap(ix.pk) < n {
		ix.pk = make([]chainEnt, 0, n)
	}
	ix.pk = ix.pk[:0]
	for _, s := range ix.Slots {
		if s == 0 {
			continue
		}
		head := len(ix.pk)
		ix.pk = append(ix.pk, chainEnt{t: -1})
		for t := slotTuple(s); t >= 0; {
			next := ix.Next[t]
			ix.Next[t] = int32(len(ix.pk))
			ix.pk = append(ix.pk, chainEnt{c: r.ConfAt(t), far: r.Tuple(t)[far], t: t})
			t = next
		}
		ix.pk[head].far = uint32(len(ix.pk))
	}
	ix.pk = append(ix.pk, chainEnt{t: -1})
}

// After returns the tuple after t in its chain of ix, -1 after the last.
func (ix *hashIndex) After(t int32) int32 {
	if t >= ix.ordered {
		return ix.Next[t]
	}
	return ix.pk[ix.Next[t]+1].t
}

// chainWalk walks one chain of an index (see above), or a list of tuples:
// T is the current tuple (-1 at the end), C its confidence and Far its
// value at the first position the index does not bind.
type chainWalk struct {
	T    int32
	C    float64
	Far  uint32
	p    int32 // T's position in pk, -1 off it
	p0   int32 // the position of the chain's first tuple in pk
	slow bool  // off pk
	pk   []chainEnt
	ix   *hashIndex
	r    *Relation
	far  int
	list []int32 // the tuples of a walk of a list (startList), after T
}

// start begins the walk of ix's chain for key (as First takes it).
func (cw *chainWalk) start(ix *hashIndex, r *Relation, key []uint32) {
	cw.ix, cw.r, cw.pk, cw.p, cw.far, cw.slow = ix, r, ix.pk, -1, farPos(ix.mask), true
	cw.at(ix.First(r, key))
}

// startList begins the walk of the tuples list of r (none: a walk that
// ends at once), Far at position far.
func (cw *chainWalk) startList(r *Relation, list []int32, far int) {
	*cw = chainWalk{r: r, p: -1, far: far, T: -1, slow: true}
	if len(list) > 0 {
		cw.list = list[1:]
		cw.at(list[0])
	}
}

// at moves the walk to tuple t, reached by a link or from the list.
func (cw *chainWalk) at(t int32) {
	cw.T = t
	if t < 0 {
		return
	}
	ix := cw.ix
	if ix == nil || t >= ix.ordered {
		cw.C, cw.Far = cw.r.ConfAt(t), cw.r.Tuple(t)[cw.far]
		return
	}
	cw.p, cw.slow = ix.Next[t], false
	cw.p0 = cw.p
	e := &cw.pk[cw.p]
	cw.C, cw.Far = e.c, e.far
}

// next moves the walk to the next tuple.
func (cw *chainWalk) next() {
	if cw.slow {
		cw.nextSlow()
		return
	}
	cw.p++
	e := &cw.pk[cw.p]
	cw.T, cw.C, cw.Far = e.t, e.c, e.far
}

// nextSlow is next off pk: along the link, or the list.
func (cw *chainWalk) nextSlow() {
	switch {
	case cw.ix != nil:
		cw.at(cw.ix.Next[cw.T])
	case len(cw.list) == 0:
		cw.T = -1
	default:
		t := cw.list[0]
		cw.list = cw.list[1:]
		cw.at(t)
	}
}

// weakRest reports whether T and every tuple after it are known to be at
// most as confident as T: T is in the ordered part of a chain in which no
// tuple's confidence changed since it was ordered (asked with T, which has
// the chain's key: a join's key may be overwritten by its later steps,
// w.probe). It returns the number of tuples from T to the end of the
// chain.
func (cw *chainWalk) weakRest() (int32, bool) {
	if cw.p < 0 {
		return 0, false
	}
	if ix := cw.ix; len(ix.dirty) > 0 && ix.dirty[hashKey(ix.mask, cw.r.Tuple(cw.T))] {
		return 0, false
	}
	return int32(cw.pk[cw.p0-1].far) - cw.p, true
}
