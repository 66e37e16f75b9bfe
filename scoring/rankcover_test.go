package scoring

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
)

// rankGraph is the graph of TestTopByRank: five training facts h(aI, bI);
// p(aI, bJ) for every I and J, so that p gives every question's true
// answer level with four wrong ones; q(aI, bI) for I < 3 and s(aI, bI)
// for I >= 3, each giving its questions' true answer alone.
func rankGraph(t *testing.T) (store.Store, *store.Snapshot) {
	t.Helper()
	b, add := splitBatch()
	for i := range 5 {
		a, c := fmt.Sprint("a", i), fmt.Sprint("b", i)
		add("train", a, "h", c)
		for j := range 5 {
			add("facts", a, "p", fmt.Sprint("b", j))
		}
		if i < 3 {
			add("facts", a, "q", c)
		} else {
			add("facts", a, "s", c)
		}
	}
	st := store.NewMemory()
	if _, err := st.Load(context.Background(), b, nil); err != nil {
		t.Fatal(err)
	}
	snap, err := st.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st, snap
}

// TestTopByRank: of h's rules p (0.9), q (0.5) and s (0.4), worked out by
// hand on the ten questions of rankGraph (each fact asked both ways).
// Covering: p gives every true answer 0.9 (gain 9, against q's 3 and s's
// 1.6), then neither q nor s gives any more, and the fill by support ×
// weight adds q: {p, q}, the same as miner.TopRules. Ranking: alone, p
// ranks each true answer level with four wrong ones, 1 / (1 + 4/2) = 1/3
// (gain 10/3), q ranks its six first (gain 6) and s its four (gain 4): q;
// then s gains 4 and p 4/3 (under noisy-or q's six stay first, at 0.95
// against 0.9, and s's four rise from 0 to 1/3): {q, s}. The choice is the
// same on a second run, which asks TopByRank for the ranking set alone.
func TestTopByRank(t *testing.T) {
	st, snap := rankGraph(t)
	rules := []miner.MinedRule{coverRule("p", 0.9, 5), coverRule("q", 0.5, 3), coverRule("s", 0.4, 2)}
	names := func(rs []miner.MinedRule) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Rule.Body[0].Atom.Pred)
		}
		return out
	}
	ctx := context.Background()
	for _, tt := range []struct {
		n            int
		cover, ranks []string
	}{
		{2, []string{"p", "q"}, []string{"q", "s"}},
		{1, []string{"p"}, []string{"q"}},
		{3, []string{"p", "q", "s"}, []string{"p", "q", "s"}},
	} {
		if got := names(miner.TopRules(rules, tt.n)); !slices.Equal(got, tt.cover) {
			t.Errorf("TopRules(%d): %v, want %v", tt.n, got, tt.cover)
		}
		for run := range 2 {
			cover, ranks, err := TopSets(ctx, st, snap, rules, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if run == 1 { // the ranking set alone
				if ranks, err = TopByRank(ctx, st, snap, rules, tt.n); err != nil {
					t.Fatal(err)
				}
			}
			if got := names(cover); !slices.Equal(got, tt.cover) {
				t.Errorf("run %d: covering %d: %v, want %v", run, tt.n, got, tt.cover)
			}
			if got := names(ranks); !slices.Equal(got, tt.ranks) {
				t.Errorf("run %d: ranking %d: %v, want %v", run, tt.n, got, tt.ranks)
			}
		}
	}
}

