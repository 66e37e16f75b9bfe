package eval

import (
	"cmp"
	"math"
	"slices"
)

// Chains ordered by confidence.
//
// A join step that reads a secondary index tries every tuple of the chain
// its bound arguments select, and drops those whose confidence, times the
// confidence so far and the rule's weight, falls below the threshold. In a
// mined program most tuples of a derived relation are weak (a rule of
// weight 0.2 derives facts of 0.2 at best), and most tries were such drops:
// 626 million of them, against 91 million joins, in infer of kinship's mined
// file. When a relation holds facts of confidence below 1 (weighted), its
// secondary indexes keep their chains in decreasing confidence, so that a
// step stops at the first tuple too weak, counting the rest of the chain
// as cut without reading it.
//
// Chains are ordered by rebuilding the index (orderedChains), which costs
// a sort of the relation's tuples; it is done when an index is built and at
// the end of a round once the tuples added since the last ordering, and the
// chains in which a tuple's confidence rose since, exceed a quarter of the
// ordered tuples, so that the sorting costs O(n log n) over a relation's
// growth to n tuples. In between, new tuples enter their chains at the
// head, as always, in front of the ordered part (tuples below
// hashIndex.ordered), and a chain in which a tuple's confidence changed
// (Relation.Set: rose, or fell as maintenance lowers or removes a tuple) is
// marked dirty and read whole until the next ordering.
//
// Ordering an index also lays the ordered part of every chain out
// contiguously (chainpack.go): per tuple, in chain order, its confidence,
// its far value and its index, after an entry saying where the chain ends
// (which gives the count of a cut). A walk (chainWalk) follows the links
// of the new tuples in front, then reads the ordered part sequentially:
// one stream of 16-byte entries where the links cost three dependent
// cache misses a tuple (the link, the confidence, the far value). A
// confidence that changes is written into the layout too (confChanged). An
// ordered tuple's Next holds its position in the layout
// (After follows a link either way), so that an ordered index costs 20
// bytes a tuple (4 of Next, 16 of layout) and 16 a chain, where its links
// and a count a tuple of the rest of its chain took 8: 12 more.

// reorderIndexes orders the chains of r's secondary indexes anew when it is
// weighted and they are stale (see above).
func (r *Relation) reorderIndexes() {
	if !r.weighted || len(r.Idx) == 0 {
		return
	}
	stale := false
	for _, ix := range r.Idx {
		changed := r.N - int(ix.ordered) + len(ix.dirty)
		stale = stale || changed > int(ix.ordered)/4
	}
	if !stale {
		return
	}
	ids := r.ByConfidence()
	for _, ix := range r.Idx {
		ix.OrderChains(r, ids)
	}
}

// ByConfidence returns r's tuple indices by increasing confidence, ties by
// increasing index. A large relation is sorted by a stable radix sort on
// the confidences' bits (which order as the confidences do: they are never
// negative), skipping the digits all tuples share: a relation whose tuples
// hold a few distinct confidences (1, and 0 for removed ones) is ordered in
// one pass, where a comparison sort of a 4M-tuple closure took a second. A
// small one is sorted by comparison: a radix pass costs its buckets, and a
// mined program orders hundreds of small relations each round.
func (r *Relation) ByConfidence() []int32 {
	var o ConfOrder
	return o.sort(r, 0)
}

// ConfOrder sorts relations' tuples by confidence, in buffers it keeps
// from one sort to the next: a slice it returns holds until its next sort.
// The zero value is ready to use.
type ConfOrder struct {
	ids, ids2   []int32
	keys, keys2 []uint64
	count       []int
}

// Down returns r's tuple indices by decreasing confidence, ties by
// increasing index: ByConfidence's sort on the complemented bits. (A
// rederive's guard is read in this order before each group of twins; a
// comparison sort of its 419,180 tuples took most of a second of the
// pinned FB15k-237 file's heaviest update.)
func (o *ConfOrder) Down(r *Relation) []int32 { return o.sort(r, ^uint64(0)) }

