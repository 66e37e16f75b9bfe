package eval

import (
	"math/bits"
	"sync"
)

// Relation is the in-memory extension of one predicate (name and arity):
// tuples of symbol ids, one confidence and one provenance reference per
// tuple, a unique index over whole tuples and lazily built secondary
// indexes, one per pattern of bound argument positions. Tuples are only
// appended; a tuple's confidence may rise.
//
// The columns are stored in chunks of chunkLen tuples: appending copies
// only the first chunk, while it grows by doubling to full size (so that
// small relations stay small); full chunks are never copied and leave no
// garbage behind. On a relation of
// millions of facts, growing flat slices by doubling copied them over and
// over and left the old arrays for the collector, so that a process touched
// twice the memory it kept; touching fresh memory (page faults) is what a
// short-lived command pays the most for.
type Relation struct {
	Name    string // predicate as the evaluator knows it (adorned, magic...)
	Display string // predicate to print (the user's predicate)
	Arity   int
	N       int         // number of tuples
	Alive   int         // tuples of confidence above 0 (maintain.go removes a tuple by zeroing it)
	tuples  [][]uint32  // chunk k holds tuples k*chunkLen.., arity words each
	Conf    [][]float64 // confidences, chunked like tuples
	// Prov holds, per tuple, the offset of its best derivation in the
	// evaluation's provenance pool, or a negative origin code (see
	// prov*); chunked like tuples.
	Prov   [][]int32
	Unique hashIndex // all positions bound
	// CheckEmit makes workers drop candidates already known before
	// buffering them; cands and dups count apply's candidates and those
	// already known in the current round (see evaluator.apply).
	CheckEmit   bool
	cands, dups int
	mu          sync.Mutex
	Idx         map[uint32]*hashIndex // by bound-position mask
	Internal    bool                  // magic, adorned and answer predicates: never loaded from the store
	// Lean drops the columns an evaluation without proofs may do without
	// (Evaluate): no provenance (ProvAt is ProvUnknown), and no
	// confidences while they are all 1 (Conf is nil until a tuple gets
	// another, then filled with 1s). Set by MakeLean.
	Lean     bool
	weighted bool       // some tuple has a confidence below 1 (see order.go)
	Shared   bool       // owned by an Engine: read-only
	choice   *choiceSet // the choice-domain keys taken (Options.Choice), or nil
	// sorted: no unique index, the tuples strictly increasing; Find
	// searches them and Add builds the index first (see input.go).
	sorted bool
	// writes counts the tuples added and the confidences set: memos of
	// what a relation holds check it (facMemoOf).
	writes uint64
}

// chunkBits is log2 of the number of tuples in a full chunk of a
// relation's columns. The first chunk grows by doubling up to that size,
// so that the many small relations of a program stay small.
const (
	ChunkBits = 15
	ChunkLen  = 1 << ChunkBits
	ChunkMask = ChunkLen - 1
)

// Origin codes of tuples without a rule derivation.
const (
	ProvBase    = -1 // a base fact of the store
	ProvStored  = -2 // a derived fact stored earlier (query mode)
	ProvFact0   = -3 // provFact0 - k: fact k of the program
	ProvUnknown = -1 << 30
	// ProvDeleted marks a tuple that incremental maintenance removed (its
	// confidence is 0): it stays in the relation and its indexes, matches
	// nothing (every join multiplies by 0) and is never written.
	ProvDeleted = -1<<30 + 1
)

// NewRelation returns an empty relation name of the given arity.
func NewRelation(name string, arity int) *Relation {
	r := &Relation{Name: name, Display: name, Arity: arity, Idx: map[uint32]*hashIndex{}, CheckEmit: true}
	r.Unique.mask = 1<<uint(arity) - 1
	r.Unique.unique = true
	return r
}

// Len is the number of tuples of r, removed ones included.
func (r *Relation) Len() int { return r.N }

// Tuple returns tuple i of r, a slice of its chunk.
func (r *Relation) Tuple(i int32) []uint32 {
	a := r.Arity
	o := int(i&ChunkMask) * a
	return r.tuples[i>>ChunkBits][o : o+a : o+a]
}

// ConfAt is the confidence of tuple i.
func (r *Relation) ConfAt(i int32) float64 {
	if r.Conf == nil {
		return 1 // a lean relation of confidences 1
	}
	return r.Conf[i>>ChunkBits][i&ChunkMask]
}

// ProvAt is the provenance reference of tuple i.
func (r *Relation) ProvAt(i int32) int32 {
	if r.Lean {
		return ProvUnknown
	}
	return r.Prov[i>>ChunkBits][i&ChunkMask]
}

// MakeLean makes the empty relation r lean (Relation.Lean), its unique
// index filled up to 3/4 before it grows.
func (r *Relation) MakeLean() {
	r.Lean = true
	r.Unique.full = true
}

// confColumn makes the confidences of a lean relation a column of their
// own, every tuple's 1 so far.
func (r *Relation) confColumn() {
	r.Conf = make([][]float64, len(r.tuples))
	for k := range r.tuples {
		n := r.N - k*ChunkLen
		if n > ChunkLen {
			n = ChunkLen
		}
		capacity := ChunkLen
		if k == 0 {
			capacity = n // the first chunk grows by doubling
		}
		c := make([]float64, n, capacity)
		for j := range c {
			c[j] = 1
		}
		r.Conf[k] = c
	}
}

