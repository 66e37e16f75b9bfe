package eval

// headSet is a worker's memory of the head facts its current task has
// already decided on, for emit: a rule whose body joins a node's fan-out
// with itself (valueAlias(X, Y) :- valueFlow(Z, X), valueFlow(Z, Y))
// derives the same fact once per shared Z, and each derivation looked the
// fact up in the head relation's unique index, whose slots, tuples and
// confidences are three dependent cache misses on a table of millions of
// facts. On cspa that lookup was most of the evaluation, and 83% of the
// lookups were of a fact the same task had looked up before.
//
// An entry maps a head tuple of at most two words (packed in a uint64) to a
// confidence at or below which a derivation of it changes nothing: the
// confidence the head relation holds it at, or the best the task buffered.
// The relation does not change during a task (only the merge between tasks
// writes it) and the buffer only raises a fact's confidence, so a
// derivation dropped here is one the lookup and the buffer would have
// dropped: the buffers, hence the fixpoint and the proofs kept, are the
// same. The set is emptied when a task starts and stops growing at
// headSetMax entries (then it only answers for the facts it holds).
type headSet struct {
	slots []headEntry // open addressing
	used  []int32     // occupied positions, which reset clears
}

// headEntry is a slot of a headSet: key+1 (0: empty) and its confidence,
// side by side so that a lookup reads one cache line.
type headEntry struct {
	key  uint64
	conf float64
}

// headSetMax bounds the entries of a headSet (16 bytes a slot at load at
// most 1/2: 4 MB a worker). A larger set would miss the caches as the
// relation's index does; cspa-s's largest tasks decide about 100,000
// heads.
const headSetMax = 1 << 17

// headKey packs a head tuple of one or two words; ok is false for other
// arities.
func headKey(h []uint32) (uint64, bool) {
	switch len(h) {
	case 1:
		return uint64(h[0]), true
	case 2:
		return uint64(h[0])<<32 | uint64(h[1]), true
	}
	return 0, false
}

// reset empties s, keeping its memory.
func (s *headSet) reset() {
	if len(s.used) > len(s.slots)/8 {
		clear(s.slots)
	} else {
		for _, p := range s.used {
			s.slots[p].key = 0
		}
	}
	s.used = s.used[:0]
}

// find returns the position of key's entry, or of the empty slot where it
// would go, and whether it is there.
func (s *headSet) find(key uint64) (int, bool) {
	if len(s.slots) == 0 {
		return -1, false
	}
	m := uint64(len(s.slots) - 1)
	for p := hashWords(key) & m; ; p = (p + 1) & m {
		switch s.slots[p].key {
		case 0:
			return int(p), false
		case key + 1:
			return int(p), true
		}
	}
}

// covers reports whether a derivation of key at confidence c changes
// nothing (see headSet).
func (s *headSet) covers(key uint64, c float64) bool {
	p, ok := s.find(key)
	return ok && c <= s.slots[p].conf
}

// note records that derivations of key at confidence c or below change
// nothing.
func (s *headSet) note(key uint64, c float64) {
	p, ok := s.find(key)
	if ok {
		s.slots[p].conf = max(s.slots[p].conf, c)
		return
	}
	if len(s.used) >= headSetMax {
		return
	}
	if 2*(len(s.used)+1) > len(s.slots) {
		s.grow()
		p, _ = s.find(key)
	}
	s.slots[p] = headEntry{key + 1, c}
	s.used = append(s.used, int32(p))
}

// grow doubles the slots (at least 64) and reinserts the entries.
func (s *headSet) grow() {
	old := s.slots
	s.slots = make([]headEntry, max(64, 2*len(old)))
	m := uint64(len(s.slots) - 1)
	for i, o := range s.used {
		p := hashWords(old[o].key-1) & m
		for s.slots[p].key != 0 {
			p = (p + 1) & m
		}
		s.slots[p] = old[o]
		s.used[i] = int32(p)
	}
}

// touchBatch is the number of far ends whose head-set slots facEmitAll
// loads ahead of emitting them.
const touchBatch = 16

// touch loads the home slots of the keys v0<<32 | far of ents[lo:hi] and
// returns a value that depends on the loads (so that they stay): the
// loads are independent, so the processor overlaps their cache misses,
// which are what a lookup in a set of a task's hundred thousand heads
// costs; the lookups that follow find the slots in cache.
func (s *headSet) touch(v0 uint32, ents []facEntry) uint64 {
	if len(s.slots) == 0 {
		return 0
	}
	m := uint64(len(s.slots) - 1)
	var sum uint64
	for k := range ents {
		sum += s.slots[hashWords(uint64(v0)<<32|uint64(ents[k].far))&m].key
	}
	return sum
}
