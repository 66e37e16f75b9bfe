package eval

import (
	"cmp"
	"slices"
)

// Factorised chain rules under a guard over both ends of the path.
//
// A rederive twin (reasoner/maintain) is a chain rule h(X0, X3) :- g(X0,
// X3), a(X0, X1), b(X1, X2), c(X2, X3) whose guard g holds the facts of h
// to derive again. Joined atom by atom, each guard tuple (x, z) walks
// every path a·b from x and looks c(X2, z) up at its end: when a removed
// rule was the best proof of 419,180 facts of one FB15k-237 relation,
// those walks repeated, for each of the hundreds of z of an x, the same
// thousands of paths from it, for each of the relation's hundreds of
// twins (87% of the update's CPU in the general join).
//
// The pair plan takes the guard's tuples grouped by their V0 (X0, or X3
// when the other end has fewer values), and for each group walks the
// paths a·b from V0 once, keeping per V2 its best path (and its best
// through another V1, for an inequality between V1 and V3, as facBuild
// does). Each tuple of the group then meets them from its V3: it walks
// c's chain of V3 and looks each V2 up among the group's, or, when that
// chain is much longer than the V2 strong enough, looks c up for each of
// them. It emits the best path to the tuple's pair, under the tuple's
// confidence as its demand; the fixpoint keeps the best derivation of a
// fact, so the facts and confidences are those of the join.
//
// When V1 != V3 is among the inequalities and V3 is a number, the two best
// paths may both go through a V1 equal to it as a number ("7", "7.0"):
// such a tuple is joined path by path (facPairDirect).

// pairOrder is the order of a guard relation's tuples by their value at
// one position, cached for the plans of a round (each of a relation's
// twins has one).
type pairOrder struct {
	rel    *Relation
	n      int
	tuples []int32
	groups [][2]int32
}

// pairKey names a cached pairOrder: the guard relation and the position.
type pairKey struct {
	ri  int32
	pos int
}

// pairOrderOf returns the tuples of guard relation gi ordered by their
// value at position pos, with the spans of equal values.
func (e *Evaluator) pairOrderOf(gi int32, pos int) *pairOrder {
	g := e.Rels[gi]
	k := pairKey{gi, pos}
	if o := e.pairOrders[k]; o != nil && o.rel == g && o.n == g.Len() {
		return o
	}
	all := make([]int32, g.Len())
	for i := range all {
		all[i] = int32(i)
	}
	o := &pairOrder{rel: g, n: g.Len()}
	o.tuples, o.groups = groupBy(g, all, pos)
	if e.pairOrders == nil {
		e.pairOrders = map[pairKey]*pairOrder{}
	}
	e.pairOrders[k] = o
	return o
}

// facPairPlan returns the pair plan of the chain rule r whose guard g is
// over both ends, for the guard's tuples d (nil: all).
func (e *Evaluator) facPairPlan(r *Crule, g *Relation, d []int32) *facPlan {
	sh := r.fac
	gi := r.Body[sh.gate].Atom.Rel
	x0, x3 := e.pairOrderOf(gi, sh.pairX0), e.pairOrderOf(gi, 1-sh.pairX0)
	// Group by the end with fewer values: each group walks a·b once.
	right := len(x3.groups) < len(x0.groups)
	o, pos := x0, sh.pairX0
	if right {
		o, pos = x3, 1-sh.pairX0
	}
	fp := &facPlan{weight: r.Weight, demand: 1, gate: g, gateAt: gatePair, pairAt: pos}
	fp.orient(e, r, right)
	fp.mid, fp.groups = o.tuples, o.groups
	if d != nil && len(d) < g.Len() {
		fp.mid, fp.groups = subGroups(o, d)
	}
	fp.ixG = fp.rel[0].Index(1 << uint(fp.in[0]))   // a by V0
	fp.ixB = fp.rel[1].Index(1 << uint(fp.in[1]))   // b by V1
	fp.ixC = fp.rel[2].Index(1 << uint(1-fp.in[2])) // c by V3
	return fp
}

