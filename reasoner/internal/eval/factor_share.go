package eval

// Memos of factorised plans shared by the rules of a round.
//
// The far ends of a value V1 of a chain rule's scan (facRest) depend on
// the rule's last two atoms only: their relations and directions and the
// inequalities among V1, V2 and V3 (facSig), and on the weight that the
// threshold prunes them at. A mined program has thousands of chain rules
// that share their last two atoms after different first ones (on
// FB15k-237's, 15,526 chain rules have 5,033 distinct pairs), and each
// plan built its own memo per batch of a round: in a round of its mined
// file, three builds in four were of a pair and a value some plan had
// built before in the same round.
//
// A shared memo is kept for the whole round by each worker, for every plan
// of the pair, built at the highest weight of the round's plans of the
// pair (a plan of a lower weight cuts the rest at its own, the entries
// being ordered by confidence). So that what it holds does not depend on
// when it was built (batches merge their facts between them, and which
// worker builds which memo depends on scheduling), it is built from the
// relations as the round started: the tuples added since are left out and
// every tuple counts at its confidence then (facView). The derivations it
// misses are those through a tuple the round added or raised: that tuple
// is in the round's delta, whose plans join it with everything else in a
// later round, as semi-naive evaluation does. The emitted derivation reads
// its tuples' confidences when it is emitted, as before. The fixpoint is
// the same; the rounds may differ.

// facSig is what the far ends of a value V1 depend on besides the
// relations: atom b's and c's relations and the positions of V1 and V2 in
// them, and the inequalities V1 != V2, V1 != V3 and V2 != V3.
type facSig struct {
	b, c     int32
	inB, inC int8
	neq      [3]bool
}

// facShare is a round's shared memos: the weight each pair is built at,
// the view of the relations they read, and each worker's memos.
type facShare struct {
	weight map[facSig]float64
	views  map[int32]*relView
	caches []facCache
}

// facCache is one worker's shared memos for the round.
type facCache struct {
	s     *facShare
	memos map[facSig]*facMemo
	n     int // entries held, over all memos
}

// relView is a relation as the round started: its number of tuples and
// their confidences (nil: all 1).
type relView struct {
	n     int32
	confs []float64
}

// conf returns tuple t's confidence as the round started, and false for a
// tuple added since.
func (v *relView) conf(t int32) (float64, bool) {
	switch {
	case t >= v.n:
		return 0, false
	case v.confs == nil:
		return 1, true
	}
	return v.confs[t], true
}

// facView is the view of a plan's atoms b and c.
type facView struct{ b, c *relView }

// viewPerItem is how many tuples of view (confidences copied) a round's
// plans may cost per first-step tuple they have, for their memos to be
// shared: an item's memo build and emits are tens of joins, a view is a
// copy. An incremental update's rounds of a few delta tuples over
// relations of millions keep their own memos.
const viewPerItem = 256

// facShareMax bounds the entries of a worker's shared memos: past it they
// are emptied (about 50 MB a worker).
const facShareMax = 1 << 20

// shareOf returns the shared memos of the round of plans ps: one pair for
// every factorised plan that scans tuples of its first atom with the memo
// (no gate, no grouped or walked delta), nil when there is none, when
// sharing is off, or when the views would cost more than viewPerItem
// tuples per first-step tuple of those plans.
func (e *Evaluator) shareOf(ps []*Plan) *facShare {
	if e.noShare {
		return nil
	}
	var s *facShare
	items, cost := 0, 0
	for _, p := range ps {
		fp := p.fac
		if fp == nil || fp.gateAt != gateNone || fp.demand != 1 || fp.groups != nil {
			continue
		}
		if s == nil {
			s = &facShare{weight: map[facSig]float64{}, views: map[int32]*relView{}}
		}
		s.weight[fp.sig] = max(s.weight[fp.sig], fp.weight)
		n, _ := planItems(p)
		items += n
		for _, ri := range []int32{fp.sig.b, fp.sig.c} {
			if _, ok := s.views[ri]; !ok {
				s.views[ri] = nil
				cost += e.Rels[ri].Len()
			}
		}
	}
	if s == nil || items*viewPerItem < cost {
		return nil
	}
	for ri := range s.views {
		s.views[ri] = viewOf(e.Rels[ri])
	}
	s.caches = make([]facCache, max(1, e.threads))
	for i := range s.caches {
		s.caches[i] = facCache{s: s, memos: map[facSig]*facMemo{}}
	}
	return s
}

// viewOf copies what relView keeps of rel.
func viewOf(rel *Relation) *relView {
	v := &relView{n: int32(rel.Len())}
	if rel.Conf != nil {
		v.confs = make([]float64, v.n)
		for i, ch := range rel.Conf {
			off := i << ChunkBits
			if off >= int(v.n) {
				break
			}
			copy(v.confs[off:], ch[:min(len(ch), int(v.n)-off)])
		}
	}
	return v
}

// cache returns worker i's shared memos; nil for a nil share.
func (s *facShare) cache(i int) *facCache {
	if s == nil {
		return nil
	}
	return &s.caches[i]
}

// rest returns the shared memo's far ends of V1 = v1 for plan p, building
// them first when it lacks them, and whether the task goes on; shared is
// false when p's pair is not shared (the plan keeps its own memo).
func (c *facCache) rest(w *Worker, p *Plan, v1 uint32) (ents []facEntry, ok, shared bool) {
	fp := p.fac
	wt, found := c.s.weight[fp.sig]
	if !found || fp.gateAt != gateNone || fp.demand != 1 {
		return nil, false, false
	}
	m := c.memos[fp.sig]
	if m != nil {
		if s, ok := m.span[v1]; ok {
			return m.ents[s[0]:s[1]], true, true
		}
	}
	if c.n > facShareMax {
		clear(c.memos)
		c.n, m = 0, nil
	}
	if m == nil {
		m = &facMemo{span: map[uint32][2]int32{}, at: map[uint32]int32{}}
		c.memos[fp.sig] = m
	}
	lo := int32(len(m.ents))
	sv := &facView{b: c.s.views[fp.sig.b], c: c.s.views[fp.sig.c]}
	ents, ok = w.facBuild(p, m, v1, nil, sv, wt)
	if ok {
		m.span[v1] = [2]int32{lo, int32(len(m.ents))}
		c.n += len(ents)
	}
	return ents, ok, true
}