// TestRankState: the reciprocal ranks rankState.try sums, worked out by
// hand, rule after rule.
func TestRankState(t *testing.T) {
	entries := [][]rankEntry{
		// 0: q0's truth at 0.8, level with candidates 0 and 1: 1/(1+2/2).
		{{q: 0, c: rankTruth, conf: 0.8}, {q: 0, c: 0, conf: 0.8}, {q: 0, c: 1, conf: 0.8}},
		// 1: q0's truth at 0.9 above both (1 - 1/2), and candidate 2
		// above it on q1, whose truth no rule gives yet (0).
		{{q: 0, c: rankTruth, conf: 0.9}, {q: 1, c: 2, conf: 0.7}},
		// 2: q1's truth at 0.6, under candidate 2: 1/2.
		{{q: 1, c: rankTruth, conf: 0.6}},
		// 3: q0: candidate 0 at 0.95 above the truth (1 -> 1/2); q1: past
		// RankCap candidates at 0.6, level with the truth: lost (1/2 -> 0).
		{{q: 0, c: 0, conf: 0.95}, {q: 1, c: rankOverflow, conf: 0.6}},
		// 4: q1's truth at 0.99: above all, overflow and candidate 2 (0 -> 1).
		{{q: 1, c: rankTruth, conf: 0.99}},
	}
	gains := []float64{0.5, 0.5, 0.5, -1, 1}
	s := newRankState(entries) // max
	for i, want := range gains {
		if got := s.try(entries[i], false); math.Abs(got-want) > 1e-12 {
			t.Errorf("rule %d: gain %v, want %v", i, got, want)
		}
		if got := s.try(entries[i], true); math.Abs(got-want) > 1e-12 {
			t.Errorf("rule %d: gain applied %v, want %v", i, got, want)
		}
	}
}

