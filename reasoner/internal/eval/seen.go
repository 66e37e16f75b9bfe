package eval

import "math"

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
//
// A set holds the keys alone while every confidence noted is 1 (an
// evaluation without weights, which all of `drumql run`'s are): 8 bytes a
// slot, where a key and its confidence took 16, 4 MB a worker at the cap
// on sg-2k. The first other confidence widens it to both, side by side so
// that a lookup reads one cache line.
type headSet struct {
	slots []uint64 // open addressing: key+1 (0: empty), then, when wide, its confidence's bits
	wide  bool
	used  []int32 // occupied positions, which reset clears
}

// headSetMax bounds the entries of a headSet (a slot of 8 or 16 bytes at
// load at most 1/2: 2 or 4 MB a worker). A larger set would miss the
// caches as the relation's index does; cspa-s's largest tasks decide about
// 100,000 heads.
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

// stride is the number of words of a slot.
func (s *headSet) stride() int {
	if s.wide {
		return 2
	}
	return 1
}

// positions is the number of slots.
func (s *headSet) positions() int { return len(s.slots) / s.stride() }

// reset empties s, keeping its memory.
func (s *headSet) reset() {
	if len(s.used) > s.positions()/8 {
		clear(s.slots)
	} else {
		k := s.stride()
		for _, p := range s.used {
			s.slots[k*int(p)] = 0
		}
	}
	s.used = s.used[:0]
}

// find returns the position of key's entry, or of the empty slot where it
// would go, and whether it is there.
func (s *headSet) find(key uint64) (int, bool) {
	n := s.positions()
	if n == 0 {
		return -1, false
	}
	m, k := uint64(n-1), uint64(s.stride())
	for p := hashWords(key) & m; ; p = (p + 1) & m {
		switch s.slots[k*p] {
		case 0:
			return int(p), false
		case key + 1:
			return int(p), true
		}
	}
}

// conf is the confidence of the entry at position p.
func (s *headSet) conf(p int) float64 {
	if !s.wide {
		return 1
	}
	return math.Float64frombits(s.slots[2*p+1])
}

// covers reports whether a derivation of key at confidence c changes
// nothing (see headSet).
func (s *headSet) covers(key uint64, c float64) bool {
	p, ok := s.find(key)
	return ok && c <= s.conf(p)
}

// note records that derivations of key at confidence c or below change
// nothing.
func (s *headSet) note(key uint64, c float64) {
	if c != 1 && !s.wide {
		s.widen()
	}
	p, ok := s.find(key)
	if ok {
		if s.wide {
			s.slots[2*p+1] = math.Float64bits(max(s.conf(p), c))
		}
		return
	}
	if len(s.used) >= headSetMax {
		return
	}
	if 2*(len(s.used)+1) > s.positions() {
		s.rehash(max(64, 2*s.positions()), s.wide)
		p, _ = s.find(key)
	}
	s.slots[s.stride()*p] = key + 1
	if s.wide {
		s.slots[2*p+1] = math.Float64bits(c)
	}
	s.used = append(s.used, int32(p))
}

// widen gives every slot a confidence, 1 for the keys held.
func (s *headSet) widen() {
	s.rehash(s.positions(), true)
}

// rehash moves the entries to n slots, wide or not.
func (s *headSet) rehash(n int, wide bool) {
	old, oldWide := s.slots, s.wide
	k := 1
	if wide {
		k = 2
	}
	s.slots, s.wide = make([]uint64, k*n), wide
	m := uint64(n - 1)
	for i, o := range s.used {
		key, c := old[o], 1.0
		if oldWide {
			key, c = old[2*o], math.Float64frombits(old[2*o+1])
		}
		p := hashWords(key-1) & m
		for s.slots[uint64(k)*p] != 0 {
			p = (p + 1) & m
		}
		s.slots[uint64(k)*p] = key
		if wide {
			s.slots[2*p+1] = math.Float64bits(c)
		}
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
	m, w := uint64(s.positions()-1), uint64(s.stride())
	var sum uint64
	for k := range ents {
		sum += s.slots[w*(hashWords(uint64(v0)<<32|uint64(ents[k].far))&m)]
	}
	return sum
}
