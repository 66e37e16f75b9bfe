package reasoner

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// evaluator holds the state of one evaluation: the relations, the compiled
// rules of the stratum being evaluated and the provenance pool.
type evaluator struct {
	unit    *unit // the unit evaluated, for proofs after a query
	ctx     context.Context
	syms    *symtab
	st      store.Store
	min     float64
	maxFact int
	threads int
	prov    bool // record provenance
	stored  bool // load the store's derived facts as extensional facts (query mode)
	// baseOnly overrides stored: derived facts are never read.
	baseOnly bool

	rels   []*relation
	relIdx map[string]int32
	// shared returns a preloaded read-only relation (store and program
	// facts) of an Engine, or nil; never used for rule heads.
	shared func(pred string, arity int) *relation
	heads  map[string]bool

	rules []*crule // compiled rules of the unit, by unit rule index
	sink  uint64   // keeps apply's prefetching loads alive
	pool  provPool // provenance: rule index, then (relation, tuple) per body fact
	bufs  []outBuf // candidate buffers of the tasks of a round, reused

	derived    int // facts added by the program (facts and rules)
	iterations int
	strata     int
}

// relation returns the index of the relation pred/arity, creating it.
func (e *evaluator) relation(pred string, arity int) int32 {
	k := relKey(pred, arity)
	if i, ok := e.relIdx[k]; ok {
		return i
	}
	var r *relation
	if e.shared != nil && !e.heads[pred] {
		r = e.shared(pred, arity)
	}
	if r == nil {
		r = newRelation(pred, arity)
	}
	i := int32(len(e.rels))
	e.rels = append(e.rels, r)
	e.relIdx[k] = i
	return i
}

func newEvaluator(ctx context.Context, st store.Store, syms *symtab, opt Options) *evaluator {
	opt = opt.withDefaults()
	return &evaluator{
		ctx: ctx, st: st, syms: syms, min: opt.Min, maxFact: opt.MaxFacts,
		threads: opt.Threads, relIdx: map[string]int32{}, baseOnly: opt.BaseOnly,
	}
}

// load prepares the unit: relations, extensional facts from the store,
// program facts and compiled rules.
func (e *evaluator) load(u *unit) error {
	e.heads = map[string]bool{}
	for i := range u.prog.Rules {
		e.heads[u.prog.Rules[i].Head.Pred] = true
	}
	for i := range u.prog.Rules {
		cr, err := e.compileRule(u, i)
		if err != nil {
			return err
		}
		e.rules = append(e.rules, cr)
	}
	for i := range u.prog.Facts {
		f := &u.prog.Facts[i]
		if f.Weight >= 0 {
			e.relation(f.Atom.Pred, len(f.Atom.Args))
		}
	}
	// Mark internal relations, load the others from the store, in a
	// deterministic order.
	for _, r := range e.rels {
		if disp, ok := u.internal[r.name]; ok {
			r.internal = true
			r.display = disp
		}
	}
	for _, r := range e.rels {
		if r.internal || r.len() > 0 {
			continue
		}
		if r.shared {
			continue
		}
		if err := e.loadStore(r); err != nil {
			return err
		}
	}
	for i := range u.prog.Facts {
		f := &u.prog.Facts[i]
		c := weightOf(f.Weight)
		if f.Weight < 0 || c < e.min {
			continue
		}
		t := make([]uint32, len(f.Atom.Args))
		for j, a := range f.Atom.Args {
			id, err := e.syms.id(a.Value)
			if err != nil {
				return err
			}
			t[j] = id
		}
		ri := e.relation(f.Atom.Pred, len(t))
		r := e.rels[ri]
		if r.shared {
			continue // an Engine loaded it once
		}
		if k := r.find(t); k >= 0 {
			if c > r.confAt(k) {
				r.set(k, c, int32(provFact0-i))
			}
			continue
		}
		if err := e.count(1); err != nil {
			return err
		}
		r.add(t, c, int32(provFact0-i))
	}
	return nil
}

