package miner

import (
	"slices"

	"github.com/drumql/drumql/miner/internal/sparse"
)

// supportScratch is the reusable memory of support: the visited marks and
// frontiers, and per (relation, direction) the entities with at least one
// neighbour (the only possible starts of a path).
type supportScratch struct {
	mark      []int32
	stamp     int32
	cur, next []int32
	starts    map[pathStep][]int32
	work      int // edge visits of every count so far
}

// startsOf returns the entities with a nonempty row in m, the matrix of
// step st, computed once per scratch.
func (sc *supportScratch) startsOf(st pathStep, m *sparse.CSR) []int32 {
	if rows, ok := sc.starts[st]; ok {
		return rows
	}
	var rows []int32
	for a := range m.Rows {
		if m.RowPtr[a+1] > m.RowPtr[a] {
			rows = append(rows, int32(a))
		}
	}
	if sc.starts == nil {
		sc.starts = map[pathStep][]int32{}
	}
	sc.starts[st] = rows
	return rows
}

// support counts, for the rule r(A, B) :- path, the distinct pairs (A, B)
// connected by the path in g (body) and those for which r(A, B) is a fact
// (sup), pairs with A = B excluded for paths of length two or more (the
// rule says A != B). It gives up (ok false) after budget edge visits. sc
// (nil: fresh memory) is reused across calls on the same graph.
func (g *Graph) support(r int, path []pathStep, budget int, sc *supportScratch) (sup, body int, ok bool) {
	E := g.NumEntities()
	if sc == nil {
		sc = &supportScratch{}
	}
	if len(sc.mark) != E {
		sc.mark, sc.stamp = make([]int32, E), 0
	}
	if sc.stamp > 1<<30 {
		clear(sc.mark)
		sc.stamp = 0
	}
	mark := sc.mark
	stamp := sc.stamp
	defer func() { sc.stamp = stamp }()
	if len(path) == 0 {
		return 0, 0, false
	}
	m0 := g.fwd[path[0].rel]
	if path[0].rev {
		m0 = g.bwd[path[0].rel]
	}
	cur, next := sc.cur[:0], sc.next[:0]
	defer func() { sc.cur, sc.next = cur, next }()
	work := 0
	defer func() { sc.work += work }()
	for _, a := range sc.startsOf(path[0], m0) {
		cur = append(cur[:0], a)
		for _, st := range path {
			m := g.fwd[st.rel] // rel(cur, next): next is a tail of cur
			if st.rev {
				m = g.bwd[st.rel] // rel(next, cur): next is a head of cur
			}
			stamp++
			next = next[:0]
			for _, x := range cur {
				cols := m.Col[m.RowPtr[x]:m.RowPtr[x+1]]
				work += len(cols)
				for _, y := range cols {
					if mark[y] != stamp {
						mark[y] = stamp
						next = append(next, y)
					}
				}
			}
			cur, next = next, cur
			if len(cur) == 0 || work > budget {
				break
			}
		}
		if work > budget {
			return 0, 0, false
		}
		if len(cur) > 0 {
			h := g.fwd[r]
			row := h.Col[h.RowPtr[a]:h.RowPtr[a+1]]
			for _, b := range cur {
				if len(path) >= 2 && b == a {
					continue // the rule says A != B
				}
				body++
				if _, found := slices.BinarySearch(row, b); found {
					sup++
				}
			}
		}
	}
	return sup, body, true
}
