package eval

// Memos shared by the factorised plans of a round (see factor.go).
//
// A mined program has many chain rules with the same last two atoms: the
// far ends a plan's memo holds for a value of V1 depend on the relations
// of b and c, the positions of V1 and V2 in them (in[1], in[2]), the
// inequalities among V1, V2 and V3, and the plan's weight only through the
// threshold's cut (cb*wt < min, cc*wt < min). Built with a weight W at
// least the plan's, the entries of a V1 are a superset of the plan's own,
// strongest first, and the plan's emission (facEmitAll) reads the same
// ones. The paths wt keeps (cc*wt >= min) are those of W's whose
// confidence passes wt's cut, read in the same order (the index chains
// change only when b or c is written, and an ordered chain stops W's read
// no earlier than wt's): so wt's entries are those of W's that pass its
// cut, a prefix (entries are sorted by confidence, then far end), each
// with the same best path (the first of the greatest confidence in the
// chains' order, ties included) and the same best through another middle
// value when that one passes wt's cut. The other entries and
// second paths fall below the plan's own cut, where facEmitAll stops (an
// entry) or skips (a second path) as it would have without them, since a
// confidence is at most 1. So the plans of a round with the same key
// (facKey) share one memo, built with the largest of their weights
// (facShare): a worker keeps the memos of a round's shares (facMemos)
// from batch to batch as long as b and c do not change (Relation.writes),
// and the tasks of a share run one after the other on a worker, the one
// that holds its memo when it can (runTasks, taskGroups).
// The proofs, and every buffer, are those of a memo per plan. A plan's
// weight here is its cut factor: the rule's weight times the strongest of
// its scanned tuples (scanBound), which the same argument covers; a
// scanned tuple raised above that during the round is joined path by
// path, its buffer then holding every path and its best the memo's.
// Plans under a gate or a demand, and the groups and walks of deltas,
// which read no memo of V1, have a share of their own.

// facShare is the memo of the factorised plans of a round with one key
// (facKey, or one plan): built with the largest of their weights, over the
// relations b and c.
type facShare struct {
	weight float64
	b, c   *Relation
}

// facKey is what the memo of a factorised plan's V1 depends on, but its
// weight (see above).
type facKey struct {
	b, c                *Relation
	inB, inC            int
	neq12, neq13, neq23 bool
}

// facKeyOf returns the key of fp's memo, and false when fp shares none:
// a plan under a gate or demand, or of a middle delta's groups or a walk.
func facKeyOf(fp *facPlan) (facKey, bool) {
	if fp.groups != nil || fp.gate != nil || fp.demand != 1 || fp.ixB == nil {
		return facKey{}, false
	}
	return facKey{b: fp.rel[1], c: fp.rel[2], inB: fp.in[1], inC: fp.in[2],
		neq12: fp.neq[1][2], neq13: fp.neq[1][3], neq23: fp.neq[2][3]}, true
}

// shareMemos sets the share of every factorised plan of the round ps: one
// for the plans of each key (facKey), built with the largest of their
// cut factors (scanBound), one of its own for every other plan (and for
// every plan with Options.NoShare).
func (e *Evaluator) shareMemos(ps []*Plan) {
	shares := map[facKey]*facShare{}
	for _, p := range ps {
		fp := p.fac
		if fp == nil {
			continue
		}
		fk, ok := facKeyOf(fp)
		if !ok {
			fp.share = &facShare{weight: fp.weight, b: fp.rel[1], c: fp.rel[2]}
			continue
		}
		f := e.scanBound(fp)
		if e.noShare {
			fp.share = &facShare{weight: f, b: fp.rel[1], c: fp.rel[2]}
			continue
		}
		sh := shares[fk]
		if sh == nil {
			sh = &facShare{b: fp.rel[1], c: fp.rel[2]}
			shares[fk] = sh
		}
		sh.weight = max(sh.weight, f)
		fp.share = sh
	}
}

// scanBound returns the factor that the memo of plan fp (one with a key:
// facKeyOf) cuts its paths with, and sets fp.top: the plan's weight times
// the highest confidence among its scanned tuples, a delta's. A derivation
// of a scanned tuple of confidence c0 through a path of confidence cc is
// c0*cc*weight, at most cc times the factor, so a path the factor cuts is
// one the plan's emission would cut (facEmitAll); built with the weight
// alone, a memo read the paths of every middle value down to min/weight,
// though the deltas of a mined program's later rounds hold only weak
// tuples (its confidence bands, bands.go): the pinned FB15k-237 file's
// eleventh round joined tuples below 0.25. The factor is a hair above the
// product (1e-9), so that rounding never cuts a path the emission keeps;
// with the entries and best paths the emission reads the same, the proofs
// are (the argument of shared memos above). A full scan, or a delta with
// a tuple of confidence 1, cuts by the weight alone.
func (e *Evaluator) scanBound(fp *facPlan) float64 {
	fp.top = 0
	if fp.delta == nil || e.noScanBound {
		return fp.weight
	}
	a := fp.rel[0]
	top := 0.0
	for _, t := range fp.delta {
		top = max(top, a.ConfAt(t))
	}
	if top >= 1 || top == 0 {
		return fp.weight
	}
	fp.top = top
	return min(fp.weight, fp.weight*top*(1+1e-9))
}

