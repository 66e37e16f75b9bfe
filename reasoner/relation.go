package reasoner

import (
	"math/bits"
	"sync"
)

// relation is the in-memory extension of one predicate (name and arity):
// tuples packed into a flat slice of symbol ids, one confidence per tuple,
// a unique index over whole tuples and lazily built secondary indexes, one
// per pattern of bound argument positions. Tuples are only appended; a
// tuple's confidence may rise.
type relation struct {
	name    string // predicate as the evaluator knows it (adorned, magic...)
	display string // predicate to print (the user's predicate)
	arity   int
	tuples  []uint32
	conf    []float64
	// prov[i] is the offset of tuple i's best derivation in the
	// evaluation's provenance pool, or a negative origin code (see prov*).
	prov   []int32
	unique hashIndex // all positions bound
	// checkEmit makes workers drop candidates already known before
	// buffering them; cands and dups count apply's candidates and those
	// already known in the current round (see evaluator.apply).
	checkEmit   bool
	cands, dups int
	mu          sync.Mutex
	idx         map[uint32]*hashIndex // by bound-position mask
	internal    bool                  // magic, adorned and answer predicates: never loaded from the store
	shared      bool                  // owned by an Engine: read-only
}

// Origin codes of tuples without a rule derivation.
const (
	provBase    = -1 // a base fact of the store
	provStored  = -2 // a derived fact stored earlier (query mode)
	provFact0   = -3 // provFact0 - k: fact k of the program
	provUnknown = -1 << 30
)

func newRelation(name string, arity int) *relation {
	r := &relation{name: name, display: name, arity: arity, idx: map[uint32]*hashIndex{}, checkEmit: true}
	r.unique.mask = 1<<uint(arity) - 1
	r.unique.unique = true
	return r
}

func (r *relation) len() int { return len(r.conf) }

func (r *relation) tuple(i int32) []uint32 {
	a := r.arity
	return r.tuples[int(i)*a : int(i)*a+a]
}

// find returns the index of the tuple t, or -1.
func (r *relation) find(t []uint32) int32 {
	if r.arity == 0 {
		if len(r.conf) > 0 {
			return 0
		}
		return -1
	}
	return r.unique.first(r, t)
}

// add appends the tuple t (which must be absent) and indexes it.
func (r *relation) add(t []uint32, c float64, prov int32) int32 {
	i := int32(len(r.conf))
	r.tuples = append(reserve(r.tuples, len(t)), t...)
	r.conf = append(reserve(r.conf, 1), c)
	r.prov = append(reserve(r.prov, 1), prov)
	if r.arity > 0 {
		r.unique.insert(r, i)
	}
	for _, ix := range r.idx {
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

// index returns the index for the bound-position mask, building it if
// needed. mask must be neither 0 nor the full mask. Safe for concurrent use
// with other index calls, not with add.
func (r *relation) index(mask uint32) *hashIndex {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ix := r.idx[mask]; ix != nil {
		return ix
	}
	ix := &hashIndex{mask: mask}
	ix.next = make([]int32, 0, len(r.conf))
	ix.grow(r, max(16, 2*len(r.conf)))
	for i := range int32(len(r.conf)) {
		ix.insert(r, i)
	}
	r.idx[mask] = ix
	return ix
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
	slots  []uint64
	count  int
	next   []int32
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

// sameKey reports whether tuples a and b agree on the positions of mask.
func sameKey(mask uint32, a, b []uint32) bool {
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

func (ix *hashIndex) grow(r *relation, n int) {
	size := 16
	for size < n {
		size <<= 1
	}
	old := ix.slots
	ix.slots = make([]uint64, size)
	m := uint64(size - 1)
	for _, s := range old {
		if s != 0 {
			p := s >> 32 & m
			for ix.slots[p] != 0 {
				p = (p + 1) & m
			}
			ix.slots[p] = s
		}
	}
}

// slot returns the position of the slot for key t (a full-width tuple whose
// positions in mask are set), its hash, and whether it is occupied.
func (ix *hashIndex) slot(r *relation, t []uint32) (uint64, uint64, bool) {
	m := uint64(len(ix.slots) - 1)
	hash := hashKey(ix.mask, t)
	tag := hash << 32
	h := hash & m
	for {
		s := ix.slots[h]
		if s == 0 {
			return h, hash, false
		}
		if s&^(1<<32-1) == tag && sameKey(ix.mask, r.tuple(slotTuple(s)), t) {
			return h, hash, true
		}
		h = (h + 1) & m
	}
}

// first returns the newest tuple matching t on mask, or -1; follow next for
// the others.
func (ix *hashIndex) first(r *relation, t []uint32) int32 {
	if len(ix.slots) == 0 {
		return -1
	}
	h, _, ok := ix.slot(r, t)
	if !ok {
		return -1
	}
	return slotTuple(ix.slots[h])
}

func (ix *hashIndex) insert(r *relation, i int32) {
	if !ix.unique {
		ix.next = append(ix.next, -1)
	}
	if 2*(ix.count+1) > len(ix.slots) {
		ix.grow(r, 4*(ix.count+1))
	}
	h, hash, ok := ix.slot(r, r.tuple(i))
	if ok {
		if ix.unique {
			panic("reasoner: duplicate tuple in unique index")
		}
		ix.next[i] = slotTuple(ix.slots[h])
		ix.slots[h] = slotOf(i, hash)
		return
	}
	ix.slots[h] = slotOf(i, hash)
	ix.count++
}
