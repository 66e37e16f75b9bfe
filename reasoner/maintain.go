package reasoner

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// Incremental maintenance.
//
// A Materialisation keeps an evaluation's relations, provenance and indexes
// in memory after its fixpoint, and brings them up to date when base facts,
// rules, weights or the threshold change, deriving again only what the
// change reaches. Under max-product there is nothing to subtract (a fact's
// confidence is the best of its derivations, not a count of them), so the
// update follows DRed — over-delete, re-derive, propagate — with the
// over-deletion driven by the stored best proofs instead of by every
// derivation:
//
//   - A fact whose best proof uses nothing that fell (a body fact whose
//     confidence fell or that is gone, a rule removed or weakened, a
//     negated fact that rose) keeps its confidence: that proof is still
//     there, worth as much, and no derivation can be worth more than
//     before when nothing rose. Only the facts whose best proof reaches a
//     fall are removed (set to confidence 0), stratum by stratum, closing
//     over the proofs within the stratum through a reverse index from
//     each fact to the facts whose proofs use it.
//   - Each removed fact is derived again from what is left: every rule of
//     its relation, guarded by the removed facts (a rederive twin of the
//     rule whose first literal is an internal relation holding them), and
//     its program fact if it has one.
//   - What rose (base facts added, facts re-derived or strengthened in a
//     lower stratum, rules added or strengthened, negated facts that fell)
//     is propagated semi-naively as in a full evaluation, by delta plans or
//     by the whole rule once.
//
// The result is the least fixpoint of the new program over the new facts:
// every confidence left or set is the value of a derivation that holds
// (proofs are only kept when nothing under them fell), and every rule
// instance that could now derive more was evaluated. Tests compare it with
// an evaluation from scratch after random update sequences.
//
// A removed tuple stays in its relation and indexes with confidence 0
// (provDeleted), where it matches nothing; a later derivation of it
// reuses the slot.

// FactChange is a base fact added to or removed from the store.
type FactChange struct {
	Fact  store.Fact
	Added bool // false: removed
}

// Delta is a change to a materialisation's input: base facts added to or
// removed from the store (which already holds the change), and a new
// program (rules added, removed or re-weighted; program facts; the
// threshold), or nil to keep the program.
type Delta struct {
	Base    []FactChange
	Program *datalog.Program
}

// Change reports what an update did to the derived facts (base facts
// excluded).
type Change struct {
	// Added, Removed and Reweighted count derived facts that appeared,
	// disappeared and changed confidence; Proofs counts those whose best
	// proof changed while their confidence did not.
	Added, Removed, Reweighted, Proofs int
	// Facts lists the first MaxChangedFacts changed facts (relation order,
	// then order of change).
	Facts []ChangedFact
	// Full is set when the update recomputed the materialisation from
	// scratch, being cheaper or needed (a lowered threshold).
	Full bool
	// Rounds is the number of semi-naive rounds the update ran.
	Rounds int
	// Duration is the wall-clock time of the update.
	Duration time.Duration
}

// ChangedFact is a derived fact whose confidence changed: Old is 0 for a
// fact that appeared, New 0 for one that disappeared.
type ChangedFact struct {
	Pred     string
	Args     []string
	Old, New float64
}

// MaxChangedFacts is the number of changed facts a Change lists.
const MaxChangedFacts = 100

// tupleState is a tuple's confidence and provenance before an update.
type tupleState struct {
	conf    float64
	prov    int32
	existed bool
}

// touchLog records the first state of every tuple an update changes.
type touchLog struct {
	old   map[uint64]tupleState
	order []uint64
}

func newTouchLog() *touchLog { return &touchLog{old: map[uint64]tupleState{}} }

// tkey packs a relation and a tuple index.
func tkey(ri, t int32) uint64 { return uint64(uint32(ri))<<32 | uint64(uint32(t)) }

func untkey(k uint64) (int32, int32) { return int32(k >> 32), int32(uint32(k)) }

// before records tuple t of r (relation ri) as it is, unless it was
// recorded already.
func (l *touchLog) before(r *relation, ri, t int32) {
	k := tkey(ri, t)
	if _, ok := l.old[k]; ok {
		return
	}
	l.old[k] = tupleState{conf: r.confAt(t), prov: r.provAt(t), existed: true}
	l.order = append(l.order, k)
}

// added records tuple t of relation ri as new.
func (l *touchLog) added(ri, t int32) {
	k := tkey(ri, t)
	if _, ok := l.old[k]; ok {
		return
	}
	l.old[k] = tupleState{prov: provDeleted}
	l.order = append(l.order, k)
}

// factSrc is the program fact that gives an atom its confidence.
type factSrc struct {
	w   float64
	idx int
	ri  int32
	t   []uint32
}

