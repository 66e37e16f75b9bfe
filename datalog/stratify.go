package datalog

import (
	"container/heap"
	"fmt"
	"slices"
	"strings"
)

// Stratum is a set of mutually recursive predicates (a strongly connected
// component of the dependency graph) and the rules that define them.
type Stratum struct {
	// Preds are the predicates defined in the stratum, sorted by name.
	Preds []string
	// Rules are indices into Program.Rules of the rules whose head predicate
	// is in Preds, ascending.
	Rules []int
	// Recursive is set when a rule of the stratum has a body atom whose
	// predicate is in the stratum, so the stratum needs a fixpoint.
	Recursive bool
}

// Strata lists the strata of a program in evaluation order: every stratum
// comes after the strata of the predicates its rules depend on.
type Strata []Stratum

// Index returns the position in s of the stratum of each predicate defined
// by a rule.
func (s Strata) Index() map[string]int {
	m := map[string]int{}
	for i, st := range s {
		for _, p := range st.Preds {
			m[p] = i
		}
	}
	return m
}

// Stratify orders the rules of p for evaluation. Each stratum is a strongly
// connected component of the predicate dependency graph (an edge from each
// body predicate to the head predicate of the rule) that holds at least one
// rule head; predicates that only occur in facts and bodies (extensional
// predicates) belong to no stratum. Strata are topologically ordered, ties
// broken by the first appearance of their predicates in p.Rules, so the
// order is deterministic. A negated literal must refer to a predicate of a
// strictly lower stratum: an error diagnostic is returned for every
// component that contains a cycle through negation, naming the cycle and
// the negated literals, and the strata are still returned.
//
// For example
//
//	anc(X, Y) :- parent(X, Y).
//	anc(X, Y) :- parent(X, Z), anc(Z, Y).
//	unrelated(X, Y) :- person(X), person(Y), not anc(X, Y).
//
// gives two strata: {anc} with rules 0 and 1, recursive, then
// {unrelated} with rule 2.
func Stratify(p *Program) (Strata, Diagnostics) {
	g := newDepGraph()
	for i := range p.Rules {
		g.addRule(&p.Rules[i], nil)
	}
	comp, ncomp := g.sccs()
	members := make([][]int32, ncomp)
	for v, c := range comp {
		members[c] = append(members[c], int32(v))
	}
	recursive := make([]bool, ncomp)
	hasHead := make([]bool, ncomp)
	indeg := make([]int, ncomp)
	succ := make([][]int32, ncomp)
	seenSucc := map[uint64]bool{}
	for u := range g.out {
		cu := comp[u]
		if g.head[u] {
			hasHead[cu] = true
		}
		for _, e := range g.out[u] {
			cv := comp[e.to]
			if cu == cv {
				recursive[cu] = true
				continue
			}
			k := uint64(uint32(cu))<<32 | uint64(uint32(cv))
			if !seenSucc[k] {
				seenSucc[k] = true
				succ[cu] = append(succ[cu], cv)
				indeg[cv]++
			}
		}
	}
	// Kahn's algorithm; a component's priority is its smallest node id,
	// that is the first appearance of one of its predicates.
	prio := make([]int32, ncomp)
	for c, ms := range members {
		prio[c] = slices.Min(ms)
	}
	h := &compHeap{prio: prio}
	for c := range ncomp {
		if indeg[c] == 0 {
			heap.Push(h, int32(c))
		}
	}
	order := make([]int, ncomp) // component -> stratum index, -1 if none
	var strata Strata
	for h.Len() > 0 {
		c := heap.Pop(h).(int32)
		order[c] = -1
		if hasHead[c] {
			order[c] = len(strata)
			preds := make([]string, 0, len(members[c]))
			for _, v := range members[c] {
				if g.head[v] {
					preds = append(preds, g.names[v])
				}
			}
			slices.Sort(preds)
			strata = append(strata, Stratum{Preds: preds, Recursive: recursive[c]})
		}
		for _, d := range succ[c] {
			indeg[d]--
			if indeg[d] == 0 {
				heap.Push(h, d)
			}
		}
	}
	for i := range p.Rules {
		c := comp[g.ids[p.Rules[i].Head.Pred]]
		s := &strata[order[c]]
		s.Rules = append(s.Rules, i)
	}
	return strata, negativeCycles(p, g, comp)
}

