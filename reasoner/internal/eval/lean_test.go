package eval

import "testing"

// TestLeanRelation checks a lean relation's columns: no provenance and no
// confidences while they are all 1 (the bytes a tuple costs), then, once
// a tuple gets another confidence, every earlier tuple's 1 kept, across
// chunks (the first grown by doubling, the others full), and Set on
// either side of that; and its unique index filled up to 3/4.
func TestLeanRelation(t *testing.T) {
	r := NewRelation("r", 2)
	r.MakeLean()
	n := ChunkLen + 100
	for i := range n {
		r.Add([]uint32{uint32(i), uint32(i + 1)}, 1, ProvBase)
	}
	if r.Conf != nil || r.Prov != nil {
		t.Fatalf("a lean relation of confidences 1 holds %d confidence and %d provenance chunks", len(r.Conf), len(r.Prov))
	}
	if c, p := r.ConfAt(7), r.ProvAt(7); c != 1 || p != ProvUnknown {
		t.Fatalf("tuple 7: confidence %v, provenance %d", c, p)
	}
	r.Set(3, 1, 42)
	if r.Conf != nil {
		t.Fatal("Set to 1 made a confidence column")
	}
	k := r.Add([]uint32{1, 0}, 0.5, ProvUnknown)
	r.Add([]uint32{2, 0}, 1, ProvUnknown)
	r.Set(5, 0.25, ProvUnknown)
	for i := range int32(r.Len()) {
		want := 1.0
		switch i {
		case k:
			want = 0.5
		case 5:
			want = 0.25
		}
		if got := r.ConfAt(i); got != want {
			t.Fatalf("tuple %d: confidence %v, want %v", i, got, want)
		}
	}
	if r.Prov != nil || len(r.Conf) != 2 || cap(r.Conf[1]) != ChunkLen {
		t.Errorf("columns: %d provenance chunks, %d confidence chunks (the second of capacity %d)", len(r.Prov), len(r.Conf), cap(r.Conf[1]))
	}
	// 32,870 tuples: a load of 1/2 would take 131,072 slots
	if got, want := r.Unique.slotCount(), 1<<16; got != want {
		t.Errorf("%d tuples in %d slots of the unique index, want %d", r.Len(), got, want)
	}
	if got := r.Find([]uint32{2, 0}); got != k+1 {
		t.Errorf("Find = %d, want %d", got, k+1)
	}
}