// loadStore loads the base facts of r (and, in query mode, the stored
// derived facts) from the store.
func (e *evaluator) loadStore(r *relation) error {
	id, ok := e.syms.lookup(r.name)
	if !ok || e.syms.isLocal(id) {
		return nil
	}
	for f, err := range e.st.Scan(id) {
		if err != nil {
			return fmt.Errorf("reasoner: load %s: %w", r.name, err)
		}
		if len(f.Args) == r.arity {
			r.add(f.Args, 1, provBase)
		}
	}
	if err := e.ctx.Err(); err != nil {
		return fmt.Errorf("reasoner: load %s: %w", r.name, err)
	}
	if !e.stored || e.baseOnly {
		return nil
	}
	for d, err := range e.st.ScanDerived(id) {
		if err != nil {
			return fmt.Errorf("reasoner: load derived %s: %w", r.name, err)
		}
		c := float64(d.Confidence)
		if len(d.Fact.Args) != r.arity || c < e.min {
			continue
		}
		if k := r.find(d.Fact.Args); k >= 0 {
			if c > r.confAt(k) {
				r.set(k, c, provStored)
			}
			continue
		}
		r.add(d.Fact.Args, c, provStored)
	}
	return nil
}

func (e *evaluator) count(n int) error {
	e.derived += n
	if e.derived > e.maxFact {
		return fmt.Errorf("reasoner: %d facts derived, more than the cap of %d: %w", e.derived, e.maxFact, ErrTooManyFacts)
	}
	return nil
}

// run evaluates the unit stratum by stratum.
func (e *evaluator) run(u *unit) error {
	defer e.releaseBufs()
	strata, ds := datalog.Stratify(u.prog)
	if err := ds.Err(); err != nil {
		return fmt.Errorf("reasoner: %w", err)
	}
	for _, s := range strata {
		if err := e.stratum(s); err != nil {
			return err
		}
		e.strata++
	}
	return nil
}

// step is one literal of a join plan.
type step struct {
	lit   *clit
	rel   *relation
	relI  int32
	mask  uint32 // bound positions
	ix    *hashIndex
	bind  []int32 // per position: slot to bind, or -1
	check []int32 // per position: slot to compare with (bound earlier in this atom or before), or -1
	delta []int32 // the delta tuples when this is the delta step
}

// plan is a rule's body in evaluation order; the first step may iterate a
// delta.
type plan struct {
	rule  *crule
	ri    int
	steps []step
}

// makePlan orders the body of r greedily: first the delta literal (if
// deltaAt >= 0), then repeatedly the positive literal with the most bound
// arguments, smaller relations first; negations and comparisons as soon as
// their variables are bound.
func (e *evaluator) makePlan(r *crule, ri int, deltaAt int, delta []int32) *plan {
	p := &plan{rule: r, ri: ri}
	bound := make([]bool, r.nvars)
	used := make([]bool, len(r.body))
	isBound := func(t term) bool { return t.v == slotConst || (t.v >= 0 && bound[t.v]) }
	addAtom := func(j int, d []int32) {
		l := &r.body[j]
		used[j] = true
		rel := e.rels[l.atom.rel]
		s := step{lit: l, rel: rel, relI: l.atom.rel, delta: d}
		s.bind = make([]int32, len(l.atom.args))
		s.check = make([]int32, len(l.atom.args))
		local := map[int32]bool{}
		for k, t := range l.atom.args {
			s.bind[k], s.check[k] = -1, -1
			switch {
			case t.v == slotConst:
				s.mask |= 1 << uint(k)
			case t.v == slotWildcard:
			case bound[t.v]:
				s.mask |= 1 << uint(k)
			case local[t.v]:
				s.check[k] = t.v
			default:
				local[t.v] = true
				s.bind[k] = t.v
			}
		}
		for v := range local {
			bound[v] = true
		}
		if l.kind == datalog.Positive || l.kind == datalog.Negated {
			full := uint32(1)<<uint(rel.arity) - 1
			if d == nil && s.mask != 0 && s.mask != full {
				s.ix = rel.index(s.mask)
			}
		}
		p.steps = append(p.steps, s)
	}
	placeFilters := func() {
		for j := range r.body {
			l := &r.body[j]
			if used[j] || l.kind == datalog.Positive {
				continue
			}
			ok := true
			if l.kind == datalog.Comparison {
				ok = isBound(l.l) && isBound(l.r)
			} else {
				for _, t := range l.atom.args {
					if t.v >= 0 && !bound[t.v] {
						ok = false
					}
				}
			}
			if ok {
				if l.kind == datalog.Comparison {
					used[j] = true
					p.steps = append(p.steps, step{lit: l})
				} else {
					addAtom(j, nil)
				}
			}
		}
	}
	if deltaAt >= 0 {
		addAtom(deltaAt, delta)
	}
	for {
		placeFilters()
		best, bestFull, bestN, bestSize := -1, false, 0, 0
		for j := range r.body {
			l := &r.body[j]
			if used[j] || l.kind != datalog.Positive {
				continue
			}
			n := 0
			for _, t := range l.atom.args {
				if isBound(t) {
					n++
				}
			}
			full := n == len(l.atom.args)
			size := e.rels[l.atom.rel].len()
			better := best < 0
			if !better {
				switch {
				case full != bestFull:
					better = full
				case (n > 0) != (bestN > 0):
					better = n > 0
				case l.guard != r.body[best].guard:
					better = l.guard
				case size != bestSize:
					better = size < bestSize
				default:
					better = n > bestN
				}
			}
			if better {
				best, bestFull, bestN, bestSize = j, full, n, size
			}
		}
		if best < 0 {
			break
		}
		addAtom(best, nil)
	}
	placeFilters()
	return p
}