// TestRankEntries: the entries of two rules, p(a0, bJ) for J < 34 and
// r(a0, bJ) for J < 40, with training facts h(a0, b0) and h(a0, b1):
// asked (a0, h, ?), each fact's other answer is filtered, and of the
// wrong candidates p's 32 are all kept and r's 38 are RankCap kept and one
// overflow entry at r's confidence; asked (?, h, bJ), each gives a0, the
// true answer, alone.
func TestRankEntries(t *testing.T) {
	b, add := splitBatch()
	add("train", "a0", "h", "b0")
	add("train", "a0", "h", "b1")
	for j := range 40 {
		if j < 34 {
			add("facts", "a0", "p", fmt.Sprint("b", j))
		}
		add("facts", "a0", "r", fmt.Sprint("b", j))
	}
	st := store.NewMemory()
	ctx := context.Background()
	if _, err := st.Load(ctx, b, nil); err != nil {
		t.Fatal(err)
	}
	snap, err := st.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rules := []miner.MinedRule{coverRule("p", 0.9, 2), coverRule("r", 0.8, 2)}
	eng, facts, err := coverEngine(ctx, st, snap, rules)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := rankEntries(ctx, st, eng, "h", facts, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, over := range []int{0, 1} {
		want := map[int32]entryCount{0: {1, RankCap, over}, 1: {1, 0, 0}, 2: {1, RankCap, over}, 3: {1, 0, 0}}
		checkEntries(t, rules[i].Rule.Weight, entries[i], want)
	}
}

// entryCount is the entries of one question by kind.
type entryCount struct{ truth, wrong, over int }

// checkEntries checks a rule's entries, of confidence conf, against the
// counts want per question.
func checkEntries(t *testing.T, conf float64, entries []rankEntry, want map[int32]entryCount) {
	t.Helper()
	got := map[int32]*entryCount{}
	seen := map[[2]int32]bool{}
	for _, e := range entries {
		c := got[e.q]
		if c == nil {
			c = &entryCount{}
			got[e.q] = c
		}
		switch {
		case e.conf != conf:
			t.Errorf("entry %+v: confidence, want %v", e, conf)
		case e.c == rankTruth:
			c.truth++
		case e.c == rankOverflow:
			c.over++
		case seen[[2]int32{e.q, e.c}]:
			t.Errorf("entry %+v: candidate twice", e)
		default:
			seen[[2]int32{e.q, e.c}] = true
			c.wrong++
		}
	}
	if len(got) != len(want) {
		t.Errorf("questions %d, want %d", len(got), len(want))
	}
	for q, w := range want {
		if c := got[q]; c == nil || *c != w {
			t.Errorf("question %d: %+v, want %+v", q, c, w)
		}
	}
}

// TestRankStateNoisy: under noisy-or two rules that give the true answer
// 0.5 each lift it to 0.75, above a wrong candidate at 0.7 (1/2 -> 1);
// under max the second gains nothing.
func TestRankStateNoisy(t *testing.T) {
	entries := [][]rankEntry{
		{{q: 0, c: rankTruth, conf: 0.5}, {q: 0, c: 0, conf: 0.7}},
		{{q: 0, c: rankTruth, conf: 0.5}},
	}
	for _, noisy := range []bool{false, true} {
		s := newRankState(entries)
		s.noisy = noisy
		if got := s.try(entries[0], true); got != 0.5 {
			t.Errorf("noisy %v: first gain %v, want 0.5", noisy, got)
		}
		want := 0.0
		if noisy {
			want = 0.5
		}
		if got := s.try(entries[1], true); got != want {
			t.Errorf("noisy %v: second gain %v, want %v", noisy, got, want)
		}
	}
}

// TestChooseRank: the greedy chooses among the first RankPool of order
// only, stops when no rule gains, and fills in order.
func TestChooseRank(t *testing.T) {
	entries := make([][]rankEntry, RankPool+1)
	entries[RankPool] = []rankEntry{{q: 0, c: rankTruth, conf: 0.5}} // out of the pool
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	if got, want := chooseRank(entries, order, 2), []int{0, 1}; !slices.Equal(got, want) {
		t.Errorf("pool: %v, want %v", got, want)
	}
	entries = [][]rankEntry{
		{{q: 0, c: rankTruth, conf: 0.5}},                  // 0: gains 1
		{{q: 0, c: 0, conf: 0.9}, {q: 1, c: 0, conf: 0.1}}, // 1: loses 1/2 after 0
		nil,                               // 2: gains 0
		{{q: 1, c: rankTruth, conf: 0.3}}, // 3: gains 1
	}
	for _, tt := range []struct {
		order []int
		n     int
		want  []int
	}{
		{[]int{1, 0, 2, 3}, 2, []int{0, 3}},
		{[]int{1, 0, 2, 3}, 3, []int{0, 3, 1}},
		{[]int{2, 3, 1, 0}, 4, []int{3, 0, 2, 1}},
		{[]int{0, 1, 2, 3}, 1, []int{0}},
	} {
		for run := range 2 {
			if got := chooseRank(entries, tt.order, tt.n); !slices.Equal(got, tt.want) {
				t.Errorf("run %d: order %v, n %d: %v, want %v", run, tt.order, tt.n, got, tt.want)
			}
		}
	}
	// Under noisy-or, not max: after 0 (gain 5/2), 1 gains 1/2 on q0 (0.75
	// above 0.7) and 1 on q3, more than 2's 1 + 1/(1 + 4/2) on q2 and q4.
	entries = [][]rankEntry{
		{{q: 0, c: rankTruth, conf: 0.5}, {q: 0, c: 0, conf: 0.7}, {q: 1, c: rankTruth, conf: 0.9}, {q: 5, c: rankTruth, conf: 0.9}},
		{{q: 0, c: rankTruth, conf: 0.5}, {q: 3, c: rankTruth, conf: 0.5}},
		{{q: 2, c: rankTruth, conf: 0.3}, {q: 4, c: rankTruth, conf: 0.3}, {q: 4, c: 0, conf: 0.3},
			{q: 4, c: 1, conf: 0.3}, {q: 4, c: 2, conf: 0.3}, {q: 4, c: 3, conf: 0.3}},
	}
	if got, want := chooseRank(entries, []int{0, 1, 2}, 2), []int{0, 1}; !slices.Equal(got, want) {
		t.Errorf("noisy-or: %v, want %v", got, want)
	}
	// A stale gain: 0's 2 falls to 0 once 1 is chosen, and 2 (2) is next.
	entries = [][]rankEntry{
		{{q: 0, c: rankTruth, conf: 0.9}, {q: 1, c: rankTruth, conf: 0.9}},
		{{q: 0, c: rankTruth, conf: 0.5}, {q: 1, c: rankTruth, conf: 0.5}, {q: 2, c: rankTruth, conf: 0.5}},
		{{q: 3, c: rankTruth, conf: 0.5}, {q: 4, c: rankTruth, conf: 0.5}},
	}
	if got, want := chooseRank(entries, []int{0, 1, 2}, 2), []int{1, 2}; !slices.Equal(got, want) {
		t.Errorf("stale gain: %v, want %v", got, want)
	}
}