// Materialisation is a program's materialisation over a store's base
// facts, held in memory and maintained under change (Apply). It is not
// safe for concurrent use. After an error from Apply it must be discarded
// (Apply never writes to the store).
type Materialisation struct {
	st   store.Store
	opt  Options
	prog *datalog.Program
	e    *evaluator
	// u holds every rule compiled so far, at the same index as in e.rules
	// (rules of the program and their rederive twins, including rules the
	// program no longer has), and the program's facts.
	u       *unit
	main    []int    // per compiled rule: the rule it derives for (itself, or the rule a twin copies)
	keys    []string // per compiled rule: its ruleKey ("" for twins)
	twin    []int    // per compiled rule: its rederive twin, -1 for twins
	current []bool   // per compiled rule: a rule of the current program
	active  []bool   // per compiled rule: evaluated (current, strong enough, live)
	ruleOf  []int    // per rule of the program: its compiled index
	strata  []datalog.Stratum
	loaded  map[int32]bool // relations read from the store
	guards  map[int32]int32
	facts   map[string]factSrc // the program facts by atom (the strongest)
	rev     revIndex
	touch   *touchLog
	// renames maps the stored proof references of rules and facts that
	// moved (a line inserted above them) to their new references, since
	// the last Apply.
	renames map[string]string
	record  []byte // Record, computed once per program and threshold
	broken  error
}

// guardPrefix names the internal relation of the facts a rederive round
// derives again (a NUL never occurs in a parsed name).
const guardPrefix = "\x00redo "

// Materialise evaluates prog over st's base facts, as Infer does, and keeps
// the result in memory for Apply. Nothing is written to the store (see
// Write).
func Materialise(ctx context.Context, st store.Store, prog *datalog.Program, opt Options) (*Materialisation, InferStats, error) {
	if prog == nil {
		prog = &datalog.Program{}
	}
	if err := checkProgram(st, prog); err != nil {
		return nil, InferStats{}, err
	}
	syms, err := newSymtab(st)
	if err != nil {
		return nil, InferStats{}, err
	}
	return materialise(ctx, st, syms, prog, opt)
}

func materialise(ctx context.Context, st store.Store, syms *symtab, prog *datalog.Program, opt Options) (*Materialisation, InferStats, error) {
	start := time.Now()
	m := newMaterialisation(ctx, st, syms, prog, opt)
	e := m.e
	for i := range prog.Rules {
		m.ruleOf = append(m.ruleOf, m.addRule(&prog.Rules[i]))
	}
	if err := e.load(m.u); err != nil {
		return nil, InferStats{}, errorf("reasoner: infer: %w", err)
	}
	for ri, r := range e.rels {
		if !r.internal {
			m.loaded[int32(ri)] = true
		}
	}
	if err := m.indexFacts(); err != nil {
		return nil, InferStats{}, errorf("reasoner: infer: %w", err)
	}
	m.computeActive()
	defer e.releaseBufs()
	for _, s := range m.strata {
		var ps []*plan
		for _, ri := range s.Rules {
			ps = append(ps, e.makePlan(e.rules[ri], ri, -1, nil))
		}
		if err := e.fixpoint(s, ps); err != nil {
			return nil, InferStats{}, errorf("reasoner: infer: %w", err)
		}
		e.strata++
	}
	m.recordWork()
	stats := InferStats{Derived: map[string]int{}, Iterations: e.iterations, Strata: e.strata}
	e.reportStats(&stats.Eval)
	e.reportStats(opt.Stats)
	for _, r := range e.rels {
		if r.internal {
			continue
		}
		for t := range int32(r.len()) {
			if p := r.provAt(t); p != provBase && p != provStored && p != provDeleted {
				stats.Derived[r.display]++
				stats.Facts++
			}
		}
	}
	stats.Duration = time.Since(start)
	return m, stats, nil
}

func newMaterialisation(ctx context.Context, st store.Store, syms *symtab, prog *datalog.Program, opt Options) *Materialisation {
	o := opt.withProgram(prog)
	e := newEvaluator(ctx, st, syms, o)
	e.prov = true
	e.progress = opt.Progress
	e.maxMem = opt.MaxMemory
	e.start = time.Now()
	u := &unit{prog: &datalog.Program{Facts: prog.Facts}, internal: map[string]string{}}
	for i := range prog.Facts {
		u.facts = append(u.facts, describeFact(&prog.Facts[i]))
	}
	return &Materialisation{
		st: st, opt: opt, prog: prog, e: e, u: u,
		loaded: map[int32]bool{}, guards: map[int32]int32{},
	}
}

// recordWork adds the evaluation's work to the test counters.
func (m *Materialisation) recordWork() {
	e := m.e
	if w := m.opt.work; w != nil {
		w.inferJoins.Add(e.work)
		w.inferDerived.Add(int64(e.derived))
		w.inferCands.Add(e.cands)
		w.inferReads.Add(e.reads)
	}
}

// addRule appends rule r and its rederive twin to the unit (not compiled)
// and returns the rule's compiled index.
func (m *Materialisation) addRule(r *datalog.Rule) int {
	u := m.u
	ci := len(u.prog.Rules)
	src := len(u.descs)
	u.descs = append(u.descs, describeRule(r))
	u.prog.Rules = append(u.prog.Rules, *r)
	u.meta = append(u.meta, ruleMeta{src: src})
	gname := guardPrefix + r.Head.Pred
	u.internal[gname] = ""
	guard := datalog.Literal{Kind: datalog.Positive, Atom: datalog.Atom{Pred: gname, Args: r.Head.Args, Pos: r.Head.Pos}}
	tw := *r
	tw.Body = append([]datalog.Literal{guard}, r.Body...)
	g := make([]bool, len(tw.Body))
	g[0] = true
	u.prog.Rules = append(u.prog.Rules, tw)
	u.meta = append(u.meta, ruleMeta{src: src, guard: g})
	m.main = append(m.main, ci, ci)
	m.keys = append(m.keys, ruleKey(r), "")
	m.twin = append(m.twin, ci+1, -1)
	m.current = append(m.current, true, false)
	m.active = append(m.active, false, false)
	return ci
}

