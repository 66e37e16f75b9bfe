package linkpred

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/store/storetest"
)

// A store is what the package reads.
var _ Dataset = store.Store(nil)

// priorSnapshot is a graph of two relations over entities 10, 20, 30, 40:
//
//	100: 10→20, 10→30, 20→30
//	200: 40→10
func priorSnapshot() *store.Snapshot {
	return &store.Snapshot{
		Entities:  []store.ID{10, 20, 30, 40},
		Relations: []store.ID{100, 200},
		Out: []store.CSR{
			{RowPtr: []int32{0, 2, 3, 3, 3}, Col: []int32{1, 2, 2}},
			{RowPtr: []int32{0, 0, 0, 0, 1}, Col: []int32{0}},
		},
		In: []store.CSR{
			{RowPtr: []int32{0, 0, 1, 3, 3}, Col: []int32{0, 0, 1}},
			{RowPtr: []int32{0, 1, 1, 1, 1}, Col: []int32{3}},
		},
	}
}

func TestSlotPrior(t *testing.T) {
	// Candidate positions: 40→0, 30→1, 20→2, 10→3, 99→4 (not in the graph).
	all := []store.ID{40, 30, 20, 10, 99}
	// Without 20: it is left out of every slot.
	no20 := []store.ID{10, 30, 40}
	cases := []struct {
		name       string
		entities   []store.ID
		rel        store.ID
		tail       bool
		wantEnts   []int32
		wantCounts []float32
	}{
		// Objects of 100: 20 once (position 2), 30 twice (position 1).
		{"objects", all, 100, true, []int32{1, 2}, []float32{2, 1}},
		// Subjects of 100: 10 twice (position 3), 20 once (position 2).
		{"subjects", all, 100, false, []int32{2, 3}, []float32{1, 2}},
		{"objects of 200", all, 200, true, []int32{3}, []float32{1}},
		{"subjects of 200", all, 200, false, []int32{0}, []float32{1}},
		{"unknown relation", all, 300, true, nil, nil},
		// Positions in no20: 10→0, 30→1, 40→2.
		{"objects, 20 not a candidate", no20, 100, true, []int32{1}, []float32{2}},
		{"subjects, 20 not a candidate", no20, 100, false, []int32{0}, []float32{2}},
		{"no candidates", nil, 100, true, nil, nil},
	}
	// The same graph with its adjacencies hypersparse (rows with facts only).
	hyper := storetest.Hypersparse(priorSnapshot())
	for _, c := range cases {
		for _, snap := range []*store.Snapshot{priorSnapshot(), hyper} {
			t.Run(fmt.Sprintf("%s/hypersparse=%v", c.name, snap.Out[0].Hypersparse()), func(t *testing.T) {
				p := NewSlotPrior(snap, c.entities)
				ents, counts := p.Slot(c.rel, c.tail)
				if fmt.Sprint(ents) != fmt.Sprint(c.wantEnts) || fmt.Sprint(counts) != fmt.Sprint(c.wantCounts) {
					t.Errorf("Slot(%d, %t) = %v %v, want %v %v", c.rel, c.tail, ents, counts, c.wantEnts, c.wantCounts)
				}
			})
		}
	}
}

