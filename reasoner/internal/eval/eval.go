package eval

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/store"
)

// Evaluator holds the state of one evaluation: the relations, the compiled
// rules of the stratum being evaluated and the provenance pool.
type Evaluator struct {
	Unit    *Unit // the unit evaluated, for proofs after a query
	Ctx     context.Context
	Syms    *Symtab
	St      store.Store
	Min     float64
	maxFact int
	maxStr  int // Options.MaxString, defaulted
	threads int
	Prov    bool // record provenance
	// lean makes the relations lean (Relation.Lean): Evaluate, which
	// neither records nor returns provenance.
	lean   bool
	Stored bool // load the store's derived facts as extensional facts (query mode)
	// baseOnly overrides stored: derived facts are never read.
	baseOnly bool
	// NoStoreLoad makes Load compile and leave the relations empty, read
	// nothing from the store: a materialisation image fills them.
	NoStoreLoad bool
	noFactor    bool // Options.noFactor
	noShare     bool // Options.NoShare
	noScanBound bool // Options.NoScanBound
	batchItems  int  // Options.BatchItems (0: BatchItems)
	// walkAlways and walkNever: Options.walkAlways and walkNever.
	walkAlways, walkNever bool
	// memoMax caps a worker's memos (facMemoMax when 0; tests set it).
	memoMax int
	// roundDelta and facGroups are the delta deltaPlans plans and its
	// groupings for factorised plans (facGroupsOf), while it plans.
	roundDelta map[int32][]int32
	facGroups  map[deltaKey]*facGrouping
	// pairOrders orders the tuples of guards over both ends of a chain
	// rule's path, for its pair plans (factor_pair.go).
	pairOrders map[pairKey]*pairOrder

	Rels   []*Relation
	RelIdx map[string]int32
	// Shared returns a preloaded read-only relation (store and program
	// facts) of an Engine, or nil; never used for rule heads.
	Shared func(pred string, arity int) *Relation
	heads  map[string]bool

	// choice is Options.Choice, limit Options.Limit, subsume
	// Options.Subsume.
	choice  map[string][][]int
	limit   map[string]int
	subsume map[string]string
	// loaded is Options.Loaded (Evaluate's only: lean).
	loaded func(rel store.ID)
	// autoinc is the next value of autoinc() (Soufflé's counter).
	autoinc atomic.Int64

	Rules  []*Crule // compiled rules of the unit, by unit rule index
	sink   uint64   // keeps apply's prefetching loads alive
	Pool   ProvPool // provenance: rule index, then (relation, tuple) per body fact
	bufs   []outBuf // candidate buffers of the tasks of a round, reused
	Cands  int64    // candidate facts merged (records of the buffers)
	Probes int64    // lookups of derived facts in their relation by workers (emit)
	// facBuilds counts the far ends of a V1 the workers' memos built
	// (facRest); fms holds the memos of each worker of a round.
	facBuilds int64
	fms       []*facMemos
	deltas    int64 // delta tuples the rounds joined (fixpoint)
	Reads     int64 // tuples the joins tried (worker.reads)
	// batchWall is the wall time of the parallel batches (runTasks), and
	// batchBusy the time their workers spent in tasks: busy over wall is
	// the cores the batches kept busy (Progress.Busy).
	batchWall, batchBusy time.Duration

	// maxBatch is the most records one merge (a batch) took.
	maxBatch int64

	Derived int   // facts added by the program (facts and rules)
	cut     int64 // derivations dropped below min (EvalStats.Cut)
	// Work counts joins and loaded tuples; gate, when set (a race, see
	// raceQuery), is told about the work done since the last checkpoint
	// (reported) and may stop the evaluation.
	Work, reported int64
	Gate           func(work int64) error
	WeakRules      int // rules left out for a weight below min
	Iterations     int
	Strata         int

	// Progress, when set, is told about every round (Infer).
	Progress func(Progress)
	// lastReport is when progress was last called (reportBatch).
	lastReport time.Time
	Start      time.Time
	// MaxMem caps memoryInUse during the fixpoint and the write (0: no
	// cap); memErr is set by the first check of the fixpoint that finds it
	// exceeded.
	MaxMem int64
	memErr atomic.Pointer[error]
	// Touch, when set (an incremental update), records the state of every
	// tuple apply changes before it changes it.
	Touch *TouchLog
	// keepLeftOut makes runFixpoint keep, in leftOut, the predicates of
	// the rules of the program it leaves out of the evaluation (dead or
	// too weak), for Infer's caller (addLeftOut): the names, not the
	// rules, whose syntax trees would stay live through the evaluation.
	keepLeftOut bool
	leftOut     []predArity
	// provInPlace writes a tuple's better proof over its old one when
	// they are as long (proofRecord): set by Infer, whose units have no
	// copy rule (a rule whose head shares its body fact's record).
	provInPlace bool
	// writeMemory measures the memory in use for the write's checks
	// (Options.writeMemory; nil: memoryInUse).
	writeMemory func() int64
	// res caches the regular expressions of match (expr.go).
	reMu sync.Mutex
	res  map[string]*regexp.Regexp

	deltaBuf [][]int32 // apply's deltas by relation, reused
}

