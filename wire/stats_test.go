package wire

import (
	"context"
	"encoding/json"
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