// compileNew compiles the rules of the unit from e.rules' length on and
// loads the store relations they introduce.
func (m *Materialisation) compileNew() error {
	e := m.e
	for i := len(e.rules); i < len(m.u.prog.Rules); i++ {
		cr, err := e.compileRule(m.u, i)
		if err != nil {
			return err
		}
		e.rules = append(e.rules, cr)
	}
	return m.loadNew()
}

// loadNew reads from the store the relations created since the last load.
func (m *Materialisation) loadNew() error {
	e := m.e
	for ri, r := range e.rels {
		if m.loaded[int32(ri)] {
			continue
		}
		if _, ok := m.u.internal[r.name]; ok {
			r.internal, r.display = true, m.u.internal[r.name]
			continue
		}
		m.loaded[int32(ri)] = true
		if r.len() > 0 {
			continue
		}
		if err := e.loadStore(r); err != nil {
			return err
		}
	}
	return nil
}

// factKey is the key of relation ri's tuple t in Materialisation.facts.
func factKey(ri int32, t []uint32) string {
	b := binary.LittleEndian.AppendUint32(nil, uint32(ri))
	for _, a := range t {
		b = binary.LittleEndian.AppendUint32(b, a)
	}
	return string(b)
}

// indexFacts fills m.facts from the program's facts (those the threshold
// keeps; the first of the strongest for an atom given twice).
func (m *Materialisation) indexFacts() error {
	e := m.e
	m.facts = map[string]factSrc{}
	for i := range m.u.prog.Facts {
		ri, t, c, err := e.programFact(&m.u.prog.Facts[i])
		if err != nil {
			return err
		}
		if t == nil {
			continue
		}
		k := factKey(ri, t)
		if old, ok := m.facts[k]; !ok || c > old.w {
			m.facts[k] = factSrc{w: c, idx: i, ri: ri, t: t}
		}
	}
	return nil
}

// computeActive marks the rules to evaluate (rules of the program whose
// weight reaches the threshold and whose positive body literals all read
// relations with facts or derived by such rules), builds the strata over
// them and returns the rules that became active and those that stopped
// being.
func (m *Materialisation) computeActive() (on, off []int) {
	e := m.e
	live := make([]bool, len(e.rels))
	for i, r := range e.rels {
		live[i] = r.alive > 0
	}
	act := make([]bool, len(e.rules))
	for changed := true; changed; {
		changed = false
		for _, ci := range m.ruleOf {
			r := e.rules[ci]
			if act[ci] || r.weight < e.min {
				continue
			}
			ok := true
			for j := range r.body {
				if l := &r.body[j]; l.kind == datalog.Positive && !live[l.atom.rel] {
					ok = false
					break
				}
			}
			if ok {
				act[ci], changed = true, true
				live[r.head.rel] = true
			}
		}
	}
	for ci := range act {
		switch {
		case act[ci] && !m.active[ci]:
			on = append(on, ci)
		case !act[ci] && m.active[ci] && m.current[ci]:
			off = append(off, ci)
		}
	}
	m.active = act
	ap := &datalog.Program{}
	var idx []int
	for _, ci := range m.ruleOf {
		if act[ci] {
			ap.Rules = append(ap.Rules, m.u.prog.Rules[ci])
			idx = append(idx, ci)
		}
	}
	strata, _ := datalog.Stratify(ap) // checkProgram validated the program
	m.strata = m.strata[:0]
	for _, s := range strata {
		rs := make([]int, len(s.Rules))
		for i, k := range s.Rules {
			rs[i] = idx[k]
		}
		m.strata = append(m.strata, datalog.Stratum{Preds: s.Preds, Rules: rs, Recursive: s.Recursive})
	}
	return on, off
}

// edbValue is the confidence and provenance that relation ri's tuple t has
// without rules: its program fact's, if the program has one the threshold
// keeps. Base facts are never asked: a tuple removed by an update is not
// one (any more).
func (m *Materialisation) edbValue(ri int32, t []uint32) (float64, int32, bool) {
	if len(m.facts) == 0 {
		return 0, 0, false
	}
	f, ok := m.facts[factKey(ri, t)]
	if !ok {
		return 0, 0, false
	}
	return f.w, int32(provFact0 - f.idx), true
}

// remove lowers tuple t of relation ri to what it holds without its
// current derivation: its program fact, or nothing.
func (m *Materialisation) remove(ri, t int32) {
	r := m.e.rels[ri]
	m.touch.before(r, ri, t)
	c, p, ok := m.edbValue(ri, r.tuple(t))
	if !ok {
		c, p = 0, provDeleted
	}
	r.set(t, c, p)
}

