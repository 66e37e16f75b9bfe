package datalog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"

	"github.com/drumql/drumql/internal/workpool"
)

// RuleGroups is a `@groups` directive: the groups of one head relation's
// rules that the grouped aggregation (`@aggregate grouped(threshold = t)`)
// combines, as drumql mine found them, so that eval, query and serve need
// not find them again from the store:
//
//	@groups(threshold = 0.4, rules = 5, sum = "3f0c2a9b81d4e657") for wife: 1 3 4; 2 5.
//
// says that of wife's five rules (in program order: the first rule whose
// head is wife is rule 1), rules 1, 3 and 4 form one group and rules 2 and
// 5 another, at overlap 0.4; a rule in no listed group is a group of its
// own. Sum is [HeadSum] of wife's rules when the groups were found: a
// program whose rules of wife differ (a rule added, removed, reordered or
// changed other than in its weight) does not match it, and its groups are
// found again.
type RuleGroups struct {
	// Pred is the head relation.
	Pred string
	// Threshold is the overlap the groups were found at.
	Threshold float64
	// Rules is the number of Pred's rules the groups are of.
	Rules int
	// Sum is HeadSum of those rules.
	Sum string
	// Groups are the groups of two or more rules, each a list of rule
	// ordinals (1 to Rules) among Pred's rules in program order.
	Groups [][]int32
	// Pos is where the directive starts.
	Pos Pos
}

// HeadSum returns the fingerprint of rules (one head relation's, in
// program order) that a [RuleGroups] directive records: 16 hex digits of
// the SHA-256 of their [Rule.Key]s, one per line. Weights, positions and
// comments are not part of it; the rules' order is.
func HeadSum(rules []*Rule) string {
	keys := make([]string, len(rules))
	for i, r := range rules {
		keys[i] = r.Key()
	}
	return headSum(keys)
}

