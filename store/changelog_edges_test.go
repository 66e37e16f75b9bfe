package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/drumql/drumql/store"
)

// changeLogCases are single loads after a record, at the edge of a change
// log's cap of 5: want is the number of changes logged, -1 for overflow.
var changeLogCases = []struct {
	facts int
	want  int
}{
	{1, 1},
	{4, 4},
	{5, 5},
	{6, -1},
	{7, -1},
}

// TestChangeLogEdges loads each case of changeLogCases in one batch,
// after a record, into a DB and a Mem with a change log of 5.
func TestChangeLogEdges(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []struct {
		name string
		open func(t *testing.T) store.Store
	}{
		{"DB", openDB},
		{"Mem", func(*testing.T) store.Store { return store.NewMemory() }},
	} {
		name, open := kind.name, kind.open
		for _, c := range changeLogCases {
			t.Run(fmt.Sprintf("%s/%d", name, c.facts), func(t *testing.T) {
				s := open(t)
				t.Cleanup(func() { s.Close() })
				store.SetChangeLogCap(s, 5)
				if err := s.ReplaceDerivedRecord(ctx, 0, []byte("p"), func(func(store.Derived, error) bool) {}); err != nil {
					t.Fatal(err)
				}
				var b store.Batch
				for i := range c.facts {
					b.Facts = append(b.Facts, store.NamedFact{Rel: "q", Args: []string{fmt.Sprint("c", i)}})
				}
				if _, err := s.Load(ctx, &b, nil); err != nil {
					t.Fatal(err)
				}
				ms, err := s.Materialised()
				if err != nil {
					t.Fatal(err)
				}
				got := len(ms.Changes)
				if ms.Overflow {
					got = -1
				}
				if got != c.want {
					t.Errorf("%d facts loaded: %d changes (overflow %t), want %d", c.facts, len(ms.Changes), ms.Overflow, c.want)
				}
			})
		}
	}
}