// Set replaces the confidence and provenance of tuple i. A confidence that
// falls (incremental maintenance, maintain.go) marks the chains dirty as
// one that rises does: an ordered chain is read whole until reordered.
func (r *Relation) Set(i int32, c float64, prov int32) {
	r.writes++
	if old := r.ConfAt(i); c != old {
		if old == 0 {
			r.Alive++
		} else if c == 0 {
			r.Alive--
		}
		for _, ix := range r.Idx {
			ix.confChanged(r, i, c)
		}
	}
	if r.Conf == nil && c != 1 {
		r.confColumn()
	}
	if r.Conf != nil {
		r.Conf[i>>ChunkBits][i&ChunkMask] = c
	}
	if !r.Lean {
		r.Prov[i>>ChunkBits][i&ChunkMask] = prov
	}
	r.weighted = r.weighted || c < 1
}

// Find returns the index of the tuple t, or -1.
func (r *Relation) Find(t []uint32) int32 {
	if r.Arity == 0 {
		if r.N > 0 {
			return 0
		}
		return -1
	}
	if r.sorted {
		return r.search(t)
	}
	return r.Unique.First(r, t)
}

// Add appends the tuple t (which must be absent) and indexes it.
func (r *Relation) Add(t []uint32, c float64, prov int32) int32 {
	if r.sorted {
		r.indexAll()
	}
	i := r.add(t, c, prov)
	if r.Arity > 0 {
		r.Unique.insert(r, i)
	}
	return i
}

// add is Add without the unique index, which its callers fill.
func (r *Relation) add(t []uint32, c float64, prov int32) int32 {
	r.writes++
	i := int32(r.N)
	k := int(i >> ChunkBits)
	if r.Lean && r.Conf == nil && c != 1 {
		r.confColumn()
	}
	conf, prov0 := !r.Lean || r.Conf != nil, !r.Lean
	if k == len(r.tuples) {
		// A new chunk: full-size unless it is the first.
		n := ChunkLen
		if k == 0 {
			n = 0
		}
		r.tuples = append(r.tuples, make([]uint32, 0, n*r.Arity))
		if conf {
			r.Conf = append(r.Conf, make([]float64, 0, n))
		}
		if prov0 {
			r.Prov = append(r.Prov, make([]int32, 0, n))
		}
	}
	r.tuples[k] = append(reserve(r.tuples[k], len(t)), t...)
	if conf {
		r.Conf[k] = append(reserve(r.Conf[k], 1), c)
	}
	if prov0 {
		r.Prov[k] = append(reserve(r.Prov[k], 1), prov)
	}
	r.N++
	if c > 0 {
		r.Alive++
	}
	r.weighted = r.weighted || c < 1
	for _, ix := range r.Idx {
		ix.insert(r, i)
	}
	return i
}

// reserve returns s with room for n more elements, doubling its capacity
// when it must grow: append grows large slices by a quarter, which copies a
// relation of millions of facts many times over.
func reserve[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	grown := make([]T, len(s), max(2*cap(s), len(s)+n, 16))
	copy(grown, s)
	return grown
}

// Index returns the index for the bound-position mask, building it if
// needed. mask must be neither 0 nor the full mask. Safe for concurrent use
// with other index calls, not with add.
func (r *Relation) Index(mask uint32) *hashIndex {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ix := r.Idx[mask]; ix != nil {
		return ix
	}
	ix := &hashIndex{mask: mask}
	if r.sorted && !r.weighted && prefixMask(mask) {
		ix.fillSorted(r) // input.go
	} else {
		ix.fill(r)
	}
	r.Idx[mask] = ix
	return ix
}

// builtIndex returns the index of r on the positions of mask if it has
// been built, else nil.
func (r *Relation) builtIndex(mask uint32) *hashIndex {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.Idx[mask]
}

// hashIndex is an open-addressing hash table from the projection of a tuple
// on the positions of mask to the chain of tuples with that projection: a
// slot holds the newest tuple index + 1 (0 is empty) in its low 32 bits and
// the low 32 bits of the key's hash (which also give its home position) in
// its high bits, so that a probe reads a tuple only when the hashes agree
// and growing rehashes without reading tuples (tables of millions of tuples
// are bound by cache misses); next links each tuple to the previous one
// with the same projection. For the unique index next is unused.
type hashIndex struct {
	mask   uint32
	unique bool
	// full lets the load reach 3/4 before the slots double (a lean
	// relation's unique index): a third fewer bytes a tuple on average,
	// a few more probes a lookup.
	full  bool
	Slots []uint64
	// seg, once a full unique index outgrows a segment's slots, holds
	// them instead of Slots (see segTable).
	seg   *segTable
	count int
	Next  []int32
	// ordered, dirty and pk order the chains by confidence (order.go):
	// tuples below ordered are in their chains by decreasing confidence,
	// laid out contiguously in pk, where Next[t] of such a tuple t is its
	// position (chainpack.go); dirty holds the hashes of chains in which
	// a tuple's confidence changed since.
	ordered int32
	dirty   map[uint64]bool
	pk      []chainEnt
}

