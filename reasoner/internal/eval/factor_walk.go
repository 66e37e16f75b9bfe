package eval

// The walk of a factorised plan (see factor.go): the delta tuples of the
// end atom a that share their far variable V0 are walked level by level,
// each value of V1, V2 and V3 once with its best path from V0. On
// FB15k-237, a new currency(D, B) fact of a rule `budget_currency(A, B) :-
// country(A, C), contains(C, D), currency(D, B)` reaches every film A of
// D's country: grouped by B, the thousands of places D of one currency
// share their few countries C, which the walk expands once.
//
// A chain of b or c ordered by confidence (order.go) is read up to its
// first tuple too weak for the path so far, as the memo's builds read
// theirs; the walks read every chain whole before, and on the pinned
// FB15k-237 file 96% of their reads were such tuples.
//
// Object identity: inequalities between V0 and the others, and between
// neighbours, are tests on one level. V1 != V3 spans two levels: each V2
// keeps its best path and its best through another V1, as the memo keeps
// them for V0 != V2 (facEntry).

// walkEntry is a value reached at one level of a walk: the best path to it
// (confidence, previous value, tuples) and, at V2, the best through another
// V1.
type walkEntry struct {
	v, prev, prev2 uint32
	ta, tb, tc     int32
	ta2, tb2       int32
	c, c2          float64
}

// walkLevel is one level of a walk: its values in the order first reached
// and where each is.
type walkLevel struct {
	ents []walkEntry
	at   farIndex
}

func (l *walkLevel) reset() {
	for i := range l.ents {
		l.at.del(l.ents[i].v)
	}
	l.ents = l.ents[:0]
}

// entry returns the entry of value v, adding it (confidence 0) if new.
func (l *walkLevel) entry(v uint32) *walkEntry {
	k, ok := l.at.get(v)
	if !ok {
		k = int32(len(l.ents))
		l.at.put(v, k)
		l.ents = append(l.ents, walkEntry{v: v})
	}
	return &l.ents[k]
}

// facWalk emits the derivations of the tuples tas of a, which share their
// V0: for each V3 reached, the best path there; false when the task stops.
func (w *Worker) facWalk(p *Plan, tas []int32) bool {
	fp := p.fac
	a, b, c := fp.rel[0], fp.rel[1], fp.rel[2]
	wt, min := fp.weight, w.E.Min
	if w.walk == nil {
		w.walk = &[3]walkLevel{}
	}
	l1, l2, l3 := &w.walk[0], &w.walk[1], &w.walk[2]
	l1.reset()
	l2.reset()
	l3.reset()
	v0 := a.Tuple(tas[0])[fp.in[0]]
	for _, ta := range tas {
		c0 := a.ConfAt(ta)
		if c0*wt < min {
			continue // strongEnough counted it
		}
		v1 := a.Tuple(ta)[1-fp.in[0]]
		if fp.neq[0][1] && !w.differ(v0, v1) {
			continue
		}
		if en := l1.entry(v1); c0 > en.c {
			en.c, en.ta = c0, ta
		}
	}
	var kb, kc [2]uint32
	for i := range l1.ents {
		e1 := l1.ents[i]
		kb[fp.in[1]] = e1.v
		ordB := fp.ixB.ordered > 0
		var cw chainWalk // the ordered part contiguous (chainpack.go)
		for cw.start(fp.ixB, b, kb[:]); cw.T >= 0; cw.next() {
			tb := cw.T
			if !w.tick() {
				return false
			}
			w.reads++
			cb := e1.c * cw.C
			if cb*wt < min {
				// A tuple too weak ends an ordered chain (order.go).
				if w.weakEnd(&cw, &ordB) {
					break
				}
				w.cut++
				continue
			}
			v2 := cw.Far
			if (fp.neq[1][2] && !w.differ(e1.v, v2)) || (fp.neq[0][2] && !w.differ(v0, v2)) {
				continue
			}
			en := l2.entry(v2)
			switch {
			case cb > en.c:
				if en.prev != e1.v {
					en.prev2, en.ta2, en.tb2, en.c2 = en.prev, en.ta, en.tb, en.c
				}
				en.prev, en.ta, en.tb, en.c = e1.v, e1.ta, tb, cb
			case e1.v != en.prev && cb > en.c2:
				en.prev2, en.ta2, en.tb2, en.c2 = e1.v, e1.ta, tb, cb
			}
		}
	}
	direct := false // a V3 equal as a number to another V1 (facDirect)
	for i := range l2.ents {
		e2 := l2.ents[i]
		kc[fp.in[2]] = e2.v
		ordC := fp.ixC.ordered > 0
		var cw chainWalk
		for cw.start(fp.ixC, c, kc[:]); cw.T >= 0; cw.next() {
			tc := cw.T
			if !w.tick() {
				return false
			}
			w.reads++
			cc := cw.C
			if e2.c*cc*wt < min {
				if w.weakEnd(&cw, &ordC) {
					break
				}
				w.cut++
				continue
			}
			v3 := cw.Far
			if (fp.neq[2][3] && !w.differ(e2.v, v3)) || (fp.neq[0][3] && !w.differ(v0, v3)) {
				continue
			}
			prev, ta, tb, conf := e2.prev, e2.ta, e2.tb, e2.c*cc
			if fp.neq[1][3] {
				if _, num := w.E.Syms.Number(v3); num {
					direct = true
					continue
				}
				if prev == v3 {
					if e2.c2 == 0 || e2.c2*cc*wt < min {
						continue
					}
					prev, ta, tb, conf = e2.prev2, e2.ta2, e2.tb2, e2.c2*cc
				}
			}
			if en := l3.entry(v3); conf > en.c {
				en.c, en.prev, en.ta, en.tb, en.tc = conf, prev, ta, tb, tc
				en.prev2 = e2.v // V2 of the path
			}
		}
	}
	for i := range l3.ents {
		e3 := &l3.ents[i]
		if !w.tick() {
			return false
		}
		w.facEmit(p, [4]uint32{v0, e3.prev, e3.prev2, e3.v}, [3]int32{e3.ta, e3.tb, e3.tc})
	}
	if direct {
		for _, ta := range tas {
			if a.ConfAt(ta)*wt >= min && !w.facDirect(p, ta, nil) {
				return false
			}
		}
	}
	return true
}
