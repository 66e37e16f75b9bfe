package query

import (
	"cmp"
	"slices"
)

// MaxTopHits is the largest noisy_or(top = k) whose hits topHits keeps;
// past it, every hit is kept and grouped (candidateConfs).
const MaxTopHits = 8

// TopHits keeps, per candidate, what noisy-or over its k best rules needs
// of the hits it receives: how many there were and the k best
// confidences. It replaces a list of every hit, grouped and sorted
// per candidate afterwards: through a hub, hundreds of thousands of hits
// for a few thousand candidates. Each (candidate, rule) pair is added
// once. Candidates below the dense size are found by their id; others
// (symbols the program made) through a map.
type TopHits struct {
	k     int
	slot  []int32  // by candidate id: its slot, when stamp matches epoch
	stamp []uint32 // by candidate id
	epoch uint32
	far   map[uint32]int32 // slots of candidates at or above len(slot)
	cands []uint32         // by slot
	n     []int32          // by slot: the hits received
	conf  []float64        // k per slot
}

// NewTopHits returns the top hits of n candidates.
func NewTopHits(n int) *TopHits {
	return &TopHits{slot: make([]int32, n), stamp: make([]uint32, n)}
}

// Reset empties t for a query keeping k hits per candidate.
func (t *TopHits) Reset(k int) {
	t.k = k
	t.epoch++
	if t.epoch == 0 {
		clear(t.stamp)
		t.epoch = 1
	}
	clear(t.far)
	t.cands, t.n, t.conf = t.cands[:0], t.n[:0], t.conf[:0]
}

// slotOf returns c's slot, made when c has none.
func (t *TopHits) slotOf(c uint32) int32 {
	if int(c) < len(t.slot) {
		if t.stamp[c] == t.epoch {
			return t.slot[c]
		}
		t.stamp[c], t.slot[c] = t.epoch, int32(len(t.cands))
	} else {
		if s, ok := t.far[c]; ok {
			return s
		}
		if t.far == nil {
			t.far = map[uint32]int32{}
		}
		t.far[c] = int32(len(t.cands))
	}
	t.cands = append(t.cands, c)
	t.n = append(t.n, 0)
	for range t.k {
		t.conf = append(t.conf, 0)
	}
	return int32(len(t.cands) - 1)
}

// Add records a rule's hit of candidate c with confidence v (each rule's
// hit of a candidate once).
func (t *TopHits) Add(c uint32, v float64) {
	s := t.slotOf(c)
	n := t.n[s]
	t.n[s]++
	base := int(s) * t.k
	cs := t.conf[base : base+t.k]
	if int(n) < t.k {
		cs[n] = v
		return
	}
	m := 0
	for j := 1; j < t.k; j++ {
		if cs[j] < cs[m] {
			m = j
		}
	}
	if v > cs[m] {
		cs[m] = v
	}
}

// Confs returns the confidences of slot s, its k best (all when it has
// fewer), highest first: the order in which rescored multiplies an
// answer's k best rules, so the product is the same, bit for bit.
func (t *TopHits) Confs(s int32) []float64 {
	base := int(s) * t.k
	n := min(int(t.n[s]), t.k)
	cs := t.conf[base : base+n : base+n]
	slices.SortFunc(cs, func(a, b float64) int { return cmp.Compare(b, a) })
	return cs
}

// Find returns c's slot; ok is false when c has no hit.
func (t *TopHits) Find(c uint32) (s int32, ok bool) {
	if int(c) < len(t.slot) {
		return t.slot[c], t.stamp[c] == t.epoch
	}
	s, ok = t.far[c]
	return s, ok
}
