package eval

// Marks maps a tuple (relation ri, index t) to an int32, 0 until set. It
// is kept in pages of markPage values allocated when first written, so its
// memory follows the tuples marked, not the sizes of their relations: an
// update that touches a handful of tuples of a 4M-tuple relation allocates
// a page or two, not 16 MB.
type Marks [][][]int32 // per relation, per page

// markPage is the number of tuples a page of marks covers.
const markPage = 1024

// Get returns tuple t's mark in relation ri, 0 when it has none.
func (m Marks) Get(ri, t int32) int32 {
	if int(ri) >= len(m) {
		return 0
	}
	pg := int(t) / markPage
	if pages := m[ri]; pg < len(pages) && pages[pg] != nil {
		return pages[pg][int(t)%markPage]
	}
	return 0
}

// Set marks tuple t of relation ri with v.
func (m *Marks) Set(ri, t, v int32) {
	if int(ri) >= len(*m) {
		*m = append(*m, make([][][]int32, int(ri)+1-len(*m))...)
	}
	pages := (*m)[ri]
	pg := int(t) / markPage
	if pg >= len(pages) {
		pages = append(pages, make([][]int32, max(pg+1, 2*len(pages))-len(pages))...)
		(*m)[ri] = pages
	}
	if pages[pg] == nil {
		pages[pg] = make([]int32, markPage)
	}
	pages[pg][int(t)%markPage] = v
}

// TupleSet is a set of tuples (tkeys) in the order they were added, found
// through marks kept from one set to the next (at marks a tuple with 1 +
// its position in order): a mark counts only when order agrees with it, so
// a new set over the same marks starts empty without clearing them, and
// costs what it holds, not a map entry per tuple. Two sets in use at once
// need marks of their own.
type TupleSet struct {
	Order []uint64
	At    *Marks
}

// Index returns k's position in order, or -1 when the set lacks it.
func (s *TupleSet) Index(k uint64) int {
	ri, t := Untkey(k)
	if i := int(s.At.Get(ri, t)) - 1; i >= 0 && i < len(s.Order) && s.Order[i] == k {
		return i
	}
	return -1
}

// Add adds k and reports whether the set lacked it.
func (s *TupleSet) Add(k uint64) bool {
	if s.Index(k) >= 0 {
		return false
	}
	s.Order = append(s.Order, k)
	ri, t := Untkey(k)
	s.At.Set(ri, t, int32(len(s.Order)))
	return true
}
