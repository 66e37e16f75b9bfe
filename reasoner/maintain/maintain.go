package maintain

import (
	"context"
	"errors"
	"github.com/drumql/drumql/internal/pkgerr"
	"slices"
	"strings"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
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
// reuses the slot. Removed tuples are reclaimed by compaction, before an
// update (maintain_compact.go), and do not count toward Options.MaxFacts.

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
	// Validated says the caller has checked Program with datalog.Validate
	// and found no error: Apply does not validate it again (a mined
	// program of a hundred thousand rules takes a fifth of a second), and
	// still checks its arities against the store's.
	Validated bool
	// Record, when set, is RecordOf(Program, the options the
	// materialisation evaluates with), as the caller computed it to
	// compare with a store's record: it becomes the materialisation's
	// Record after the update, which then does not print a program of a
	// hundred thousand rules again.
	Record []byte
}

// Change reports what an update did to the derived facts (base facts
// excluded).
type Change struct {
	// Added, Removed and Reweighted count derived facts that appeared,
	// disappeared and changed confidence; Proofs counts those whose best
	// proof changed while their confidence did not.
	Added, Removed, Reweighted, Proofs int
	// Facts lists up to MaxChangedFacts changed facts: the largest changes
	// first (then in relation and tuple order) for an incremental update,
	// the first in relation order for a recomputation.
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
	opt  eval.Options
	prog *datalog.Program
	e    *eval.Evaluator
	// u holds every rule compiled so far, at the same index as in e.rules
	// (rules of the program and their rederive twins, including rules the
	// program no longer has), and the program's facts.
	u       *eval.Unit
	main    []int    // per compiled rule: the rule it derives for (itself, or the rule a twin copies)
	keys    []string // per compiled rule: its ruleKey once keyOf computed it ("" before, and for twins)
	twin    []int    // per compiled rule: its rederive twin (twinOf), noTwin before it is made, -1 for twins
	current []bool   // per compiled rule: a rule of the current program
	active  []bool   // per compiled rule: evaluated (current, strong enough, live)
	ruleOf  []int    // per rule of the program: its compiled index
	strata  []datalog.Stratum
	loaded  map[int32]bool     // relations read from the store
	guards  map[int32]guard    // the rederive guards filled in the stratum (fillGuard)
	facts   map[string]factSrc // the program facts by atom (the strongest)
	rev     revIndex
	touchAt eval.Marks // the touch logs' marks (touchLog.at)
	seenAt  eval.Marks // closeRemoval's
	touch   *eval.TouchLog
	// renames maps the stored proof references of rules and facts that
	// moved (a line inserted above them) to their new references, since
	// the last Apply.
	renames map[string]string
	// renamedRule is, for each key of renames that is a rule's reference,
	// the compiled rule (storedRenames passes the store only those of
	// rules with a fact).
	renamedRule map[string]int
	record      []byte // Record, computed once per program and threshold
	broken      error
	// poolMark is the size of the provenance pool after the last
	// compaction, or at the first update, and deadMark the removed
	// tuples a compaction kept (maintain_compact.go).
	poolMark, deadMark int
}

// guardPrefix names the internal relation of the facts a rederive round
// derives again (a NUL never occurs in a parsed name).
const guardPrefix = "\x00redo "

// Materialise evaluates prog over st's base facts, as Infer does, and keeps
// the result in memory for Apply. Nothing is written to the store (see
// Write).
func Materialise(ctx context.Context, st store.Store, prog *datalog.Program, opt eval.Options) (*Materialisation, eval.InferStats, error) {
	if prog == nil {
		prog = &datalog.Program{}
	}
	if err := eval.CheckProgram(st, prog); err != nil {
		return nil, eval.InferStats{}, err
	}
	syms, err := eval.NewSymtab(st)
	if err != nil {
		return nil, eval.InferStats{}, err
	}
	return materialise(ctx, st, syms, prog, opt)
}