// worker evaluates plans, appending candidate facts to a buffer.
type worker struct {
	e     *evaluator
	vals  []uint32
	probe []uint32
	refs  []uint32
	head  []uint32
	buf   *outBuf
	ticks int
	stop  *atomic.Bool
}

// outBuf holds candidate facts: per record the relation, the rule index (or
// ^0 for a copy), the tuple, then 2 words per provenance reference.
type outBuf struct {
	words []uint32
	conf  []float64
}

func (w *worker) exec(p *plan, lo, hi int) {
	r := p.rule
	if cap(w.vals) < r.nvars {
		w.vals = make([]uint32, r.nvars)
	}
	w.vals = w.vals[:r.nvars]
	if cap(w.refs) < 2*r.nprov {
		w.refs = make([]uint32, 2*r.nprov)
	}
	w.refs = w.refs[:2*r.nprov]
	if len(p.steps) == 0 {
		w.emit(p, 1)
		return
	}
	s := &p.steps[0]
	if s.delta != nil {
		for _, t := range s.delta[lo:hi] {
			w.try(p, 0, t, 1)
		}
		return
	}
	if s.lit.kind == datalog.Positive && s.mask == 0 {
		for t := int32(lo); t < int32(hi); t++ {
			w.try(p, 0, t, 1)
		}
		return
	}
	w.join(p, 0, 1)
}

// try matches tuple t of step k against the bindings and continues the join.
func (w *worker) try(p *plan, k int, t int32, conf float64) {
	s := &p.steps[k]
	rel := s.rel
	tup := rel.tuple(t)
	for i, a := range s.lit.atom.args {
		if a.v == slotConst && tup[i] != a.c {
			return
		}
	}
	for i, v := range s.bind {
		if v >= 0 {
			w.vals[v] = tup[i]
		}
	}
	for i, v := range s.check {
		if v >= 0 && w.vals[v] != tup[i] {
			return
		}
	}
	c := conf
	if !s.lit.guard {
		c *= rel.confAt(t)
		if s.lit.prov >= 0 {
			w.refs[2*s.lit.prov] = uint32(s.relI)
			w.refs[2*s.lit.prov+1] = uint32(t)
		}
	}
	if !p.rule.crisp && c*p.rule.weight < w.e.min {
		return
	}
	w.join(p, k+1, c)
}

func (w *worker) key(s *step) []uint32 {
	n := s.rel.arity
	if cap(w.probe) < n {
		w.probe = make([]uint32, n)
	}
	pr := w.probe[:n]
	for m := s.mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		a := s.lit.atom.args[i]
		if a.v == slotConst {
			pr[i] = a.c
		} else {
			pr[i] = w.vals[a.v]
		}
	}
	return pr
}

