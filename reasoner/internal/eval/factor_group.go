package eval

import (
	"slices"
)

// The grouped delta of a chain rule's middle atom, the groupings of a
// round's delta it reads, and the path-by-path fallback of factorised
// plans (see factor.go).

// facGroup emits the derivations of the middle atom's delta tuples tbs,
// which share their V1: their far ends, joined once, for every tuple of a
// with that V1. The far ends are built only when a has a tuple with that
// V1, and cut by the plan's weight times the strongest of them (chainTop):
// a derivation through a path of confidence cc is at most cc times that,
// so a path the build cuts is one the emission would cut, as with the
// scan bound of shared memos (factor_share.go, whose argument keeps the
// proofs). a is not written during a batch's tasks, so the strongest is
// that of the walk below.
func (w *Worker) facGroup(p *Plan, tbs []int32) bool {
	fp := p.fac
	a := fp.rel[0]
	v1 := fp.rel[1].Tuple(tbs[0])[fp.in[1]]
	var ka [2]uint32
	ka[1-fp.in[0]] = v1
	bound := fp.weight
	if !w.E.noScanBound {
		top, found := w.chainTop(fp.ixA, a, ka[:])
		if !found {
			return true // no tuple of a meets the group
		}
		if top > 0 && top < 1 {
			bound = min(bound, bound*top*(1+1e-9))
		}
	}
	w.fm.reset(nil, bound)
	ents, ok := w.facBuild(p, v1, tbs)
	if !ok || len(ents) == 0 {
		return ok
	}
	wt, min := fp.weight, w.E.Min
	ordA := fp.ixA.ordered > 0
	var cw chainWalk // a's chain, the ordered part contiguous (chainpack.go)
	for cw.start(fp.ixA, a, ka[:]); cw.T >= 0; cw.next() {
		ta := cw.T
		if !w.tick() {
			return false
		}
		w.reads++
		c0 := cw.C
		if c0*ents[0].c*wt < min {
			if w.weakEnd(&cw, &ordA) {
				break
			}
			w.cut++
			continue
		}
		v0 := cw.Far
		if fp.neq[0][1] && !w.differ(v0, v1) {
			continue
		}
		if fp.gateAt == gateFind && !w.gateDemand(fp, v0) {
			continue // not demanded
		}
		if fp.neq[0][2] {
			if _, num := w.E.Syms.Number(v0); num {
				if !w.facDirect(p, ta, tbs) {
					return false
				}
				continue
			}
		}
		if !w.facEmitAll(p, ta, v0, v1, c0, ents) {
			return false
		}
	}
	return true
}

// chainTop returns the highest confidence in the chain of ix for key,
// and whether the chain has a tuple. It reads the chain's new tuples and
// stops at the first of its ordered part when no confidence there changed
// since the ordering (weakRest): the rest are at most as confident.
func (w *Worker) chainTop(ix *hashIndex, r *Relation, key []uint32) (float64, bool) {
	top, found := 0.0, false
	var cw chainWalk
	for cw.start(ix, r, key); cw.T >= 0; cw.next() {
		w.reads++
		top, found = max(top, cw.C), true
		if _, ok := cw.weakRest(); ok {
			break
		}
	}
	return top, found
}

// differ reports whether symbols a and b are different values, as the
// comparison A != B tells them apart: numbers by value, other symbols by
// name.
func (w *Worker) differ(a, b uint32) bool {
	if a == b {
		return false
	}
	s := w.E.Syms
	fa, na := s.Number(a)
	if !na {
		return true
	}
	fb, nb := s.Number(b)
	return !nb || s.compare(a, fa, na, b, fb, nb) != 0
}