// raise sets relation ri's tuple args to at least confidence c with
// provenance p, adding it if absent.
func (m *Materialisation) raise(ri int32, args []uint32, c float64, p int32) {
	r := m.e.rels[ri]
	if t := r.find(args); t >= 0 {
		if r.confAt(t) < c || (p == provBase && r.provAt(t) != provBase) {
			m.touch.before(r, ri, t)
			r.set(t, c, p)
		}
		return
	}
	t := r.add(args, c, p)
	m.touch.added(ri, t)
}

// Program returns the program the materialisation is of.
func (m *Materialisation) Program() *datalog.Program { return m.prog }

// Min returns the threshold the materialisation applies.
func (m *Materialisation) Min() float64 { return m.e.min }

// Apply brings the materialisation up to date with d and reports what
// changed. The store must already hold d's base facts. When the update
// would cost more than recomputing (most of the rules or base facts
// removed), or needs it (a lower threshold, new symbols in the store
// while program constants the store lacks are in use), it recomputes
// from scratch (Change.Full). On error the materialisation must be
// discarded.
func (m *Materialisation) Apply(ctx context.Context, d Delta) (Change, error) {
	if m.broken != nil {
		return Change{}, errorf("reasoner: update: a previous update failed: %w", m.broken)
	}
	ch, err := m.apply(ctx, d)
	if err != nil {
		m.broken = err
		return Change{}, errorf("reasoner: update: %w", err)
	}
	return ch, nil
}

func (m *Materialisation) apply(ctx context.Context, d Delta) (Change, error) {
	start := time.Now()
	e := m.e
	e.ctx = ctx
	prog := m.prog
	if d.Program != nil {
		if err := checkProgram(m.st, d.Program); err != nil {
			return Change{}, err
		}
		prog = d.Program
	}
	min := m.opt.withProgram(prog).withDefaults().Min
	var keys []string // the new program's rule keys
	if d.Program != nil {
		keys = make([]string, len(prog.Rules))
		for i := range prog.Rules {
			keys[i] = ruleKey(&prog.Rules[i])
		}
	}
	full, err := m.needsFull(d, keys, min)
	if err != nil {
		return Change{}, err
	}
	if full {
		return m.recompute(ctx, prog, start)
	}
	rounds := e.iterations
	m.touch = newTouchLog()
	m.renames = map[string]string{}
	e.touch = m.touch
	defer func() { e.touch = nil }()
	m.buildRev()
	var kill, add []int
	if min > e.min {
		e.min = min
		m.record = nil
		m.removeBelow(min)
	}
	if err := m.baseChanges(d.Base); err != nil {
		return Change{}, err
	}
	if d.Program != nil {
		if kill, add, err = m.setProgram(d.Program, keys); err != nil {
			return Change{}, err
		}
	}
	for _, ci := range kill {
		m.removeByRule(ci)
	}
	// Rules that went dead (a relation they read became empty) derive
	// nothing any more: their facts go, which may leave other rules dead.
	for {
		on, off := m.computeActive()
		add = append(add, on...)
		if len(off) == 0 {
			break
		}
		for _, ci := range off {
			m.removeByRule(ci)
		}
	}
	added := map[int]bool{}
	for _, ci := range add {
		added[ci] = true
	}
	defer e.releaseBufs()
	// An update that reaches a large part of the materialisation costs
	// more than recomputing it: past the limit, the tuples go back to
	// what they were and the program is evaluated from scratch.
	limit := 0
	for _, r := range e.rels {
		if !r.internal {
			limit += r.alive
		}
	}
	limit = max(limit/fallbackDivisor, 1024)
	over := func() error {
		if len(m.touch.order) > limit {
			return errFallback
		}
		return nil
	}
	e.gate = func(int64) error { return over() }
	defer func() { e.gate = nil }()
	for _, s := range m.strata {
		err := over()
		if err == nil {
			err = m.maintain(s, added)
		}
		if errors.Is(err, errFallback) {
			m.restore()
			e.touch, m.touch = nil, nil
			return m.recompute(ctx, prog, start)
		}
		if err != nil {
			return Change{}, err
		}
	}
	ch, err := m.report()
	if err != nil {
		return Change{}, err
	}
	ch.Rounds = e.iterations - rounds
	ch.Duration = time.Since(start)
	return ch, nil
}

// fallbackDivisor sets the limit past which an update recomputes instead:
// a quarter of the materialisation's tuples changed. (An update spends
// about what an evaluation does per tuple it changes, plus the removal and
// re-derivation; in drumql infer, it also reads the stored facts first.)
const fallbackDivisor = 4

// errFallback stops an update that reached more tuples than recomputing
// costs.
var errFallback = errors.New("reasoner: the update reaches too much: recompute")

// restore puts every tuple the update touched back as it was.
func (m *Materialisation) restore() {
	e := m.e
	for _, k := range m.touch.order {
		ri, t := untkey(k)
		o := m.touch.old[k]
		if !o.existed {
			o.conf, o.prov = 0, provDeleted
		}
		e.rels[ri].set(t, o.conf, o.prov)
	}
}

