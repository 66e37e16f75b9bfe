package eval

import (
	"context"
	"errors"
	"fmt"
	"github.com/drumql/drumql/internal/english"
	"github.com/drumql/drumql/internal/pkgerr"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// CheckProgram validates p against st and returns its errors (a
// datalog.Diagnostics) wrapped in ErrInvalidProgram: those of
// datalog.Validate, and every atom over a relation with base facts in st
// whose number of arguments is not an arity of those facts (such an atom
// would match nothing, or write facts beside the graph's).
func CheckProgram(st store.Store, p *datalog.Program) error {
	return CheckProgramWith(st, p, true)
}

// CheckProgramWith is checkProgram, validating p only when validate is
// set (its caller validated it otherwise).
func CheckProgramWith(st store.Store, p *datalog.Program, validate bool) error {
	var ds datalog.Diagnostics
	if validate {
		if ds = datalog.Validate(p); ds.HasErrors() {
			return fmt.Errorf("%w: %w", ErrInvalidProgram, ds.Err())
		}
	}
	rs, err := st.Relations()
	if err != nil {
		return pkgerr.Newf("reasoner: relations: %w", err)
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
			Msg: fmt.Sprintf("%s has arity %s in the store (its base facts), used here with %d %s",
				datalog.QuoteName(a.Pred), strings.Join(want, " and "), len(a.Args), english.Plural(len(a.Args), "argument", "arguments"))})
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

// Infer is reasoner.Infer, documented there.
func Infer(ctx context.Context, st store.Store, prog *datalog.Program, opt Options) (InferStats, error) {
	return InferThen(ctx, st, prog, opt, nil)
}

// Inferred is what Infer leaves once its derived facts are stored, for a
// materialisation image (reasoner/maintain): the evaluator, its join
// indexes and the unique indexes of its relations dropped, holding a relation for every
// predicate of the program (those of the rules it left out, dead or too
// weak, with their base facts), and, per compiled rule, its position in
// the program Infer was given.
type Inferred struct {
	E   *Evaluator
	Pos []int32
	// Facts is the number of derived facts stored.
	Facts int
}

// InferThen is Infer, calling after, if not nil, with what the evaluation
// leaves once its derived facts are stored, or with the error that kept
// it from adding the relations of the rules it left out (the derived
// facts are stored all the same: Infer succeeded).
func InferThen(ctx context.Context, st store.Store, prog *datalog.Program, opt Options, after func(Inferred, error)) (InferStats, error) {
	start := time.Now()
	if prog == nil {
		prog = &datalog.Program{}
	}
	// The record of the program, made now: the evaluation drops the rules
	// it compiled (runFixpoint), and prog is not used below.
	record := EncodeRecord(prog, opt.WithProgram(prog).WithDefaults().Min)
	e, u, pos, err := runFixpoint(ctx, st, prog, opt, "infer", func(e *Evaluator) {
		e.Prov = true
		e.writeMemory = opt.WriteMemory
		e.keepLeftOut = after != nil
		e.provInPlace = true
	})
	if err != nil {
		return InferStats{}, err
	}
	stats := InferStats{Derived: map[string]int{}, Iterations: e.Iterations, Strata: e.Strata}
	e.ReportStats(&stats.Eval)
	e.ReportStats(opt.Stats)
	w, err := e.PrepareWrite(u, stats.Derived)
	if err != nil {
		return InferStats{}, pkgerr.Newf("reasoner: infer: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return InferStats{}, pkgerr.Newf("reasoner: infer: %w", err)
	}
	if err := st.ReplaceDerivedRecord(ctx, w.Size, record, w.Facts(e.ReportWrite(w.N))); err != nil {
		return InferStats{}, pkgerr.Newf("reasoner: infer: %w", err)
	}
	stats.Facts = w.N
	stats.Duration = time.Since(start)
	if after != nil {
		after(Inferred{E: e, Pos: pos, Facts: w.N}, e.addLeftOut())
	}
	return stats, nil
}

// predArity is a predicate and its arity.
type predArity struct {
	pred  string
	arity int
}

// appendPreds appends to ps the predicates of r's atoms, in the order
// compiling r makes their relations (its head, then its body's atoms, then
// those of its aggregates), their names copied: a name may share the
// bytes of the whole file it was parsed from.
func appendPreds(ps []predArity, r *datalog.Rule) []predArity {
	ps = append(ps, predArity{strings.Clone(r.Head.Pred), len(r.Head.Args)})
	r.BodyAtoms(func(l *datalog.Literal, _ bool) {
		ps = append(ps, predArity{strings.Clone(l.Atom.Pred), len(l.Atom.Args)})
	})
	return ps
}

// addLeftOut gives e the relations of the rules of the program that the
// evaluation left out (their predicates, e.leftOut), with their base
// facts, as an evaluator of every rule of the program has them.
func (e *Evaluator) addLeftOut() error {
	n := len(e.Rels)
	for _, p := range e.leftOut {
		e.relation(p.pred, p.arity)
	}
	e.leftOut = nil
	for _, r := range e.Rels[n:] {
		if err := e.LoadStore(r); err != nil {
			return err
		}
	}
	return nil
}

// checkWriteMemory returns an ErrMemoryLimit error when, while the derived
// facts are counted and stored, the memory in use exceeds the cap.
func (e *Evaluator) checkWriteMemory() error {
	if e.MaxMem <= 0 {
		return nil
	}
	measure := memoryInUse
	if e.writeMemory != nil {
		measure = e.writeMemory
	}
	if m := measure(); m > e.MaxMem {
		return &MemoryLimitError{InUse: m, Cap: e.MaxMem, Rounds: e.Iterations, Facts: e.Derived, Writing: true}
	}
	return nil
}

// dropIndexes releases what only the joins needed: the relations' indexes
// and the candidate buffers. What is left (tuples, confidences, provenance)
// is what the write reads.
func (e *Evaluator) dropIndexes() {
	for _, r := range e.Rels {
		if r.Shared {
			continue
		}
		r.Idx = nil
		r.Unique = hashIndex{}
	}
	e.bufs = nil
}

// DerivedWriter turns the derived tuples of an evaluation into store facts,
// one at a time, through buffers reused from fact to fact.
type DerivedWriter struct {
	E      *Evaluator
	U      *Unit
	RelIDs []uint32          // store id of each relation's name
	Remap  map[uint32]uint32 // local symbol -> store id (nil: identity)
	// Interned marks the relations whose relIDs are set (WriteUpdate sets
	// them as it needs them).
	Interned []bool
	Rules    []string // encoded rule reference by evaluator rule, "" until needed
	Facts0   []string // encoded reference by program fact, "" until needed
	N        int      // derived facts
	Size     int64    // store.DerivedSize summed over them
	// The fact being built.
	cur  store.Derived
	args []uint32
	body []store.Fact
}

// PrepareWrite counts the derived facts (per displayed predicate into
// counts) and their size, and interns the relation names and local symbols
// they use, so that the write itself never changes the dictionary.
func (e *Evaluator) PrepareWrite(u *Unit, counts map[string]int) (*DerivedWriter, error) {
	w := &DerivedWriter{E: e, U: u, RelIDs: make([]uint32, len(e.Rels)),
		Rules: make([]string, len(e.Rules)), Facts0: make([]string, len(u.FactSrc))}
	// The local symbols the facts use, in order of first use.
	used := map[uint32]bool{}
	var locals []uint32
	use := func(args []uint32) {
		for _, a := range args {
			if e.Syms.IsLocal(a) && !used[a] {
				used[a] = true
				locals = append(locals, a)
			}
		}
	}
	err := w.each(func(d *store.Derived) error {
		w.N++
		w.Size += store.DerivedSize(d)
		use(d.Fact.Args)
		for _, f := range d.Prov.Body {
			use(f.Args)
		}
		return nil
	}, func(r *Relation) { counts[r.Display]++ })
	if err != nil {
		return nil, err
	}
	for i, r := range e.Rels {
		if r.Internal {
			continue
		}
		id, ok, err := e.St.Lookup(r.Name)
		if err != nil {
			return nil, err
		}
		if !ok && counts[r.Display] > 0 {
			if id, err = e.St.Intern(r.Name); err != nil {
				return nil, err
			}
		}
		w.RelIDs[i] = id
	}
	w.Remap = make(map[uint32]uint32, len(locals))
	for _, id := range locals {
		n, err := e.Syms.Name(id)
		if err != nil {
			return nil, err
		}
		x, err := e.St.Intern(n)
		if err != nil {
			return nil, err
		}
		w.Remap[id] = x
	}
	return w, nil
}

// ReportWrite returns the progress callback of the write of n facts, or nil.
func (e *Evaluator) ReportWrite(n int) func(done int) {
	if e.Progress == nil {
		return nil
	}
	return func(done int) {
		e.Progress(Progress{Phase: PhaseWrite, Rounds: e.Iterations, Facts: e.Derived, Written: done, Total: n, Elapsed: time.Since(e.Start)})
	}
}

// Facts yields the derived facts with store ids, calling progress, if not
// nil, every few thousand facts and at the end.
func (w *DerivedWriter) Facts(progress func(done int)) iter.Seq2[store.Derived, error] {
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
func (w *DerivedWriter) each(fn func(*store.Derived) error, rel func(*Relation)) error {
	e := w.E
	k := 0
	for ri, r := range e.Rels {
		if r.Internal {
			continue
		}
		for t := range int32(r.Len()) {
			p := r.ProvAt(t)
			if p == ProvBase || p == ProvStored || p == ProvDeleted {
				continue
			}
			if k%4096 == 0 {
				if err := e.Ctx.Err(); err != nil {
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
			d := w.Convert(int32(ri), t)
			if err := fn(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// Convert builds the store form of derived tuple t of relation ri in w.cur,
// over buffers the next call reuses.
func (w *DerivedWriter) Convert(ri, t int32) *store.Derived {
	e := w.E
	r := e.Rels[ri]
	p := r.ProvAt(t)
	w.args = w.args[:0]
	w.body = w.body[:0]
	d := &w.cur
	d.Fact = w.Fact(ri, t)
	d.Confidence = float32(r.ConfAt(t))
	d.Prov.Body = nil
	if p <= ProvFact0 {
		d.Prov.Rule = w.factRef(int(ProvFact0 - p))
		return d
	}
	ci := e.Pool.Rule(p)
	rule := e.Rules[ci]
	d.Prov.Rule = w.ruleRef(int(ci))
	_, refs := e.Pool.Record(p, rule.Nprov)
	for k := range rule.Nprov {
		if refs[2*k] == NoMatch {
			continue
		}
		w.body = append(w.body, w.Fact(int32(refs[2*k]), int32(refs[2*k+1])))
	}
	d.Prov.Body = w.body
	return d
}

// Fact appends the arguments of tuple t of relation ri, in store ids, to
// w.args and returns the fact over them. (When w.args grows, the facts
// built before keep the old array, whose contents stay valid.)
func (w *DerivedWriter) Fact(ri, t int32) store.Fact {
	start := len(w.args)
	for _, a := range w.E.Rels[ri].Tuple(t) {
		if x, ok := w.Remap[a]; ok {
			a = x
		}
		w.args = append(w.args, a)
	}
	return store.Fact{Rel: w.RelIDs[ri], Args: w.args[start:len(w.args):len(w.args)]}
}

// ruleRef is the encoded reference of evaluator rule ci, computed once.
func (w *DerivedWriter) ruleRef(ci int) string {
	if w.Rules[ci] == "" {
		rule := w.E.Rules[ci]
		desc := w.U.Descs[rule.Src]
		if rule.Nprov > rule.Npos {
			desc.Npos = rule.Npos
		}
		w.Rules[ci] = EncodeRule(desc)
	}
	return w.Rules[ci]
}

// factRef is the encoded reference of program fact k, computed once.
func (w *DerivedWriter) factRef(k int) string {
	if w.Facts0[k] == "" {
		w.Facts0[k] = EncodeRule(w.U.Fact(k))
	}
	return w.Facts0[k]
}

// EncodeRule is the provenance rule reference Infer stores with a derived
// fact: "file<TAB>line<TAB>col<TAB>weight<TAB>text", where text is the
// printed rule or program fact, or, for a rule with negated literals,
// "file<TAB>line<TAB>col<TAB>weight<TAB>npos<TAB>text", npos the number of
// positive body facts in the provenance (the facts after them matched
// negated literals). Printed text never holds a tab, so the two forms are
// told apart by their number of fields.
func EncodeRule(d RuleDesc) string {
	s := d.pos.File + "\t" + strconv.Itoa(d.pos.Line) + "\t" + strconv.Itoa(d.pos.Col) + "\t" +
		strconv.FormatFloat(d.weight, 'g', -1, 64) + "\t"
	if d.Npos >= 0 {
		s += strconv.Itoa(d.Npos) + "\t"
	}
	return s + d.text
}

// decodeRule parses what encodeRule wrote.
func decodeRule(s string) (RuleDesc, error) {
	parts := strings.SplitN(s, "\t", 6)
	if len(parts) < 5 {
		return RuleDesc{}, errors.New("malformed provenance rule " + strconv.Quote(s))
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
		return RuleDesc{}, fmt.Errorf("malformed provenance rule %q: %w", s, err)
	}
	return RuleDesc{text: parts[4], weight: w, pos: datalog.Pos{File: parts[0], Line: line, Col: col}, Npos: npos}, nil
}

// PrepareTuple interns, in the store, what the store form of tuple t of
// relation ri names: its relation and local symbols and, with proof, those
// of its proof's body facts.
func (w *DerivedWriter) PrepareTuple(ri, t int32, proof bool) error {
	e := w.E
	tuple := func(ri, t int32) error {
		if !w.Interned[ri] {
			id, err := e.St.Intern(e.Rels[ri].Name)
			if err != nil {
				return err
			}
			w.RelIDs[ri], w.Interned[ri] = id, true
		}
		for _, a := range e.Rels[ri].Tuple(t) {
			if !e.Syms.IsLocal(a) {
				continue
			}
			if _, ok := w.Remap[a]; ok {
				continue
			}
			n, err := e.Syms.Name(a)
			if err != nil {
				return err
			}
			x, err := e.St.Intern(n)
			if err != nil {
				return err
			}
			w.Remap[a] = x
		}
		return nil
	}
	if err := tuple(ri, t); err != nil || !proof {
		return err
	}
	p := e.Rels[ri].ProvAt(t)
	if p < 0 {
		return nil
	}
	rule := e.Rules[e.Pool.Rule(p)]
	_, refs := e.Pool.Record(p, rule.Nprov)
	for k := range rule.Nprov {
		if refs[2*k] == NoMatch {
			continue
		}
		if err := tuple(int32(refs[2*k]), int32(refs[2*k+1])); err != nil {
			return err
		}
	}
	return nil
}

// runFixpoint evaluates prog over st to its fixpoint, as Infer and
// Evaluate do (what names the operation in errors): the program checked,
// the evaluator made with opt's defaults (set changes it before it
// loads), the rules that cannot fire or cannot pass the threshold left
// out, the counts added to opt.Work, the indexes dropped. It returns the
// evaluator, the unit it ran and the position in prog of each rule of the
// unit.
func runFixpoint(ctx context.Context, st store.Store, prog *datalog.Program, opt Options, what string, set func(e *Evaluator)) (*Evaluator, *Unit, []int32, error) {
	start := time.Now()
	if err := CheckProgram(st, prog); err != nil {
		return nil, nil, nil, err
	}
	syms, err := NewSymtab(st)
	if err != nil {
		return nil, nil, nil, err
	}
	opt = opt.WithProgram(prog)
	e := NewEvaluator(ctx, st, syms, opt)
	e.Progress = opt.Progress
	e.Start = start
	set(e)
	dead, n, err := DeadRules(st, prog, false)
	if err != nil {
		return nil, nil, nil, err
	}
	live := DropRules(prog, dead, n)
	strong := WithoutWeakRules(live, e.Min)
	e.WeakRules = len(live.Rules) - len(strong.Rules)
	var pos []int32 // the position in prog of each rule of strong
	for i := range prog.Rules {
		switch {
		case !dead[i] && WeightOf(prog.Rules[i].Weight) >= e.Min:
			pos = append(pos, int32(i))
		case e.keepLeftOut:
			e.leftOut = appendPreds(e.leftOut, &prog.Rules[i])
		}
	}
	u := PlainUnit(strong)
	if err := e.Load(u); err != nil {
		return nil, nil, nil, pkgerr.Newf("reasoner: %s: %w", what, err)
	}
	for _, r := range e.Rules {
		if r.copy {
			e.provInPlace = false // records shared by two tuples (proofRecord)
		}
	}
	strata, err := stratify(u.Prog)
	if err != nil {
		return nil, nil, nil, pkgerr.Newf("reasoner: %s: %w", what, err)
	}
	for _, s := range strata {
		for i, p := range s.Preds {
			s.Preds[i] = strings.Clone(p) // live through the evaluation: not the bytes of the text
		}
	}
	// The rules are compiled and stratified: the unit keeps the program's
	// facts (which provenance describes), and the rules' syntax trees, a
	// few hundred bytes a rule (about 200 MB for the pinned FB15k-237
	// file's 111,818 rules), and the directives are free for the collector
	// during the evaluation, if the caller holds no other reference to
	// prog (Infer's callers do not); so is the program's text, which the
	// names kept are not slices of (relation, symbol, variable and stratum
	// names are copied).
	u.Prog = &datalog.Program{Facts: u.Prog.Facts}
	err = e.runStrata(strata)
	if w := opt.Work; w != nil {
		w.InferJoins.Add(e.Work)
		w.InferDerived.Add(int64(e.Derived))
		w.InferCands.Add(e.Cands)
		w.InferProbes.Add(e.Probes)
		w.InferDeltas.Add(e.deltas)
		w.InferReads.Add(e.Reads)
		w.InferMemoBuilds.Add(e.facBuilds)
	}
	if err != nil {
		return nil, nil, nil, pkgerr.Newf("reasoner: %s: %w", what, err)
	}
	e.dropIndexes()
	return e, u, pos, nil
}
