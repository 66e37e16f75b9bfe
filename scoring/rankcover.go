package scoring

import (
	"container/heap"
	"context"

	"github.com/drumql/drumql/internal/gainheap"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// RankCap is the number of wrong candidates of one cover question a rule's
// predictions keep for [TopByRank], the first the reasoner gives: past
// them only their best confidence is kept, and while that reaches the
// true answer's score the question counts as lost (reciprocal rank 0; the
// answer ranks below RankCap/2 at best).
const RankCap = 32

// RankPool is the number of a head's rules, the first by support ×
// weight (CoverOrder), among which [TopByRank] chooses by rank: a choice
// among all fits the cover questions and ranks held-out ones worse.
const RankPool = 50

// Positions of rankEntry.c that are not candidates.
const (
	rankTruth    = -1 // the question's true answer
	rankOverflow = -2 // the rule's wrong candidates past RankCap, at their best confidence
)

// rankEntry is one rule's confidence for one candidate of one cover
// question: c is the candidate's position among the question's candidates,
// or rankTruth, or rankOverflow.
type rankEntry struct {
	q, c int32
	conf float64
}

// TopByRank returns, per head relation, the n rules of rules (in
// MergeRules' order) that together rank the true answers of its cover
// questions best: the questions of [TopByCoverage], each rule's
// predictions on them computed once (the rules applied to the graph at
// reasoner.RankMin), and the rules chosen greedily, among the RankPool
// first by support × weight (CoverOrder), by what each adds to the sum
// over the questions of the reciprocal rank of the true answer when the
// chosen rules rank together under noisy-or: the true answer ranks 1 +
// the candidates that score above it + half of those level with it, the
// question's other true answers left out (filtered), and a question whose
// answer no chosen rule gives counts 0. A rule that reaches the answer
// among many candidates adds little, and one that pushes wrong answers
// above answers the chosen rules rank well loses. The greedy is lazy
// (gains recomputed when they reach the top; among equal gains the
// earlier by support × weight) and stops when no rule gains; the rest of
// the n are the first by support × weight not chosen. The result keeps
// rules' order. n <= 0 keeps every rule.
func TopByRank(ctx context.Context, st store.Store, snap *store.Snapshot, rules []miner.MinedRule, n int) ([]miner.MinedRule, error) {
	_, rank, err := TopSets(ctx, st, snap, rules, n)
	return rank, err
}

// TopSets returns TopByCoverage's and TopByRank's sets at once, from one
// application of the rules to the cover questions.
func TopSets(ctx context.Context, st store.Store, snap *store.Snapshot, rules []miner.MinedRule, n int) (cover, rank []miner.MinedRule, err error) {
	if n <= 0 {
		return rules, rules, nil
	}
	order := CoverOrder(rules)
	keepCover := make([]bool, len(rules))
	keepRank := make([]bool, len(rules))
	var facts map[store.ID][]store.Triple
	var eng *reasoner.Engine
	for lo := 0; lo < len(rules); {
		hi := lo
		for hi < len(rules) && rules[hi].Head == rules[lo].Head {
			hi++
		}
		if hi-lo <= n {
			for i := lo; i < hi; i++ {
				keepCover[i], keepRank[i] = true, true
			}
			lo = hi
			continue
		}
		if eng == nil {
			if eng, facts, err = coverEngine(ctx, st, snap, rules); err != nil {
				return nil, nil, err
			}
		}
		entries, err := rankEntries(ctx, st, eng, rules[lo].Head, facts, lo, hi)
		if err != nil {
			return nil, nil, err
		}
		covering := chooseCover(truthHits(entries), order[lo:hi], n)
		for _, i := range covering {
			keepCover[lo+i] = true
		}
		for _, i := range chooseRank(entries, order[lo:hi], n) {
			keepRank[lo+i] = true
		}
		lo = hi
	}
	return keepRules(rules, keepCover), keepRules(rules, keepRank), nil
}

// keepRules returns the rules whose keep is set, in order.
func keepRules(rules []miner.MinedRule, keep []bool) []miner.MinedRule {
	out := make([]miner.MinedRule, 0, len(rules))
	for i, r := range rules {
		if keep[i] {
			out = append(out, r)
		}
	}
	return out
}

// truthHits returns, per rule, the questions whose true answer it gives,
// with its confidence: the cover entries of chooseCover.
func truthHits(entries [][]rankEntry) [][]coverHit {
	out := make([][]coverHit, len(entries))
	for i, es := range entries {
		for _, e := range es {
			if e.c == rankTruth {
				out[i] = append(out[i], coverHit{q: e.q, conf: e.conf})
			}
		}
	}
	return out
}

// rankEntries returns, for the rules lo..hi of head (positions within the
// run), their predictions on head's cover questions, in question order:
// the true answer's confidence, up to RankCap wrong candidates (the first
// the reasoner gives) with theirs, and the best confidence of the wrong
// candidates past those. A rule's several confidences for one candidate
// count once, at their best; the question's other true answers among
// facts are left out.
func rankEntries(ctx context.Context, st store.Store, eng *reasoner.Engine, head string, facts map[store.ID][]store.Triple, lo, hi int) ([][]rankEntry, error) {
	out := make([][]rankEntry, hi-lo)
	rel, ok, err := st.Lookup(head)
	if err != nil || !ok {
		return out, err
	}
	known := map[[3]store.ID]bool{} // (given, direction, answer)
	for _, t := range facts[rel] {
		known[[3]store.ID{t.S, 0, t.O}] = true
		known[[3]store.ID{t.O, 1, t.S}] = true
	}
	count := make([]int, hi-lo)    // wrong candidates kept on this question
	over := make([]float64, hi-lo) // best confidence past them, 0: none
	last := make([]int32, hi-lo)   // the last question with an entry, -1: none
	for i := range last {
		last[i] = -1
	}
	var touched []int32 // the rules with an entry on this question
	for k, t := range spreadTriples(facts[rel], CoverFacts) {
		for dir, given := range []store.ID{t.S, t.O} {
			truth := []store.ID{t.O, t.S}[dir]
			name, err := st.Name(given)
			if err != nil {
				return nil, err
			}
			q := int32(2*k + dir)
			cands := map[store.ID]int32{}
			touched = touched[:0]
			err = eng.EachRuleHit(ctx, head, name, dir == 1, func(id store.ID, hs []reasoner.RuleScore) {
				c := int32(rankTruth)
				if id != truth {
					if known[[3]store.ID{given, store.ID(dir), id}] {
						return // another true answer: filtered
					}
					var seen bool
					if c, seen = cands[id]; !seen {
						c = int32(len(cands))
						cands[id] = c
					}
				}
				for _, h := range hs {
					i := int32(int(h.Rule) - lo)
					if i < 0 || int(i) >= hi-lo {
						continue
					}
					if last[i] != q {
						last[i] = q
						touched = append(touched, i)
					} else if l := len(out[i]); l > 0 && out[i][l-1].q == q && out[i][l-1].c == c {
						// A rule's hits of one candidate come in one call.
						out[i][l-1].conf = max(out[i][l-1].conf, h.Score)
						continue
					}
					if c != rankTruth {
						if count[i] == RankCap {
							over[i] = max(over[i], h.Score)
							continue
						}
						count[i]++
					}
					out[i] = append(out[i], rankEntry{q: q, c: c, conf: h.Score})
				}
			})
			if err != nil {
				return nil, err
			}
			for _, i := range touched {
				if over[i] > 0 {
					out[i] = append(out[i], rankEntry{q: q, c: rankOverflow, conf: over[i]})
				}
				count[i], over[i] = 0, 0
			}
		}
	}
	return out, nil
}

// rankState is the chosen rules' ranking of the cover questions: each
// candidate's score combines the chosen rules' confidences for it, under
// noisy-or (1 - the product of 1 - confidence) or max.
type rankState struct {
	truth        []float64           // the true answer's score, 0: no chosen rule gives it
	over         []float64           // the best overflow confidence chosen, 0: none
	score        []map[int32]float64 // each wrong candidate's score
	above, level []int               // the candidates above the truth, and level with it
	rr           []float64           // the question's reciprocal rank
	noisy        bool                // noisy-or, else max
}

// newRankState returns the state of no rule chosen for the questions of
// entries.
func newRankState(entries [][]rankEntry) *rankState {
	qs := int32(0)
	for _, es := range entries {
		if l := len(es); l > 0 {
			qs = max(qs, es[l-1].q+1)
		}
	}
	return &rankState{truth: make([]float64, qs), over: make([]float64, qs), score: make([]map[int32]float64, qs),
		above: make([]int, qs), level: make([]int, qs), rr: make([]float64, qs)}
}

// rankOf is the reciprocal rank of a true answer of confidence truth with
// above candidates above it and level level with it, or 0 when no rule
// gives it or an overflow confidence of over reaches it.
func rankOf(truth, over float64, above, level int) float64 {
	if truth == 0 || over >= truth {
		return 0
	}
	return 1 / (1 + float64(above) + float64(level)/2)
}

// place returns +1 for a candidate of confidence conf above a true answer
// of confidence truth, 0 level with it, and -1 below.
func place(conf, truth float64) int {
	switch {
	case conf > truth:
		return 1
	case conf == truth:
		return 0
	}
	return -1
}

// try returns the change in the sum of reciprocal ranks if the rule of
// entries es were chosen, and applies it when commit is set.
func (s *rankState) try(es []rankEntry, commit bool) float64 {
	gain := 0.0
	for lo := 0; lo < len(es); {
		q := es[lo].q
		hi := lo
		truth, over := s.truth[q], s.over[q]
		for hi < len(es) && es[hi].q == q {
			switch es[hi].c {
			case rankTruth:
				truth = s.add(truth, es[hi].conf)
			case rankOverflow:
				over = max(over, es[hi].conf)
			}
			hi++
		}
		above, level := s.above[q], s.level[q]
		if truth != s.truth[q] {
			above, level = 0, 0
			for _, conf := range s.score[q] {
				above, level = count(above, level, place(conf, truth), 1)
			}
		}
		for _, e := range es[lo:hi] {
			if e.c < 0 {
				continue
			}
			old := s.score[q][e.c]
			conf := s.add(old, e.conf)
			if conf == old {
				continue
			}
			if old > 0 {
				above, level = count(above, level, place(old, truth), -1)
			}
			above, level = count(above, level, place(conf, truth), 1)
			if commit {
				if s.score[q] == nil {
					s.score[q] = map[int32]float64{}
				}
				s.score[q][e.c] = conf
			}
		}
		rr := rankOf(truth, over, above, level)
		gain += rr - s.rr[q]
		if commit {
			s.truth[q], s.over[q], s.above[q], s.level[q], s.rr[q] = truth, over, above, level, rr
		}
		lo = hi
	}
	return gain
}

// add combines a candidate's score with one more rule's confidence.
func (s *rankState) add(score, conf float64) float64 {
	if s.noisy {
		return 1 - (1-score)*(1-conf)
	}
	return max(score, conf)
}

// count adds d to above or level as p places a candidate.
func count(above, level, p, d int) (int, int) {
	switch p {
	case 1:
		above += d
	case 0:
		level += d
	}
	return above, level
}

// chooseRank returns n positions (of len(entries) rules): chosen
// greedily among the first RankPool of order by the gain in the sum of
// reciprocal ranks of the cover questions' true answers under noisy-or
// (rankState.try) while a rule gains, lazily (a rule's gain is recomputed
// when it reaches the top of the heap, and taken when it still leads;
// among equal gains the earlier in order), then the first of order not
// chosen.
func chooseRank(entries [][]rankEntry, order []int, n int) []int {
	return fillInOrder(chooseRankIn(entries, order[:min(RankPool, len(order))], n, true), order, n)
}

// fillInOrder appends to chosen the first of order not in it until it
// holds n.
func fillInOrder(chosen, order []int, n int) []int {
	in := make(map[int]bool, len(chosen))
	for _, i := range chosen {
		in[i] = true
	}
	for _, i := range order {
		if len(chosen) >= n {
			break
		}
		if !in[i] {
			chosen = append(chosen, i)
		}
	}
	return chosen
}

// chooseRankIn is chooseRank's greedy among the rules of pool, under
// noisy-or or max: at most n, each with a positive gain.
func chooseRankIn(entries [][]rankEntry, pool []int, n int, noisy bool) []int {
	s := newRankState(entries)
	s.noisy = noisy
	h := &gainheap.Heap{}
	for rank, i := range pool {
		h.Items = append(h.Items, gainheap.Item{Gain: s.try(entries[i], false), Rank: rank, I: i})
	}
	heap.Init(h)
	var out []int
	for len(out) < n && h.Len() > 0 {
		// Gains are not submodular: a stale one may be too high or too low.
		// The top's is recomputed, and it is taken when it still leads.
		i := h.Items[0].I
		if g := s.try(entries[i], false); g != h.Items[0].Gain {
			h.Items[0].Gain = g
			heap.Fix(h, 0)
			if h.Items[0].I != i {
				continue
			}
		}
		if h.Items[0].Gain <= 0 {
			break
		}
		heap.Pop(h)
		s.try(entries[i], true)
		out = append(out, i)
	}
	return out
}
