package store_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/drumql/drumql/store"
)

func TestReplacedSplits(t *testing.T) {
	ctx := context.Background()
	mem := store.NewMemory()
	defer mem.Close()
	a, b, c := store.NamedTriple{S: "a", R: "r", O: "b"}, store.NamedTriple{S: "b", R: "r", O: "c"}, store.NamedTriple{S: "a", R: "r", O: "c"}
	first := &store.Batch{Graph: []store.NamedTriple{a, b}, Splits: map[string][]store.NamedTriple{
		"test": {c}, "train": {a, b}, "valid": {b},
	}}
	if _, err := mem.Load(ctx, first, nil); err != nil {
		t.Fatal(err)
	}
	next := &store.Batch{Splits: map[string][]store.NamedTriple{
		"test":  {c},    // the same: not replaced
		"train": {b, a}, // the same triples in another order
		"valid": {b, c}, // one more
		"extra": {a},    // new: nothing replaced
	}}
	got, err := store.ReplacedSplits(mem, next)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.SplitChange{{Name: "train", Old: 2, New: 2}, {Name: "valid", Old: 1, New: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReplacedSplits = %+v, want %+v", got, want)
	}
}

func TestReadPaths(t *testing.T) {
	dir := t.TempDir()
	one, two := filepath.Join(dir, "one.tsv"), filepath.Join(dir, "two.tsv")
	if err := os.WriteFile(one, []byte("a\tr\tb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(two, []byte("b\tr\tc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := store.ReadPaths([]string{one, two})
	if err != nil {
		t.Fatal(err)
	}
	want := []store.NamedTriple{{S: "a", R: "r", O: "b"}, {S: "b", R: "r", O: "c"}}
	if !reflect.DeepEqual(b.Graph, want) {
		t.Errorf("ReadPaths graph = %+v, want %+v", b.Graph, want)
	}
	if b, err := store.ReadPaths([]string{one, filepath.Join(dir, "missing.tsv")}); err == nil || b != nil {
		t.Errorf("ReadPaths with a missing file = %v, %v; want no batch and an error", b, err)
	}
}