// needsFull decides whether an update recomputes from scratch.
func (m *Materialisation) needsFull(d Delta, keys []string, min float64) (bool, error) {
	e := m.e
	if min < e.min {
		return true, nil // facts cut before may now be kept: no cheap way to find them
	}
	n, err := m.st.NumSymbols()
	if err != nil {
		return false, err
	}
	numbers := false
	for _, r := range e.rels {
		numbers = numbers || r.internal && strings.HasPrefix(r.name, numPrefix)
	}
	if ok, err := e.syms.grow(n, numbers); err != nil || !ok {
		return !ok, err
	}
	// Removing most of what the materialisation rests on costs more to
	// trace than to recompute.
	removed := 0
	for _, c := range d.Base {
		if !c.Added {
			removed++
		}
	}
	base := 0
	for ri, r := range e.rels {
		if m.loaded[int32(ri)] {
			base += r.alive
		}
	}
	if removed > 0 && 2*removed > base {
		return true, nil
	}
	if d.Program != nil && len(m.ruleOf) > 8 {
		keep := map[string]int{}
		for _, ci := range m.ruleOf {
			keep[m.keys[ci]]++
		}
		same := 0
		for _, k := range keys {
			if keep[k] > 0 {
				keep[k]--
				same++
			}
		}
		if 2*same < len(m.ruleOf) {
			return true, nil
		}
	}
	return false, nil
}

// recompute replaces the materialisation by a new evaluation of prog and
// reports the difference.
func (m *Materialisation) recompute(ctx context.Context, prog *datalog.Program, start time.Time) (Change, error) {
	syms := m.e.syms
	if n, err := m.st.NumSymbols(); err != nil {
		return Change{}, err
	} else if uint32(n) != syms.nStore {
		if syms, err = newSymtab(m.st); err != nil {
			return Change{}, err
		}
	}
	nm, _, err := materialise(ctx, m.st, syms, prog, m.opt)
	if err != nil {
		return Change{}, err
	}
	ch, err := diffMaterialisations(m, nm)
	if err != nil {
		return Change{}, err
	}
	*m = *nm
	ch.Full = true
	ch.Rounds = nm.e.iterations
	ch.Duration = time.Since(start)
	return ch, nil
}

// ruleKey is a rule without its weight, comment and position: rules of
// two versions of a program with the same key are the same rule.
func ruleKey(r *datalog.Rule) string {
	c := *r
	c.Weight, c.Comment, c.Pos = 1, "", datalog.Pos{}
	return c.String()
}

// setProgram makes prog the program: rules are matched with the compiled
// ones by ruleKey (in order, for a rule given twice), new ones compiled.
// It returns the rules whose facts must be derived again (removed or
// weakened) and the rules to evaluate whole (added or strengthened); the
// program's facts are applied at once.
func (m *Materialisation) setProgram(prog *datalog.Program, keys []string) (kill, add []int, err error) {
	e := m.e
	m.record = nil
	old := map[string][]int{}
	for _, ci := range m.ruleOf {
		k := m.keys[ci]
		old[k] = append(old[k], ci)
	}
	ruleOf := make([]int, len(prog.Rules))
	n0 := len(m.u.prog.Rules)
	for i := range prog.Rules {
		r := &prog.Rules[i]
		k := keys[i]
		if cs := old[k]; len(cs) > 0 {
			ci := cs[0]
			old[k] = cs[1:]
			ruleOf[i] = ci
			w := weightOf(r.Weight)
			cr := e.rules[ci]
			switch {
			case w < cr.weight:
				kill = append(kill, ci)
			case w > cr.weight:
				add = append(add, ci)
			}
			if cur := &m.u.prog.Rules[ci]; cur.Pos == r.Pos && cur.Weight == r.Weight {
				continue // the same rule at the same place
			}
			before := ruleRefOf(m.u, cr)
			cr.weight = w
			e.rules[m.twin[ci]].weight = w
			m.u.prog.Rules[ci].Weight, m.u.prog.Rules[ci].Pos = r.Weight, r.Pos
			m.u.descs[m.u.meta[ci].src] = describeRule(r)
			if after := ruleRefOf(m.u, cr); after != before {
				m.renames[before] = after
			}
			continue
		}
		ruleOf[i] = m.addRule(r)
		add = append(add, ruleOf[i])
	}
	for _, cs := range old {
		for _, ci := range cs {
			m.current[ci] = false
			kill = append(kill, ci)
		}
	}
	slices.Sort(kill)
	if len(m.u.prog.Rules) > n0 {
		if err := m.compileNew(); err != nil {
			return nil, nil, err
		}
	}
	m.ruleOf = ruleOf
	m.prog = prog
	if err := m.setFacts(prog); err != nil {
		return nil, nil, err
	}
	return kill, add, nil
}