// facPairDeltaPlan returns the pair plan of the chain rule r under its
// guard g over both ends for the delta d of its first atom or, when right,
// of its last: the delta's tuples grouped by their value at the guarded
// end (V0), each group's paths a·b walked from its own tuples of a, then
// met from the V3 of each guard tuple with that V0.
func (e *Evaluator) facPairDeltaPlan(r *Crule, g *Relation, right bool, d []int32) *facPlan {
	sh := r.fac
	pos := sh.pairX0
	if right {
		pos = 1 - sh.pairX0
	}
	fp := &facPlan{weight: r.Weight, demand: 1, gate: g, gateAt: gatePair, pairAt: pos, pairDelta: true}
	fp.orient(e, r, right)
	fp.mid, fp.groups = groupBy(fp.rel[0], d, fp.in[0])
	fp.ixP = g.Index(1 << uint(pos))
	fp.ixG = fp.rel[0].Index(1 << uint(fp.in[0]))
	fp.ixB = fp.rel[1].Index(1 << uint(fp.in[1]))
	fp.ixC = fp.rel[2].Index(1 << uint(1-fp.in[2]))
	return fp
}

// subGroups returns the tuples d (sorted) of o's relation in o's order,
// with the spans of equal values.
func subGroups(o *pairOrder, d []int32) ([]int32, [][2]int32) {
	in := make([]uint64, (o.n+63)/64)
	for _, t := range d {
		in[t/64] |= 1 << (t % 64)
	}
	ts := make([]int32, 0, len(d))
	var gs [][2]int32
	for _, sp := range o.groups {
		lo := int32(len(ts))
		for _, t := range o.tuples[sp[0]:sp[1]] {
			if in[t/64]&(1<<(t%64)) != 0 {
				ts = append(ts, t)
			}
		}
		if hi := int32(len(ts)); hi > lo {
			gs = append(gs, [2]int32{lo, hi})
		}
	}
	return ts, gs
}

// facPair emits, for each tuple of the guard group gs (one V0), the best
// path to its pair (see above); false when the task stops.
func (w *Worker) facPair(p *Plan, gs []int32) bool {
	fp := p.fac
	g := fp.gate
	var tas []int32 // the delta's tuples of a (nil: all of a's with V0)
	if fp.pairDelta {
		tas = gs
		v0 := fp.rel[0].Tuple(tas[0])[fp.in[0]]
		var key [2]uint32
		key[fp.pairAt] = v0
		gs = w.pairGs[:0]
		for t := fp.ixP.First(g, key[:]); t >= 0; t = fp.ixP.After(t) {
			gs = append(gs, t)
		}
		w.pairGs = gs
		if len(gs) == 0 {
			return true // no pair of V0 to derive
		}
	}
	v0 := g.Tuple(gs[0])[fp.pairAt]
	wt, min := fp.weight, w.E.Min
	top := 0.0 // the strongest demand of the group
	for _, t := range gs {
		top = max(top, g.ConfAt(t))
	}
	if wt*top < min {
		w.cut += int64(len(gs))
		return true
	}
	m := w.fm
	m.reset(nil, wt)
	ok := w.facPairBuild(p, v0, tas, wt*top) && w.facPairTuples(p, gs, v0)
	for i := range m.ents {
		m.at.del(m.ents[i].far)
	}
	w.demand = 1
	return ok
}

// facPairTuples emits the best path to each tuple's pair of the guard
// group gs from the paths a·b from v0 in the worker's memo; false when the
// task stops.
func (w *Worker) facPairTuples(p *Plan, gs []int32, v0 uint32) bool {
	fp := p.fac
	g := fp.gate
	wt, min := fp.weight, w.E.Min
	ents := w.fm.ents
	var ord []int32 // ents by decreasing confidence, made when first needed
	best := 0.0
	for i := range ents {
		best = max(best, ents[i].c)
	}
	for _, t := range gs {
		d := g.ConfAt(t)
		v3 := g.Tuple(t)[1-fp.pairAt]
		w.demand = d
		switch {
		case len(ents) == 0 || best*wt*d < min:
			w.cut++
			continue
		case fp.neq[0][3] && !w.differ(v0, v3):
			continue
		}
		if fp.neq[1][3] {
			if _, num := w.E.Syms.Number(v3); num {
				if !w.facPairDirect(p, v0, v3) {
					return false
				}
				continue
			}
		}
		var cw chainWalk // c's chain of V3
		var kc [2]uint32
		kc[1-fp.in[2]] = v3
		cw.start(fp.ixC, fp.rel[2], kc[:])
		ok := true
		if cw.T >= 0 && !cw.slow && int(cw.pk[cw.p0-1].far)-int(cw.p0) <= pairWalkMax*len(ents) {
			ok = w.facPairWalk(p, &cw, v0, v3, best)
		} else if cw.T >= 0 {
			if ord == nil {
				ord = byConfidence(ents)
			}
			ok = w.facPairFind(p, ord, v0, v3)
		}
		if !ok {
			return false
		}
	}
	return true
}

