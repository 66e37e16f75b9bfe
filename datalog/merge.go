package datalog

import (
	"fmt"
	"slices"
	"strconv"
)

// Merge returns a new program made of the expert program and the mined one:
// all facts, queries and imports of both (expert first), the expert's
// rules, then the mined rules that are accepted. The inputs are not
// modified.
//
// Mined rules are added one at a time, in order:
//
//   - a rule with the same [Rule.Key] as an earlier rule (expert or mined) is
//     not added again: it sets the earlier rule's weight (and its comment,
//     when it has one), and a warning at the mined rule names the earlier one;
//   - a rule whose addition would create a cycle through negation in the
//     predicate dependency graph is rejected with an error at the rule,
//     naming the cycle as a chain of "depends on" steps that starts at the
//     rule's head (`married -> single -> not married`); the following rules are still considered, so exactly
//     the rules that would close such a cycle are left out.
//
// The cycle test is incremental: a rule that adds no new dependency edge
// (most rules of a large mined set, which reuse a few hundred relations)
// needs no test, and a new positive edge b -> h is tested in time
// proportional to the number of negative edges, against reachability sets
// kept for each negative edge (see merger). A search, to name the cycle,
// runs only for rules that are rejected or that add a negated literal.
// Merging 100,000 mined rules costs little more than computing their keys.
//
// Merge does not report the problems the expert program has on its own (for
// example a negative cycle among expert rules): call [Validate] on the
// result.
func Merge(expert, mined *Program) (*Program, Diagnostics) {
	out := &Program{
		Facts:   slices.Concat(expert.Facts, mined.Facts),
		Rules:   slices.Grow(slices.Clone(expert.Rules), len(mined.Rules)),
		Queries: slices.Concat(expert.Queries, mined.Queries),
		Imports: slices.Concat(expert.Imports, mined.Imports),
	}
	keys := make(map[string]int, len(expert.Rules)+len(mined.Rules))
	for i, k := range RuleKeys(out.Rules) {
		if _, ok := keys[k]; !ok {
			keys[k] = i
		}
	}
	m := &merger{g: newDepGraph()}
	for i := range out.Rules {
		m.g.addRule(&out.Rules[i], nil)
	}
	m.grow()
	for u := range m.g.out {
		for _, e := range m.g.out[u] {
			if e.neg {
				m.addNeg(int32(u), e.to)
			}
		}
	}
	var ds Diagnostics
	minedKeys := RuleKeys(mined.Rules)
	for i := range mined.Rules {
		r := &mined.Rules[i]
		k := minedKeys[i]
		if j, ok := keys[k]; ok {
			old := &out.Rules[j]
			ds = append(ds, Diagnostic{r.Pos, Warning, fmt.Sprintf(
				"duplicate rule: same as the rule at %s; its weight is updated from %s to %s",
				old.Pos, strconv.FormatFloat(old.Weight, 'g', -1, 64), strconv.FormatFloat(r.Weight, 'g', -1, 64))})
			old.Weight = r.Weight
			if r.Comment != "" {
				old.Comment = r.Comment
			}
			continue
		}
		if cycle, ok := m.add(r); !ok {
			ds = append(ds, Diagnostic{r.Pos, Error,
				"mined rule rejected: it would create a cycle through negation: " + cycle})
			continue
		}
		keys[k] = len(out.Rules)
		out.Rules = append(out.Rules, *r)
	}
	return out, ds
}

// merger is the incrementally maintained dependency graph of Merge.
//
// All edges of a rule go into its head, so a simple cycle uses at most one
// of a rule's new edges. A rule whose new edges are all positive therefore
// closes a cycle through negation exactly when, for one of its new edges
// b -> h and some negative edge u -> v of the graph, b is reachable from v
// and h reaches u. For every negative edge the merger keeps the set of
// nodes reachable from v and the set of nodes that reach u, extended as
// edges are accepted (each set only grows, so maintaining them costs
// O(nodes + edges) per negative edge over the whole merge), which makes
// the test O(negative edges) per new edge. Rules that add a negative edge
// (rare in mined rules) are tested by a search.
type merger struct {
	g     *depGraph
	negs  []negReach
	added []edge3
	// Search state, indexed by 2*node + negSeen, valid when stamp matches.
	stamp   []uint32
	parent  []int32
	gen     uint32
	queue   []int32
	scratch []int32
}

// negReach is a negative edge u -> v with the nodes reachable from v and
// the nodes that reach u (both including the endpoint itself).
type negReach struct {
	u, v       int32
	reach, anc []bool
}

type edge3 struct {
	u, v int32
	neg  bool
}

func (m *merger) grow() {
	n := len(m.g.names)
	for len(m.stamp) < 2*n {
		m.stamp = append(m.stamp, 0, 0)
		m.parent = append(m.parent, 0, 0)
	}
	for i := range m.negs {
		nr := &m.negs[i]
		for len(nr.reach) < n {
			nr.reach = append(nr.reach, false)
			nr.anc = append(nr.anc, false)
		}
	}
}

