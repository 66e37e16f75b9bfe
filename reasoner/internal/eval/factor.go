package eval

import (
	"github.com/drumql/drumql/datalog"
)

// Factorised evaluation of three-atom chain rules.
//
// A mined program's longest rules are paths of three binary atoms from the
// head's first variable to its second, h(X0, X3) :- a(X0, X1), b(X1, X2),
// c(X2, X3) (each atom in either direction), with inequalities between the
// path's variables (object identity). Joined atom by atom, such a rule over
// hub entities enumerates every path: on FB15k-237, `category(A, B) :-
// country(A, C), country(D, C), category(D, B)` walks the thousands of
// places D of A's country once for every place A of that country, to
// derive the same few categories B each time. Three-atom rules were 97% of
// the first round of its mined file's fixpoint.
//
// The factorised plan scans the tuples of one end atom (a, or c read
// backwards) and, for each value of the variable it shares with the rest
// (X1), joins the rest once: the far ends X3 reachable from X1 through b
// and c, each with its best product of confidences (a memo, ordered by
// that product). Each scanned tuple then emits one derivation per far end,
// the best one through X1. The result is the same fixpoint: a derivation
// dropped is never better than one kept for the same head fact.
//
// A worker keeps its memos for a round, each while b and c do not change,
// and the plans of a round with the same b and c (relations, positions and
// the inequalities among X1, X2 and X3) share one, built with the largest
// of their weights: a mined program has several rules for each such pair
// (factor_share.go, which says why the derivations and proofs are those
// of a memo per plan).
//
// A rule under a guard over both ends of its path (a rederive twin) is
// joined from the guard's pairs (factor_pair.go).
//
// A delta of the middle atom b is grouped by V1 (facGroup): each group is
// joined with c once and emitted for a's tuples with that V1. A delta of an
// end atom whose far variable has few values is walked from each of them
// instead (factor_walk.go). The scan, the groups and the walks emit in an
// order that depends on the plan's tuples only, never on the number of
// threads.
//
// Object identity needs more than the best path when an inequality
// involves the scanned tuple's own variable X0 and the middle variable X2
// (A != D): an entry also keeps the best path through another middle value,
// used when the best one goes through X0 itself. The other inequalities are
// tests on the memo's key, on the entry, or on the emitted head.

// facShape is the path of a three-atom chain rule (see above).
type facShape struct {
	lit  [3]int   // body literal of the atom between X_i and X_i+1
	from [3]int   // argument position of X_i in that atom (X_i+1 is at 1-from)
	vars [4]int32 // slots of X0..X3: the head's first argument is X0, its second X3
	neq  [4][4]bool
	// gate is the body literal of the rule's magic guard, -1 when it has
	// none. A guard with no argument (the rule of an all-free goal in a
	// goal-directed query) lets the plan run once its fact exists, and
	// the plan cuts by its confidence (the demand) too. A guard over one
	// end of the path (gateVar, X0 or X3: a goal with that argument
	// bound) is scanned: its values, then the end atom's tuples with
	// each, each value's confidence its demand.
	gate    int
	gateVar int32
	// pair marks a guard over both ends of the path (a rederive twin's,
	// whose guard holds the head's arguments, or a goal with both bound):
	// its tuples are pairs of X0 and X3, X0 at position pairX0
	// (factor_pair.go).
	pair   bool
	pairX0 int
}

