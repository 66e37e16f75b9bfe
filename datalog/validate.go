package datalog

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/drumql/drumql/internal/english"
	"github.com/drumql/drumql/internal/suggest"
)

// Arities returns the arity of every predicate of p, as first used in
// source order (facts, rule heads and bodies, queries).
func (p *Program) Arities() map[string]int {
	m := map[string]int{}
	its, _ := p.items()
	for _, it := range its {
		it.atoms(p, func(a *Atom) {
			if _, ok := m[a.Pred]; !ok {
				m[a.Pred] = len(a.Args)
			}
		})
	}
	return m
}

// item is a fact, rule or query of a program, for walking them in source
// order.
type item struct {
	kind  uint8 // 0 fact, 1 rule, 2 query
	index int
	pos   Pos
}

// items returns the facts, rules and queries of p in source order: by file
// (in order of first appearance), line and column.
func (p *Program) items() ([]item, map[string]int) {
	its := make([]item, 0, len(p.Facts)+len(p.Rules)+len(p.Queries))
	for i := range p.Facts {
		its = append(its, item{0, i, p.Facts[i].Pos})
	}
	for i := range p.Rules {
		its = append(its, item{1, i, p.Rules[i].Pos})
	}
	for i := range p.Queries {
		its = append(its, item{2, i, p.Queries[i].Pos})
	}
	rank := map[string]int{}
	for _, t := range p.Thresholds {
		if _, ok := rank[t.Pos.File]; !ok {
			rank[t.Pos.File] = len(rank)
		}
	}
	for _, a := range p.Aggregates {
		if _, ok := rank[a.Pos.File]; !ok {
			rank[a.Pos.File] = len(rank)
		}
	}
	for _, g := range p.RuleGroups {
		if _, ok := rank[g.Pos.File]; !ok {
			rank[g.Pos.File] = len(rank)
		}
	}
	for _, im := range p.Imports {
		if _, ok := rank[im.Pos.File]; !ok {
			rank[im.Pos.File] = len(rank)
		}
	}
	for _, it := range its {
		if _, ok := rank[it.pos.File]; !ok {
			rank[it.pos.File] = len(rank)
		}
	}
	sorted := slices.IsSortedFunc(its, func(a, b item) int { return comparePos(rank, a.pos, b.pos) })
	if !sorted {
		slices.SortStableFunc(its, func(a, b item) int { return comparePos(rank, a.pos, b.pos) })
	}
	return its, rank
}

func comparePos(rank map[string]int, a, b Pos) int {
	if a.File != b.File {
		return cmp.Compare(rank[a.File], rank[b.File])
	}
	return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
}

func (it item) atoms(p *Program, f func(*Atom)) {
	switch it.kind {
	case 0:
		f(&p.Facts[it.index].Atom)
	case 1:
		r := &p.Rules[it.index]
		f(&r.Head)
		r.BodyAtoms(func(l *Literal, _ bool) { f(&l.Atom) })
	case 2:
		f(&p.Queries[it.index].Atom)
	}
}