func materialise(ctx context.Context, st store.Store, syms *eval.Symtab, prog *datalog.Program, opt eval.Options) (*Materialisation, eval.InferStats, error) {
	start := time.Now()
	m := newMaterialisation(ctx, st, syms, prog, opt)
	e := m.e
	for i := range prog.Rules {
		m.ruleOf = append(m.ruleOf, m.addRule(&prog.Rules[i]))
	}
	if err := e.Load(m.u); err != nil {
		return nil, eval.InferStats{}, pkgerr.Newf("reasoner: infer: %w", err)
	}
	for ri, r := range e.Rels {
		if !r.Internal {
			m.loaded[int32(ri)] = true
		}
	}
	if err := m.indexFacts(); err != nil {
		return nil, eval.InferStats{}, pkgerr.Newf("reasoner: infer: %w", err)
	}
	m.computeActive()
	defer e.ReleaseBufs()
	for _, s := range m.strata {
		var ps []*eval.Plan
		for _, ri := range s.Rules {
			ps = append(ps, e.MakePlan(e.Rules[ri], ri, -1, nil))
		}
		if err := e.Fixpoint(s, ps); err != nil {
			return nil, eval.InferStats{}, pkgerr.Newf("reasoner: infer: %w", err)
		}
		e.Strata++
	}
	m.recordWork()
	stats := eval.InferStats{Derived: map[string]int{}, Iterations: e.Iterations, Strata: e.Strata}
	e.ReportStats(&stats.Eval)
	e.ReportStats(opt.Stats)
	for _, r := range e.Rels {
		if r.Internal {
			continue
		}
		for t := range int32(r.Len()) {
			if p := r.ProvAt(t); p != eval.ProvBase && p != eval.ProvStored && p != eval.ProvDeleted {
				stats.Derived[r.Display]++
				stats.Facts++
			}
		}
	}
	stats.Duration = time.Since(start)
	return m, stats, nil
}

func newMaterialisation(ctx context.Context, st store.Store, syms *eval.Symtab, prog *datalog.Program, opt eval.Options) *Materialisation {
	o := opt.WithProgram(prog)
	e := eval.NewEvaluator(ctx, st, syms, o)
	e.Prov = true
	e.Progress = opt.Progress
	e.MaxMem = opt.MaxMemory
	e.Start = time.Now()
	u := &eval.Unit{Prog: &datalog.Program{Facts: prog.Facts}, Internal: map[string]string{}, FactSrc: prog.Facts}
	return &Materialisation{
		st: st, opt: opt, prog: prog, e: e, u: u,
		loaded: map[int32]bool{}, guards: map[int32]guard{},
	}
}

// recordWork adds the evaluation's work to the test counters.
func (m *Materialisation) recordWork() {
	e := m.e
	if w := m.opt.Work; w != nil {
		w.InferJoins.Add(e.Work)
		w.InferDerived.Add(int64(e.Derived))
		w.InferCands.Add(e.Cands)
		w.InferReads.Add(e.Reads)
	}
}

// Min returns the threshold the materialisation applies.
func (m *Materialisation) Min() float64 { return m.e.Min }

// Apply brings the materialisation up to date with d and reports what
// changed. The store must already hold d's base facts. When the update
// would cost more than recomputing (most of the rules or base facts
// removed), or needs it (a lower threshold, new symbols in the store
// while program constants the store lacks are in use), it recomputes
// from scratch (Change.Full). On error the materialisation must be
// discarded.
func (m *Materialisation) Apply(ctx context.Context, d Delta) (Change, error) {
	if m.broken != nil {
		return Change{}, pkgerr.Newf("reasoner: update: a previous update failed: %w", m.broken)
	}
	ch, err := m.apply(ctx, d)
	if err != nil {
		m.broken = err
		return Change{}, pkgerr.Newf("reasoner: update: %w", err)
	}
	if d.Program != nil && d.Record != nil {
		m.record = d.Record
	}
	return ch, nil
}

