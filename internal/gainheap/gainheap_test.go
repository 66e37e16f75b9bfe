package gainheap

import (
	"container/heap"
	"slices"
	"testing"
)

func TestOrder(t *testing.T) {
	h := &Heap{Items: []Item{{Gain: 1, Rank: 2, I: 0}, {Gain: 3, Rank: 5, I: 1}, {Gain: 1, Rank: 0, I: 2}, {Gain: 2, Rank: 1, I: 3}}}
	heap.Init(h)
	var got []int
	for h.Len() > 0 {
		got = append(got, heap.Pop(h).(Item).I)
	}
	if want := []int{1, 3, 2, 0}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v (gain, then rank)", got, want)
	}
}