// addNeg starts tracking the negative edge u -> v.
func (m *merger) addNeg(u, v int32) {
	n := len(m.g.names)
	nr := negReach{u: u, v: v, reach: make([]bool, n), anc: make([]bool, n)}
	m.spread(nr.reach, v, true)
	m.spread(nr.anc, u, false)
	m.negs = append(m.negs, nr)
}

// spread marks x and every node reachable from it (forward) or that
// reaches it (backward) and is not yet marked.
func (m *merger) spread(set []bool, x int32, forward bool) {
	if set[x] {
		return
	}
	set[x] = true
	stack := append(m.scratch[:0], x)
	for len(stack) > 0 {
		y := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		adj := m.g.in[y]
		if forward {
			adj = m.g.out[y]
		}
		for _, e := range adj {
			if !set[e.to] {
				set[e.to] = true
				stack = append(stack, e.to)
			}
		}
	}
	m.scratch = stack[:0]
}

// add adds the edges of r unless that creates a cycle through negation, in
// which case it leaves the graph as it was and returns the cycle.
func (m *merger) add(r *Rule) (string, bool) {
	m.added = m.added[:0]
	m.g.addRule(r, func(u, v int32, neg bool) { m.added = append(m.added, edge3{u, v, neg}) })
	m.grow()
	if len(m.added) == 0 {
		return "", true
	}
	anyNeg := false
	for _, e := range m.added {
		anyNeg = anyNeg || e.neg
	}
	for _, e := range m.added {
		closes := anyNeg
		for i := 0; i < len(m.negs) && !closes; i++ {
			closes = m.negs[i].reach[e.u] && m.negs[i].anc[e.v]
		}
		if !closes {
			continue
		}
		if cycle, found := m.negCycle(e); found {
			for i := len(m.added) - 1; i >= 0; i-- {
				a := m.added[i]
				m.g.removeLastEdge(a.u, a.v, a.neg)
			}
			return cycle, false
		}
	}
	for _, e := range m.added {
		for i := range m.negs {
			nr := &m.negs[i]
			if nr.reach[e.u] {
				m.spread(nr.reach, e.v, true)
			}
			if nr.anc[e.v] {
				m.spread(nr.anc, e.u, false)
			}
		}
	}
	for _, e := range m.added {
		if e.neg {
			m.addNeg(e.u, e.v)
		}
	}
	return "", true
}

// negCycle searches for a path from e.v back to e.u along body -> head
// edges such that the closed walk through e contains a negative edge.
func (m *merger) negCycle(e edge3) (string, bool) {
	if e.u == e.v {
		// A self-loop: negative on its own, or closing no new cycle.
		if e.neg {
			return QuoteName(m.g.names[e.v]) + " -> not " + QuoteName(m.g.names[e.v]), true
		}
		return "", false
	}
	m.gen++
	if m.gen == 0 {
		clear(m.stamp)
		m.gen = 1
	}
	state := func(v int32, neg bool) int32 {
		s := 2 * v
		if neg {
			s++
		}
		return s
	}
	start := state(e.v, e.neg)
	goal := state(e.u, true)
	m.stamp[start] = m.gen
	m.parent[start] = -1
	q := append(m.queue[:0], start)
	found := false
	for len(q) > 0 && !found {
		s := q[0]
		q = q[1:]
		x, neg := s/2, s%2 == 1
		for _, f := range m.g.out[x] {
			t := state(f.to, neg || f.neg)
			if m.stamp[t] == m.gen {
				continue
			}
			m.stamp[t] = m.gen
			m.parent[t] = s
			if t == goal {
				found = true
				break
			}
			q = append(q, t)
		}
	}
	m.queue = q[:0]
	if !found {
		return "", false
	}
	// States from goal back to start: e.u = q_k, ..., q_0 = e.v. As a
	// "depends on" chain: e.v -> [not] e.u -> q_{k-1} -> ... -> e.v.
	var path []int32
	var negs []bool
	path = append(path, e.u)
	negs = append(negs, e.neg)
	for s := goal; s != start; {
		p := m.parent[s]
		// The step p -> s is an edge from node p/2 to node s/2; it is
		// negative when it turned the flag on, or else find its sign.
		path = append(path, p/2)
		negs = append(negs, m.edgeNeg(p, s))
		s = p
	}
	return formatCycle(m.g.names, e.v, path, negs), true
}

// edgeNeg tells the sign of the search step from state p to state s.
func (m *merger) edgeNeg(p, s int32) bool {
	if p%2 == 0 && s%2 == 1 {
		return true
	}
	_, hasPos := m.g.set[edgeKey(p/2, s/2, false)]
	return !hasPos
}