// headSum is HeadSum of the rules whose keys are keys.
func headSum(keys []string) string {
	h := sha256.New()
	b := make([]byte, 0, 256)
	for _, k := range keys {
		b = append(append(b[:0], k...), '\n')
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// RuleKeys returns the Key of each of rules, computed on every core (a
// mined file has hundreds of thousands of rules).
func RuleKeys(rules []Rule) []string {
	keys := make([]string, len(rules))
	const chunk = 4096
	workpool.Run(runtime.GOMAXPROCS(0), (len(rules)+chunk-1)/chunk, func(_, c int) bool {
		for i := c * chunk; i < min(len(rules), (c+1)*chunk); i++ {
			keys[i] = rules[i].Key()
		}
		return true
	})
	return keys
}

// String returns the directive in canonical form, its groups in the order
// they are listed, wrapped at about 100 columns.
func (g RuleGroups) String() string { return string(g.appendTo(nil)) }

func (g RuleGroups) appendTo(b []byte) []byte {
	start := len(b)
	b = append(b, "@groups(threshold = "...)
	b = strconv.AppendFloat(b, g.Threshold, 'g', -1, 64)
	b = append(b, ", rules = "...)
	b = strconv.AppendInt(b, int64(g.Rules), 10)
	b = append(b, ", sum = "...)
	b = appendQuoted(b, g.Sum)
	b = append(b, ") for "...)
	b = appendName(b, g.Pred)
	if len(g.Groups) > 0 {
		b = append(b, ':')
	}
	line := start
	for i, grp := range g.Groups {
		if i > 0 {
			b = append(b, ';')
		}
		for _, r := range grp {
			if len(b)-line > 96 {
				b = append(b, "\n   "...)
				line = len(b) - 3
			}
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(r), 10)
		}
	}
	return append(b, '.')
}

// RuleGroupsFor returns the first `@groups` directive of p for pred, and
// false when it has none.
func (p *Program) RuleGroupsFor(pred string) (RuleGroups, bool) {
	for _, g := range p.RuleGroups {
		if g.Pred == pred {
			return g, true
		}
	}
	return RuleGroups{}, false
}

// checkRuleGroups checks the @groups directives: the threshold in [0, 1],
// a positive rule count, a 16-digit hex sum, groups of at least two rules
// whose ordinals are in 1..rules and in no other group. A second directive
// for one relation is a warning (the first is used), and so is one that
// does not match its relation's rules (their number or HeadSum): the
// groups are then found again.
func checkRuleGroups(p *Program, keys []string) Diagnostics {
	var ds Diagnostics
	if len(p.RuleGroups) == 0 {
		return nil
	}
	preds := make([]string, len(p.RuleGroups))
	for i, g := range p.RuleGroups {
		preds[i] = g.Pred
	}
	heads := p.HeadRules(preds)
	first := map[string]bool{}
	for i := range p.RuleGroups {
		g := &p.RuleGroups[i]
		before := len(ds)
		errf := func(format string, args ...any) {
			ds = append(ds, Diagnostic{g.Pos, Error, fmt.Sprintf("@groups for %s: ", QuoteName(g.Pred)) + fmt.Sprintf(format, args...)})
		}
		if math.IsNaN(g.Threshold) || g.Threshold < 0 || g.Threshold > 1 {
			errf("threshold must be a number in [0, 1] (the overlap of the grouped aggregation), not %s", strconv.FormatFloat(g.Threshold, 'g', -1, 64))
		}
		if g.Rules < 1 {
			errf("rules must be a positive integer (the number of the relation's rules), not %d", g.Rules)
		}
		if _, err := hex.DecodeString(g.Sum); err != nil || len(g.Sum) != 16 {
			errf("sum must be 16 hexadecimal digits (the fingerprint of the relation's rules), not %q", g.Sum)
		}
		seen := map[int32]bool{}
		for k, grp := range g.Groups {
			if len(grp) < 2 {
				errf("group %d has %d rule; a group lists two or more (a rule in none is a group of its own)", k+1, len(grp))
			}
			for _, r := range grp {
				switch {
				case r < 1 || int(r) > g.Rules:
					errf("rule %d is not one of the %d rules (1 to %d)", r, g.Rules, g.Rules)
				case seen[r]:
					errf("rule %d is in two groups", r)
				}
				seen[r] = true
			}
		}
		if first[g.Pred] {
			ds = append(ds, Diagnostic{g.Pos, Warning, fmt.Sprintf("a second @groups for %s: the first is used", QuoteName(g.Pred))})
			continue
		}
		first[g.Pred] = true
		if idx := heads[g.Pred]; len(ds) == before && (len(idx) != g.Rules || g.Sum != headSumAt(keys, idx)) {
			ds = append(ds, Diagnostic{g.Pos, Warning, fmt.Sprintf(
				"@groups for %s does not match its rules (%d now, %d when the groups were found, or changed other than in weight): their groups are found again from the store",
				QuoteName(g.Pred), len(idx), g.Rules)})
		}
	}
	return ds
}

// headSumAt is HeadSum of the rules at idx, keys being every rule's key.
func headSumAt(keys []string, idx []int32) string {
	ks := make([]string, len(idx))
	for k, i := range idx {
		ks[k] = keys[i]
	}
	return headSum(ks)
}

// RulesAt returns the rules of p at idx (indices in p.Rules).
func (p *Program) RulesAt(idx []int32) []*Rule {
	rs := make([]*Rule, len(idx))
	for k, i := range idx {
		rs[k] = &p.Rules[i]
	}
	return rs
}

// HeadRules returns the rules of p whose head is one of preds, by head, in
// program order, with their indices in p.Rules.
func (p *Program) HeadRules(preds []string) map[string][]int32 {
	out := make(map[string][]int32, len(preds))
	for _, pred := range preds {
		out[pred] = nil
	}
	for i := range p.Rules {
		if idx, ok := out[p.Rules[i].Head.Pred]; ok {
			out[p.Rules[i].Head.Pred] = append(idx, int32(i))
		}
	}
	return out
}

// SortGroups puts groups in canonical order: each group's ordinals
// ascending, the groups by their first ordinal.
func SortGroups(groups [][]int32) {
	for _, g := range groups {
		slices.Sort(g)
	}
	slices.SortFunc(groups, func(a, b []int32) int { return int(a[0]) - int(b[0]) })
}

// ProgramSum returns the fingerprint of what a materialisation of p is
// derived from: its facts and rules with their weights (each a line, the
// weight, then the fact's atom or the rule's [Rule.Key]), sorted, so that
// the order of files, facts and rules does not matter; 16 hex digits of
// their SHA-256. Directives (`@min`, `@aggregate`, `@groups`), queries,
// positions and comments are not part of it: the threshold is compared on
// its own.
func ProgramSum(p *Program) string {
	lines := make([]string, 0, len(p.Facts)+len(p.Rules))
	for _, f := range p.Facts {
		lines = append(lines, strconv.FormatFloat(f.Weight, 'g', -1, 64)+" "+f.Atom.String())
	}
	keys := RuleKeys(p.Rules)
	for i, r := range p.Rules {
		lines = append(lines, strconv.FormatFloat(r.Weight, 'g', -1, 64)+" :- "+keys[i])
	}
	slices.Sort(lines)
	return headSum(lines)
}
