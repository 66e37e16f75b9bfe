package eval

// segTable is the unique index of a lean relation once it outgrows one
// segment: extendible hashing over segments of segLen slots, each an
// open-addressing table of the slots hashIndex uses (hash<<32 | tuple+1).
// The directory maps the top depth bits of a slot's 32 stored hash bits to
// its segment; within a segment a slot's home is the hash's low segBits
// bits. A segment that reaches 3/4 full splits in place: one new segment
// takes the slots whose next hash bit is 1, and the old one is rebuilt
// through a scratch copy kept for the purpose.
//
// So the index never holds two tables while it grows: a flat table that
// doubles allocates the new slots while the old ones are live (tc-2k's
// path relation: 32 MB beside the 16 MB it grew from, a third of the heap
// at that moment), and leaves the old ones to the collector. Segments are
// never freed or copied; as the hashes are uniform, the segments split at
// about the same count, so the load is the flat table's (between 3/8 and
// 3/4).
type segTable struct {
	depth uint8
	dir   []*segment
	tmp   []uint64 // scratch for split
}

// segment is one open-addressing table of a segTable: its slots, their
// number in use and the number of hash bits its slots share.
type segment struct {
	slots []uint64
	count int32
	depth uint8
}

const (
	segBits = 12
	segLen  = 1 << segBits
	segMask = segLen - 1
	// segFull is the count at which a segment splits.
	segFull = 3 * segLen / 4
	// segMaxDepth keeps the directory's bits apart from a segment's.
	segMaxDepth = 32 - segBits
)

// at returns the segment of the stored hash hs.
func (t *segTable) at(hs uint32) *segment {
	return t.dir[uint64(hs)>>(32-t.depth)]
}

// hasRoom reports whether a slot can be added to s without a split.
func (s *segment) hasRoom() bool {
	return s.count < segFull || (s.depth == segMaxDepth && s.count < segLen-1)
}

// find returns the position in its segment of the slot of key t and
// whether it is occupied (see hashIndex.slot).
func (t *segTable) find(ix *hashIndex, r *Relation, s *segment, hash uint64, key []uint32) (uint64, bool) {
	tag := hash << 32
	for p := hash & segMask; ; p = (p + 1) & segMask {
		v := s.slots[p]
		if v == 0 {
			return p, false
		}
		if v&^(1<<32-1) == tag && SameKey(ix.mask, r.Tuple(slotTuple(v)), key) {
			return p, true
		}
	}
}

// put stores the slot v of a key not in t, splitting its segment first
// when it is full.
func (t *segTable) put(v uint64) {
	hs := uint32(v >> 32)
	s := t.at(hs)
	for !s.hasRoom() {
		t.split(s, hs)
		s = t.at(hs)
	}
	s.place(v)
}

// place puts the slot v at the first free position from its home.
func (s *segment) place(v uint64) {
	p := v >> 32 & segMask
	for s.slots[p] != 0 {
		p = (p + 1) & segMask
	}
	s.slots[p] = v
	s.count++
}

// split divides the segment s, which holds the stored hash hs, in two by
// the next hash bit, doubling the directory when s uses all of its bits.
func (t *segTable) split(s *segment, hs uint32) {
	if s.depth == t.depth {
		dir := make([]*segment, 2*len(t.dir))
		for k, d := range t.dir {
			dir[2*k], dir[2*k+1] = d, d
		}
		t.dir = dir
		t.depth++
	}
	s.depth++
	ns := &segment{slots: make([]uint64, segLen), depth: s.depth}
	// The directory entries of s are a run of 2^(depth - s.depth + 1);
	// its second half goes to ns.
	span := uint64(1) << (t.depth - s.depth + 1)
	start := uint64(hs) >> (32 - t.depth) &^ (span - 1)
	for k := start + span/2; k < start+span; k++ {
		t.dir[k] = ns
	}
	if t.tmp == nil {
		t.tmp = make([]uint64, segLen)
	}
	copy(t.tmp, s.slots)
	clear(s.slots)
	s.count = 0
	for _, v := range t.tmp {
		if v != 0 {
			t.at(uint32(v >> 32)).place(v)
		}
	}
}

// segment makes ix, a full unique index at its flat table's limit, a
// segTable holding its slots.
func (ix *hashIndex) segment() {
	t := &segTable{dir: []*segment{{slots: make([]uint64, segLen)}}}
	for _, v := range ix.Slots {
		if v != 0 {
			t.put(v)
		}
	}
	ix.seg, ix.Slots = t, nil
}

// segInsert is insert of tuple i into a segmented unique index.
func (ix *hashIndex) segInsert(r *Relation, i int32) {
	t := r.Tuple(i)
	hash := hashKey(ix.mask, t)
	s := ix.seg.at(uint32(hash))
	if _, ok := ix.seg.find(ix, r, s, hash, t); ok {
		panic("reasoner: duplicate tuple in unique index")
	}
	ix.seg.put(slotOf(i, hash))
	ix.count++
}
