package combine

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/query"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestTopHits checks the k best hits kept per candidate against every hit
// grouped and ordered as rescored orders them, highest first: the same
// confidences in the same order (the noisy-or product is then the same,
// bit for bit),
// through reuses of the scratch and candidates past its dense size.
func TestTopHits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 35))
	const dense = 20
	th := query.NewTopHits(dense)
	for round := range 200 {
		k := 1 + rng.IntN(query.MaxTopHits)
		th.Reset(k)
		all := map[uint32][]query.HitEntry{}
		for _, r := range rng.Perm(30) {
			for c := range uint32(dense + 5) {
				if rng.IntN(3) == 0 {
					// Few distinct confidences: ties among the best.
					v := float64(1+rng.IntN(6)) / 8
					th.Add(c, v)
					all[c] = append(all[c], query.HitEntry{C: int32(c), R: int32(r), S: v})
				}
			}
		}
		for c, hs := range all {
			slices.SortFunc(hs, func(a, b query.HitEntry) int { return cmp.Compare(a.R, b.R) })
			want := make([]float64, len(hs))
			for i, h := range hs {
				want[i] = h.S
			}
			slices.SortFunc(want, func(a, b float64) int { return cmp.Compare(b, a) })
			want = want[:min(k, len(want))]
			s, ok := th.Find(c)
			if !ok {
				t.Fatalf("round %d: candidate %d not found", round, c)
			}
			if got := th.Confs(s); !slices.Equal(got, want) {
				t.Fatalf("round %d, k %d, candidate %d: got %v, want %v", round, k, c, got, want)
			}
		}
		if _, ok := th.Find(dense + 7); ok {
			t.Fatalf("round %d: a candidate without hits found", round)
		}
	}
}

// TestCandidateConfs checks the grouping of every hit (noisy-or over every
// rule) against sorting the hits by candidate and rule: each answer's
// confidences in rule order, none for an answer without hits.
func TestCandidateConfs(t *testing.T) {
	ctx := context.Background()
	var tsv strings.Builder
	for i := range 30 {
		fmt.Fprintf(&tsv, "n%d\te\tn%d\n", i, (i+1)%30)
	}
	st := testkit.NewStore(t, tsv.String())
	sn, err := PrepareStoredNoisyOr(ctx, st, &datalog.Program{}, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 8))
	sc := query.NewWScratch(int(sn.en.Syms.NStore))
	const rules = 40
	for round := range 50 {
		var hits []query.HitEntry
		want := map[string][]query.HitEntry{}
		for _, r := range rng.Perm(rules) {
			for i := range 30 {
				if rng.IntN(4) == 0 {
					name := fmt.Sprint("n", i)
					c, ok := sn.en.Syms.Lookup(name)
					if !ok {
						t.Fatalf("%s not in the store", name)
					}
					h := query.HitEntry{C: int32(c), R: int32(r), S: rng.Float64()}
					hits = append(hits, h)
					want[name] = append(want[name], h)
				}
			}
		}
		confOf, err := sn.candidateConfs(sc, hits, rules)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 30 {
			name := fmt.Sprint("n", i)
			hs := want[name]
			slices.SortFunc(hs, func(a, b query.HitEntry) int { return cmp.Compare(a.R, b.R) })
			var w []float64
			for _, h := range hs {
				w = append(w, h.S)
			}
			if got := confOf([]string{name}); !slices.Equal(got, w) {
				t.Fatalf("round %d, %s: %v, want %v", round, name, got, w)
			}
		}
	}
}