// chainShapeOf returns the path of r when r is a three-atom chain rule
// whose other literals are inequalities between the path's variables and
// at most one guard (see facShape.gate and facShape.pair), and nil
// otherwise (constants, wildcards, guards over other arguments,
// negations, other tests, aggregates, magic and bridging rules).
func chainShapeOf(r *Crule) *facShape {
	if r.crisp || r.copy || r.agg || r.naggw != 0 || len(r.Head.Args) != 2 {
		return nil
	}
	x0, x3 := r.Head.Args[0].V, r.Head.Args[1].V
	if x0 < 0 || x3 < 0 || x0 == x3 {
		return nil
	}
	var atoms []int
	var neqs [][2]int32
	gate, gateVar := -1, int32(-1)
	pair, pairX0 := false, 0
	for j := range r.Body {
		l := &r.Body[j]
		switch {
		case l.Kind == datalog.Positive && l.guard && gate < 0 && (len(l.Atom.Args) == 0 ||
			len(l.Atom.Args) == 1 && (l.Atom.Args[0].V == x0 || l.Atom.Args[0].V == x3)):
			gate = j
			if len(l.Atom.Args) == 1 {
				gateVar = l.Atom.Args[0].V
			}
		case l.Kind == datalog.Positive && l.guard && gate < 0 && len(l.Atom.Args) == 2 &&
			(l.Atom.Args[0].V == x0 && l.Atom.Args[1].V == x3 || l.Atom.Args[0].V == x3 && l.Atom.Args[1].V == x0):
			gate, pair = j, true
			if l.Atom.Args[1].V == x0 {
				pairX0 = 1
			}
		case l.Kind == datalog.Positive && !l.guard && len(l.aggs) == 0:
			a := l.Atom.Args
			if len(a) != 2 || a[0].V < 0 || a[1].V < 0 || a[0].V == a[1].V {
				return nil
			}
			atoms = append(atoms, j)
		case l.Kind == datalog.Comparison && l.op == datalog.OpNe && l.lx == nil && l.rx == nil &&
			!l.filter && len(l.aggs) == 0 && l.L.V >= 0 && l.R.V >= 0:
			neqs = append(neqs, [2]int32{l.L.V, l.R.V})
		default:
			return nil
		}
	}
	if len(atoms) != 3 {
		return nil
	}
	sh := &facShape{gate: gate, gateVar: gateVar, pair: pair, pairX0: pairX0}
	sh.vars[0] = x0
	used := [3]bool{}
	for i := range 3 {
		found := false
		for k, j := range atoms {
			if used[k] {
				continue
			}
			a := r.Body[j].Atom.Args
			for p := range 2 {
				if a[p].V == sh.vars[i] {
					if found {
						return nil // two atoms continue the path: not a chain
					}
					found = true
					used[k] = true
					sh.lit[i], sh.from[i], sh.vars[i+1] = j, p, a[1-p].V
				}
			}
		}
		if !found {
			return nil
		}
	}
	if sh.vars[3] != x3 || sh.vars[1] == sh.vars[2] || sh.vars[1] == x0 || sh.vars[1] == x3 ||
		sh.vars[2] == x0 || sh.vars[2] == x3 {
		return nil
	}
	pos := func(v int32) int {
		for i, x := range sh.vars {
			if x == v {
				return i
			}
		}
		return -1
	}
	for _, q := range neqs {
		a, b := pos(q[0]), pos(q[1])
		if a < 0 || b < 0 {
			return nil
		}
		sh.neq[a][b], sh.neq[b][a] = true, true
	}
	return sh
}

// facPlan is a factorised plan of a chain rule: atoms a, b, c in scan
// order, between the variables V0..V3 (X0..X3, or X3..X0 when the scan
// starts from the rule's last atom).
type facPlan struct {
	lit   [3]*clit
	rel   [3]*Relation
	in    [3]int   // argument position of V_i in atom i (V_i+1 is at 1-in)
	vars  [4]int32 // rule slots of V0..V3
	neq   [4][4]bool
	order [3]int // scan position of the rule's atoms X0-X1, X1-X2, X2-X3
	ixB   *hashIndex
	ixC   *hashIndex
	delta []int32 // the scanned tuples of a; nil: all of them
	// weight is the rule's weight times demand, what a path's confidence
	// is multiplied by before it is compared with the threshold; demand
	// is the confidence of the rule's gate with no argument
	// (facShape.gate), 1 without one.
	weight, demand float64
	// gate is the relation of a gate over one end of the path (see
	// gateAt), nil for none.
	gate *Relation
	// gateAt says how the plan meets its gate. gateScan: over V0, the
	// plan scans its tuples gates (nil: all of them) instead of a's
	// (facGate), ixG finding a's tuples by V0; gateFind: over V0, each
	// scanned tuple of a (delta, or a group's tuples of a middle delta)
	// takes the demand of the gate's tuple with its V0, and is skipped
	// without one; gateFar: over V3, each derivation emitted takes the
	// demand of its V3 (facEmit); gatePair: over both ends, its tuples
	// grouped by V0 (mid and groups; V0 at position pairAt), each
	// group's paths a·b met from each tuple's V3 (factor_pair.go), ixG
	// finding a's tuples by V0 and ixC c's by V3.
	gateAt gateMode
	pairAt int
	// pairDelta marks a pair plan of an end atom's delta: its groups
	// hold a's tuples by V0, and ixP finds the guard's by V0.
	pairDelta bool
	ixP       *hashIndex
	gates     []int32
	ixG       *hashIndex
	// A plan of the middle atom's delta (b's) takes its tuples grouped by
	// V1 (mid, in groups); each group is joined with c as one memo
	// entry would be and emitted for the tuples of a with that V1 (ixA).
	mid    []int32
	groups [][2]int32
	ixA    *hashIndex
	// walk marks a plan of an end atom's delta grouped by V0 instead (mid
	// and groups hold a's tuples): each group is walked level by level,
	// V1, V2 then V3, each value once with its best path (facWalk).
	walk bool
	// share is the memo the plan reads in its round (factor_share.go).
	share *facShare
	// top is the highest confidence of the plan's scanned tuples when
	// its round began, which its memo was built for (shareMemos; 0: its
	// weight alone). A tuple raised above it by an earlier batch of the
	// round is joined path by path (facTuple).
	top float64
}