// negativeCycles reports one error per component that holds a negated
// literal whose predicate is in the component of the rule's head.
func negativeCycles(p *Program, g *depGraph, comp []int32) Diagnostics {
	type negLit struct {
		rule, lit int
	}
	byComp := map[int32][]negLit{}
	var comps []int32
	for i := range p.Rules {
		r := &p.Rules[i]
		h := g.ids[r.Head.Pred]
		for j := range r.Body {
			l := &r.Body[j]
			if l.Kind != Negated {
				continue
			}
			b := g.ids[l.Atom.Pred]
			if comp[b] != comp[h] {
				continue
			}
			c := comp[h]
			if _, ok := byComp[c]; !ok {
				comps = append(comps, c)
			}
			byComp[c] = append(byComp[c], negLit{i, j})
		}
	}
	var ds Diagnostics
	for _, c := range comps {
		lits := byComp[c]
		first := &p.Rules[lits[0].rule]
		fl := &first.Body[lits[0].lit]
		h, b := g.ids[first.Head.Pred], g.ids[fl.Atom.Pred]
		cycle := QuoteName(g.names[h]) + " -> not " + QuoteName(g.names[b])
		if b != h {
			path, negs, _ := g.dependsPath(b, h, func(v int32) bool { return comp[v] == c })
			cycle = formatCycle(g.names, h, append([]int32{b}, path...), append([]bool{true}, negs...))
		}
		var sb strings.Builder
		sb.WriteString("cycle through negation: ")
		sb.WriteString(cycle)
		sb.WriteString(" (negated ")
		if len(lits) == 1 {
			sb.WriteString("literal ")
		} else {
			sb.WriteString("literals ")
		}
		for k, nl := range lits {
			if k > 0 {
				sb.WriteString(", ")
			}
			l := &p.Rules[nl.rule].Body[nl.lit]
			sb.WriteString(l.String())
			sb.WriteString(" at ")
			sb.WriteString(l.Pos.String())
		}
		sb.WriteString(")")
		ds = append(ds, Diagnostic{Pos: fl.Pos, Severity: Error, Msg: sb.String()})
	}
	for i := range p.Rules {
		r := &p.Rules[i]
		h := g.ids[r.Head.Pred]
		r.Aggregates(func(t Term) {
			for j := range t.X.Body {
				l := &t.X.Body[j]
				if !l.IsAtom() || comp[g.ids[l.Atom.Pred]] != comp[h] {
					continue
				}
				b := g.ids[l.Atom.Pred]
				cycle := QuoteName(g.names[h]) + " -> " + QuoteName(g.names[b])
				if b != h {
					c := comp[h]
					path, negs, _ := g.dependsPath(b, h, func(v int32) bool { return comp[v] == c })
					cycle = formatCycle(g.names, h, append([]int32{b}, path...), append([]bool{false}, negs...))
				}
				ds = append(ds, Diagnostic{Pos: t.Pos, Severity: Error, Msg: fmt.Sprintf(
					"cycle through an aggregate: %s (%s aggregates %s, which depends on the rule's own head; an aggregate's body must be computed before the rule)",
					cycle, t.X.Op, l.Atom.String())})
				return
			}
		})
	}
	return ds
}

type compHeap struct {
	items []int32
	prio  []int32
}

func (h *compHeap) Len() int           { return len(h.items) }
func (h *compHeap) Less(i, j int) bool { return h.prio[h.items[i]] < h.prio[h.items[j]] }
func (h *compHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *compHeap) Push(x any)         { h.items = append(h.items, x.(int32)) }
func (h *compHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