// setFacts makes prog's facts the program's facts: atoms whose strongest
// fact weakened or went lose it (down to what else holds them), atoms whose
// fact is new or stronger rise, and tuples that keep their fact point at
// its new position.
func (m *Materialisation) setFacts(prog *datalog.Program) error {
	e := m.e
	oldFacts := m.facts
	oldDescs := m.u.facts
	m.u.prog.Facts = prog.Facts
	m.u.facts = nil
	for i := range prog.Facts {
		m.u.facts = append(m.u.facts, describeFact(&prog.Facts[i]))
	}
	if err := m.indexFacts(); err != nil {
		return err
	}
	if err := m.loadNew(); err != nil {
		return err
	}
	keys := make([]string, 0, len(oldFacts))
	for k := range oldFacts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		of := oldFacts[k]
		r := e.rels[of.ri]
		t := r.find(of.t)
		if t < 0 || r.provAt(t) != int32(provFact0-of.idx) {
			continue // a rule or a base fact gives it more
		}
		nf, ok := m.facts[k]
		switch {
		case !ok || nf.w < of.w:
			m.remove(of.ri, t)
		case nf.w == of.w:
			// The same fact, perhaps elsewhere: the stored proofs are
			// renamed, not rewritten.
			r.set(t, nf.w, int32(provFact0-nf.idx))
			if a, b := encodeRule(oldDescs[of.idx]), encodeRule(m.u.facts[nf.idx]); a != b {
				m.renames[a] = b
			}
		}
	}
	keys = keys[:0]
	for k := range m.facts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		nf := m.facts[k]
		if of, ok := oldFacts[k]; ok && of.w >= nf.w {
			continue
		}
		m.raise(nf.ri, nf.t, nf.w, int32(provFact0-nf.idx))
	}
	return nil
}

// removeBelow removes the derived facts below min (a raised threshold):
// every derivation of them is below it too.
func (m *Materialisation) removeBelow(min float64) {
	for ri, r := range m.e.rels {
		if r.internal {
			continue
		}
		for t := range int32(r.len()) {
			if c := r.confAt(t); c > 0 && c < min {
				m.touch.before(r, int32(ri), t)
				r.set(t, 0, provDeleted)
			}
		}
	}
}

// eachHeld calls fn with every change of cs to a relation the
// materialisation holds whole (read from the store): facts of other
// relations are read by no rule.
func (m *Materialisation) eachHeld(cs []FactChange, fn func(ri int32, r *relation, c FactChange)) error {
	e := m.e
	for _, c := range cs {
		name, err := e.syms.name(c.Fact.Rel)
		if err != nil {
			return err
		}
		if ri, ok := e.relIdx[relKey(name, len(c.Fact.Args))]; ok && m.loaded[ri] {
			fn(ri, e.rels[ri], c)
		}
	}
	return nil
}

// baseChanges applies added and removed base facts to the relations the
// materialisation holds.
func (m *Materialisation) baseChanges(cs []FactChange) error {
	return m.eachHeld(cs, func(ri int32, r *relation, c FactChange) {
		if c.Added {
			m.raise(ri, c.Fact.Args, 1, provBase)
		} else if t := r.find(c.Fact.Args); t >= 0 && r.provAt(t) == provBase {
			m.remove(ri, t)
		}
	})
}

// removeByRule removes the facts whose best proof is by rule ci (or its
// twin).
func (m *Materialisation) removeByRule(ci int) {
	e := m.e
	ri := e.rules[ci].head.rel
	r := e.rels[ri]
	for t := range int32(r.len()) {
		if p := r.provAt(t); p >= 0 && m.main[e.pool.rule(p)] == ci {
			m.remove(ri, t)
		}
	}
}

// maintain brings stratum s up to date with what changed below it (and the
// base and rule changes applied to its relations): removal of the facts
// whose proofs reach a fall, re-derivation of them, propagation of what
// rose. added holds the rules to evaluate whole.
func (m *Materialisation) maintain(s datalog.Stratum, added map[int]bool) error {
	e := m.e
	heads := map[int32]bool{}
	for _, ci := range s.Rules {
		heads[e.rules[ci].head.rel] = true
	}
	// What changed so far: below the stratum (or in its relations, from
	// base facts, program facts and rules).
	var seeds []uint64
	inc := map[int32][]int32{}
	fell, rose := map[int32]bool{}, map[int32]bool{}
	for _, k := range m.touch.order {
		ri, t := untkey(k)
		r := e.rels[ri]
		oc, nc := m.touch.old[k].conf, r.confAt(t)
		switch {
		case nc < oc:
			fell[ri] = true
			if heads[ri] {
				seeds = append(seeds, k)
				continue
			}
			m.rev.each(k, func(dep uint64) {
				if dr, _ := untkey(dep); heads[dr] && m.proofUses(dep, k) {
					seeds = append(seeds, dep)
				}
			})
		case nc > oc:
			rose[ri] = true
			inc[ri] = append(inc[ri], t)
		}
	}
	// Negation: a negated relation that rose weakens the rule's
	// derivations (its facts are removed and derived again); one that
	// fell strengthens them (the rule is evaluated whole).
	whole := map[int]bool{}
	for _, ci := range s.Rules {
		if added[ci] {
			whole[ci] = true
		}
		for _, l := range e.rules[ci].body {
			if l.kind != datalog.Negated {
				continue
			}
			if rose[l.atom.rel] {
				seeds = append(seeds, m.factsOfRule(ci)...)
			}
			if fell[l.atom.rel] {
				whole[ci] = true
			}
		}
	}
	removed := m.closeRemoval(seeds, heads)
	if e.gate != nil {
		if err := e.gate(0); err != nil {
			return err
		}
	}
	ps := m.rederivePlans(s, removed)
	for _, ci := range s.Rules {
		if whole[ci] {
			ps = append(ps, e.makePlan(e.rules[ci], ci, -1, nil))
		}
	}
	for ri, ts := range inc {
		slices.Sort(ts)
		inc[ri] = slices.Compact(ts)
	}
	ps = append(ps, e.deltaPlans(s.Rules, inc, nil)...)
	if err := e.fixpoint(s, ps); err != nil {
		return err
	}
	e.strata++
	for gi := range m.guards {
		m.clearGuard(gi)
	}
	// Index the proofs the stratum made.
	for _, k := range m.touch.order {
		if ri, _ := untkey(k); heads[ri] {
			m.rev.addProof(m, k)
		}
	}
	return nil
}