// byGroups reports whether the plan's first-step items are its groups
// (mid and groups): a pair plan's, or a delta's grouped by V1 or by V0
// (walk). A batch counts their tuples (groupsWithin), and its tasks split
// them by their tuples (addGroupTasks).
func (fp *facPlan) byGroups() bool {
	return fp.groups != nil && fp.gates == nil && fp.gateAt != gateScan
}

// facPlanOf returns the factorised plan of rule r with the delta d at body
// literal deltaAt (-1: none), or nil when r is not a chain rule.
func (e *Evaluator) facPlanOf(r *Crule, deltaAt int, d []int32) *facPlan {
	sh := r.fac
	if sh == nil {
		return nil
	}
	demand := 1.0
	var gate *Relation
	var gates []int32
	at := gateNone
	if sh.gate >= 0 {
		g := e.Rels[r.Body[sh.gate].Atom.Rel]
		switch {
		case g.Len() == 0:
			return nil // the plan of the guard finds nothing at once
		case sh.pair:
			switch deltaAt {
			case -1, sh.gate:
				return e.facPairPlan(r, g, d)
			case sh.lit[0], sh.lit[2]:
				return e.facPairDeltaPlan(r, g, deltaAt == sh.lit[2], d)
			}
			return nil // a middle delta: the join, by fanout
		case sh.gateVar >= 0:
			// The plan's V0 is the gate's variable (the scan, the
			// delta of the atom next to it, a middle delta) or, for a
			// delta of the far atom, its V3.
			gate = g
			switch deltaAt {
			case -1, sh.gate:
				at, gates = gateScan, d
				deltaAt, d = -2, nil
			default:
				at = gateFind // a middle delta, or the near atom's
				if deltaAt != sh.lit[1] && (deltaAt == sh.lit[0]) != (sh.gateVar == sh.vars[0]) {
					at = gateFar
				}
			}
		default:
			// A stronger demand later is a delta of the gate, whose
			// plan joins the whole rule again by it.
			demand = g.ConfAt(0)
			if deltaAt == sh.gate {
				deltaAt, d = -1, nil
			}
		}
	}
	if deltaAt == -1 && at == gateNone && e.facEmpty(r) {
		// The plan derives nothing now, and what an empty relation
		// gains this round is its delta, joined next round. Planned,
		// it built indexes of the empty relation that every tuple it
		// gains is added to, read or not (sg-2k's first round: 10 MB
		// of chain links of sg by its first position, never read).
		return &facPlan{delta: []int32{}}
	}
	right, mid := false, false
	switch deltaAt {
	case -2:
		right = sh.gateVar == sh.vars[3]
	case -1:
		right = e.facRepeats(r, 2) > e.facRepeats(r, 0)
	case sh.lit[0]:
	case sh.lit[2]:
		right = true
	case sh.lit[1]:
		// Group the middle atom's delta by the variable with fewer
		// values in it.
		mid = true
		bi := r.Body[sh.lit[1]].Atom.Rel
		right = e.facGroupCount(bi, 1-sh.from[1], d) < e.facGroupCount(bi, sh.from[1], d)
		if gate != nil {
			right = sh.gateVar == sh.vars[3] // V0 is the gate's
		}
	default:
		return nil
	}
	fp := &facPlan{weight: r.Weight * demand, demand: demand, gate: gate, gateAt: at, gates: gates}
	if !mid {
		fp.delta = d
	}
	fp.orient(e, r, right)
	if !mid {
		// A middle delta's plan reads b's tuples from its groups only:
		// an index of b by V1 would be kept up to date with every tuple
		// b gains and never read (sg-2k: 10 MB of chain links).
		fp.ixB = fp.rel[1].Index(1 << uint(fp.in[1]))
	}
	fp.ixC = fp.rel[2].Index(1 << uint(fp.in[2]))
	if at == gateScan {
		fp.ixG = fp.rel[0].Index(1 << uint(fp.in[0]))
	}
	if mid {
		fp.ixA = fp.rel[0].Index(1 << uint(1-fp.in[0]))
		g := e.facGroupsOf(fp.lit[1].Atom.Rel, fp.in[1], d)
		fp.mid, fp.groups = g.tuples, g.groups
	}
	if d != nil && !mid && !e.walkNever && gate == nil {
		// A delta of an end atom whose far variable (V0) has far fewer
		// values than its near one (V1) is walked from each V0 instead.
		ai := fp.lit[0].Atom.Rel
		if e.walkAlways || 4*e.facGroupCount(ai, fp.in[0], d) < e.facGroupCount(ai, 1-fp.in[0], d) {
			by0 := e.facGroupsOf(ai, fp.in[0], d)
			fp.walk, fp.mid, fp.groups, fp.delta = true, by0.tuples, by0.groups, nil
		}
	}
	return fp
}

