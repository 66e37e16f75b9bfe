package linkpred

import (
	"slices"

	"github.com/drumql/drumql/store"
)

// Choice is the outcome of [Choose]: which variant of a scorer ranks
// held-out queries best, overall and per relation.
type Choice struct {
	// Default is the variant with the highest MRR (expected ties) over all
	// queries; the lowest index among equals.
	Default int
	// PerRelation maps a relation to its own best variant, for the
	// relations with at least the minimum number of queries whose best
	// variant beats Default on their queries.
	PerRelation map[store.ID]int
	// MRR is each variant's MRR over all queries.
	MRR []float64
	// Chosen is the MRR of the choice: per relation where PerRelation has
	// one, Default elsewhere.
	Chosen float64
}

// Choose picks among k variants ranked on the same queries (ranks[v][i] is
// the rank of qs[i] under variant v, as [EvaluateVariants] reports them with
// Options.PerQuery): the best variant overall, and for each relation with at
// least minQueries queries (both directions counted) the variant that is best
// on that relation's queries when it beats the overall best there. The
// criterion is the mean reciprocal rank under [Expected] ties; among equal
// variants the lowest index wins, so list simpler variants first.
func Choose(qs []Query, ranks [][]Rank, minQueries int) Choice {
	k := len(ranks)
	c := Choice{PerRelation: map[store.ID]int{}, MRR: make([]float64, k)}
	if k == 0 || len(qs) == 0 {
		return c
	}
	type acc struct {
		n  int
		rr []float64
	}
	byRel := map[store.ID]*acc{}
	var rels []store.ID
	for i, q := range qs {
		a := byRel[q.Rel]
		if a == nil {
			a = &acc{rr: make([]float64, k)}
			byRel[q.Rel] = a
			rels = append(rels, q.Rel)
		}
		a.n++
		for v := range k {
			rr := ranks[v][i].Reciprocal(Expected)
			a.rr[v] += rr
			c.MRR[v] += rr
		}
	}
	best := func(xs []float64) int {
		b := 0
		for v := 1; v < len(xs); v++ {
			if xs[v] > xs[b] {
				b = v
			}
		}
		return b
	}
	c.Default = best(c.MRR)
	slices.Sort(rels)
	total := 0.0
	for _, r := range rels {
		a := byRel[r]
		v := c.Default
		if a.n >= minQueries {
			if b := best(a.rr); a.rr[b] > a.rr[c.Default] {
				v = b
				c.PerRelation[r] = b
			}
		}
		total += a.rr[v]
	}
	for v := range c.MRR {
		c.MRR[v] /= float64(len(qs))
	}
	c.Chosen = total / float64(len(qs))
	return c
}
