package miner

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/drumql/drumql/miner/internal/sparse"
)

// supportScratch is the reusable memory of support: the visited marks and
// frontiers, and per (relation, direction) the entities with at least one
// neighbour (the only possible starts of a path), in a seeded random order.
type supportScratch struct {
	seed      uint64 // orders the starts (see startsOf)
	mark      []int32
	stamp     int32
	cur, next []int32
	starts    map[pathStep][]int32
	bits      map[pathStep][]uint64 // the starts of a step as a bitset
	work      int                   // edge visits of every count so far
	par       []int32               // support3: the first C that reached a D
	pmark     []int32               // support3: D's stamp (negative: several Cs reached it)
}

// bodyCount is what support counted of a rule's body: the pairs it
// connects (body) and those of them that are facts of the head (sup),
// counted from done of the starts entities of the path's first step. When
// done < starts, the budget ran out: sup and body are the counts of the
// done starts scaled by starts/done, estimates from a uniform sample of the
// starts (the order is a seeded shuffle), and the confidence sup/body is
// the ratio of the sample's counts.
type bodyCount struct {
	sup, body    int
	done, starts int
}

// estimated reports whether the counts are scaled from a sample of the
// starts.
func (c bodyCount) estimated() bool { return c.done < c.starts }

// scaled returns c with sup and body scaled from the done starts to all.
func (c bodyCount) scaled() bodyCount {
	if c.done < c.starts {
		f := float64(c.starts) / float64(c.done)
		c.sup = int(math.Round(float64(c.sup) * f))
		c.body = int(math.Round(float64(c.body) * f))
	}
	return c
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
// step st, in an order shuffled with the scratch's seed and the step,
// computed once per scratch.
func (sc *supportScratch) startsOf(st pathStep, m *sparse.CSR) []int32 {
	if rows, ok := sc.starts[st]; ok {
		return rows
	}
	var rows []int32
	for k := range m.Stored() {
		if m.RowPtr[k+1] > m.RowPtr[k] {
			rows = append(rows, m.RowAt(k))
		}
	}
	salt := uint64(st.rel) << 1
	if st.rev {
		salt |= 1
	}
	rng := rand.New(rand.NewPCG(sc.seed, salt^0x7374617274))
	rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	if sc.starts == nil {
		sc.starts = map[pathStep][]int32{}
	}
	sc.starts[st] = rows
	return rows
}

// startBits returns the starts of step st (see startsOf) as a bitset over
// the entities, computed once per scratch.
func (g *Graph) startBits(st pathStep, sc *supportScratch) []uint64 {
	if b, ok := sc.bits[st]; ok {
		return b
	}
	b := make([]uint64, (g.NumEntities()+63)/64)
	for _, a := range sc.startsOf(st, g.stepMatrix(st)) {
		b[a>>6] |= 1 << (a & 63)
	}
	if sc.bits == nil {
		sc.bits = map[pathStep][]uint64{}
	}
	sc.bits[st] = b
	return b
}

// meets reports whether some entity is both an end of step x (an entity a
// fact of x leads to) and a start of step y: a body with x followed by y
// has a grounding only then.
func (g *Graph) meets(x, y pathStep, sc *supportScratch) bool {
	back := pathStep{rel: x.rel, rev: !x.rev} // its starts are x's ends
	ends, starts := sc.startsOf(back, g.stepMatrix(back)), sc.startsOf(y, g.stepMatrix(y))
	var bits []uint64
	if len(ends) <= len(starts) {
		bits = g.startBits(y, sc)
	} else {
		ends, bits = starts, g.startBits(back, sc)
	}
	sc.work += len(ends)
	for _, e := range ends {
		if bits[e>>6]&(1<<(e&63)) != 0 {
			return true
		}
	}
	return false
}

// vacuous reports that the body path has no grounding in g because two
// consecutive steps never meet (see meets), or, for three steps A -> C ->
// D -> B, because no C between the first two steps leads to a D that starts
// the third. It is a quick necessary test: a body it passes can still have
// no grounding (say, through the exclusions of object identity).
func (g *Graph) vacuous(path []pathStep, sc *supportScratch) bool {
	for i := 1; i < len(path); i++ {
		if !g.meets(path[i-1], path[i], sc) {
			return true
		}
	}
	if len(path) != 3 {
		return false
	}
	back := pathStep{rel: path[0].rel, rev: !path[0].rev}
	cbits, dbits := g.startBits(path[1], sc), g.startBits(path[2], sc)
	m1 := g.stepMatrix(path[1])
	for _, c := range sc.startsOf(back, g.stepMatrix(back)) {
		if cbits[c>>6]&(1<<(c&63)) == 0 {
			continue
		}
		cols := m1.Row(c)
		for i, d := range cols {
			if dbits[d>>6]&(1<<(d&63)) != 0 {
				sc.work += i + 1
				return false
			}
		}
		sc.work += len(cols)
	}
	return true
}

// support counts, for the rule r(A, B) :- path, the distinct pairs (A, B)
// connected by the path in g (body) and those for which r(A, B) is a fact
// (sup), pairs with A = B excluded for paths of length two or more (the
// rule says A != B), and for paths of three steps, A -> C -> D -> B, those
// connected only through groundings with A = D or C = B (object identity,
// see support3). It counts start by start, in the scratch's shuffled order,
// and once more than budget edges have been visited it stops after the
// start it is on and scales the counts of the starts done to all of them
// (see bodyCount). sc (nil: fresh memory) is reused across calls on the
// same graph.
func (g *Graph) support(r int, path []pathStep, budget int, sc *supportScratch) bodyCount {
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
	if len(path) == 0 || g.vacuous(path, sc) {
		return bodyCount{}
	}
	if len(path) == 3 {
		return g.support3(r, path, budget, sc).scaled()
	}
	mark := sc.mark
	stamp := sc.stamp
	defer func() { sc.stamp = stamp }()
	m0 := g.stepMatrix(path[0])
	cur, next := sc.cur[:0], sc.next[:0]
	defer func() { sc.cur, sc.next = cur, next }()
	work := 0
	defer func() { sc.work += work }()
	starts := sc.startsOf(path[0], m0)
	c := bodyCount{starts: len(starts)}
	h := g.fwd[r]
	for _, a := range starts {
		if work > budget {
			break
		}
		c.done++
		cur = append(cur[:0], a)
		for _, st := range path {
			m := g.stepMatrix(st)
			stamp++
			next = next[:0]
			for _, x := range cur {
				cols := m.Row(x)
				work += len(cols)
				for _, y := range cols {
					if mark[y] != stamp {
						mark[y] = stamp
						next = append(next, y)
					}
				}
			}
			cur, next = next, cur
			if len(cur) == 0 {
				break
			}
		}
		row := h.Row(a)
		for _, b := range cur {
			if len(path) >= 2 && b == a {
				continue // the rule says A != B
			}
			c.body++
			if _, found := slices.BinarySearch(row, b); found {
				c.sup++
			}
		}
	}
	return c.scaled()
}

// support3 is support for paths of three steps A -> C -> D -> B, with
// object identity: a pair (A, B) counts when some grounding of the path has
// A != B, A != D and C != B (the rule says so). Adjacent variables may bind
// the same entity only through a self-loop fact r(e, e), which the rule
// does not exclude. The counts are not scaled yet.
func (g *Graph) support3(r int, path []pathStep, budget int, sc *supportScratch) bodyCount {
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
	starts := sc.startsOf(path[0], m0)
	cnt := bodyCount{starts: len(starts)}
	for _, a := range starts {
		if work > budget {
			break
		}
		cnt.done++
		// The entities D != A, with the C each was first reached from
		// (par) and whether another C reaches it (pmark = -stamp).
		stamp++
		pstamp := stamp
		mid = mid[:0]
		for _, c := range m0.Row(a) {
			cols := m1.Row(c)
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
		// The entities B != A reached from a D, B != the C before D unless
		// another C reaches D.
		stamp++
		row := h.Row(a)
		for _, d := range mid {
			cols := m2.Row(d)
			work += len(cols)
			only := pmark[d] == pstamp // reached from one C only
			for _, b := range cols {
				if b == a || mark[b] == stamp || only && par[d] == b {
					continue
				}
				mark[b] = stamp
				cnt.body++
				if _, found := slices.BinarySearch(row, b); found {
					cnt.sup++
				}
			}
		}
	}
	return cnt
}