// orient fills the atoms, variables and inequalities of fp from the chain
// rule r, scanned from its first atom or, when right, from its last.
func (fp *facPlan) orient(e *Evaluator, r *Crule, right bool) {
	sh := r.fac
	for i := range 3 {
		k, v := i, i
		if right {
			k = 2 - i
		}
		l := &r.Body[sh.lit[k]]
		fp.lit[i], fp.rel[i], fp.order[k] = l, e.Rels[l.Atom.Rel], i
		fp.in[i] = sh.from[k]
		if right {
			fp.in[i] = 1 - sh.from[k]
			v = 3 - i
		}
		fp.vars[i] = sh.vars[v]
	}
	fp.vars[3] = sh.vars[0]
	if !right {
		fp.vars[3] = sh.vars[3]
	}
	for i := range 4 {
		for j := range 4 {
			a, b := i, j
			if right {
				a, b = 3-i, 3-j
			}
			fp.neq[i][j] = sh.neq[a][b]
		}
	}
}

// facEmpty reports whether an atom of the chain rule r reads an empty
// relation.
func (e *Evaluator) facEmpty(r *Crule) bool {
	for _, j := range r.fac.lit {
		if e.Rels[r.Body[j].Atom.Rel].Len() == 0 {
			return true
		}
	}
	return false
}

// facEntry is a far end V3 of a memo (see facMemo): the best path to it
// from the memo's key V1 through b and c, and the best through another
// middle value V2 (c2 = 0: none).
type facEntry struct {
	far, mid, mid2 uint32
	tb, tc         int32
	tb2, tc2       int32
	c, c2          float64
}

// facMemo holds, for the plans of one share (facShare), the far ends
// reached from each value of V1, strongest first, built with the weight
// wt. A worker keeps it for a round while b and c do not change (bv and
// cv, their writes when it was emptied; see facMemoOf).
type facMemo struct {
	sh     *facShare
	wt     float64
	bv, cv uint64
	span   map[uint32][2]int32 // V1 -> its entries in ents
	ents   []facEntry
	at     *farIndex // far end -> entry, while one V1's are built
}

// facMemoMax is the number of entries (and values of V1) a worker's
// memos hold before they make room (facMemos.drop).
const facMemoMax = 1 << 20

// reset empties m for the plans of share sh (nil: a group of a middle
// delta, facGroup), built with the weight wt.
func (m *facMemo) reset(sh *facShare, wt float64) {
	m.sh, m.wt = sh, wt
	if sh != nil {
		m.bv, m.cv = sh.b.writes, sh.c.writes
	}
	clear(m.span)
	m.ents = m.ents[:0]
}

