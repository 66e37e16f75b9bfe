package reasoner

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// checkProgram validates p against st and returns its errors (a
// datalog.Diagnostics) wrapped in ErrInvalidProgram: those of
// datalog.Validate, and every atom over a relation with base facts in st
// whose number of arguments is not an arity of those facts (such an atom
// would match nothing, or write facts beside the graph's).
func checkProgram(st store.Store, p *datalog.Program) error {
	return checkProgramWith(st, p, true)
}

// checkProgramWith is checkProgram, validating p only when validate is
// set (its caller validated it otherwise).
func checkProgramWith(st store.Store, p *datalog.Program, validate bool) error {
	var ds datalog.Diagnostics
	if validate {
		if ds = datalog.Validate(p); ds.HasErrors() {
			return fmt.Errorf("%w: %w", ErrInvalidProgram, ds.Err())
		}
	}
	rs, err := st.Relations()
	if err != nil {
		return errorf("reasoner: relations: %w", err)
	}
	base := map[string][]int{}
	for _, r := range rs {
		if r.Base > 0 {
			base[r.Name] = append(base[r.Name], r.Arity)
		}
	}
	check := func(a *datalog.Atom) {
		as, ok := base[a.Pred]
		if !ok || slices.Contains(as, len(a.Args)) {
			return
		}
		want := make([]string, len(as))
		for i, n := range as {
			want[i] = strconv.Itoa(n)
		}
		ds = append(ds, datalog.Diagnostic{Pos: a.Pos, Severity: datalog.Error,
			Msg: fmt.Sprintf("%s has arity %s in the store (its base facts), used here with %d argument%s",
				datalog.QuoteName(a.Pred), strings.Join(want, " and "), len(a.Args), plural(len(a.Args)))})
	}
	for i := range p.Facts {
		check(&p.Facts[i].Atom)
	}
	for i := range p.Rules {
		r := &p.Rules[i]
		check(&r.Head)
		r.BodyAtoms(func(l *datalog.Literal, _ bool) { check(&l.Atom) })
	}
	if ds.HasErrors() {
		ds.Sort()
		return fmt.Errorf("%w: %w", ErrInvalidProgram, ds.Err())
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Infer materialises prog over the base facts of st: it evaluates the
// program (its facts and rules, stratum by stratum, with max-product
// confidences) and replaces the store's derived facts by the result in one
// atomic call. The store's previous derived facts are not an input. Program
// facts become derived facts with their weight as confidence. Every derived
// fact carries the provenance of its best derivation (see encodeRule). On
// error or cancellation nothing is written. Program symbols the store does
// not know are interned before the write.
//
// The store records the program with them (see Materialisation.Record),
// so that a later update can resume from them (Resume).
//
// The derived facts go from the evaluator's tables to the store one at a
// time (store.Store.ReplaceDerivedRecord): the write holds no second copy of
// them, and the join indexes are released before it.
func Infer(ctx context.Context, st store.Store, prog *datalog.Program, opt Options) (InferStats, error) {
	start := time.Now()
	if prog == nil {
		prog = &datalog.Program{}
	}
	if err := checkProgram(st, prog); err != nil {
		return InferStats{}, err
	}
	syms, err := newSymtab(st)
	if err != nil {
		return InferStats{}, err
	}
	opt = opt.withProgram(prog)
	e := newEvaluator(ctx, st, syms, opt)
	e.prov = true
	e.progress = opt.Progress
	e.maxMem = opt.MaxMemory
	e.writeMemory = opt.writeMemory
	e.start = start
	live, _, err := withoutDeadRules(st, prog, false)
	if err != nil {
		return InferStats{}, err
	}
	strong := withoutWeakRules(live, e.min)
	e.weakRules = len(live.Rules) - len(strong.Rules)
	u := plainUnit(strong)
	if err := e.load(u); err != nil {
		return InferStats{}, errorf("reasoner: infer: %w", err)
	}
	err = e.run(u)
	if w := opt.work; w != nil {
		w.inferJoins.Add(e.work)
		w.inferDerived.Add(int64(e.derived))
		w.inferCands.Add(e.cands)
		w.inferDeltas.Add(e.deltas)
		w.inferReads.Add(e.reads)
	}
	if err != nil {
		return InferStats{}, errorf("reasoner: infer: %w", err)
	}
	e.dropIndexes()
	stats := InferStats{Derived: map[string]int{}, Iterations: e.iterations, Strata: e.strata}
	e.reportStats(&stats.Eval)
	e.reportStats(opt.Stats)
	w, err := e.prepareWrite(u, stats.Derived)
	if err != nil {
		return InferStats{}, errorf("reasoner: infer: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return InferStats{}, errorf("reasoner: infer: %w", err)
	}
	if err := st.ReplaceDerivedRecord(ctx, w.size, recordOf(prog, e.min), w.facts(e.reportWrite(w.n))); err != nil {
		return InferStats{}, errorf("reasoner: infer: %w", err)
	}
	stats.Facts = w.n
	stats.Duration = time.Since(start)
	return stats, nil
}

// checkWriteMemory returns an ErrMemoryLimit error when, while the derived
// facts are counted and stored, the memory in use exceeds the cap.
func (e *evaluator) checkWriteMemory() error {
	if e.maxMem <= 0 {
		return nil
	}
	measure := memoryInUse
	if e.writeMemory != nil {
		measure = e.writeMemory
	}
	if m := measure(); m > e.maxMem {
		return &MemoryLimitError{InUse: m, Cap: e.maxMem, Rounds: e.iterations, Facts: e.derived, Writing: true}
	}
	return nil
}

// dropIndexes releases what only the joins needed: the relations' indexes
// and the candidate buffers. What is left (tuples, confidences, provenance)
// is what the write reads.
func (e *evaluator) dropIndexes() {
	for _, r := range e.rels {
		if r.shared {
			continue
		}
		r.idx = nil
		r.unique = hashIndex{}
	}
	e.bufs = nil
}

// derivedWriter turns the derived tuples of an evaluation into store facts,
// one at a time, through buffers reused from fact to fact.
type derivedWriter struct {
	e      *evaluator
	u      *unit
	relIDs []uint32          // store id of each relation's name
	remap  map[uint32]uint32 // local symbol -> store id (nil: identity)
	// interned marks the relations whose relIDs are set (WriteUpdate sets
	// them as it needs them).
	interned []bool
	rules    []string // encoded rule reference by evaluator rule, "" until needed
	facts0   []string // encoded reference by program fact, "" until needed
	n        int      // derived facts
	size     int64    // store.DerivedSize summed over them
	// The fact being built.
	cur  store.Derived
	args []uint32
	body []store.Fact
}

// prepareWrite counts the derived facts (per displayed predicate into
// counts) and their size, and interns the relation names and local symbols
// they use, so that the write itself never changes the dictionary.
func (e *evaluator) prepareWrite(u *unit, counts map[string]int) (*derivedWriter, error) {
	w := &derivedWriter{e: e, u: u, relIDs: make([]uint32, len(e.rels)),
		rules: make([]string, len(e.rules)), facts0: make([]string, len(u.factSrc))}
	// The local symbols the facts use, in order of first use.
	used := map[uint32]bool{}
	var locals []uint32
	use := func(args []uint32) {
		for _, a := range args {
			if e.syms.isLocal(a) && !used[a] {
				used[a] = true
				locals = append(locals, a)
			}
		}
	}
	err := w.each(func(d *store.Derived) error {
		w.n++
		w.size += store.DerivedSize(d)
		use(d.Fact.Args)
		for _, f := range d.Prov.Body {
			use(f.Args)
		}
		return nil
	}, func(r *relation) { counts[r.display]++ })
	if err != nil {
		return nil, err
	}
	for i, r := range e.rels {
		if r.internal {
			continue
		}
		id, ok, err := e.st.Lookup(r.name)
		if err != nil {
			return nil, err
		}
		if !ok && counts[r.display] > 0 {
			if id, err = e.st.Intern(r.name); err != nil {
				return nil, err
			}
		}
		w.relIDs[i] = id
	}
	w.remap = make(map[uint32]uint32, len(locals))
	for _, id := range locals {
		n, err := e.syms.name(id)
		if err != nil {
			return nil, err
		}
		x, err := e.st.Intern(n)
		if err != nil {
			return nil, err
		}
		w.remap[id] = x
	}
	return w, nil
}

// reportWrite returns the progress callback of the write of n facts, or nil.
func (e *evaluator) reportWrite(n int) func(done int) {
	if e.progress == nil {
		return nil
	}
	return func(done int) {
		e.progress(Progress{Phase: PhaseWrite, Rounds: e.iterations, Facts: e.derived, Written: done, Total: n, Elapsed: time.Since(e.start)})
	}
}

// facts yields the derived facts with store ids, calling progress, if not
// nil, every few thousand facts and at the end.
func (w *derivedWriter) facts(progress func(done int)) iter.Seq2[store.Derived, error] {
	return func(yield func(store.Derived, error) bool) {
		done := 0
		stop := errors.New("stop")
		err := w.each(func(d *store.Derived) error {
			if !yield(*d, nil) {
				return stop
			}
			done++
			if progress != nil && done%(1<<16) == 0 {
				progress(done)
			}
			return nil
		}, nil)
		if err == stop {
			return
		}
		if err != nil {
			yield(store.Derived{}, err)
			return
		}
		if progress != nil {
			progress(done)
		}
	}
}

// each calls fn with every derived fact of the evaluation (tuples that are
// neither base facts nor stored derived facts), and rel, if not nil, with
// the relation of each, in relation then tuple order. Without w.remap, ids
// are the evaluator's (local ids included) and relation ids are zero.
func (w *derivedWriter) each(fn func(*store.Derived) error, rel func(*relation)) error {
	e := w.e
	k := 0
	for ri, r := range e.rels {
		if r.internal {
			continue
		}
		for t := range int32(r.len()) {
			p := r.provAt(t)
			if p == provBase || p == provStored || p == provDeleted {
				continue
			}
			if k%4096 == 0 {
				if err := e.ctx.Err(); err != nil {
					return err
				}
				if err := e.checkWriteMemory(); err != nil {
					return err
				}
			}
			k++
			if rel != nil {
				rel(r)
			}
			d := w.convert(int32(ri), t)
			if err := fn(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// convert builds the store form of derived tuple t of relation ri in w.cur,
// over buffers the next call reuses.
func (w *derivedWriter) convert(ri, t int32) *store.Derived {
	e := w.e
	r := e.rels[ri]
	p := r.provAt(t)
	w.args = w.args[:0]
	w.body = w.body[:0]
	d := &w.cur
	d.Fact = w.fact(ri, t)
	d.Confidence = float32(r.confAt(t))
	d.Prov.Body = nil
	if p <= provFact0 {
		d.Prov.Rule = w.factRef(int(provFact0 - p))
		return d
	}
	ci := e.pool.rule(p)
	rule := e.rules[ci]
	d.Prov.Rule = w.ruleRef(int(ci))
	_, refs := e.pool.record(p, rule.nprov)
	for k := range rule.nprov {
		if refs[2*k] == noMatch {
			continue
		}
		w.body = append(w.body, w.fact(int32(refs[2*k]), int32(refs[2*k+1])))
	}
	d.Prov.Body = w.body
	return d
}

// fact appends the arguments of tuple t of relation ri, in store ids, to
// w.args and returns the fact over them. (When w.args grows, the facts
// built before keep the old array, whose contents stay valid.)
func (w *derivedWriter) fact(ri, t int32) store.Fact {
	start := len(w.args)
	for _, a := range w.e.rels[ri].tuple(t) {
		if x, ok := w.remap[a]; ok {
			a = x
		}
		w.args = append(w.args, a)
	}
	return store.Fact{Rel: w.relIDs[ri], Args: w.args[start:len(w.args):len(w.args)]}
}

// ruleRef is the encoded reference of evaluator rule ci, computed once.
func (w *derivedWriter) ruleRef(ci int) string {
	if w.rules[ci] == "" {
		rule := w.e.rules[ci]
		desc := w.u.descs[rule.src]
		if rule.nprov > rule.npos {
			desc.npos = rule.npos
		}
		w.rules[ci] = encodeRule(desc)
	}
	return w.rules[ci]
}

// factRef is the encoded reference of program fact k, computed once.
func (w *derivedWriter) factRef(k int) string {
	if w.facts0[k] == "" {
		w.facts0[k] = encodeRule(w.u.fact(k))
	}
	return w.facts0[k]
}

// encodeRule is the provenance rule reference Infer stores with a derived
// fact: "file<TAB>line<TAB>col<TAB>weight<TAB>text", where text is the
// printed rule or program fact, or, for a rule with negated literals,
// "file<TAB>line<TAB>col<TAB>weight<TAB>npos<TAB>text", npos the number of
// positive body facts in the provenance (the facts after them matched
// negated literals). Printed text never holds a tab, so the two forms are
// told apart by their number of fields.
func encodeRule(d ruleDesc) string {
	s := d.pos.File + "\t" + strconv.Itoa(d.pos.Line) + "\t" + strconv.Itoa(d.pos.Col) + "\t" +
		strconv.FormatFloat(d.weight, 'g', -1, 64) + "\t"
	if d.npos >= 0 {
		s += strconv.Itoa(d.npos) + "\t"
	}
	return s + d.text
}

// decodeRule parses what encodeRule wrote.
func decodeRule(s string) (ruleDesc, error) {
	parts := strings.SplitN(s, "\t", 6)
	if len(parts) < 5 {
		return ruleDesc{}, errors.New("malformed provenance rule " + strconv.Quote(s))
	}
	npos := -1
	var err4 error
	if len(parts) == 6 {
		npos, err4 = strconv.Atoi(parts[4])
		parts[4] = parts[5]
	}
	line, err1 := strconv.Atoi(parts[1])
	col, err2 := strconv.Atoi(parts[2])
	w, err3 := strconv.ParseFloat(parts[3], 64)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return ruleDesc{}, fmt.Errorf("malformed provenance rule %q: %w", s, err)
	}
	return ruleDesc{text: parts[4], weight: w, pos: datalog.Pos{File: parts[0], Line: line, Col: col}, npos: npos}, nil
}