// Validate checks p and reports every problem, sorted in source order:
//
//   - errors: a weight or an `@min` threshold outside (0, 1]; a fact that
//     is not ground; an anonymous variable in a rule head or in a
//     comparison; an unsafe head variable (not bound by a positive body
//     atom); a body variable bound by no positive atom (it occurs only in negated literals or comparisons);
//     a predicate used with different arities (naming the first use); a
//     cycle through negation (see [Stratify]);
//   - warnings: a rule equal to an earlier one (same [Rule.Key]); a variable
//     that occurs once in a rule (unless its name starts with `_`).
func Validate(p *Program) Diagnostics {
	var ds Diagnostics
	type use struct {
		arity int
		pos   Pos
	}
	arity := map[string]use{}
	checkArity := func(a *Atom) {
		u, ok := arity[a.Pred]
		if !ok {
			arity[a.Pred] = use{len(a.Args), a.Pos}
			return
		}
		if u.arity != len(a.Args) {
			ds = append(ds, Diagnostic{a.Pos, Error, fmt.Sprintf(
				"predicate %s used with %d %s here but with %d %s at %s",
				QuoteName(a.Pred), len(a.Args), english.Plural(len(a.Args), "argument", "arguments"),
				u.arity, english.Plural(u.arity, "argument", "arguments"), u.pos)})
		}
	}
	checkWeight := func(w float64, pos Pos) {
		if !(w > 0 && w <= 1) {
			ds = append(ds, Diagnostic{pos, Error, fmt.Sprintf(
				"weight %s is outside (0, 1]", strconv.FormatFloat(w, 'g', -1, 64))})
		}
	}
	keys := make(map[string]Pos, len(p.Rules))
	ruleKeys := RuleKeys(p.Rules)
	var scratch []varInfo
	its, rank := p.items()
	for _, it := range its {
		switch it.kind {
		case 0:
			f := &p.Facts[it.index]
			checkWeight(f.Weight, f.Pos)
			checkArity(&f.Atom)
			var vars []string
			var first Pos
			for _, t := range f.Atom.Args {
				if t.Kind == Var {
					if len(vars) == 0 {
						first = t.Pos
					}
					if t.Value == "_" || !slices.Contains(vars, t.Value) {
						vars = append(vars, t.Value)
					}
				}
			}
			if len(vars) > 0 {
				ds = append(ds, Diagnostic{first, Error, fmt.Sprintf(
					"fact is not ground: %s %s", english.Plural(len(vars), "variable", "variables"),
					strings.Join(vars, ", "))})
			}
		case 1:
			r := &p.Rules[it.index]
			checkWeight(r.Weight, r.Pos)
			it.atoms(p, checkArity)
			if needsExprSafety(r) {
				ds = checkSafetyExpr(r, ds)
			} else {
				ds = checkSafety(r, ds, &scratch)
			}
			k := ruleKeys[it.index]
			if first, ok := keys[k]; ok {
				ds = append(ds, Diagnostic{r.Pos, Warning, "duplicate rule: same as the rule at " + first.String()})
			} else {
				keys[k] = r.Pos
			}
		case 2:
			checkArity(&p.Queries[it.index].Atom)
		}
	}
	g := newDepGraph()
	for i := range p.Rules {
		g.addRule(&p.Rules[i], nil)
	}
	comp, _ := g.sccs()
	ds = append(ds, negativeCycles(p, g, comp)...)
	ds = append(ds, checkAggregates(p)...)
	ds = append(ds, checkRuleGroups(p, ruleKeys)...)
	for _, t := range p.Thresholds {
		if !(t.Min > 0 && t.Min <= 1) {
			ds = append(ds, Diagnostic{t.Pos, Error, fmt.Sprintf(
				"@min %s is outside (0, 1]: the threshold is the smallest confidence kept", strconv.FormatFloat(t.Min, 'g', -1, 64))})
		}
	}
	slices.SortStableFunc(ds, func(a, b Diagnostic) int { return comparePos(rank, a.Pos, b.Pos) })
	return ds
}

// varInfo records where a variable occurs in a rule.
type varInfo struct {
	name                string
	count               int
	head, pos, neg, cmp bool
	headPos, negPos     Pos
	cmpPos, firstPos    Pos
}