// hashWords finalises a hash (MurmurHash3's fmix64).
func hashWords(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// hashKey hashes the positions of mask of t (a whole tuple).
func hashKey(mask uint32, t []uint32) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for m := mask; m != 0; m &= m - 1 {
		p := bits.TrailingZeros32(m)
		h = (h^uint64(t[p]))*0x100000001b3 + 0x12345
	}
	return hashWords(h)
}

// SameKey reports whether tuples a and b agree on the positions of mask.
func SameKey(mask uint32, a, b []uint32) bool {
	for m := mask; m != 0; m &= m - 1 {
		p := bits.TrailingZeros32(m)
		if a[p] != b[p] {
			return false
		}
	}
	return true
}

// slotOf packs a tuple index and a hash into a slot.
func slotOf(i int32, h uint64) uint64 { return h<<32 | uint64(uint32(i+1)) }

// slotTuple is the tuple index of an occupied slot.
func slotTuple(s uint64) int32 { return int32(uint32(s)) - 1 }

// Grow makes room in ix for n tuples of r.
func (ix *hashIndex) Grow(r *Relation, n int) {
	if ix.seg != nil {
		return // segments split as they fill
	}
	size := 16
	for size < n {
		size <<= 1
	}
	old := ix.Slots
	ix.Slots = make([]uint64, size)
	m := uint64(size - 1)
	for _, s := range old {
		if s != 0 {
			p := s >> 32 & m
			for ix.Slots[p] != 0 {
				p = (p + 1) & m
			}
			ix.Slots[p] = s
		}
	}
}

// slot returns the position of the slot for key t (a full-width tuple whose
// positions in mask are set), its hash, and whether it is occupied.
func (ix *hashIndex) slot(r *Relation, t []uint32) (uint64, uint64, bool) {
	m := uint64(len(ix.Slots) - 1)
	hash := hashKey(ix.mask, t)
	tag := hash << 32
	h := hash & m
	for {
		s := ix.Slots[h]
		if s == 0 {
			return h, hash, false
		}
		if s&^(1<<32-1) == tag && SameKey(ix.mask, r.Tuple(slotTuple(s)), t) {
			return h, hash, true
		}
		h = (h + 1) & m
	}
}

// First returns the newest tuple matching t on mask, or -1; follow next for
// the others.
func (ix *hashIndex) First(r *Relation, t []uint32) int32 {
	if ix.seg != nil {
		hash := hashKey(ix.mask, t)
		s := ix.seg.at(uint32(hash))
		if p, ok := ix.seg.find(ix, r, s, hash, t); ok {
			return slotTuple(s.slots[p])
		}
		return -1
	}
	if len(ix.Slots) == 0 {
		return -1
	}
	h, _, ok := ix.slot(r, t)
	if !ok {
		return -1
	}
	return slotTuple(ix.Slots[h])
}

func (ix *hashIndex) insert(r *Relation, i int32) {
	if !ix.unique {
		ix.Next = append(ix.Next, -1)
	}
	if ix.seg != nil {
		ix.segInsert(r, i)
		return
	}
	if n := ix.count + 1; 2*n > len(ix.Slots) && (!ix.full || 4*n > 3*len(ix.Slots)) {
		if ix.unique && ix.full && len(ix.Slots) >= segLen {
			ix.segment()
			ix.segInsert(r, i)
			return
		}
		// Doubling keeps the load between 1/4 and 1/2 (3/8 and 3/4 when
		// full): a unique index of 14M tuples took 512 MB (36 bytes a
		// tuple) when it grew fourfold.
		ix.Grow(r, 2*len(ix.Slots))
	}
	h, hash, ok := ix.slot(r, r.Tuple(i))
	if ok {
		if ix.unique {
			panic("reasoner: duplicate tuple in unique index")
		}
		ix.Next[i] = slotTuple(ix.Slots[h])
		ix.Slots[h] = slotOf(i, hash)
		return
	}
	ix.Slots[h] = slotOf(i, hash)
	ix.count++
}

// fill indexes every tuple of r in ix, an empty index of r: by decreasing
// confidence along each chain when r is weighted, else in tuple order. A
// unique index is sized for the tuples at once; another grows with its
// keys (insert, OrderChains), which may be far fewer.
func (ix *hashIndex) fill(r *Relation) { ix.fillOrdered(r, nil) }

// fillOrdered is fill, given r's tuples by increasing confidence
// (ByConfidence) when r is weighted, or nil to sort them here.
func (ix *hashIndex) fillOrdered(r *Relation, ids []int32) {
	ix.Next = make([]int32, 0, r.N)
	if ix.unique {
		ix.Grow(r, max(16, 2*r.N))
	} else {
		ix.Grow(r, 16)
	}
	if r.weighted {
		if ids == nil {
			ids = r.ByConfidence()
		}
		ix.OrderChains(r, ids)
		return
	}
	for i := range int32(r.N) {
		ix.insert(r, i)
	}
}