// factsOfRule returns the facts whose best proof is by rule ci.
func (m *Materialisation) factsOfRule(ci int) []uint64 {
	e := m.e
	ri := e.rules[ci].head.rel
	r := e.rels[ri]
	var out []uint64
	for t := range int32(r.len()) {
		if p := r.provAt(t); p >= 0 && m.main[e.pool.rule(p)] == ci {
			out = append(out, tkey(ri, t))
		}
	}
	return out
}

// closeRemoval removes the seeds and, within the relations of heads, every
// fact whose best proof uses a removed or fallen fact, and returns the
// removed tuples of those relations by relation.
func (m *Materialisation) closeRemoval(seeds []uint64, heads map[int32]bool) map[int32][]int32 {
	e := m.e
	out := map[int32][]int32{}
	seen := map[uint64]bool{}
	for len(seeds) > 0 {
		k := seeds[len(seeds)-1]
		seeds = seeds[:len(seeds)-1]
		if seen[k] {
			continue
		}
		seen[k] = true
		ri, t := untkey(k)
		if !heads[ri] {
			continue
		}
		r := e.rels[ri]
		if p := r.provAt(t); p >= 0 {
			m.remove(ri, t)
		}
		if o := m.touch.old[k]; r.confAt(t) < o.conf || r.provAt(t) == provDeleted {
			out[ri] = append(out[ri], t)
		}
		m.rev.each(k, func(dep uint64) {
			if dr, _ := untkey(dep); heads[dr] && !seen[dep] && m.proofUses(dep, k) {
				seeds = append(seeds, dep)
			}
		})
	}
	return out
}

// proofUses reports whether the best proof of tuple dep uses tuple k as a
// positive body fact.
func (m *Materialisation) proofUses(dep, k uint64) bool {
	e := m.e
	dr, dt := untkey(dep)
	p := e.rels[dr].provAt(dt)
	if p < 0 {
		return false
	}
	rule := e.rules[e.pool.rule(p)]
	_, refs := e.pool.record(p, rule.nprov)
	kr, kt := untkey(k)
	for j := range rule.npos {
		if int32(refs[2*j]) == kr && int32(refs[2*j+1]) == kt {
			return true
		}
	}
	return false
}

// rederivePlans returns the plans that derive the removed facts again from
// what is left: per relation, the rederive twins of the stratum's rules
// that derive it, their guard holding the removed tuples.
func (m *Materialisation) rederivePlans(s datalog.Stratum, removed map[int32][]int32) []*plan {
	e := m.e
	var ps []*plan
	for _, ci := range s.Rules {
		h := e.rules[ci].head.rel
		ts := removed[h]
		if len(ts) == 0 {
			continue
		}
		tw := m.twin[ci]
		gi := e.rules[tw].body[0].atom.rel
		g := m.fillGuard(gi, h, ts)
		all := make([]int32, g.len())
		for i := range all {
			all[i] = int32(i)
		}
		ps = append(ps, e.makePlan(e.rules[tw], tw, 0, all))
	}
	return ps
}

// fillGuard gives guard relation gi the tuples ts of relation h (once per
// stratum) and returns it.
func (m *Materialisation) fillGuard(gi, h int32, ts []int32) *relation {
	e := m.e
	if _, ok := m.guards[gi]; ok {
		return e.rels[gi]
	}
	old := e.rels[gi]
	g := newRelation(old.name, old.arity)
	g.internal, g.display = true, ""
	src := e.rels[h]
	for _, t := range ts {
		if g.find(src.tuple(t)) < 0 {
			g.add(src.tuple(t), 1, provBase)
		}
	}
	e.rels[gi] = g
	m.guards[gi] = h
	return g
}

// clearGuard empties guard relation gi.
func (m *Materialisation) clearGuard(gi int32) {
	e := m.e
	old := e.rels[gi]
	g := newRelation(old.name, old.arity)
	g.internal, g.display = true, ""
	e.rels[gi] = g
	delete(m.guards, gi)
}