func (w *worker) join(p *plan, k int, conf float64) {
	if w.stop.Load() {
		return
	}
	w.ticks++
	if w.ticks&0xffff == 0 && w.e.ctx.Err() != nil {
		w.stop.Store(true)
		return
	}
	if k == len(p.steps) {
		w.emit(p, conf)
		return
	}
	s := &p.steps[k]
	l := s.lit
	switch l.kind {
	case datalog.Comparison:
		if w.compare(l) {
			w.join(p, k+1, conf)
		}
	case datalog.Negated:
		if !w.exists(s) {
			w.join(p, k+1, conf)
		}
	default:
		rel := s.rel
		full := uint32(1)<<uint(rel.arity) - 1
		switch {
		case s.mask == 0:
			for t := range int32(rel.len()) {
				w.try(p, k, t, conf)
			}
		case s.mask == full:
			if t := rel.find(w.key(s)); t >= 0 {
				w.try(p, k, t, conf)
			}
		default:
			for t := s.ix.first(rel, w.key(s)); t >= 0; t = s.ix.next[t] {
				w.try(p, k, t, conf)
			}
		}
	}
}

func (w *worker) exists(s *step) bool {
	rel := s.rel
	full := uint32(1)<<uint(rel.arity) - 1
	switch {
	case rel.len() == 0:
		return false
	case s.mask == 0:
		return true
	case s.mask == full:
		return rel.find(w.key(s)) >= 0
	default:
		return s.ix.first(rel, w.key(s)) >= 0
	}
}

func (w *worker) value(t term) uint32 {
	if t.v == slotConst {
		return t.c
	}
	return w.vals[t.v]
}

func (w *worker) compare(l *clit) bool {
	c := w.e.syms.compareSyms(w.value(l.l), w.value(l.r))
	switch l.op {
	case datalog.OpEq:
		return c == 0
	case datalog.OpNe:
		return c != 0
	case datalog.OpLt:
		return c < 0
	case datalog.OpLe:
		return c <= 0
	case datalog.OpGt:
		return c > 0
	default:
		return c >= 0
	}
}

func (w *worker) emit(p *plan, conf float64) {
	r := p.rule
	c := conf * r.weight
	if r.crisp {
		c = 1
	}
	if c < w.e.min {
		return
	}
	hrel := w.e.rels[r.head.rel]
	if cap(w.head) < hrel.arity {
		w.head = make([]uint32, hrel.arity)
	}
	h := w.head[:hrel.arity]
	for i, a := range r.head.args {
		h[i] = w.value(a)
	}
	if hrel.checkEmit {
		if t := hrel.find(h); t >= 0 && hrel.confAt(t) >= c {
			return
		}
	}
	b := w.buf
	ri := uint32(p.ri)
	if r.copy {
		ri = ^uint32(0)
	}
	b.words = append(b.words, uint32(r.head.rel), ri)
	b.words = append(b.words, h...)
	if w.e.prov || r.copy {
		b.words = append(b.words, w.refs...)
	}
	b.conf = append(b.conf, c)
}

// task is a slice of a plan's first step.
type task struct {
	p      *plan
	lo, hi int
}

// addTasks splits plan p into tasks.
func (e *evaluator) addTasks(ts []task, p *plan) []task {
	n := 1
	if len(p.steps) > 0 {
		s := &p.steps[0]
		switch {
		case s.delta != nil:
			n = len(s.delta)
		case s.lit.kind == datalog.Positive && s.mask == 0:
			n = s.rel.len()
		default:
			return append(ts, task{p, 0, 1})
		}
	}
	if n == 0 {
		return ts
	}
	chunk := max(512, (n+4*e.threads-1)/(4*e.threads))
	for lo := 0; lo < n; lo += chunk {
		ts = append(ts, task{p, lo, min(n, lo+chunk)})
	}
	return ts
}