// sort returns r's tuple indices sorted by their confidences' bits xor
// flip, ties by increasing index.
func (o *ConfOrder) sort(r *Relation, flip uint64) []int32 {
	ids := grown(o.ids, r.N)
	keys := grown(o.keys, r.N)
	o.ids, o.keys = ids, keys
	for i := range ids {
		ids[i] = int32(i)
		var k uint64
		if c := r.ConfAt(int32(i)); c != 0 { // -0 sorts as 0
			k = math.Float64bits(c)
		}
		keys[i] = k ^ flip
	}
	if r.N < radixMin {
		slices.SortFunc(ids, func(a, b int32) int {
			return cmp.Or(cmp.Compare(keys[a], keys[b]), cmp.Compare(a, b))
		})
		return ids
	}
	return o.byKey()
}

// grown returns s resized to n, reallocated only when it is too short.
func grown[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// radixMin is the number of tuples from which ConfOrder sorts by radix.
const radixMin = 1 << 12

// byKey sorts o.ids by o.keys (keys[j] is ids[j]'s), stably, and returns
// them sorted: o.ids or o.ids2.
func (o *ConfOrder) byKey() []int32 {
	const bits = 11
	ids, keys := o.ids, o.keys
	n := len(ids)
	if n < 2 {
		return ids
	}
	ids2, keys2 := grown(o.ids2, n), grown(o.keys2, n)
	o.ids2, o.keys2 = ids2, keys2
	if o.count == nil {
		o.count = make([]int, 1<<bits)
	}
	count := o.count
	for shift := uint(0); shift < 64; shift += bits {
		clear(count)
		for _, k := range keys {
			count[k>>shift&(1<<bits-1)]++
		}
		if count[keys[0]>>shift&(1<<bits-1)] == n {
			continue // every key has this digit
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for j, k := range keys {
			d := k >> shift & (1<<bits - 1)
			p := count[d]
			count[d]++
			ids2[p], keys2[p] = ids[j], k
		}
		ids, ids2 = ids2, ids
		keys, keys2 = keys2, keys
	}
	return ids
}

// OrderChains rebuilds ix from r's tuples ids, given by increasing
// confidence: each is put at the head of its chain, so that every chain
// runs by decreasing confidence, ties newest first (as insertion orders
// them). The slots are sized for the keys, as insert sizes them: a chain
// per key, at a load of at most 1/2. (Sized for the tuples, the two indexes
// of every relation of the pinned FB15k-237 file held 16 to 32 bytes a
// fact of slots for at most 14,541 keys, the graph's entities.)
func (ix *hashIndex) OrderChains(r *Relation, ids []int32) {
	clear(ix.Slots)
	ix.count = 0
	ix.Next = ix.Next[:r.N]
	if len(ix.Slots) == 0 {
		ix.Grow(r, 16)
	}
	for _, i := range ids {
		h, hash, ok := ix.slot(r, r.Tuple(i))
		if ok {
			head := slotTuple(ix.Slots[h])
			ix.Next[i] = head
		} else {
			if 2*(ix.count+1) > len(ix.Slots) {
				ix.Grow(r, 2*len(ix.Slots))
				h, _, _ = ix.slot(r, r.Tuple(i))
			}
			ix.Next[i] = -1
			ix.count++
		}
		ix.Slots[h] = slotOf(i, hash)
	}
	ix.ordered = int32(r.N)
	clear(ix.dirty)
	ix.layOut(r)
}

// confChanged notes that tuple i's confidence changed to c (Relation.Set): its
// chain, if ordered, is read whole until the next ordering, and its
// contiguous copy (chainpack.go) holds c.
func (ix *hashIndex) confChanged(r *Relation, i int32, c float64) {
	if i >= ix.ordered {
		return
	}
	ix.pk[ix.Next[i]].c = c
	if ix.dirty == nil {
		ix.dirty = map[uint64]bool{}
	}
	ix.dirty[hashKey(ix.mask, r.Tuple(i))] = true
}

// weakEnd is a join's step on the current tuple of the walk cw that is
// too weak: when the chain is ordered by confidence up to it (*ord),
// every later tuple is weaker still, and weakEnd counts them as cut and
// returns true (the caller stops reading the chain); a chain found dirty
// is read whole from then on (*ord becomes false).
func (w *Worker) weakEnd(cw *chainWalk, ord *bool) bool {
	if *ord && cw.p >= 0 {
		if n, ok := cw.weakRest(); ok {
			w.cut += int64(n)
			return true
		}
		*ord = false
	}
	return false
}
