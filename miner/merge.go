package miner

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// MergeRules merges rule lists that are each sorted by head relation (as
// [Model.Rules] and [Graph.ConstantRules] return them) into one list sorted
// by head, then by decreasing weight; rules of equal weight keep the order of
// the lists, then their order within a list. A rule that appears in more
// than one list (the same [datalog.Rule.Key]) is kept once, from the first.
// The chain rules of a head whose weights are their confidences on the
// graph ([MinedRule.Calibrated]) are then listed in tie groups (see
// [tieGroups]): rules whose weights the sample cannot tell apart are listed
// simplest first. MergeRules of its own result returns it
// unchanged.
func MergeRules(lists ...[]MinedRule) []MinedRule {
	var all []MinedRule
	for _, l := range lists {
		all = append(all, l...)
	}
	seen := make(map[string]bool, len(all))
	out := all[:0:0]
	for _, r := range all {
		k := r.Rule.Key()
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b MinedRule) int {
		return cmp.Or(strings.Compare(a.Head, b.Head), cmp.Compare(b.Rule.Weight, a.Rule.Weight))
	})
	for lo := 0; lo < len(out); {
		hi := lo + 1
		for hi < len(out) && out[hi].Head == out[lo].Head {
			hi++
		}
		tieGroups(out[lo:hi])
		lo = hi
	}
	return out
}

// tieZ is how many standard errors apart two confidences must be for the
// rule order to follow them (see tieGroups): about 95% two-sided.
const tieZ = 2

// tieGroups reorders the rules of one head, sorted by decreasing weight, so
// that its calibrated chain rules (weighted by their smoothed confidence)
// come in tie groups. The weight
// is a confidence measured on a sample of pairs, so it has a sampling error:
// with n pairs counted (the body, or for estimated counts the part of it
// the sampled starts gave) its standard error is √(w(1−w)/n). Equivalent
// bodies then order each other by chance: on a generated graph with the
// planted rule mother(A, B) :- wife(A, C), father(C, B), the bodies
// mother(A, C), sibling(C, B) and wife(A, C), father(C, D), sibling(D, B)
// predict the same pairs and their weights differ by a standard error. So
// the first rule (by weight) leads a group of the rules whose weights are
// within tieZ of its standard errors below its own, and a group is listed
// fewest body atoms first, then most support (the more general rule), then
// highest DRUM score, then by text; the next group starts at the first rule
// left out. A group sits where its leader's weight puts it among the
// head's other rules (rules with constants, rules not counted), before
// those of the same weight. Weights are not changed: only the order, so
// aggregations, which rank by weight, are not either.
func tieGroups(rules []MinedRule) {
	var chain, rest []MinedRule
	for _, r := range rules {
		if r.Calibrated && !r.FromGraph && r.Body > 0 { // Calibrated implies Counted
			chain = append(chain, r)
		} else {
			rest = append(rest, r)
		}
	}
	if len(chain) < 2 {
		return
	}
	// Within a weight, the same tie order: the leader of a group, and so
	// the groups, depend on the rules only, not on the order they came in.
	slices.SortStableFunc(chain, func(a, b MinedRule) int {
		return cmp.Or(cmp.Compare(b.Rule.Weight, a.Rule.Weight), tieOrder(a, b))
	})
	type group struct {
		key   float64 // the leader's weight
		rules []MinedRule
	}
	var groups []group
	for i := 0; i < len(chain); {
		w := chain[i].Rule.Weight
		n := float64(chain[i].Body)
		if chain[i].Starts > 0 {
			n = n * float64(chain[i].Sampled) / float64(chain[i].Starts)
		}
		floor := w
		if n >= 1 {
			floor = w - tieZ*math.Sqrt(w*(1-w)/n)
		}
		j := i + 1
		for j < len(chain) && chain[j].Rule.Weight >= floor {
			j++
		}
		g := chain[i:j]
		slices.SortStableFunc(g, tieOrder)
		groups = append(groups, group{w, g})
		i = j
	}
	out := make([]MinedRule, 0, len(rules))
	k := 0
	for _, g := range groups {
		for k < len(rest) && rest[k].Rule.Weight > g.key {
			out = append(out, rest[k])
			k++
		}
		out = append(out, g.rules...)
	}
	copy(rules, append(out, rest[k:]...))
}

// tieOrder orders the rules of a tie group: fewest body atoms, most
// support, highest DRUM score, then by text.
func tieOrder(a, b MinedRule) int {
	return cmp.Or(cmp.Compare(bodyAtoms(a.Rule), bodyAtoms(b.Rule)), cmp.Compare(b.Support, a.Support),
		cmp.Compare(b.Score, a.Score), strings.Compare(a.Rule.Key(), b.Rule.Key()))
}

// TopRules returns, per head relation, the n rules that predict the most
// of the head's facts most precisely: the highest support × weight (the
// support counted on the graph; weight, then the order of rules, break
// ties). A person reads a few rules per relation, and the most confident
// ones are narrow rules with constants that each predict a handful of facts:
// support × weight keeps the general rules a reader needs first (on
// kinship's valid split, the best 20 rules per head by it rank at MRR .700
// where the 20 most confident rank at .261; the whole file .740). rules
// are in MergeRules' order (by head, then by decreasing weight), and so is
// the result. n <= 0 keeps every rule.
func TopRules(rules []MinedRule, n int) []MinedRule {
	if n <= 0 {
		return rules
	}
	keep := make([]bool, len(rules))
	for lo := 0; lo < len(rules); {
		hi := lo
		for hi < len(rules) && rules[hi].Head == rules[lo].Head {
			hi++
		}
		idx := make([]int, hi-lo)
		for i := range idx {
			idx[i] = lo + i
		}
		value := func(i int) float64 { return float64(rules[i].Support) * rules[i].Rule.Weight }
		slices.SortStableFunc(idx, func(a, b int) int {
			return cmp.Or(cmp.Compare(value(b), value(a)), cmp.Compare(rules[b].Rule.Weight, rules[a].Rule.Weight))
		})
		for _, i := range idx[:min(n, len(idx))] {
			keep[i] = true
		}
		lo = hi
	}
	out := make([]MinedRule, 0, min(len(rules), n))
	for i, r := range rules {
		if keep[i] {
			out = append(out, r)
		}
	}
	return out
}