// execFac evaluates the scanned tuples lo..hi of factorised plan p.
func (w *Worker) execFac(p *Plan, lo, hi int) {
	fp := p.fac
	w.fm = w.facMemoOf(fp)
	w.demand = fp.demand
	for i := lo; i < hi; i++ {
		if fp.gateAt == gatePair {
			if !w.facPair(p, fp.mid[fp.groups[i][0]:fp.groups[i][1]]) {
				return
			}
			continue
		}
		if fp.gateAt == gateScan {
			g := int32(i)
			if fp.gates != nil {
				g = fp.gates[i]
			}
			if !w.facGate(p, g) {
				return
			}
			continue
		}
		if fp.groups != nil {
			g := fp.mid[fp.groups[i][0]:fp.groups[i][1]]
			ok := false
			if fp.walk {
				ok = w.facWalk(p, g)
			} else {
				ok = w.facGroup(p, g)
			}
			if !ok {
				return
			}
			continue
		}
		t := int32(i)
		if fp.delta != nil {
			t = fp.delta[i]
		}
		if fp.gateAt == gateFind && !w.gateDemand(fp, fp.rel[0].Tuple(t)[fp.in[0]]) {
			continue // not demanded
		}
		if !w.facTuple(p, t) {
			return
		}
	}
}

// facTuple emits the derivations of tuple t of the scanned atom: one per
// far end reached from its V1, the best path there.
func (w *Worker) facTuple(p *Plan, t int32) bool {
	fp := p.fac
	a := fp.rel[0]
	w.reads++
	tup := a.Tuple(t)
	v0, v1 := tup[fp.in[0]], tup[1-fp.in[0]]
	c0, wt, min := a.ConfAt(t), fp.weight, w.E.Min
	if fp.gateAt == gateScan || fp.gateAt == gateFind {
		wt *= w.demand // the demand of V0's value
	}
	if c0*wt < min {
		w.cut++
		return true
	}
	if fp.neq[0][1] && !w.differ(v0, v1) {
		return true
	}
	if fp.neq[0][2] {
		if _, num := w.E.Syms.Number(v0); num {
			// Several middle values may equal v0 as numbers ("7",
			// "7.0"): the memo's two best paths are not enough.
			return w.facDirect(p, t, nil)
		}
	}
	if fp.top > 0 && c0 > fp.top {
		// An earlier batch of the round raised t above what the memo
		// was built for (shareMemos): its paths may be missing.
		return w.facDirect(p, t, nil)
	}
	ents, ok := w.facRest(p, v1)
	if !ok {
		return false
	}
	return w.facEmitAll(p, t, v0, v1, c0, ents)
}

// facEmitAll emits a derivation of tuple t of a (V0 = v0, V1 = v1, of
// confidence c0) for every far end of ents strong enough, through the best
// path there that object identity allows.
func (w *Worker) facEmitAll(p *Plan, t int32, v0, v1 uint32, c0 float64, ents []facEntry) bool {
	fp := p.fac
	wt, min := fp.weight, w.E.Min
	if fp.gateAt == gateScan || fp.gateAt == gateFind {
		wt *= w.demand // the demand of V0's value
	}
	// The head is (V0, V3): the keys of emit's head set are known ahead.
	touch := w.Sink == nil && w.E.Rels[p.Rule.Head.Rel].CheckEmit
	for k := range ents {
		if touch && k%touchBatch == 0 && k+touchBatch <= len(ents) {
			w.sink += w.seen.touch(v0, ents[k:k+touchBatch])
		}
		if !w.tick() {
			return false
		}
		en := &ents[k]
		if c0*en.c*wt < min {
			w.cut += int64(len(ents) - k)
			break
		}
		if fp.neq[0][3] && !w.differ(en.far, v0) {
			continue
		}
		mid, tb, tc := en.mid, en.tb, en.tc
		if fp.neq[0][2] && mid == v0 {
			if en.c2 == 0 {
				continue
			}
			if c0*en.c2*wt < min {
				w.cut++
				continue
			}
			mid, tb, tc = en.mid2, en.tb2, en.tc2
		}
		w.facEmit(p, [4]uint32{v0, v1, mid, en.far}, [3]int32{t, tb, tc})
	}
	return true
}