// runTasks evaluates the tasks, in parallel when there are several, and
// returns their buffers in task order.
func (e *evaluator) runTasks(ts []task) ([]outBuf, error) {
	// The buffers are reused from round to round: a fixpoint of thousands
	// of rounds would otherwise leave its candidates to the collector and
	// grow the heap to twice what it keeps.
	if e.bufs == nil {
		if p, ok := bufPool.Get().(*[]outBuf); ok {
			e.bufs = *p
		}
	}
	if cap(e.bufs) < len(ts) {
		e.bufs = append(e.bufs[:cap(e.bufs)], make([]outBuf, len(ts)-cap(e.bufs))...)
	}
	bufs := e.bufs[:len(ts)]
	for i := range bufs {
		bufs[i].words, bufs[i].conf = bufs[i].words[:0], bufs[i].conf[:0]
	}
	var stop atomic.Bool
	nw := min(e.threads, len(ts))
	if nw <= 1 {
		w := &worker{e: e, stop: &stop}
		for i := range ts {
			w.buf = &bufs[i]
			w.exec(ts[i].p, ts[i].lo, ts[i].hi)
		}
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range nw {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := &worker{e: e, stop: &stop}
				for {
					i := int(next.Add(1) - 1)
					if i >= len(ts) || stop.Load() {
						return
					}
					w.buf = &bufs[i]
					w.exec(ts[i].p, ts[i].lo, ts[i].hi)
				}
			}()
		}
		wg.Wait()
	}
	if err := e.ctx.Err(); err != nil {
		return nil, fmt.Errorf("reasoner: %w", err)
	}
	return bufs, nil
}

// bufPool keeps candidate buffers between evaluations: a goal-directed
// query is an evaluation of its own, and growing fresh buffers for each was
// most of what a query allocated.
var bufPool sync.Pool

// releaseBufs gives the evaluator's candidate buffers back to bufPool.
func (e *evaluator) releaseBufs() {
	if e.bufs == nil {
		return
	}
	bufs := e.bufs[:cap(e.bufs)] // runTasks empties them before use
	e.bufs = nil
	bufPool.Put(&bufs)
}

// record decodes the record of b at word pos (see outBuf): its relation,
// rule, tuple and provenance references, and the position of the next one.
func (e *evaluator) record(b *outBuf, pos int) (ri int32, rule uint32, t, refs []uint32, next int) {
	ri, rule = int32(b.words[pos]), b.words[pos+1]
	pos += 2
	t = b.words[pos : pos+e.rels[ri].arity]
	pos += len(t)
	n := 0
	if rule == ^uint32(0) {
		n = 2
	} else if e.prov {
		n = 2 * e.rules[rule].nprov
	}
	return ri, rule, t, b.words[pos : pos+n], pos + n
}

// apply merges the buffers into the relations in order and returns the
// delta: per relation, the sorted indices of new or improved tuples.
func (e *evaluator) apply(bufs []outBuf, delta map[int32][]int32) error {
	var sink uint64
	for bi := range bufs {
		b := &bufs[bi]
		pos := 0
		for ci, c := range b.conf {
			if ci%prefetchBatch == 0 {
				sink += e.prefetch(b, pos, ci)
			}
			var ri int32
			var rule uint32
			var t, refs []uint32
			ri, rule, t, refs, pos = e.record(b, pos)
			rel := e.rels[ri]
			k := rel.find(t)
			rel.cands++
			if k >= 0 && c <= rel.confAt(k) {
				rel.dups++
				continue
			}
			prov := int32(provUnknown)
			switch {
			case rule == ^uint32(0):
				prov = e.rels[refs[0]].provAt(int32(refs[1]))
			case e.prov:
				prov = e.pool.add(rule, refs)
			}
			if k >= 0 {
				rel.set(k, c, prov)
			} else {
				if err := e.count(1); err != nil {
					return err
				}
				k = rel.add(t, c, prov)
			}
			delta[ri] = append(delta[ri], k)
		}
	}
	for ri, d := range delta {
		slices.Sort(d)
		delta[ri] = slices.Compact(d)
	}
	for _, r := range e.rels {
		if r.shared {
			continue // read-only, shared by concurrent queries
		}
		// Workers look a candidate up before buffering it only where that
		// pays: when many candidates were already known last round. The
		// result is the same either way (apply decides).
		if r.cands >= 1024 {
			r.checkEmit = 8*r.dups >= r.cands
		}
		r.cands, r.dups = 0, 0
	}
	e.sink = sink
	return nil
}

