package scoring

import (
	"context"
	"fmt"
	"testing"

	"github.com/drumql/drumql/store"
)

// TestValidQueriesThinned: a valid split larger than tuneMaxQueries is
// thinned to whole (head, tail) pairs of every k-th triple.
func TestValidQueriesThinned(t *testing.T) {
	st := store.NewMemory()
	b := &store.Batch{Splits: map[string][]store.NamedTriple{}}
	n := tuneMaxQueries/2 + 7 // triples: 2n queries > tuneMaxQueries
	for i := range n {
		nt := store.NamedTriple{S: fmt.Sprint("s", i), R: "r", O: fmt.Sprint("o", i)}
		b.Splits["valid"] = append(b.Splits["valid"], nt)
		b.Graph = append(b.Graph, nt)
	}
	if _, err := st.Load(context.Background(), b, nil); err != nil {
		t.Fatal(err)
	}
	qs, err := ValidQueries(st)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) > tuneMaxQueries || len(qs) < tuneMaxQueries/4 || len(qs)%2 != 0 {
		t.Fatalf("%d queries from %d triples", len(qs), n)
	}
	for i := 0; i < len(qs); i += 2 {
		if qs[i].Inverse || !qs[i+1].Inverse || qs[i].Answer != qs[i+1].Given || qs[i].Given != qs[i+1].Answer {
			t.Fatalf("queries %d and %d are not the two directions of one triple", i, i+1)
		}
	}
}