func TestSlotPriorExtend(t *testing.T) {
	p := NewSlotPrior(priorSnapshot(), []store.ID{40, 30, 20, 10, 99})
	cases := []struct {
		name   string
		q      Query
		listed []Candidate
		want   string // entity:score:ties:lazy of every candidate, in order
	}{
		// Tail query on 100: 30 (position 1) is listed by a rule, so only
		// 20 (position 2, count 1) is added.
		{"tail, one listed", Query{Rel: 100, Inverse: true}, []Candidate{{Entity: 1, Score: 0.5}},
			"[{1 0.5 [] false} {2 0 [1] false}]"},
		// Head query on 100: 10 (count 2) then 20 (count 1).
		{"head, none listed", Query{Rel: 100}, nil, "[{2 0 [1] false} {3 0 [2] false}]"},
		{"all listed", Query{Rel: 100}, []Candidate{{Entity: 2, Score: 0.1}, {Entity: 3, Score: 0.2}},
			"[{2 0.1 [] false} {3 0.2 [] false}]"},
		{"unknown relation", Query{Rel: 300, Inverse: true}, []Candidate{{Entity: 4, Score: 0.3}},
			"[{4 0.3 [] false}]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Scores{Sparse: append([]Candidate(nil), c.listed...)}
			p.Extend(c.q, &s)
			full := expandPrior(s)
			if got := fmt.Sprint(full); got != c.want {
				t.Errorf("Extend: %s, want %s", got, c.want)
			}
			// Ranking the prior in place ranks as the listed candidates
			// would, for every answer (or none) and every filtered entity.
			for a := int32(-1); a < 5; a++ {
				for ex := int32(-1); ex < 5; ex++ {
					if ex == a && a >= 0 {
						continue
					}
					rank := func(s Scores) Rank {
						w := newWorker(5, nil, nil, nil, 1)
						w.nextGen()
						eligible := 5
						if ex >= 0 {
							w.excl[ex] = w.gen
							w.ex = append(w.ex, ex)
							eligible--
						}
						if a >= 0 {
							eligible--
						}
						r, _, err := w.rankSparse(a, eligible, s.Sparse, s.prior)
						if err != nil {
							t.Fatal(err)
						}
						return r
					}
					lazy, listed := rank(s), rank(Scores{Sparse: full})
					if lazy != listed {
						t.Errorf("answer %d, filtered %d: rank %v with the prior in place, %v listed", a, ex, lazy, listed)
					}
				}
			}
		})
	}
}

// expandPrior lists the prior's candidates of s after its sparse ones, as
// candidates with score 0 and their count as tie-breaker, skipping those
// already listed.
func expandPrior(s Scores) []Candidate {
	out := append([]Candidate(nil), s.Sparse...)
	if s.prior == nil {
		return out
	}
	for k, e := range s.prior.ents {
		if !slices.ContainsFunc(s.Sparse, func(c Candidate) bool { return c.Entity == e }) {
			out = append(out, Candidate{Entity: e, Ties: []float32{s.prior.counts[k]}})
		}
	}
	return out
}

// TestSlotPriorRandom compares the ranking with the prior read in place
// against the same candidates listed one by one (expandPrior), on random
// slots with many equal counts, random listed candidates (some with score
// 0, some with tie-breakers), several filtered entities and every answer.
func TestSlotPriorRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 40
	for trial := range 300 {
		var ps priorSlot
		for e := range int32(n) {
			if rng.IntN(3) > 0 {
				ps.ents = append(ps.ents, e)
				ps.counts = append(ps.counts, float32(1+rng.IntN(4)))
			}
		}
		if len(ps.ents) == 0 {
			continue
		}
		ps.sorted = slices.Clone(ps.counts)
		slices.Sort(ps.sorted)
		var listed []Candidate
		for _, e := range rng.Perm(n)[:rng.IntN(n/2)] {
			c := Candidate{Entity: int32(e)}
			switch rng.IntN(4) {
			case 0: // score 0, a count-like tie-breaker
				c.Ties = []float32{float32(rng.IntN(5))}
			case 1: // score 0, two tie-breakers
				c.Ties = []float32{float32(rng.IntN(5)), 1}
			case 2:
				c.Score = float32(rng.IntN(3)) / 4
			default:
				c.Score = -0.5
			}
			listed = append(listed, c)
		}
		excluded := rng.Perm(n)[:rng.IntN(5)]
		s := Scores{Sparse: listed, prior: &ps}
		full := expandPrior(s)
		for a := int32(-1); a < n; a++ {
			rank := func(cs []Candidate, prior *priorSlot) Rank {
				w := newWorker(n, nil, nil, nil, 1)
				w.nextGen()
				eligible := n
				for _, e := range excluded {
					if int32(e) != a {
						w.excl[e] = w.gen
						w.ex = append(w.ex, int32(e))
						eligible--
					}
				}
				if a >= 0 {
					eligible--
				}
				r, _, err := w.rankSparse(a, eligible, cs, prior)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			if lazy, want := rank(s.Sparse, s.prior), rank(full, nil); lazy != want {
				t.Fatalf("trial %d, answer %d: rank %v with the prior in place, %v listed", trial, a, lazy, want)
			}
		}
	}
}