// facDirect emits every path from tuple t of a through the tuples tbs of b
// (nil: all of b's), one by one, as the join would; false when the task
// stops.
func (w *Worker) facDirect(p *Plan, t int32, tbs []int32) bool {
	fp := p.fac
	v0, v1 := fp.rel[0].Tuple(t)[fp.in[0]], fp.rel[0].Tuple(t)[1-fp.in[0]]
	c0 := fp.rel[0].ConfAt(t)
	if fp.neq[0][1] && !w.differ(v0, v1) {
		return true
	}
	b, c := fp.rel[1], fp.rel[2]
	var kb, kc [2]uint32
	kb[fp.in[1]] = v1
	tb, next := tbs0(tbs)
	if tbs == nil {
		tb = fp.ixB.First(b, kb[:])
	}
	for ; tb >= 0; tb, next = w.facNextB(fp, tb, tbs, next) {
		if !w.tick() {
			return false
		}
		w.reads++
		v2 := b.Tuple(tb)[1-fp.in[1]]
		cb := c0 * b.ConfAt(tb)
		if cb*fp.weight < w.E.Min {
			w.cut++
			continue
		}
		if (fp.neq[1][2] && !w.differ(v2, v1)) || (fp.neq[0][2] && !w.differ(v2, v0)) {
			continue
		}
		kc[fp.in[2]] = v2
		var cw chainWalk
		for cw.start(fp.ixC, c, kc[:]); cw.T >= 0; cw.next() {
			tc := cw.T
			if !w.tick() {
				return false
			}
			w.reads++
			v3 := cw.Far
			if (fp.neq[1][3] && !w.differ(v3, v1)) || (fp.neq[2][3] && !w.differ(v3, v2)) ||
				(fp.neq[0][3] && !w.differ(v3, v0)) {
				continue
			}
			w.facEmit(p, [4]uint32{v0, v1, v2, v3}, [3]int32{t, tb, tc})
		}
	}
	return true
}

// facNextB returns the tuple of b after tb: the next of the list tbs
// (position next), or of the index chain when tbs is nil; -1 after the
// last.
func (w *Worker) facNextB(fp *facPlan, tb int32, tbs []int32, next int) (int32, int) {
	if tbs == nil {
		return fp.ixB.After(tb), 0
	}
	if next == len(tbs) {
		return -1, next
	}
	return tbs[next], next + 1
}

// tbs0 returns the first tuple of the list tbs of b and the position of
// the next; for a nil list (b's tuples read from its index, ixB) -1 and 0.
func tbs0(tbs []int32) (int32, int) {
	if tbs == nil {
		return -1, 0
	}
	return tbs[0], 1
}

// facGrouping is a relation's delta grouped by the value at one position
// (groupBy); n is the number of groups, known before the grouping when
// facGroupCount counted them (tuples nil until facGroupsOf builds it).
type facGrouping struct {
	tuples []int32
	groups [][2]int32
	n      int
}

// facGroupsOf returns the tuples d of relation ri grouped by their value at
// position pos. When d is a prefix of the round's delta of ri (what
// strongEnough leaves of it for one rule), the whole delta is grouped, once
// per round, relation and position, and returned instead: the tuples past
// the prefix are those too weak for the rule, which facBuild skips. A
// mined program has thousands of rules per relation; a grouping of its
// delta per rule took gigabytes.
func (e *Evaluator) facGroupsOf(ri int32, pos int, d []int32) *facGrouping {
	full, ok := e.fullDelta(ri, d)
	if !ok {
		g := &facGrouping{}
		g.tuples, g.groups = groupBy(e.Rels[ri], d, pos)
		g.n = len(g.groups)
		return g
	}
	k := deltaKey{ri, pos}
	g := e.facGroups[k]
	if g == nil {
		g = &facGrouping{}
		e.facGroups[k] = g
	}
	if g.tuples == nil {
		g.tuples, g.groups = groupBy(e.Rels[ri], full, pos)
		g.n = len(g.groups)
	}
	return g
}

// fullDelta returns the round's delta of ri and whether d is a prefix of
// it (see facGroupsOf).
func (e *Evaluator) fullDelta(ri int32, d []int32) ([]int32, bool) {
	full := e.roundDelta[ri]
	return full, len(d) > 0 && len(full) >= len(d) && &full[0] == &d[0]
}