// taskGroups returns the tasks ts in groups: those of one share, or of one
// other plan, in task order, the groups in the order of their first tasks;
// and for each group the worker that holds its share's memo from an
// earlier batch of the round, -1 for none (workpool.RunGroups).
func (e *Evaluator) taskGroups(ts []task) (groups [][]int, prefer []int) {
	at := map[any]int{}
	for i := range ts {
		var k any = ts[i].p
		var sh *facShare
		if fp := ts[i].p.fac; fp != nil && fp.share != nil {
			k, sh = fp.share, fp.share
		}
		g, ok := at[k]
		if !ok {
			g = len(groups)
			at[k] = g
			groups = append(groups, nil)
			prefer = append(prefer, -1)
			for wi, ms := range e.fms {
				if _, ok := ms.by[sh]; ok && sh != nil {
					prefer[g] = wi
					break
				}
			}
		}
		groups[g] = append(groups[g], i)
	}
	return groups, prefer
}

// facMemos are the memos of a worker in a round, by share; n counts their
// entries and values of V1, which max bounds (facMemoMax, see drop).
// scratch is the memo of middle deltas' groups (facGroup), emptied for
// each. The memos share one index of far ends (facMemo.at), empty between
// builds.
type facMemos struct {
	by      map[*facShare]*facMemo
	n, max  int
	scratch *facMemo
	at      *farIndex
}

// newFacMemos returns empty memos that hold at most max entries
// (facMemoMax when max is 0).
func newFacMemos(max int) *facMemos {
	if max <= 0 {
		max = facMemoMax
	}
	ms := &facMemos{by: map[*facShare]*facMemo{}, max: max, at: &farIndex{}}
	ms.scratch = ms.memo()
	return ms
}

// memo returns a new memo of ms.
func (ms *facMemos) memo() *facMemo {
	return &facMemo{span: map[uint32][2]int32{}, at: ms.at}
}

// facMemosAt returns the memos of the round's worker i.
func (e *Evaluator) facMemosAt(i int) *facMemos {
	for len(e.fms) <= i {
		e.fms = append(e.fms, newFacMemos(e.memoMax))
	}
	return e.fms[i]
}

// dropMemos lets the round's memos go.
func (e *Evaluator) dropMemos() { e.fms = nil }

// facMemoOf returns the worker's memo for plan fp: its share's, emptied
// when b or c changed since it was, or the scratch memo for a plan of
// groups (or outside a round).
func (w *Worker) facMemoOf(fp *facPlan) *facMemo {
	ms := w.fms
	if ms == nil { // a worker outside runTasks
		ms = newFacMemos(w.E.memoMax)
		w.fms = ms
	}
	sh := fp.share
	if fp.groups != nil || sh == nil {
		if sh == nil { // a plan outside a round: a memo for the task
			ms.scratch.reset(nil, fp.weight)
		}
		return ms.scratch
	}
	m := ms.by[sh]
	if m != nil && (m.bv != sh.b.writes || m.cv != sh.c.writes) {
		ms.n -= len(m.ents) + len(m.span)
		m = nil // a new one: maps do not shrink
	}
	if m == nil {
		m = ms.memo()
		m.reset(sh, sh.weight)
		ms.by[sh] = m
	}
	return m
}

// drop makes room in the worker's memos before m builds more: it lets
// the other memos go, and empties m too only when m alone holds more
// than the cap (max). Emptied with the others whenever they together
// held more, the memo in use built its values again as its scan came
// back to them (on the pinned FB15k-237 file, 1% of the joins). Which
// memos are kept never changes a derivation: a memo's entries for a value
// are those a build would make now (facMemoOf empties it when b or c
// changed).
func (ms *facMemos) drop(m *facMemo) {
	clear(ms.by)
	ms.by[m.sh] = m
	ms.n = len(m.ents) + len(m.span)
	if ms.n > ms.max {
		m.reset(m.sh, m.wt)
		ms.n = 0
	}
}