// prefetchBatch is the number of candidate facts whose hash slots apply
// loads ahead of processing them.
const prefetchBatch = 64

// prefetch reads the unique-index slots of the next prefetchBatch records
// of b from word pos (record ci) on. The loads are independent, so the
// processor overlaps their cache misses, which on tables of millions of
// facts are what a lookup costs; apply then finds the slots in cache. It
// returns a value that depends on the loads, so that they are not removed.
func (e *evaluator) prefetch(b *outBuf, pos, ci int) uint64 {
	var sum uint64
	for k := ci; k < len(b.conf) && k < ci+prefetchBatch; k++ {
		var ri int32
		var t []uint32
		ri, _, t, _, pos = e.record(b, pos)
		rel := e.rels[ri]
		if ix := &rel.unique; rel.arity > 0 && len(ix.slots) > 0 {
			sum += ix.slots[hashKey(ix.mask, t)&uint64(len(ix.slots)-1)]
		}
	}
	return sum
}

// stratum evaluates one stratum to its fixpoint, semi-naively.
func (e *evaluator) stratum(s datalog.Stratum) error {
	in := map[int32]bool{}
	for _, ri := range s.Rules {
		in[e.rules[ri].head.rel] = true
	}
	var ts []task
	for _, ri := range s.Rules {
		ts = e.addTasks(ts, e.makePlan(e.rules[ri], ri, -1, nil))
	}
	delta := map[int32][]int32{}
	for {
		e.iterations++
		bufs, err := e.runTasks(ts)
		if err != nil {
			return err
		}
		for k := range delta {
			delete(delta, k)
		}
		if err := e.apply(bufs, delta); err != nil {
			return err
		}
		if !s.Recursive || len(delta) == 0 {
			return nil
		}
		ts = ts[:0]
		for _, ri := range s.Rules {
			r := e.rules[ri]
			for j := range r.body {
				l := &r.body[j]
				if l.kind != datalog.Positive || !in[l.atom.rel] || len(delta[l.atom.rel]) == 0 {
					continue
				}
				ts = e.addTasks(ts, e.makePlan(r, ri, j, delta[l.atom.rel]))
			}
		}
		if len(ts) == 0 {
			return nil
		}
	}
}

// provPool stores derivation records (a rule index, then a (relation,
// tuple) pair per body fact) in fixed-size chunks: appending never copies
// what is stored (a growing slice of tens of millions of words spent half of
// a transitive closure's time in copying), and a record never straddles
// two chunks. A record's position is chunk<<provChunkBits | offset.
type provPool struct {
	chunks [][]uint32
}

const provChunkBits = 16

// add stores a record and returns its position.
func (p *provPool) add(rule uint32, refs []uint32) int32 {
	n := 1 + len(refs)
	last := len(p.chunks) - 1
	if last < 0 || len(p.chunks[last])+n > cap(p.chunks[last]) {
		p.chunks = append(p.chunks, make([]uint32, 0, max(1<<provChunkBits, n)))
		last++
	}
	c := p.chunks[last]
	pos := int32(last<<provChunkBits | len(c))
	c = append(c, rule)
	p.chunks[last] = append(c, refs...)
	return pos
}

// record returns the rule index and the body references of the record at
// pos, nprov body facts long.
func (p *provPool) record(pos int32, nprov int) (uint32, []uint32) {
	c := p.chunks[pos>>provChunkBits]
	off := int(pos & (1<<provChunkBits - 1))
	return c[off], c[off+1 : off+1+2*nprov]
}

// rule returns the rule index of the record at pos.
func (p *provPool) rule(pos int32) uint32 {
	return p.chunks[pos>>provChunkBits][pos&(1<<provChunkBits-1)]
}
