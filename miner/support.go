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
	work      int     // edge visits of every count so far
	par       []int32 // support3: the first C that reached a D
	pmark     []int32 // support3: D's stamp (negative: several Cs reached it)
}

// stepMatrix returns the matrix of a path step: rel(cur, next), next a
// tail of cur, or reversed, rel(next, cur), next a head of cur.
func (g *Graph) stepMatrix(st pathStep) *sparse.CSR {
	if st.rev {
		return g.bwd[st.rel]
	}
	return g.fwd[st.rel]
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
// rule says A != B), and for paths of three steps, A -> C -> D -> B, those
// connected only through groundings with A = D or C = B (object identity,
// see support3). It gives up (ok false) after budget edge visits. sc
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
		clear(sc.pmark)
		sc.stamp = 0
	}
	if len(path) == 0 {
		return 0, 0, false
	}
	if len(path) == 3 {
		return g.support3(r, path, budget, sc)
	}
	mark := sc.mark
	stamp := sc.stamp
	defer func() { sc.stamp = stamp }()
	m0 := g.stepMatrix(path[0])
	cur, next := sc.cur[:0], sc.next[:0]
	defer func() { sc.cur, sc.next = cur, next }()
	work := 0
	defer func() { sc.work += work }()
	for _, a := range sc.startsOf(path[0], m0) {
		cur = append(cur[:0], a)
		for _, st := range path {
			m := g.stepMatrix(st)
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

// support3 is support for paths of three steps A -> C -> D -> B, with
// object identity: a pair (A, B) counts when some grounding of the path has
// A != B, A != D and C != B (the rule says so). Adjacent variables may bind
// the same entity only through a self-loop fact r(e, e), which the rule
// does not exclude.
func (g *Graph) support3(r int, path []pathStep, budget int, sc *supportScratch) (sup, body int, ok bool) {
	E := g.NumEntities()
	if len(sc.par) != E {
		sc.par, sc.pmark = make([]int32, E), make([]int32, E)
		clear(sc.mark)
		sc.stamp = 0
	}
	mark, par, pmark := sc.mark, sc.par, sc.pmark
	stamp := sc.stamp
	defer func() { sc.stamp = stamp }()
	m0, m1, m2 := g.stepMatrix(path[0]), g.stepMatrix(path[1]), g.stepMatrix(path[2])
	mid := sc.next[:0]
	defer func() { sc.next = mid }()
	work := 0
	defer func() { sc.work += work }()
	h := g.fwd[r]
	for _, a := range sc.startsOf(path[0], m0) {
		// The entities D != A, with the C each was first reached from
		// (par) and whether another C reaches it (pmark = -stamp).
		stamp++
		pstamp := stamp
		mid = mid[:0]
		for _, c := range m0.Col[m0.RowPtr[a]:m0.RowPtr[a+1]] {
			cols := m1.Col[m1.RowPtr[c]:m1.RowPtr[c+1]]
			work += 1 + len(cols)
			for _, d := range cols {
				switch {
				case d == a:
				case pmark[d] == pstamp:
					if par[d] != c {
						pmark[d] = -pstamp
					}
				case pmark[d] != -pstamp:
					pmark[d], par[d] = pstamp, c
					mid = append(mid, d)
				}
			}
		}
		if work > budget {
			return 0, 0, false
		}
		// The entities B != A reached from a D, B != the C before D unless
		// another C reaches D.
		stamp++
		row := h.Col[h.RowPtr[a]:h.RowPtr[a+1]]
		for _, d := range mid {
			cols := m2.Col[m2.RowPtr[d]:m2.RowPtr[d+1]]
			work += len(cols)
			only := pmark[d] == pstamp // reached from one C only
			for _, b := range cols {
				if b == a || mark[b] == stamp || only && par[d] == b {
					continue
				}
				mark[b] = stamp
				body++
				if _, found := slices.BinarySearch(row, b); found {
					sup++
				}
			}
		}
		if work > budget {
			return 0, 0, false
		}
	}
	return sup, body, true
}
