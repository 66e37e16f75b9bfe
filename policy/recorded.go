package policy

import (
	"slices"

	"github.com/drumql/drumql/datalog"
)

// Recorded returns the groups of pred's rules at overlap as prog's
// `@groups` directive for pred records them (drumql mine writes one for
// every relation it ranks grouped), in [Grouper.GroupsAt]'s compact form:
// rules are the program's rules in a group of two or more, in order, and
// group[k] the group of rules[k]; every other rule of pred is a group of
// its own. ok is false when prog has no directive for pred, records it at
// another overlap, or when pred's rules in prog are not the ones it was
// found for (their number or datalog.HeadSum differ: rules added, removed,
// reordered or changed other than in weight); the groups are then found
// from the store. idx, when not nil, are the indices of pred's rules in
// prog (datalog.Program.HeadRules), which a caller asking for many
// relations finds in one pass.
func Recorded(prog *datalog.Program, pred string, overlap float64, idx []int32) (rules, group []int32, ok bool) {
	if prog == nil {
		return nil, nil, false
	}
	rg, found := prog.RuleGroupsFor(pred)
	if !found || rg.Threshold != overlap {
		return nil, nil, false
	}
	if idx == nil {
		idx = prog.HeadRules([]string{pred})[pred]
	}
	if len(idx) != rg.Rules || !Matches(prog, rg, idx) {
		return nil, nil, false
	}
	type member struct{ rule, group int32 }
	var ms []member
	for k, grp := range rg.Groups {
		for _, ord := range grp {
			if ord < 1 || int(ord) > len(idx) {
				return nil, nil, false // not validated: found again
			}
			ms = append(ms, member{idx[ord-1], int32(k)})
		}
	}
	slices.SortFunc(ms, func(a, b member) int { return int(a.rule - b.rule) })
	rules, group = make([]int32, len(ms)), make([]int32, len(ms))
	for k, m := range ms {
		if k > 0 && m.rule == ms[k-1].rule {
			return nil, nil, false // a rule in two groups: not validated
		}
		rules[k], group[k] = m.rule, m.group
	}
	return rules, group, true
}

// Matches reports whether the rules of prog at idx (its rules of rg's
// relation, in order) are those rg's groups were found for: their
// datalog.HeadSum is rg's sum.
func Matches(prog *datalog.Program, rg datalog.RuleGroups, idx []int32) bool {
	return datalog.HeadSum(prog.RulesAt(idx)) == rg.Sum
}

// Record returns the `@groups` directive of pred's groups at overlap,
// given in [Grouper.GroupsAt]'s compact form (rules[k] in group
// local[k]; any other rule alone), idx being the indices of pred's rules
// in prog: the groups of two or more of pred's rules, by their ordinals
// among them.
func Record(prog *datalog.Program, pred string, overlap float64, idx, rules, local []int32) datalog.RuleGroups {
	rs := make([]*datalog.Rule, len(idx))
	ord := make(map[int32]int32, len(idx))
	for k, i := range idx {
		rs[k] = &prog.Rules[i]
		ord[i] = int32(k + 1)
	}
	members := map[int32][]int32{}
	var order []int32
	for k, r := range rules {
		o, ok := ord[r]
		if !ok {
			continue // not pred's rule: predicts nothing for it
		}
		g := local[k]
		if _, seen := members[g]; !seen {
			order = append(order, g)
		}
		members[g] = append(members[g], o)
	}
	rg := datalog.RuleGroups{Pred: pred, Threshold: overlap, Rules: len(idx), Sum: datalog.HeadSum(rs)}
	for _, g := range order {
		if len(members[g]) > 1 {
			rg.Groups = append(rg.Groups, members[g])
		}
	}
	datalog.SortGroups(rg.Groups)
	return rg
}
