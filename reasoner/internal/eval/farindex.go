package eval

// farDense bounds the values a farIndex holds in its array: symbol ids are
// dense from 0, so the array is as long as the largest value looked up so
// far (4 bytes a value, 4 MiB at most); larger values go to a map.
const farDense = 1 << 20

// farIndex finds the entry of a value while a memo of far ends (facMemo)
// or a level of a walk (walkLevel) is built: one step of a chain's walk
// looks its far value up, so a hashed map's lookup was a step's largest
// cost after the chain's own reads. Its builder empties it entry by entry
// (del), so emptying costs what was put, not the array's length.
type farIndex struct {
	pos []int32 // value -> entry + 1; 0: none
	big map[uint32]int32
}

// get returns the entry of v, and false when v has none.
func (f *farIndex) get(v uint32) (int32, bool) {
	if v < uint32(len(f.pos)) {
		k := f.pos[v]
		return k - 1, k != 0
	}
	if v < farDense {
		return 0, false
	}
	k, ok := f.big[v]
	return k, ok
}

// put makes k the entry of v.
func (f *farIndex) put(v uint32, k int32) {
	if v < uint32(len(f.pos)) {
		f.pos[v] = k + 1
		return
	}
	if v < farDense {
		n := max(1024, 2*len(f.pos), int(v)+1)
		pos := make([]int32, min(n, farDense))
		copy(pos, f.pos)
		f.pos = pos
		f.pos[v] = k + 1
		return
	}
	if f.big == nil {
		f.big = map[uint32]int32{}
	}
	f.big[v] = k
}

// del removes v's entry.
func (f *farIndex) del(v uint32) {
	if v < uint32(len(f.pos)) {
		f.pos[v] = 0
		return
	}
	if v >= farDense {
		delete(f.big, v)
	}
}
