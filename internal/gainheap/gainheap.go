// Package gainheap is the max-heap of a lazy greedy choice: candidates by
// their last computed gain, highest first, ties to the lowest rank. The
// miner's choice of rules with constants and scoring's choice of the rules
// that cover the most both use it.
package gainheap

// Item is a candidate (I), its rank among equals (lower first) and its
// last computed gain.
type Item struct {
	Gain    float64
	Rank, I int
}

// Heap orders Items by decreasing Gain, then increasing Rank; use it with
// container/heap.
type Heap struct{ Items []Item }

// Len implements heap.Interface.
func (h *Heap) Len() int { return len(h.Items) }

// Less implements heap.Interface.
func (h *Heap) Less(a, b int) bool {
	x, y := h.Items[a], h.Items[b]
	return x.Gain > y.Gain || x.Gain == y.Gain && x.Rank < y.Rank
}

// Swap implements heap.Interface.
func (h *Heap) Swap(a, b int) { h.Items[a], h.Items[b] = h.Items[b], h.Items[a] }

// Push implements heap.Interface.
func (h *Heap) Push(x any) { h.Items = append(h.Items, x.(Item)) }

// Pop implements heap.Interface.
func (h *Heap) Pop() any {
	it := h.Items[len(h.Items)-1]
	h.Items = h.Items[:len(h.Items)-1]
	return it
}