// reportRound tells e.progress about the round just done.
func (e *Evaluator) reportRound() {
	if e.Progress != nil {
		e.lastReport = time.Now()
		e.Progress(Progress{Phase: PhaseDerive, Rounds: e.Iterations, Facts: e.Derived, Memory: memoryInUse(), Joins: e.Work, Elapsed: time.Since(e.Start),
			Batches: e.batchWall, Busy: e.batchBusy})
	}
}

// reportBatch tells e.progress where a long round stands, at most about
// once a second (a round of a mined program's fixpoint can take an hour).
func (e *Evaluator) reportBatch() {
	if e.Progress == nil {
		return
	}
	if e.lastReport.IsZero() {
		e.lastReport = time.Now() // the first report is a second in
	}
	if time.Since(e.lastReport) >= time.Second {
		e.reportRound()
	}
}

// relation returns the index of the relation pred/arity, creating it.
func (e *Evaluator) relation(pred string, arity int) int32 {
	k := RelKey(pred, arity)
	if i, ok := e.RelIdx[k]; ok {
		return i
	}
	var r *Relation
	if e.Shared != nil && !e.heads[pred] {
		r = e.Shared(pred, arity)
	}
	if r == nil {
		r = NewRelation(strings.Clone(pred), arity) // not the bytes of the text it was parsed from
		if e.lean && !e.Prov {
			r.MakeLean()
		}
		if keys := e.choice[pred]; len(keys) > 0 {
			r.choice = newChoiceSet(keys)
		}
	}
	i := int32(len(e.Rels))
	e.Rels = append(e.Rels, r)
	e.RelIdx[k] = i
	return i
}

// Checkpoint tells the race gate, if any, about the work done since the
// last checkpoint.
func (e *Evaluator) Checkpoint() error {
	if e.Gate == nil {
		return nil
	}
	w := e.Work - e.reported
	e.reported = e.Work
	return e.Gate(w)
}

// ReportStats fills st (when not nil) with what the threshold did.
func (e *Evaluator) ReportStats(st *EvalStats) {
	if st != nil {
		*st = EvalStats{Min: e.Min, WeakRules: e.WeakRules, Cut: e.cut}
	}
}

// NewEvaluator returns an evaluator over st with the symbols syms and the
// options opt (their defaults set).
func NewEvaluator(ctx context.Context, st store.Store, syms *Symtab, opt Options) *Evaluator {
	opt = opt.WithDefaults()
	return &Evaluator{
		Ctx: ctx, St: st, Syms: syms, Min: opt.Min, maxFact: opt.MaxFacts, maxStr: opt.maxString(), MaxMem: opt.MaxMemory,
		threads: opt.Threads, RelIdx: map[string]int32{}, baseOnly: opt.BaseOnly, noFactor: opt.NoFactor, noShare: opt.NoShare,
		noScanBound: opt.NoScanBound, batchItems: opt.BatchItems,
		walkAlways: opt.WalkAlways, walkNever: opt.WalkNever, choice: opt.Choice,
		limit: opt.Limit, subsume: opt.Subsume, loaded: opt.Loaded,
	}
}