// report classifies the tuples the update touched, and lists the changed
// facts that changed most first (then in relation and tuple order).
func (m *Materialisation) report() (Change, error) {
	e := m.e
	var ch Change
	type changedTuple struct {
		k      uint64
		oc, nc float64
	}
	var cs []changedTuple
	for _, k := range m.touch.order {
		ri, t := untkey(k)
		r := e.rels[ri]
		if r.internal {
			continue
		}
		o := m.touch.old[k]
		oc, op := o.conf, o.prov
		nc, np := r.confAt(t), r.provAt(t)
		oldD := oc > 0 && op != provBase && op != provDeleted
		newD := nc > 0 && np != provBase && np != provDeleted
		if !oldD {
			oc = 0
		}
		if !newD {
			nc = 0
		}
		switch {
		case !oldD && !newD:
			continue
		case !oldD:
			ch.Added++
		case !newD:
			ch.Removed++
		case !sameConfidence(oc, nc):
			ch.Reweighted++
		case op != np || oc != nc:
			// The same proof worth the same, or another proof worth as
			// much (to the last bits of float64, which multiplies in
			// another order).
			ch.Proofs++
			continue
		default:
			continue
		}
		cs = append(cs, changedTuple{k, oc, nc})
	}
	slices.SortFunc(cs, func(a, b changedTuple) int {
		return cmp.Or(cmp.Compare(math.Abs(b.nc-b.oc), math.Abs(a.nc-a.oc)), cmp.Compare(a.k, b.k))
	})
	for _, c := range cs[:min(len(cs), MaxChangedFacts)] {
		ri, t := untkey(c.k)
		f, err := m.changed(e.rels[ri], t, c.oc, c.nc)
		if err != nil {
			return ch, err
		}
		ch.Facts = append(ch.Facts, f)
	}
	return ch, nil
}

// sameConfidence reports whether two confidences are equal within 1e-12
// relative: two computations of one proof that multiply in another order.
func sameConfidence(a, b float64) bool {
	return math.Abs(a-b) <= 1e-12*max(math.Abs(a), math.Abs(b))
}

// changed describes tuple t of r for a Change.
func (m *Materialisation) changed(r *relation, t int32, oc, nc float64) (ChangedFact, error) {
	f := ChangedFact{Pred: r.display, Old: oc, New: nc}
	for _, a := range r.tuple(t) {
		n, err := m.e.syms.name(a)
		if err != nil {
			return f, err
		}
		f.Args = append(f.Args, n)
	}
	return f, nil
}

// diffMaterialisations reports the derived facts that differ between a and
// b (over the same store; their symbol tables may differ).
func diffMaterialisations(a, b *Materialisation) (Change, error) {
	var ch Change
	derived := func(r *relation, t int32) (float64, bool) {
		p := r.provAt(t)
		c := r.confAt(t)
		return c, c > 0 && p != provBase && p != provDeleted && p != provStored
	}
	note := func(m *Materialisation, r *relation, t int32, oc, nc float64) error {
		if len(ch.Facts) >= MaxChangedFacts {
			return nil
		}
		f, err := m.changed(r, t, oc, nc)
		ch.Facts = append(ch.Facts, f)
		return err
	}
	// find returns the tuple of relation pred/arity in to equal to tuple t
	// of from, or nil, -1.
	var buf []uint32
	find := func(from, to *Materialisation, r *relation, t int32) (*relation, int32, error) {
		i, ok := to.e.relIdx[relKey(r.name, r.arity)]
		if !ok {
			return nil, -1, nil
		}
		tup := r.tuple(t)
		if from.e.syms != to.e.syms {
			buf = buf[:0]
			for _, a := range tup {
				n, err := from.e.syms.name(a)
				if err != nil {
					return nil, -1, err
				}
				x, ok := to.e.syms.lookup(n)
				if !ok {
					return nil, -1, nil
				}
				buf = append(buf, x)
			}
			tup = buf
		}
		rt := to.e.rels[i]
		return rt, rt.find(tup), nil
	}
	for _, rb := range b.e.rels {
		if rb.internal {
			continue
		}
		for t := range int32(rb.len()) {
			nc, nd := derived(rb, t)
			oc, od := 0.0, false
			ra, k, err := find(b, a, rb, t)
			if err != nil {
				return ch, err
			}
			if k >= 0 {
				oc, od = derived(ra, k)
			}
			switch {
			case nd && !od:
				ch.Added++
				err = note(b, rb, t, 0, nc)
			case od && !nd:
				ch.Removed++
				err = note(b, rb, t, oc, 0)
			case od && nd && !sameConfidence(oc, nc):
				ch.Reweighted++
				err = note(b, rb, t, oc, nc)
			}
			if err != nil {
				return ch, err
			}
		}
	}
	for _, ra := range a.e.rels {
		if ra.internal {
			continue
		}
		for t := range int32(ra.len()) {
			oc, od := derived(ra, t)
			if !od {
				continue
			}
			_, k, err := find(a, b, ra, t)
			if err != nil {
				return ch, err
			}
			if k >= 0 {
				continue // counted above
			}
			ch.Removed++
			if err := note(a, ra, t, oc, 0); err != nil {
				return ch, err
			}
		}
	}
	return ch, nil
}

// String summarises the change: "+3 −1 ~2 facts".
func (c Change) String() string {
	s := fmt.Sprintf("+%d −%d ~%d facts", c.Added, c.Removed, c.Reweighted)
	if c.Full {
		s += " (recomputed)"
	}
	return s
}
