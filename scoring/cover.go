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
// over those questions of the best reciprocal rank a chosen rule alone
// gives the true answer (other true answers filtered, ties expected) —
// how well the rules a reader checks rank the answers, not only whether
// they reach them: a rule that reaches the truth among a thousand equal
// candidates gains little. A rule that only ranks what a chosen rule
// ranks as well gains nothing, so the n spread over the relation's facts
// instead of repeating its commonest pattern. When no rule left gains anything, the
// rest of the n are the first of miner.TopRules' order (support ×
// weight) not chosen. The result keeps rules' order. n <= 0 keeps every
// rule.
func TopByCoverage(ctx context.Context, st store.Store, snap *store.Snapshot, rules []miner.MinedRule, n int) ([]miner.MinedRule, error) {
	if n <= 0 {
		return rules, nil
	}
	order := CoverOrder(rules)
	keep := make([]bool, len(rules))
	var facts map[store.ID][]store.Triple
	var eng *reasoner.Engine
	for lo := 0; lo < len(rules); {
		hi := lo
		for hi < len(rules) && rules[hi].Head == rules[lo].Head {
			hi++
		}
		if hi-lo <= n {
			for i := lo; i < hi; i++ {
				keep[i] = true
			}
			lo = hi
			continue
		}
		if eng == nil {
			prog := &datalog.Program{Rules: miner.DatalogRules(rules)}
			var err error
			if eng, err = reasoner.Prepare(ctx, st, prog, reasoner.Options{Min: reasoner.RankMin, BaseOnly: true, Snapshot: snap, LazyLoad: true}); err != nil {
				return nil, err
			}
			if facts, err = coverFacts(st); err != nil {
				return nil, err
			}
		}
		hits, err := coverHits(ctx, st, eng, rules[lo].Head, facts, lo, hi)
		if err != nil {
			return nil, err
		}
		for _, i := range chooseCover(hits, order[lo:hi], n) {
			keep[lo+i] = true
		}
		lo = hi
	}
	out := make([]miner.MinedRule, 0, len(rules))
	for i, r := range rules {
		if keep[i] {
			out = append(out, r)
		}
	}
	return out, nil
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
// graph's binary facts (coverHits asks at most CoverFacts of them).
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

// coverHit is a question a rule answers truly, with the value of its
// answer there: 1 over the rank the rule alone gives the true answer among
// the question's candidates (expected ties: a rule that gives k candidates
// the answer's confidence ranks it (k+1)/2 among them), the question's
// other true answers left out as evaluation filters them.
type coverHit struct {
	q    int32
	conf float64
}

// coverHits returns, for the rules lo..hi of head (positions within the
// run), the questions on head's cover facts whose true answer each gives,
// with the value of that answer (coverHit). facts are head's facts, of
// which at most CoverFacts, evenly spread, are asked, and all are the true
// answers filtered.
func coverHits(ctx context.Context, st store.Store, eng *reasoner.Engine, head string, facts map[store.ID][]store.Triple, lo, hi int) ([][]coverHit, error) {
	out := make([][]coverHit, hi-lo)
	rel, ok, err := st.Lookup(head)
	if err != nil || !ok {
		return out, err
	}
	known := map[[3]store.ID]bool{} // (given, direction, answer)
	for _, t := range facts[rel] {
		known[[3]store.ID{t.S, 0, t.O}] = true
		known[[3]store.ID{t.O, 1, t.S}] = true
	}
	type hit struct {
		rule int32
		conf float64
	}
	var others []hit                 // the question's hits of wrong answers
	answer := make([]float64, hi-lo) // the true answer's confidence by rule, 0: none
	var hitRules []int32
	for k, t := range spreadTriples(facts[rel], CoverFacts) {
		for dir, given := range []store.ID{t.S, t.O} {
			truth := []store.ID{t.O, t.S}[dir]
			name, err := st.Name(given)
			if err != nil {
				return nil, err
			}
			others, hitRules = others[:0], hitRules[:0]
			err = eng.EachRuleHit(ctx, head, name, dir == 1, func(id store.ID, hs []reasoner.RuleScore) {
				wrong := id != truth
				if wrong && known[[3]store.ID{given, store.ID(dir), id}] {
					return // another true answer: filtered
				}
				for _, h := range hs {
					i := int32(int(h.Rule) - lo)
					if i < 0 || int(i) >= hi-lo {
						continue
					}
					if wrong {
						others = append(others, hit{i, h.Score})
						continue
					}
					if answer[i] == 0 {
						hitRules = append(hitRules, i)
					}
					answer[i] = max(answer[i], h.Score)
				}
			})
			if err != nil {
				return nil, err
			}
			if len(hitRules) == 0 {
				continue
			}
			// A rule's rank of the truth: 1 + the wrong answers above it +
			// half of those level with it (a candidate hit twice by one
			// rule counts once, at its best: the rules' hits are per
			// candidate, so a rule scores each candidate once).
			above := make(map[int32]float64, len(hitRules))
			for _, o := range others {
				if c := answer[o.rule]; c > 0 {
					switch {
					case o.conf > c:
						above[o.rule]++
					case o.conf == c:
						above[o.rule] += 0.5
					}
				}
			}
			q := int32(2*k + dir)
			slices.Sort(hitRules)
			for _, i := range hitRules {
				out[i] = append(out[i], coverHit{q: q, conf: 1 / (1 + above[i])})
				answer[i] = 0
			}
		}
	}
	return out, nil
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
