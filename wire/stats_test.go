package wire

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/drumql/drumql/store"
)

func TestNewStats(t *testing.T) {
	ctx := context.Background()
	mem := store.NewMemory()
	defer mem.Close()
	empty, err := store.Summarize(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(NewStats(empty))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"entities":0,"symbols":0,"relations":0,"base_facts":0,"derived_facts":0,"per_relation":[],"splits":{}}`
	if string(b) != want {
		t.Errorf("empty store:\n got %s\nwant %s", b, want)
	}
	batch := &store.Batch{
		Graph:  []store.NamedTriple{{S: "a", R: "r", O: "b"}, {S: "b", R: "r", O: "c"}, {S: "a", R: "s", O: "c"}},
		Splits: map[string][]store.NamedTriple{"test": {{S: "a", R: "r", O: "c"}}},
	}
	if _, err := mem.Load(ctx, batch, nil); err != nil {
		t.Fatal(err)
	}
	sum, err := store.Summarize(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	st := NewStats(sum)
	if st.Entities != 3 || st.Relations != 2 || st.BaseFacts != 3 || st.DerivedFacts != 0 || st.Splits["test"] != 1 || st.DiskBytes != nil {
		t.Errorf("NewStats = %+v, want 3 entities, 2 relations, 3 base facts, a test split of 1, no disk size", st)
	}
	if len(st.PerRelation) != 2 || st.PerRelation[0].Name != "r" || st.PerRelation[0].Base != 2 {
		t.Errorf("per relation = %+v, want r with 2 base facts first", st.PerRelation)
	}
}

// TestStatsWriteTable: the counts aligned by tabwriter, the size on disk
// in binary units, the layer of changes over the derived facts, the splits
// sorted by name, a row per relation.
func TestStatsWriteTable(t *testing.T) {
	disk, reclaim := int64(3<<20+1<<19), int64(2048)
	st := &Stats{Entities: 3, Relations: 2, BaseFacts: 3, DerivedFacts: 1, DiskBytes: &disk, ReclaimableBytes: &reclaim,
		Layer:       &Layer{Entries: 13237, MergeAt: 2966554},
		Splits:      map[string]int{"valid": 2, "test": 1},
		PerRelation: []Relation{{Name: "r", Arity: 2, Base: 2, Derived: 1}, {Name: "a_long_relation", Arity: 2, Base: 1}}}
	var b strings.Builder
	if err := st.WriteTable(&b, "kg.db"); err != nil {
		t.Fatal(err)
	}
	want := `store:         kg.db
entities:      3
relations:     2
base facts:    3
derived facts: 1
on disk:       3.5 MiB (2.0 KiB reclaimable)
layer:         13237 changes over the derived facts (merged into them past 2966554)
splits:        test=1 valid=2

relation         arity       base    derived
r                    2          2          1
a_long_relation      2          1          0
`
	if b.String() != want {
		t.Errorf("WriteTable:\n%s\nwant\n%s", b.String(), want)
	}
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 5 << 30: "5.0 GiB", 1<<30 - 1: "1024.0 MiB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