// checkSafety appends the safety diagnostics of r to ds.
func checkSafety(r *Rule, ds Diagnostics, scratch *[]varInfo) Diagnostics {
	vars := (*scratch)[:0]
	defer func() { *scratch = vars[:0] }()
	var index map[string]int // used once there are many variables
	var bad []Diagnostic
	at := func(t *Term) *varInfo {
		if index != nil {
			if i, ok := index[t.Value]; ok {
				return &vars[i]
			}
		} else {
			for i := range vars {
				if vars[i].name == t.Value {
					return &vars[i]
				}
			}
		}
		vars = append(vars, varInfo{name: t.Value, firstPos: t.Pos})
		if index == nil && len(vars) > 16 {
			index = make(map[string]int, 32)
			for i := range vars {
				index[vars[i].name] = i
			}
		} else if index != nil {
			index[t.Value] = len(vars) - 1
		}
		return &vars[len(vars)-1]
	}
	for i := range r.Head.Args {
		t := &r.Head.Args[i]
		if t.Kind != Var {
			continue
		}
		if t.Value == "_" {
			bad = append(bad, Diagnostic{t.Pos, Error, "anonymous variable _ in the head of a rule"})
			continue
		}
		v := at(t)
		v.count++
		if !v.head {
			v.head, v.headPos = true, t.Pos
		}
	}
	for i := range r.Body {
		l := &r.Body[i]
		if l.Kind == Comparison {
			for _, t := range []*Term{&l.Left, &l.Right} {
				if t.Kind != Var {
					continue
				}
				if t.Value == "_" {
					bad = append(bad, Diagnostic{t.Pos, Error, "anonymous variable _ in a comparison"})
					continue
				}
				v := at(t)
				v.count++
				if !v.cmp {
					v.cmp, v.cmpPos = true, t.Pos
				}
			}
			continue
		}
		for j := range l.Atom.Args {
			t := &l.Atom.Args[j]
			if t.Kind != Var || t.Value == "_" {
				continue
			}
			v := at(t)
			v.count++
			if l.Kind == Negated {
				if !v.neg {
					v.neg, v.negPos = true, t.Pos
				}
			} else {
				v.pos = true
			}
		}
	}
	for i := range vars {
		v := &vars[i]
		switch {
		case v.pos:
			if v.count == 1 && v.name[0] != '_' {
				bad = append(bad, Diagnostic{v.firstPos, Warning, fmt.Sprintf(
					"variable %s occurs only once (write _ or _%s if that is intended)", v.name, v.name)})
			}
		case v.head:
			bad = append(bad, Diagnostic{v.headPos, Error, fmt.Sprintf(
				"unsafe head variable %s: it occurs in no positive body atom", v.name)})
		case v.neg && v.cmp:
			bad = append(bad, Diagnostic{v.negPos, Error, fmt.Sprintf(
				"variable %s occurs only in negated literals and comparisons: it must occur in a positive body atom", v.name)})
		case v.neg:
			bad = append(bad, Diagnostic{v.negPos, Error, fmt.Sprintf(
				"variable %s occurs only in negated literals: it must occur in a positive body atom (or use _)", v.name)})
		case v.cmp:
			bad = append(bad, Diagnostic{v.cmpPos, Error, fmt.Sprintf(
				"variable %s occurs only in comparisons: it must occur in a positive body atom", v.name)})
		}
	}
	return append(ds, bad...)
}

// CheckQuery checks a query against the predicates known to a store:
// known returns a predicate's arity. It returns a [Diagnostics] error at the
// query's atom for an unknown predicate that is a likely typo, suggesting up
// to three of the candidates (the names the store knows, optional) nearest
// by edit distance (within a third of the name's length, at least 2
// edits), or for a wrong number of arguments; a [Diagnostics] holding only
// a warning for an unknown predicate that is not near any candidate (its
// answer is empty); and nil when the query is fine.
func CheckQuery(q Query, known func(pred string) (arity int, ok bool), candidates ...string) error {
	a := &q.Atom
	pos := a.Pos
	if pos == (Pos{}) {
		pos = q.Pos
	}
	n, ok := known(a.Pred)
	if !ok {
		s := suggest.Nearest(a.Pred, candidates, 3)
		if len(s) == 0 {
			// Not a likely typo: a predicate nothing defines (yet) holds
			// nowhere, so the answer is empty.
			return Diagnostics{{pos, Warning, "nothing defines " + QuoteName(a.Pred) +
				" (no fact of the store or of the program, no rule): the answer is empty"}}
		}
		for i := range s {
			s[i] = QuoteName(s[i])
		}
		return Diagnostics{{pos, Error, "unknown predicate " + QuoteName(a.Pred) + "; did you mean " + strings.Join(s, ", ") + "?"}}
	}
	if n != len(a.Args) {
		return Diagnostics{{pos, Error, fmt.Sprintf("predicate %s has %d %s, but the query gives %d %s",
			QuoteName(a.Pred), n, english.Plural(n, "argument", "arguments"), len(a.Args), english.Plural(len(a.Args), "argument", "arguments"))}}
	}
	return nil
}