// pairWalkMax: a tuple of a pair group walks c's chain of its V3 when it
// is at most this many times as long as the group's V2 (each a step of
// the walk), and looks c up for each V2 otherwise (each a hash lookup).
const pairWalkMax = 4

// byConfidence returns the positions of ents by decreasing confidence,
// then by far value.
func byConfidence(ents []facEntry) []int32 {
	ord := make([]int32, len(ents))
	for i := range ord {
		ord[i] = int32(i)
	}
	slices.SortFunc(ord, func(x, y int32) int {
		if c := cmp.Compare(ents[y].c, ents[x].c); c != 0 {
			return c
		}
		return cmp.Compare(ents[x].far, ents[y].far)
	})
	return ord
}

// facPairBuild fills the worker's memo with the V2 reached from V0 = v0
// through a and b, each with its best path (far: V2, mid: V1, tb and tc:
// the tuples of a and b) and its best through another V1, cut where the
// path times bound is below the threshold; false when the task stops.
// The memo's map finds the entries until facPair empties it. The paths
// start from the tuples tas of a (nil: all of a's with V0 = v0).
func (w *Worker) facPairBuild(p *Plan, v0 uint32, tas []int32, bound float64) bool {
	m := w.fm
	fp := p.fac
	a, b := fp.rel[0], fp.rel[1]
	min := w.E.Min
	var ka, kb [2]uint32
	ka[fp.in[0]] = v0
	ordA := fp.ixG.ordered > 0
	var aw chainWalk
	stopped := false
	if tas == nil {
		aw.start(fp.ixG, a, ka[:])
	} else {
		aw.startList(a, tas, 1-fp.in[0])
	}
	for ; aw.T >= 0 && !stopped; aw.next() {
		if !w.tick() {
			stopped = true
			break
		}
		w.reads++
		ca := aw.C
		if ca*bound < min {
			if w.weakEnd(&aw, &ordA) {
				break
			}
			w.cut++
			continue
		}
		v1 := aw.Far
		if fp.neq[0][1] && !w.differ(v0, v1) {
			continue
		}
		kb[fp.in[1]] = v1
		ordB := fp.ixB.ordered > 0
		var bw chainWalk
		for bw.start(fp.ixB, b, kb[:]); bw.T >= 0; bw.next() {
			if !w.tick() {
				stopped = true
				break
			}
			w.reads++
			cab := ca * bw.C
			if cab*bound < min {
				if w.weakEnd(&bw, &ordB) {
					break
				}
				w.cut++
				continue
			}
			v2 := bw.Far
			if (fp.neq[0][2] && !w.differ(v0, v2)) || (fp.neq[1][2] && !w.differ(v1, v2)) {
				continue
			}
			m.note(v2, v1, aw.T, bw.T, cab)
		}
	}
	return !stopped
}

// note records in m a path of confidence c to far end far through the
// middle value mid and the tuples tb, tc: the best to far, or the best
// through a middle value other than the best's.
func (m *facMemo) note(far, mid uint32, tb, tc int32, c float64) {
	k, ok := m.at.get(far)
	if !ok {
		m.at.put(far, int32(len(m.ents)))
		m.ents = append(m.ents, facEntry{far: far, mid: mid, tb: tb, tc: tc, c: c})
		return
	}
	en := &m.ents[k]
	switch {
	case c > en.c:
		if en.mid != mid {
			en.mid2, en.tb2, en.tc2, en.c2 = en.mid, en.tb, en.tc, en.c
		}
		en.mid, en.tb, en.tc, en.c = mid, tb, tc, c
	case mid != en.mid && c > en.c2:
		en.mid2, en.tb2, en.tc2, en.c2 = mid, tb, tc, c
	}
}

// pairPath is the best path found so far to a guard tuple's pair.
type pairPath struct {
	c      float64
	v1, v2 uint32
	ts     [3]int32
}

// offer makes the path of entry en, continued by tuple tc of c (of
// confidence cc), the best when it beats it and object identity allows
// it (V1 != V3: the entry's path through another V1).
func (pp *pairPath) offer(fp *facPlan, en *facEntry, v3 uint32, tc int32, cc float64) {
	mid, ta, tb, c := en.mid, en.tb, en.tc, en.c
	if fp.neq[1][3] && mid == v3 {
		if en.c2 == 0 {
			return
		}
		mid, ta, tb, c = en.mid2, en.tb2, en.tc2, en.c2
	}
	if c*cc > pp.c {
		pp.c, pp.v1, pp.v2, pp.ts = c*cc, mid, en.far, [3]int32{ta, tb, tc}
	}
}