// Load prepares the unit: relations, extensional facts from the store,
// program facts and compiled rules.
func (e *Evaluator) Load(u *Unit) error {
	e.heads = map[string]bool{}
	for i := range u.Prog.Rules {
		e.heads[strings.Clone(u.Prog.Rules[i].Head.Pred)] = true
		if callsAutoinc(&u.Prog.Rules[i]) {
			// autoinc() numbers in evaluation order: in one thread, that
			// order is the same in every run
			e.threads = 1
		}
	}
	for i := range u.Prog.Rules {
		cr, err := e.CompileRule(u, i)
		if err != nil {
			return err
		}
		e.Rules = append(e.Rules, cr)
	}
	for i := range u.Prog.Facts {
		f := &u.Prog.Facts[i]
		if f.Weight >= 0 {
			e.relation(f.Atom.Pred, len(f.Atom.Args))
		}
	}
	// Mark internal relations, load the others from the store, in a
	// deterministic order.
	for _, r := range e.Rels {
		if disp, ok := u.Internal[r.Name]; ok {
			r.Internal = true
			r.Display = disp
		}
	}
	for _, r := range e.Rels {
		if r.Internal || r.Len() > 0 || e.NoStoreLoad {
			continue
		}
		if r.Shared {
			continue
		}
		if err := e.LoadStore(r); err != nil {
			return err
		}
		if err := e.Checkpoint(); err != nil {
			return err
		}
	}
	for i := range u.Prog.Facts {
		ri, t, c, err := e.ProgramFact(&u.Prog.Facts[i])
		if err != nil {
			return err
		}
		if t == nil {
			continue
		}
		r := e.Rels[ri]
		if r.Shared {
			continue // an Engine loaded it once
		}
		if k := r.Find(t); k >= 0 {
			if c > r.ConfAt(k) {
				r.Set(k, c, int32(ProvFact0-i))
			}
			continue
		}
		if !r.choose(t) {
			continue // another fact has its choice-domain key
		}
		if err := e.count(1); err != nil {
			return err
		}
		r.Add(t, c, int32(ProvFact0-i))
	}
	// The relations of number constants last: the program's facts may
	// name symbols equal to a number ("1.50" for 1.5) that only they use.
	for _, r := range e.Rels {
		if r.Internal && strings.HasPrefix(r.Name, NumPrefix) && r.Len() == 0 {
			if err := e.loadNumber(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// ProgramFact returns the relation, tuple and confidence of program fact f,
// or a nil tuple when the threshold drops it.
func (e *Evaluator) ProgramFact(f *datalog.Fact) (int32, []uint32, float64, error) {
	c := WeightOf(f.Weight)
	if f.Weight < 0 || c < e.Min {
		return 0, nil, 0, nil
	}
	t := make([]uint32, len(f.Atom.Args))
	for j, a := range f.Atom.Args {
		id, err := e.Syms.Id(a.Value)
		if err != nil {
			return 0, nil, 0, err
		}
		t[j] = id
	}
	return e.relation(f.Atom.Pred, len(t)), t, c, nil
}

// loadNumber fills the relation of a number constant (numPrefix) with
// every symbol equal to it as a number.
func (e *Evaluator) loadNumber(r *Relation) error {
	text := strings.TrimPrefix(r.Name, NumPrefix)
	f, ok := NumberValue(text)
	if !ok {
		return pkgerr.Newf("reasoner: malformed number %s", text)
	}
	ids, err := e.Syms.numberSymbols(f)
	if err != nil {
		return err
	}
	c, err := e.Syms.Id(text)
	if err != nil {
		return err
	}
	if !slices.Contains(ids, c) {
		ids = append(ids, c)
	}
	slices.Sort(ids)
	for _, id := range ids {
		r.Add([]uint32{id}, 1, ProvBase)
	}
	e.Work += int64(len(ids))
	return nil
}

// LoadStore loads the base facts of r (and, in query mode, the stored
// derived facts) from the store.
func (e *Evaluator) LoadStore(r *Relation) error {
	id, ok := e.Syms.Lookup(r.Name)
	if !ok || e.Syms.IsLocal(id) {
		return nil
	}
	r.sorted = e.sortedInput(r) // see input.go
	for f, err := range e.St.Scan(id) {
		if err != nil {
			return pkgerr.Newf("reasoner: load %s: %w", r.Name, err)
		}
		if len(f.Args) == r.Arity {
			r.take(f.Args)
			r.load(f.Args, 1, ProvBase)
			e.Work++
		}
	}
	if err := e.Ctx.Err(); err != nil {
		return pkgerr.Newf("reasoner: load %s: %w", r.Name, err)
	}
	if e.loaded != nil && e.lean {
		e.loaded(id)
	}
	if !e.Stored || e.baseOnly {
		return nil
	}
	for d, err := range e.St.ScanDerived(id) {
		if err != nil {
			return pkgerr.Newf("reasoner: load derived %s: %w", r.Name, err)
		}
		c := float64(d.Confidence)
		if len(d.Fact.Args) != r.Arity || c < e.Min {
			continue
		}
		if k := r.Find(d.Fact.Args); k >= 0 {
			if c > r.ConfAt(k) {
				r.Set(k, c, ProvStored)
			}
			continue
		}
		r.Add(d.Fact.Args, c, ProvStored)
	}
	return nil
}

func (e *Evaluator) count(n int) error {
	e.Derived += n
	if e.Derived > e.maxFact {
		return pkgerr.Newf("reasoner: %d facts derived, more than the cap of %d: %w", e.Derived, e.maxFact, ErrTooManyFacts)
	}
	return nil
}

// Run evaluates the unit stratum by stratum.
func (e *Evaluator) Run(u *Unit) error {
	strata, err := stratify(u.Prog)
	if err != nil {
		return err
	}
	return e.runStrata(strata)
}

// stratify returns the strata of p, or its stratification's error.
func stratify(p *datalog.Program) ([]datalog.Stratum, error) {
	strata, ds := datalog.Stratify(p)
	if err := ds.Err(); err != nil {
		return nil, pkgerr.Newf("reasoner: %w", err)
	}
	return strata, nil
}

// runStrata evaluates the strata of the loaded unit in order: what Run
// does once the unit's program is stratified.
func (e *Evaluator) runStrata(strata []datalog.Stratum) error {
	defer e.ReleaseBufs()
	for _, s := range strata {
		if err := e.stratum(s); err != nil {
			return err
		}
		e.Strata++
	}
	return nil
}

// stratum evaluates one stratum to its fixpoint, semi-naively.
func (e *Evaluator) stratum(s datalog.Stratum) error {
	var ps []*Plan
	for _, ri := range e.firstRules(s) {
		ps = append(ps, e.MakePlan(e.Rules[ri], ri, -1, nil))
	}
	return e.Fixpoint(s, ps)
}

// Fixpoint runs the plans ps as the first round of stratum s, then rounds
// over the delta of the stratum's own relations, strongest band of
// confidence first (bands.go), until none is new (one round when the
// stratum is not recursive). Incremental maintenance
// (maintain.go) starts it with the plans that its change calls for.
func (e *Evaluator) Fixpoint(s datalog.Stratum, ps []*Plan) error {
	in := map[int32]bool{}
	for _, ri := range s.Rules {
		in[e.Rules[ri].Head.Rel] = true
	}
	delta := map[int32][]int32{}
	var b bands
	for first := true; len(ps) > 0 || first && e.subsumes(in); first = false {
		e.Iterations++
		for k := range delta {
			delete(delta, k)
		}
		if err := e.round(ps, delta); err != nil {
			return err
		}
		if err := e.subsumeRound(in, delta, first); err != nil {
			return err
		}
		e.reportRound()
		if err := e.checkMemory(); err != nil {
			return err
		}
		if !s.Recursive || e.limitReached(in) {
			return nil
		}
		b.split(e, delta)
		for {
			if len(delta) == 0 {
				return nil
			}
			for _, d := range delta {
				e.deltas += int64(len(d))
			}
			if ps = e.DeltaPlans(s.Rules, delta, in); len(ps) > 0 {
				break
			}
			// The threshold cut every plan of the band's delta: the band
			// is done, and the tuples waiting below it (which other rules
			// may read above the threshold) join in the next one.
			clear(delta)
			b.split(e, delta)
		}
	}
	return nil
}

// DeltaPlans returns the plans of a semi-naive round: for every positive
// literal of the rules that reads a relation with tuples in delta (one of
// those of in, when in is not nil), the rule with that literal iterating
// them. delta is sorted (sortDelta) here.
func (e *Evaluator) DeltaPlans(rules []int, delta map[int32][]int32, in map[int32]bool) []*Plan {
	var ps []*Plan
	e.sortDelta(delta)
	e.roundDelta, e.facGroups = delta, map[deltaKey]*facGrouping{}
	defer func() { e.roundDelta, e.facGroups = nil, nil }()
	byConst := map[deltaKey]map[uint32][]int32{}
	for _, ri := range rules {
		r := e.Rules[ri]
		for j := range r.Body {
			l := &r.Body[j]
			if l.Kind != datalog.Positive || (in != nil && !in[l.Atom.Rel]) {
				continue
			}
			if d := e.strongEnough(r, l, e.deltaOf(l, delta, byConst)); len(d) > 0 {
				ps = append(ps, e.MakePlan(r, ri, j, d))
			}
		}
	}
	return ps
}

// deltaKey names the delta of a relation split by the value at one
// argument position.
type deltaKey struct {
	rel int32
	pos int
}

// deltaOf returns the tuples of the round's delta that literal l can match:
// the whole delta of its relation or, when l has a symbol constant, the
// delta tuples with that constant at its position, read from the delta
// split by that position (byConst, built on first use in the round). A
// mined program has hundreds of rules with constants per relation (such as
// `h(X, c) :- b(X, d)`): without the split every one of them scanned the
// whole delta of b every round, to keep the few tuples with d.
func (e *Evaluator) deltaOf(l *clit, delta map[int32][]int32, byConst map[deltaKey]map[uint32][]int32) []int32 {
	d := delta[l.Atom.Rel]
	if len(d) == 0 {
		return nil
	}
	for k, a := range l.Atom.Args {
		if a.V != SlotConst {
			continue
		}
		key := deltaKey{l.Atom.Rel, k}
		m, ok := byConst[key]
		if !ok {
			m = map[uint32][]int32{}
			rel := e.Rels[l.Atom.Rel]
			for _, t := range d {
				v := rel.Tuple(t)[k]
				m[v] = append(m[v], t)
			}
			byConst[key] = m
		}
		return m[a.C]
	}
	return d
}

// sortDelta orders every relation's delta by confidence, highest first
// (then by tuple index), so that strongEnough can cut it with a binary
// search.
func (e *Evaluator) sortDelta(delta map[int32][]int32) {
	for ri, d := range delta {
		rel := e.Rels[ri]
		slices.SortFunc(d, func(a, b int32) int {
			if c := cmp.Compare(rel.ConfAt(b), rel.ConfAt(a)); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	}
}

// strongEnough returns the prefix of the delta d (sorted by sortDelta) of
// literal l of rule r whose tuples can start a derivation at or above the
// threshold: the join would cut every later tuple at once (its confidence
// times the rule's weight is below min; see worker.try). On a mined
// program, where hundreds of rules of weights well below 1 read each
// relation, the weak facts of a delta were most of what a round tried.
// A magic guard's tuple cuts the same way: what the rule derives under it
// counts at most its confidence times the rule's weight (worker.try), and
// a goal-directed query over a mined program demands each goal with
// hundreds of rules, most of them too weak for all but its strongest
// demands.
func (e *Evaluator) strongEnough(r *Crule, l *clit, d []int32) []int32 {
	if r.crisp || len(d) == 0 {
		return d
	}
	rel := e.Rels[l.Atom.Rel]
	n, _ := slices.BinarySearchFunc(d, r.Weight, func(t int32, w float64) int {
		if rel.ConfAt(t)*w < e.Min {
			return 1
		}
		return -1
	})
	// Each tuple left out is a derivation the join would have cut at its
	// first step: the threshold's note counts them the same.
	e.cut += int64(len(d) - n)
	return d[:n]
}

// BatchItems is the number of first-step tuples (delta tuples or scanned
// tuples) whose candidates a round buffers before merging them into the
// relations. Merging a batch before evaluating the next bounds the
// candidate buffers (one round of a 14M-fact closure buffered 550 MB of
// candidates when a round was one batch); the next batches then see the
// facts the earlier ones added, which changes no fixpoint (they are in the
// next round's delta either way). A factorised plan's group counts its
// tuples (groupsWithin). Batch boundaries depend on the plans only,
// never on the number of threads, so results do not either.
const BatchItems = 1 << 15

// round evaluates the plans of one round and merges their candidates into
// the relations, recording the new and improved tuples in delta, batch by
// batch (see BatchItems).
func (e *Evaluator) round(ps []*Plan, delta map[int32][]int32) error {
	var ts []task
	items := 0
	batch := cmp.Or(e.batchItems, BatchItems)
	e.shareMemos(ps)
	defer e.dropMemos()
	flush := func() error {
		if len(ts) == 0 {
			return nil
		}
		bufs, err := e.runTasks(ts)
		if err != nil {
			return err
		}
		ts, items = ts[:0], 0
		if err := e.apply(bufs, delta); err != nil {
			return err
		}
		e.reportBatch()
		return e.Checkpoint()
	}
	for _, p := range ps {
		n, split := planItems(p)
		if !split {
			// One task: it counts as one item, and may fill the batch.
			ts = append(ts, task{p, 0, 1})
			items++
			if items >= batch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		for lo := 0; lo < n; {
			hi := min(n, lo+batch-items)
			w := hi - lo
			if f := p.fac; f != nil && f.byGroups() {
				hi, w = groupsWithin(f.groups, lo, n, batch-items)
			}
			ts = e.addTasks(ts, p, lo, hi)
			items += w
			lo = hi
			if items >= batch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	e.endRound(delta)
	return nil
}

// groupsWithin returns the end hi of the groups from lo (at least one,
// at most n) whose tuples number at most room together, and that number.
// A batch of a factorised plan's groups counts their tuples, not the
// groups: sg-2k's last rounds were one batch of 2,000 groups (one per
// node) and 2.4 M candidates, 20 MB of buffers beside the relations.
func groupsWithin(groups [][2]int32, lo, n, room int) (hi, w int) {
	hi, w = lo+1, int(groups[lo][1]-groups[lo][0])
	for hi < n {
		g := int(groups[hi][1] - groups[hi][0])
		if w+g > room {
			break
		}
		hi, w = hi+1, w+g
	}
	return hi, w
}

// NumPrefix starts the names of the internal unary relations that hold, for
// a number constant, every symbol equal to it as a number (007, 7, 7.0 for
// 7): NumPrefix + the number's canonical text. The evaluator fills them
// (see evaluator.load).
const NumPrefix = "\x00n\x00"

// limitReached reports whether a relation of in has reached its limit
// (Options.Limit).
func (e *Evaluator) limitReached(in map[int32]bool) bool {
	for ri := range in {
		r := e.Rels[ri]
		if n, ok := e.limit[r.Name]; ok && r.N >= n {
			return true
		}
	}
	return false
}
