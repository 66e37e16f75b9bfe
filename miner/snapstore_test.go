package miner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/drumql/drumql/store"
)

// TestSnapshotStore reads a store's snapshot file as a store and checks
// that every read a ranking makes gives the store's answer, and that
// writes fail.
func TestSnapshotStore(t *testing.T) {
	ctx := context.Background()
	st := datasetStore(t, "../examples/family")
	data := snapshotBytes(t, st.(GraphSource))
	f, err := ReadSnapshot(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := NewSnapshotStore(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := st.Relations()
	got, _ := ss.Relations()
	if len(got) != len(want) {
		t.Fatalf("%d relations, want %d", len(got), len(want))
	}
	collect := func(seq func(func(store.Fact, error) bool)) []string {
		var out []string
		for f, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(f.Rel, f.Args))
		}
		slices.Sort(out)
		return out
	}
	for i, r := range want {
		if got[i].Name != r.Name || got[i].Base != r.Base || got[i].Rel != r.Rel {
			t.Errorf("relation %d: %+v, want %+v", i, got[i], r)
		}
		if g, w := collect(ss.Scan(r.Rel)), collect(st.Scan(r.Rel)); !slices.Equal(g, w) {
			t.Errorf("%s: Scan differs", r.Name)
		}
		for fact, err := range st.Scan(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			if ok, _ := ss.Has(fact); !ok {
				t.Errorf("Has(%v) = false", fact)
			}
			s, o := fact.Args[0], fact.Args[1]
			if g, w := collect(ss.ScanFirst(r.Rel, s)), collect(st.ScanFirst(r.Rel, s)); !slices.Equal(g, w) {
				t.Errorf("%s: ScanFirst(%d) = %v, want %v", r.Name, s, g, w)
			}
			if g, w := collect(ss.ScanObject(r.Rel, o)), collect(st.ScanObject(r.Rel, o)); !slices.Equal(g, w) {
				t.Errorf("%s: ScanObject(%d) = %v, want %v", r.Name, o, g, w)
			}
			break
		}
	}
	if err := ss.ClearDerived(); !errors.Is(err, ErrSnapshotReadOnly) {
		t.Errorf("ClearDerived: %v, want ErrSnapshotReadOnly", err)
	}
}
