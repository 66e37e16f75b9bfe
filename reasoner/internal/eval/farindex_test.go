package eval

import (
	"math/rand/v2"
	"testing"
)

// TestFarIndex puts, finds and deletes values below and above farDense
// against a map, and checks that the array grows no further than the
// largest value below farDense put.
func TestFarIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 1))
	var f farIndex
	want := map[uint32]int32{}
	vals := []uint32{0, 1, 1023, 1024, 5000, farDense - 1, farDense, farDense + 7, 1<<32 - 1}
	for range 2000 {
		vals = append(vals, rng.Uint32N(2*farDense))
	}
	for round := range 3 {
		for i, v := range vals {
			if rng.IntN(3) == 0 {
				continue
			}
			k := int32(i + round)
			f.put(v, k)
			want[v] = k
		}
		for _, v := range vals {
			k, ok := f.get(v)
			wk, wok := want[v]
			if ok != wok || (ok && k != wk) {
				t.Fatalf("round %d: get(%d) = %d, %v; want %d, %v", round, v, k, ok, wk, wok)
			}
		}
		for v := range want {
			f.del(v)
			delete(want, v)
			if _, ok := f.get(v); ok {
				t.Fatalf("round %d: %d found after del", round, v)
			}
		}
		for i, k := range f.pos {
			if k != 0 {
				t.Fatalf("round %d: value %d keeps entry %d after every del", round, i, k-1)
			}
		}
		if len(f.big) != 0 {
			t.Fatalf("round %d: %d values above farDense kept", round, len(f.big))
		}
	}
	if len(f.pos) > farDense {
		t.Fatalf("array of %d values, want at most %d", len(f.pos), farDense)
	}
	var g farIndex
	g.put(3000, 0)
	if len(g.pos) > 6000 {
		t.Fatalf("one value 3000 grew the array to %d", len(g.pos))
	}
	g.put(farDense+1, 0)
	if len(g.pos) > 6000 {
		t.Fatalf("a value above farDense grew the array to %d", len(g.pos))
	}
}