// facEmit emits the derivation of the path vs (V0..V3) through the tuples
// ts of atoms a, b and c.
func (w *Worker) facEmit(p *Plan, vs [4]uint32, ts [3]int32) {
	fp := p.fac
	if fp.gateAt == gateFar && !w.gateDemand(fp, vs[3]) {
		return // V3 is not demanded
	}
	for i, v := range vs {
		w.vals[fp.vars[i]] = v
	}
	conf := 1.0
	for _, i := range fp.order { // the rule's atoms, in its order
		conf *= fp.rel[i].ConfAt(ts[i])
		if l := fp.lit[i]; l.Prov >= 0 {
			w.refs[2*l.Prov] = uint32(l.Atom.Rel)
			w.refs[2*l.Prov+1] = uint32(ts[i])
		}
	}
	w.emit(p, conf)
}

// facRest returns the memo's far ends of V1 = v1, building them first when
// the memo lacks them; false when the task stops.
func (w *Worker) facRest(p *Plan, v1 uint32) ([]facEntry, bool) {
	m := w.fm
	if s, ok := m.span[v1]; ok {
		return m.ents[s[0]:s[1]], true
	}
	if w.fms.n > w.fms.max {
		w.fms.drop(m)
	}
	lo := int32(len(m.ents))
	w.builds++
	ents, ok := w.facBuild(p, v1, nil)
	w.fms.n += len(m.ents) - int(lo) + 1 // and its span
	if ok {
		m.span[v1] = [2]int32{lo, int32(len(m.ents))}
	}
	return ents, ok
}

// facBuild appends to the memo the far ends reached from V1 = v1 through
// the tuples tbs of b (nil: all of b's with that V1), strongest first, cut
// by the memo's weight, and returns them; false when the task stops.
func (w *Worker) facBuild(p *Plan, v1 uint32, tbs []int32) ([]facEntry, bool) {
	m := w.fm
	fp := p.fac
	b, c := fp.rel[1], fp.rel[2]
	wt, min := m.wt, w.E.Min
	lo := int32(len(m.ents))
	stopped := false
	var kb, kc [2]uint32
	kb[fp.in[1]] = v1
	ordB := tbs == nil
	var bw chainWalk // b's chain (chainpack.go), or the list tbs
	if tbs == nil {
		bw.start(fp.ixB, b, kb[:])
	} else {
		bw.startList(b, tbs, 1-fp.in[1])
	}
	for ; bw.T >= 0; bw.next() {
		tb := bw.T
		if !w.tick() {
			stopped = true
			break
		}
		w.reads++
		cb := bw.C
		if cb*wt < min {
			// A tuple too weak ends an ordered chain (order.go).
			if w.weakEnd(&bw, &ordB) {
				break
			}
			if tbs == nil {
				w.cut++ // strongEnough counted a delta's (facGroupsOf)
			}
			continue
		}
		v2 := bw.Far
		if fp.neq[1][2] && !w.differ(v2, v1) {
			continue
		}
		kc[fp.in[2]] = v2
		ordC := fp.ixC.ordered > 0
		var cw chainWalk // c's chain, its ordered part contiguous (chainpack.go)
		for cw.start(fp.ixC, c, kc[:]); cw.T >= 0; cw.next() {
			tc := cw.T
			if !w.tick() {
				stopped = true
				break
			}
			w.reads++
			cc := cb * cw.C
			if cc*wt < min {
				if w.weakEnd(&cw, &ordC) {
					break
				}
				w.cut++
				continue
			}
			v3 := cw.Far
			if (fp.neq[1][3] && !w.differ(v3, v1)) || (fp.neq[2][3] && !w.differ(v3, v2)) {
				continue
			}
			k, ok := m.at.get(v3)
			if !ok {
				m.at.put(v3, int32(len(m.ents)))
				m.ents = append(m.ents, facEntry{far: v3, mid: v2, tb: tb, tc: tc, c: cc})
				continue
			}
			en := &m.ents[k]
			switch {
			case cc > en.c:
				if en.mid != v2 {
					en.mid2, en.tb2, en.tc2, en.c2 = en.mid, en.tb, en.tc, en.c
				}
				en.mid, en.tb, en.tc, en.c = v2, tb, tc, cc
			case v2 != en.mid && cc > en.c2:
				en.mid2, en.tb2, en.tc2, en.c2 = v2, tb, tc, cc
			}
		}
	}
	ents := m.ents[lo:]
	for i := range ents {
		m.at.del(ents[i].far)
	}
	if stopped {
		return nil, false
	}
	sortFarEnds(ents)
	return ents, true
}
