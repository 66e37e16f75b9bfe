package datalog

import "strings"

// edge is a dependency: the head predicate `to` depends on the body
// predicate the edge leaves from, negatively when neg is set.
type edge struct {
	to  int32
	neg bool
}

// depGraph is the predicate dependency graph: an edge body -> head for every
// atom of every rule body. Node ids are given in order of first appearance.
type depGraph struct {
	names []string
	ids   map[string]int32
	head  []bool // the predicate is the head of a rule
	out   [][]edge
	in    [][]edge // in[v] holds edge{to: u} for each edge u -> v
	set   map[uint64]struct{}
}

func newDepGraph() *depGraph {
	return &depGraph{ids: map[string]int32{}, set: map[uint64]struct{}{}}
}

func (g *depGraph) node(pred string) int32 {
	if id, ok := g.ids[pred]; ok {
		return id
	}
	id := int32(len(g.names))
	g.ids[pred] = id
	g.names = append(g.names, pred)
	g.head = append(g.head, false)
	g.out = append(g.out, nil)
	g.in = append(g.in, nil)
	return id
}

func edgeKey(u, v int32, neg bool) uint64 {
	k := uint64(uint32(u))<<33 | uint64(uint32(v))<<1
	if neg {
		k |= 1
	}
	return k
}

// addEdge adds u -> v and reports whether it is new.
func (g *depGraph) addEdge(u, v int32, neg bool) bool {
	k := edgeKey(u, v, neg)
	if _, ok := g.set[k]; ok {
		return false
	}
	g.set[k] = struct{}{}
	g.out[u] = append(g.out[u], edge{v, neg})
	g.in[v] = append(g.in[v], edge{u, neg})
	return true
}

// removeLastEdge undoes the last addEdge(u, v, neg) that returned true.
func (g *depGraph) removeLastEdge(u, v int32, neg bool) {
	delete(g.set, edgeKey(u, v, neg))
	g.out[u] = g.out[u][:len(g.out[u])-1]
	g.in[v] = g.in[v][:len(g.in[v])-1]
}

// addRule adds the rule's head and the edges of its body atoms, calling
// added for each new edge. An atom inside an aggregate is a negative edge:
// like a negated atom, it must be computed before the rule.
func (g *depGraph) addRule(r *Rule, added func(u, v int32, neg bool)) {
	h := g.node(r.Head.Pred)
	g.head[h] = true
	r.BodyAtoms(func(l *Literal, inAgg bool) {
		b := g.node(l.Atom.Pred)
		neg := l.Kind == Negated || inAgg
		if g.addEdge(b, h, neg) && added != nil {
			added(b, h, neg)
		}
	})
}

// sccs returns the strongly connected component of every node (Tarjan's
// algorithm, iterative) and the number of components.
func (g *depGraph) sccs() ([]int32, int) {
	n := len(g.names)
	index := make([]int32, n)
	low := make([]int32, n)
	comp := make([]int32, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int32
	type frame struct {
		v int32
		i int
	}
	var calls []frame
	next, ncomp := int32(0), 0
	for s := range int32(n) {
		if index[s] >= 0 {
			continue
		}
		calls = append(calls, frame{s, 0})
		index[s], low[s] = next, next
		next++
		stack = append(stack, s)
		onStack[s] = true
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			v := f.v
			if f.i < len(g.out[v]) {
				w := g.out[v][f.i].to
				f.i++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					calls = append(calls, frame{w, 0})
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				p := calls[len(calls)-1].v
				if low[v] < low[p] {
					low[p] = low[v]
				}
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = int32(ncomp)
					if w == v {
						break
					}
				}
				ncomp++
			}
		}
	}
	return comp, ncomp
}

// dependsPath returns a shortest chain of "depends on" steps from `from` to
// `to` (from != to), using only nodes accepted by keep: the nodes after
// `from` and the sign of each step. ok is false when there is none.
func (g *depGraph) dependsPath(from, to int32, keep func(int32) bool) (path []int32, negs []bool, ok bool) {
	type prev struct {
		node int32
		neg  bool
	}
	seen := map[int32]prev{from: {-1, false}}
	queue := []int32{from}
	for len(queue) > 0 && !ok {
		x := queue[0]
		queue = queue[1:]
		for _, e := range g.in[x] {
			y := e.to
			if _, dup := seen[y]; dup || !keep(y) {
				continue
			}
			seen[y] = prev{x, e.neg}
			if y == to {
				ok = true
				break
			}
			queue = append(queue, y)
		}
	}
	if !ok {
		return nil, nil, false
	}
	for z := to; z != from; {
		p := seen[z]
		path = append(path, z)
		negs = append(negs, p.neg)
		z = p.node
	}
	reverse(path, negs)
	return path, negs, true
}

func reverse(path []int32, negs []bool) {
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
		negs[i], negs[j] = negs[j], negs[i]
	}
}

// formatCycle writes start, then each step: " -> " (with "not " when the
// step is negative) and the predicate, names quoted when needed.
func formatCycle(names []string, start int32, path []int32, negs []bool) string {
	var sb strings.Builder
	sb.WriteString(QuoteName(names[start]))
	for i, p := range path {
		sb.WriteString(" -> ")
		if negs[i] {
			sb.WriteString("not ")
		}
		sb.WriteString(QuoteName(names[p]))
	}
	return sb.String()
}
