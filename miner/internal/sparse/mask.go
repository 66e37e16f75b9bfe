package sparse

import "math/bits"

// Mask is a bitset over edge ids. A nil *Mask masks nothing. Ids outside
// [0, Len()) are never masked.
type Mask struct {
	w []uint64
	n int
}

// NewMask returns an empty mask over edge ids 0..n-1.
func NewMask(n int) *Mask {
	return &Mask{w: make([]uint64, (n+63)/64), n: n}
}

// Len returns the number of edge ids the mask covers.
func (k *Mask) Len() int { return k.n }

// Set masks edge e. It panics if e is out of range.
func (k *Mask) Set(e int32) {
	if e < 0 || int(e) >= k.n {
		panic("sparse.Mask.Set: edge id out of range")
	}
	k.w[e>>6] |= 1 << (uint(e) & 63)
}

// Clear unmasks edge e. It panics if e is out of range.
func (k *Mask) Clear(e int32) {
	if e < 0 || int(e) >= k.n {
		panic("sparse.Mask.Clear: edge id out of range")
	}
	k.w[e>>6] &^= 1 << (uint(e) & 63)
}

// Has reports whether edge e is masked. A nil mask has no edges.
func (k *Mask) Has(e int32) bool {
	if k == nil || e < 0 || int(e) >= k.n {
		return false
	}
	return k.w[e>>6]&(1<<(uint(e)&63)) != 0
}

// Reset unmasks every edge.
func (k *Mask) Reset() { clear(k.w) }

// Count returns the number of masked edges.
func (k *Mask) Count() int {
	if k == nil {
		return 0
	}
	c := 0
	for _, w := range k.w {
		c += bits.OnesCount64(w)
	}
	return c
}

// empty reports whether no edge is masked (cheap check used to pick the
// unmasked fast path).
func (k *Mask) empty() bool {
	if k == nil {
		return true
	}
	for _, w := range k.w {
		if w != 0 {
			return false
		}
	}
	return true
}
