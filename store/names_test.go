package store

import (
	"context"
	"slices"
	"testing"
)

func TestRelationNames(t *testing.T) {
	st := NewMemory()
	defer st.Close()
	if names, err := RelationNames(st); err != nil || len(names) != 0 {
		t.Errorf("empty store: %v, %v", names, err)
	}
	b := &Batch{Graph: []NamedTriple{{S: "a", R: "wife", O: "b"}, {S: "b", R: "husband", O: "a"}}}
	if _, err := st.Load(context.Background(), b, nil); err != nil {
		t.Fatal(err)
	}
	rs, err := st.Relations()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range rs {
		want = append(want, r.Name)
	}
	names, err := RelationNames(st)
	if err != nil || !slices.Equal(names, want) || len(names) != 2 {
		t.Errorf("RelationNames = %v, %v; want %v", names, err, want)
	}
}

func TestHasSplit(t *testing.T) {
	st := NewMemory()
	defer st.Close()
	b := &Batch{Splits: map[string][]NamedTriple{"valid": {{S: "a", R: "wife", O: "b"}}}}
	if _, err := st.Load(context.Background(), b, nil); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"valid": true, "test": false} {
		if ok, err := HasSplit(st, name); ok != want || err != nil {
			t.Errorf("HasSplit(%q) = %v, %v; want %v", name, ok, err, want)
		}
	}
}