// facPairWalk walks cw, c's chain of V3 = v3, looking each V2 up among
// the worker's memo (best: its strongest entry), and emits the best path;
// false when the task stops.
func (w *Worker) facPairWalk(p *Plan, cw *chainWalk, v0, v3 uint32, best float64) bool {
	fp := p.fac
	m := w.fm
	lim := w.E.Min / (fp.weight * w.demand)
	ordC := fp.ixC.ordered > 0
	var pp pairPath
	for ; cw.T >= 0; cw.next() {
		if !w.tick() {
			return false
		}
		w.reads++
		if best*cw.C < lim {
			if w.weakEnd(cw, &ordC) {
				break
			}
			w.cut++
			continue
		}
		v2 := cw.Far
		if fp.neq[2][3] && !w.differ(v2, v3) {
			continue
		}
		if k, ok := m.at.get(v2); ok {
			pp.offer(fp, &m.ents[k], v3, cw.T, cw.C)
		}
	}
	w.facPairEmit(p, &pp, v0, v3)
	return true
}

// facPairFind looks c up for each V2 of the worker's memo, strongest
// first (ord), and emits the best path to (v0, v3); false when the task
// stops.
func (w *Worker) facPairFind(p *Plan, ord []int32, v0, v3 uint32) bool {
	fp := p.fac
	c := fp.rel[2]
	ents := w.fm.ents
	lim := w.E.Min / (fp.weight * w.demand)
	var key [2]uint32
	key[1-fp.in[2]] = v3
	var pp pairPath
	for i, k := range ord {
		if !w.tick() {
			return false
		}
		en := &ents[k]
		if en.c < lim || en.c <= pp.c {
			w.cut += int64(len(ord) - i)
			break // no later path beats it: confidences are at most 1
		}
		if fp.neq[2][3] && !w.differ(en.far, v3) {
			continue
		}
		key[fp.in[2]] = en.far
		w.probes++
		tc := c.Find(key[:])
		if tc < 0 {
			continue
		}
		if cc := c.ConfAt(tc); en.c*cc >= lim {
			pp.offer(fp, en, v3, tc, cc)
		}
	}
	w.facPairEmit(p, &pp, v0, v3)
	return true
}

// facPairEmit emits the path pp to (v0, v3), if one was found.
func (w *Worker) facPairEmit(p *Plan, pp *pairPath, v0, v3 uint32) {
	if pp.c > 0 {
		w.facEmit(p, [4]uint32{v0, pp.v1, pp.v2, v3}, pp.ts)
	}
}

// facPairDirect emits every path from V0 = v0 to V3 = v3, as the join
// would (see above); false when the task stops.
func (w *Worker) facPairDirect(p *Plan, v0, v3 uint32) bool {
	fp := p.fac
	a, b, c := fp.rel[0], fp.rel[1], fp.rel[2]
	var ka, kb, kc [2]uint32
	ka[fp.in[0]] = v0
	kc[1-fp.in[2]] = v3
	for ta := fp.ixG.First(a, ka[:]); ta >= 0; ta = fp.ixG.After(ta) {
		if !w.tick() {
			return false
		}
		v1 := a.Tuple(ta)[1-fp.in[0]]
		if (fp.neq[0][1] && !w.differ(v0, v1)) || (fp.neq[1][3] && !w.differ(v1, v3)) {
			continue
		}
		kb[fp.in[1]] = v1
		for tb := fp.ixB.First(b, kb[:]); tb >= 0; tb = fp.ixB.After(tb) {
			if !w.tick() {
				return false
			}
			v2 := b.Tuple(tb)[1-fp.in[1]]
			if (fp.neq[0][2] && !w.differ(v0, v2)) || (fp.neq[1][2] && !w.differ(v1, v2)) ||
				(fp.neq[2][3] && !w.differ(v2, v3)) {
				continue
			}
			kc[fp.in[2]] = v2
			w.probes++
			if tc := c.Find(kc[:]); tc >= 0 {
				w.facEmit(p, [4]uint32{v0, v1, v2, v3}, [3]int32{ta, tb, tc})
			}
		}
	}
	return true
}