func (m *Materialisation) apply(ctx context.Context, d Delta) (Change, error) {
	start := time.Now()
	e := m.e
	e.Ctx = ctx
	prog := m.prog
	if d.Program != nil {
		if err := eval.CheckProgramWith(m.st, d.Program, !d.Validated); err != nil {
			return Change{}, err
		}
		prog = d.Program
	}
	min := m.opt.WithProgram(prog).WithDefaults().Min
	var match []int // the new program's rules matched with the compiled ones
	same := 0
	if d.Program != nil {
		match, same = m.matchRules(prog)
	}
	full, err := m.needsFull(d, same, min)
	if err != nil {
		return Change{}, err
	}
	if full {
		return m.recompute(ctx, prog, start)
	}
	if m.compactDue() {
		m.compact()
	}
	derived := e.Derived
	rounds := e.Iterations
	m.touch = eval.NewTouchLog(&m.touchAt)
	m.renames = map[string]string{}
	m.renamedRule = map[string]int{}
	e.Touch = m.touch
	defer func() { e.Touch = nil }()
	var kill, add []int
	if min > e.Min {
		e.Min = min
		m.record = nil
		m.removeBelow(min)
	}
	if err := m.baseChanges(d.Base); err != nil {
		return Change{}, err
	}
	if d.Program != nil {
		if kill, add, err = m.setProgram(d.Program, match); err != nil {
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
	defer e.ReleaseBufs()
	// An update that reaches a large part of the materialisation costs
	// more than recomputing it: past the limit, the tuples go back to
	// what they were and the program is evaluated from scratch.
	limit := 0
	for _, r := range e.Rels {
		if !r.Internal {
			limit += r.Alive
		}
	}
	limit = max(limit/fallbackDivisor, 1024)
	over := func() error {
		if len(m.touch.Order) > limit {
			return errFallback
		}
		return nil
	}
	e.Gate = func(int64) error { return over() }
	defer func() { e.Gate = nil }()
	for _, s := range m.strata {
		err := over()
		if err == nil {
			err = m.maintain(s, added)
		}
		if errors.Is(err, errFallback) {
			m.restore()
			e.Touch, m.touch = nil, nil
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
	// The cap counts the derived facts that hold: the removed ones no
	// longer do (their tuples stay until a compaction).
	e.Derived = derived + ch.Added - ch.Removed
	ch.Rounds = e.Iterations - rounds
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
	for i, k := range m.touch.Order {
		ri, t := eval.Untkey(k)
		o := m.touch.Old[i]
		if !o.Existed {
			o.Conf, o.Prov = 0, eval.ProvDeleted
		}
		e.Rels[ri].Set(t, o.Conf, o.Prov)
	}
}

// needsFull decides whether an update recomputes from scratch; same is the
// number of the new program's rules that matchRules matched.
func (m *Materialisation) needsFull(d Delta, same int, min float64) (bool, error) {
	e := m.e
	if min < e.Min {
		return true, nil // facts cut before may now be kept: no cheap way to find them
	}
	// Expressions, built-in tests and aggregates are recomputed: an
	// aggregate is not monotone (a new fact can lower a count's
	// confidence or change its value), which over-deletion and
	// re-derivation do not cover.
	if hasExpressions(m.prog) || d.Program != nil && hasExpressions(d.Program) {
		return true, nil
	}
	n, err := m.st.NumSymbols()
	if err != nil {
		return false, err
	}
	numbers := false
	for _, r := range e.Rels {
		numbers = numbers || r.Internal && strings.HasPrefix(r.Name, eval.NumPrefix)
	}
	if ok, err := e.Syms.Grow(n, numbers); err != nil || !ok {
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
	for ri, r := range e.Rels {
		if m.loaded[int32(ri)] {
			base += r.Alive
		}
	}
	if removed > 0 && 2*removed > base {
		return true, nil
	}
	if d.Program != nil && len(m.ruleOf) > 8 && 2*same < len(m.ruleOf) {
		return true, nil
	}
	return false, nil
}

// recompute replaces the materialisation by a new evaluation of prog and
// reports the difference.
func (m *Materialisation) recompute(ctx context.Context, prog *datalog.Program, start time.Time) (Change, error) {
	syms := m.e.Syms
	if n, err := m.st.NumSymbols(); err != nil {
		return Change{}, err
	} else if uint32(n) != syms.NStore {
		if syms, err = eval.NewSymtab(m.st); err != nil {
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
	ch.Rounds = nm.e.Iterations
	ch.Duration = time.Since(start)
	return ch, nil
}

// hasExpressions reports whether a rule of p has expressions, built-in
// tests or aggregates.
func hasExpressions(p *datalog.Program) bool {
	return slices.ContainsFunc(p.Rules, func(r datalog.Rule) bool { return r.HasCompound() })
}
