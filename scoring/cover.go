package scoring

import (
	"cmp"
	"container/heap"
	"context"
	"slices"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/gainheap"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// CoverFacts is the number of a head relation's training facts, evenly
// spread over them, whose answers decide which of its rules cover the
// most ([TopByCoverage]).
const CoverFacts = 500

// CoverSplit is the split whose facts of a relation are its cover facts
// when the store has it; else the graph's facts of the relation.
const CoverSplit = "train"

// TopByCoverage returns, per head relation, the n rules of rules (in
// MergeRules' order, as drumql mine writes them) that together cover the
// most: its CoverFacts cover facts are each asked in both directions,
// (s, r, ?) and (?, r, o), the rules applied once to the graph (snap, at
// reasoner.RankMin), and the rules are chosen greedily to maximise the sum
// over those questions of the best confidence a chosen rule gives the true
// answer — the score max gives the answers a reader checks the rules on.
// A rule that only predicts what a more confident chosen rule predicts
// gains nothing, so the n spread over the relation's facts instead of
// repeating its commonest pattern. When no rule left gains anything, the
// rest of the n are the first of miner.TopRules' order (support ×
// weight) not chosen. The result keeps rules' order. n <= 0 keeps every
// rule.
func TopByCoverage(ctx context.Context, st store.Store, snap *store.Snapshot, rules []miner.MinedRule, n int) ([]miner.MinedRule, error) {
	cover, _, err := TopSets(ctx, st, snap, rules, n)
	return cover, err
}

// coverEngine prepares rules to be applied to the graph (snap, at
// reasoner.RankMin) and returns the cover facts of every relation.
func coverEngine(ctx context.Context, st store.Store, snap *store.Snapshot, rules []miner.MinedRule) (*reasoner.Engine, map[store.ID][]store.Triple, error) {
	prog := &datalog.Program{Rules: miner.DatalogRules(rules)}
	eng, err := reasoner.Prepare(ctx, st, prog, reasoner.Options{Min: reasoner.RankMin, BaseOnly: true, Snapshot: snap, LazyLoad: true})
	if err != nil {
		return nil, nil, err
	}
	facts, err := coverFacts(st)
	if err != nil {
		return nil, nil, err
	}
	return eng, facts, nil
}

// CoverOrder returns, for each head's run of rules, the positions within
// the run in miner.TopRules' order (support × weight, then weight, then
// position): the order TopByCoverage falls back on.
func CoverOrder(rules []miner.MinedRule) []int {
	out := make([]int, len(rules))
	for lo := 0; lo < len(rules); {
		hi := lo
		for hi < len(rules) && rules[hi].Head == rules[lo].Head {
			hi++
		}
		idx := out[lo:hi]
		for i := range idx {
			idx[i] = i
		}
		value := func(i int) float64 { return float64(rules[lo+i].Support) * rules[lo+i].Rule.Weight }
		slices.SortStableFunc(idx, func(a, b int) int {
			return cmp.Or(cmp.Compare(value(b), value(a)), cmp.Compare(rules[lo+b].Rule.Weight, rules[lo+a].Rule.Weight))
		})
		lo = hi
	}
	return out
}

// coverFacts returns the facts of every relation whose questions decide
// its cover: CoverSplit's triples when the store has that split, else the
// graph's binary facts. At most CoverFacts of them, evenly spread
// (spreadTriples), are asked; all are the true answers filtered.
func coverFacts(st store.Store) (map[store.ID][]store.Triple, error) {
	out := map[store.ID][]store.Triple{}
	splits, err := st.Splits()
	if err != nil {
		return nil, err
	}
	if slices.Contains(splits, CoverSplit) {
		for t, err := range st.Split(CoverSplit) {
			if err != nil {
				return nil, err
			}
			out[t.R] = append(out[t.R], t)
		}
	} else {
		rels, err := st.Relations()
		if err != nil {
			return nil, err
		}
		for _, rel := range rels {
			for f, err := range st.Scan(rel.Rel) {
				if err != nil {
					return nil, err
				}
				if len(f.Args) == 2 {
					out[rel.Rel] = append(out[rel.Rel], store.Triple{S: f.Args[0], R: rel.Rel, O: f.Args[1]})
				}
			}
		}
	}
	return out, nil
}

// coverHit is a question a rule answers truly, with its confidence.
type coverHit struct {
	q    int32
	conf float64
}

// spreadTriples returns at most n of ts, evenly spread, in order.
func spreadTriples(ts []store.Triple, n int) []store.Triple {
	if len(ts) <= n {
		return ts
	}
	out := make([]store.Triple, n)
	for i := range out {
		out[i] = ts[i*len(ts)/n]
	}
	return out
}

// chooseCover returns n positions (of len(hits) rules) chosen greedily to
// maximise the sum over questions of the best confidence of a chosen rule
// that answers it truly (lazy greedy: gains only shrink as rules are
// chosen; among equal gains the earlier in order), then, when nothing
// gains, the first of order not chosen.
func chooseCover(hits [][]coverHit, order []int, n int) []int {
	best := map[int32]float64{}
	gain := func(i int) float64 {
		g := 0.0
		for _, h := range hits[i] {
			if d := h.conf - best[h.q]; d > 0 {
				g += d
			}
		}
		return g
	}
	h := &gainheap.Heap{}
	for rank, i := range order {
		h.Items = append(h.Items, gainheap.Item{Gain: gain(i), Rank: rank, I: i})
	}
	heap.Init(h)
	chosen := make([]bool, len(hits))
	var out []int
	for len(out) < n && h.Len() > 0 {
		top := &h.Items[0]
		if g := gain(top.I); g < top.Gain {
			top.Gain = g
			heap.Fix(h, 0)
			continue
		}
		it := heap.Pop(h).(gainheap.Item)
		if it.Gain <= 0 {
			break
		}
		chosen[it.I] = true
		out = append(out, it.I)
		for _, x := range hits[it.I] {
			best[x.q] = max(best[x.q], x.conf)
		}
	}
	for _, i := range order {
		if len(out) == n {
			break
		}
		if !chosen[i] {
			chosen[i] = true
			out = append(out, i)
		}
	}
	return out
}