// facGroupCount is the number of groups facGroupsOf would make, counted
// without making them where the values are small (distinctAt): a plan
// compares the counts at both positions and reads one grouping, and
// building both held sg-2k's largest delta grouped twice beside its sort
// keys (14 MB at the heap's peak).
func (e *Evaluator) facGroupCount(ri int32, pos int, d []int32) int {
	full, ok := e.fullDelta(ri, d)
	if !ok {
		if n, ok := distinctAt(e.Rels[ri], d, pos); ok {
			return n
		}
		return e.facGroupsOf(ri, pos, d).n
	}
	k := deltaKey{ri, pos}
	if g := e.facGroups[k]; g != nil {
		return g.n
	}
	if n, ok := distinctAt(e.Rels[ri], full, pos); ok {
		e.facGroups[k] = &facGrouping{n: n}
		return n
	}
	return e.facGroupsOf(ri, pos, d).n
}

// maxAt is the largest value at position pos of the tuples d of rel.
func maxAt(rel *Relation, d []int32, pos int) uint32 {
	m := uint32(0)
	for _, t := range d {
		m = max(m, rel.Tuple(t)[pos])
	}
	return m
}

// distinctAt counts the values at position pos of the tuples d of rel in
// a bit set of the values, when the largest is below 64 times their
// number (the set at most a word a tuple); ok is false otherwise.
func distinctAt(rel *Relation, d []int32, pos int) (n int, ok bool) {
	m := maxAt(rel, d, pos)
	if uint64(m) >= 64*uint64(len(d)) {
		return 0, false
	}
	set := make([]uint64, m/64+1)
	for _, t := range d {
		v := rel.Tuple(t)[pos]
		if set[v/64]&(1<<(v%64)) == 0 {
			set[v/64] |= 1 << (v % 64)
			n++
		}
	}
	return n, true
}

// groupBy orders the tuples d of rel by their value at position pos (then
// as they were) and returns them with the spans of equal values. When the
// values are below len(d), a counting sort: the count of each value, then
// each tuple put at its value's next place. Otherwise a sort of one word
// per tuple, the value above its position in d, which takes twice the
// bytes of the order made (sg-2k's largest delta: 6 MB of keys): a stable
// sort comparing the tuples' values (insertion sorts and rotations, each
// comparison two tuple reads) was an eighth of sg-2k's CPU.
func groupBy(rel *Relation, d []int32, pos int) ([]int32, [][2]int32) {
	if m := maxAt(rel, d, pos); uint64(m) < uint64(len(d)) {
		return groupByCount(rel, d, pos, m)
	}
	keys := make([]uint64, len(d))
	for i, t := range d {
		keys[i] = uint64(rel.Tuple(t)[pos])<<32 | uint64(i)
	}
	slices.Sort(keys)
	s := make([]int32, len(d))
	var gs [][2]int32
	for i, k := range keys {
		s[i] = d[uint32(k)]
		if i == 0 || k>>32 != keys[i-1]>>32 {
			gs = append(gs, [2]int32{int32(i), int32(i + 1)})
		} else {
			gs[len(gs)-1][1]++
		}
	}
	return s, gs
}

// groupByCount is groupBy by a counting sort of the values, all at most m.
func groupByCount(rel *Relation, d []int32, pos int, m uint32) ([]int32, [][2]int32) {
	at := make([]int32, m+2) // at[v+1]: the tuples of value v, then where they start
	for _, t := range d {
		at[rel.Tuple(t)[pos]+1]++
	}
	var gs [][2]int32
	for v := range m + 1 {
		if n := at[v+1]; n > 0 {
			gs = append(gs, [2]int32{at[v], at[v] + n})
		}
		at[v+1] += at[v]
	}
	s := make([]int32, len(d))
	for _, t := range d {
		v := rel.Tuple(t)[pos]
		s[at[v]] = t
		at[v]++
	}
	return s, gs
}

// facRepeats is how many tuples of the end atom at path position end (0 or
// 2) of rule r share each value of the variable next to it, on average: how
// often a memo from that end would be used.
func (e *Evaluator) facRepeats(r *Crule, end int) float64 {
	sh := r.fac
	rel := e.Rels[r.Body[sh.lit[end]].Atom.Rel]
	if rel.Len() == 0 {
		return 0
	}
	p := 1 - sh.from[end] // X1, in the first atom
	if end == 2 {
		p = sh.from[end] // X2, in the last
	}
	ix := rel.Index(1 << uint(p))
	return float64(rel.Len()) / float64(max(1, ix.count))
}
