package linkpred

import (
	"math"
	"testing"

	"github.com/drumql/drumql/store"
)

func TestChoose(t *testing.T) {
	q := func(rel store.ID) Query { return Query{Rel: rel} }
	// Relation 1: three queries; relation 2: two queries.
	qs := []Query{q(1), q(1), q(1), q(2), q(2)}
	r := func(l, h int) Rank { return Rank{L: l, H: h} }
	ranks := [][]Rank{
		// variant 0: ranks 1,1,1 on relation 1; 4,4 on relation 2.
		{r(1, 1), r(1, 1), r(1, 1), r(4, 4), r(4, 4)},
		// variant 1: 2,2,2 on relation 1; 1,1 on relation 2.
		{r(2, 2), r(2, 2), r(2, 2), r(1, 1), r(1, 1)},
		// variant 2: equal to variant 0 everywhere.
		{r(1, 1), r(1, 1), r(1, 1), r(4, 4), r(4, 4)},
	}
	// MRR: v0 = (3 + 0.5)/5 = 0.7; v1 = (1.5 + 2)/5 = 0.7; v2 = 0.7.
	// All equal: the lowest index, 0, is the default. Relation 2 is better
	// under v1 (2 > 0.5) when relations of 2 queries may choose.
	c := Choose(qs, ranks, 2)
	if c.Default != 0 {
		t.Errorf("default %d, want 0", c.Default)
	}
	if len(c.PerRelation) != 1 || c.PerRelation[2] != 1 {
		t.Errorf("per relation %v, want map[2:1]", c.PerRelation)
	}
	if math.Abs(c.Chosen-(3+2)/5.0) > 1e-12 {
		t.Errorf("chosen MRR %v, want 1", c.Chosen)
	}
	for v, m := range c.MRR {
		if math.Abs(m-0.7) > 1e-12 {
			t.Errorf("MRR[%d] = %v, want 0.7", v, m)
		}
	}
	// With at least 3 queries per relation, relation 2 keeps the default.
	c = Choose(qs, ranks, 3)
	if len(c.PerRelation) != 0 || math.Abs(c.Chosen-0.7) > 1e-12 {
		t.Errorf("minQueries 3: per relation %v, chosen %v", c.PerRelation, c.Chosen)
	}
	// Expected ties: a rank spanning 1..3 counts (1 + 1/2 + 1/3)/3.
	c = Choose([]Query{q(1)}, [][]Rank{{r(1, 3)}, {r(2, 2)}}, 1)
	if want := (1 + 0.5 + 1.0/3) / 3; c.Default != 0 || math.Abs(c.MRR[0]-want) > 1e-12 {
		t.Errorf("tied rank: default %d MRR %v, want 0 and %v", c.Default, c.MRR[0], want)
	}
	if c := Choose(nil, nil, 1); c.Default != 0 || c.Chosen != 0 {
		t.Errorf("empty: %+v", c)
	}
}
