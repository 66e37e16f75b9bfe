package maintain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/drumql/drumql/internal/pkgerr"
	"slices"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// A materialisation between processes: the store keeps the derived facts
// with their best proofs and a record of the program they are of (Record);
// Resume rebuilds the in-memory materialisation from them, so that `drumql
// infer` can update it instead of recomputing it.

// ErrStaleRecord is returned by Resume when the store's derived facts do not
// match the recorded program (a proof names a rule or a fact it lacks):
// recompute.
var ErrStaleRecord = errors.New("reasoner: the derived facts do not match their record")

// Record describes the program the materialisation is of, for the store:
// its rules and facts in canonical form with their positions (which the
// stored proofs name) and the threshold. DecodeRecord reads it back.
func (m *Materialisation) Record() []byte {
	if m.record == nil {
		m.record = eval.EncodeRecord(m.prog, m.e.Min)
	}
	return m.record
}

// RecordOf is the Record that an evaluation of prog with opt stores: when
// it equals the store's record and no base fact changed since, the stored
// derived facts are up to date.
func RecordOf(prog *datalog.Program, opt eval.Options) []byte {
	return eval.EncodeRecord(prog, opt.WithProgram(prog).WithDefaults().Min)
}

// UpToDate reports whether ms, a store's materialisation state, holds
// prog's fixpoint at opt's threshold: its record is RecordOf(prog, opt)
// and no base fact changed since.
func UpToDate(ms store.MaterialState, prog *datalog.Program, opt eval.Options) bool {
	return RecordCurrent(ms, RecordOf(prog, opt))
}

// RecordCurrent is UpToDate for a program whose RecordOf is record.
func RecordCurrent(ms store.MaterialState, record []byte) bool {
	return ms.Program != nil && !ms.Overflow && len(ms.Changes) == 0 && bytes.Equal(record, ms.Program)
}

// DecodeRecord returns the program and threshold of a Record. parse parses
// program text (the reasoner does not depend on the parser).
func DecodeRecord(data []byte, parse func(src string) (*datalog.Program, error)) (*datalog.Program, float64, error) {
	var rec eval.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, 0, pkgerr.Newf("reasoner: materialisation record: %w", err)
	}
	if rec.Version != 1 {
		return nil, 0, pkgerr.Newf("reasoner: materialisation record version %d (this drumql reads 1)", rec.Version)
	}
	p, err := parse(rec.Program)
	if err != nil {
		return nil, 0, pkgerr.Newf("reasoner: materialisation record: %w", err)
	}
	if len(p.Rules)+len(p.Facts) != len(rec.Pos) {
		return nil, 0, pkgerr.Newf("reasoner: materialisation record: %d positions for %d statements", len(rec.Pos), len(p.Rules)+len(p.Facts))
	}
	for i := range p.Rules {
		p.Rules[i].Pos = rec.Pos[i]
	}
	for i := range p.Facts {
		p.Facts[i].Pos = rec.Pos[len(p.Rules)+i]
	}
	if !(rec.Min > 0 && rec.Min <= 1) {
		return nil, 0, pkgerr.Newf("reasoner: materialisation record: threshold %g", rec.Min)
	}
	return p, rec.Min, nil
}

// Resume rebuilds the materialisation of prog (a program DecodeRecord
// returned, with its threshold min) from the derived facts and proofs
// stored in st, as they were before the base changes base (which the store
// already holds; Apply them next). Confidences are computed again from the
// proofs, in float64 (the store keeps float32). It returns an error
// wrapping ErrStaleRecord when the stored facts do not match prog.
func Resume(ctx context.Context, st store.Store, prog *datalog.Program, min float64, base []FactChange, opt eval.Options) (*Materialisation, error) {
	m, err := resumed(ctx, st, prog, min, opt)
	if err != nil {
		return nil, err
	}
	e := m.e
	if err := e.Load(m.u); err != nil {
		return nil, pkgerr.Newf("reasoner: resume: %w", err)
	}
	for ri, r := range e.Rels {
		if !r.Internal {
			m.loaded[int32(ri)] = true
		}
	}
	if err := m.indexFacts(); err != nil {
		return nil, pkgerr.Newf("reasoner: resume: %w", err)
	}
	if err := m.undoBase(base); err != nil {
		return nil, pkgerr.Newf("reasoner: resume: %w", err)
	}
	if err := m.loadDerived(); err != nil {
		return nil, pkgerr.Newf("reasoner: resume: %w", err)
	}
	e.Derived = m.countDerived() // the facts the cap counts, stored ones too
	m.computeActive()
	return m, nil
}

// resumed is the materialisation of prog (a record's program: it was
// checked when it was evaluated) at threshold min, with its rules compiled
// and nothing loaded yet, that Resume and ResumeImage fill; opt is what
// Apply evaluates the new program with.
func resumed(ctx context.Context, st store.Store, prog *datalog.Program, min float64, opt eval.Options) (*Materialisation, error) {
	syms, err := eval.NewSymtab(st)
	if err != nil {
		return nil, err
	}
	old := opt
	old.Min = min
	m := newMaterialisation(ctx, st, syms, prog, old)
	m.opt = opt
	for i := range prog.Rules {
		m.ruleOf = append(m.ruleOf, m.addRule(&prog.Rules[i]))
	}
	return m, nil
}

// undoBase takes the base changes back out of the loaded relations: facts
// added since go, facts removed since come back.
func (m *Materialisation) undoBase(cs []FactChange) error {
	return m.eachHeld(cs, func(ri int32, r *eval.Relation, c FactChange) {
		t := r.Find(c.Fact.Args)
		switch {
		case c.Added && t >= 0 && r.ProvAt(t) == eval.ProvBase:
			cv, p, ok := m.edbValue(ri, c.Fact.Args)
			if !ok {
				cv, p = 0, eval.ProvDeleted
			}
			r.Set(t, cv, p)
		case !c.Added && t < 0:
			r.Add(c.Fact.Args, 1, eval.ProvBase)
		case !c.Added:
			r.Set(t, 1, eval.ProvBase)
		}
	})
}

// storedProof is a derived fact read from the store, waiting for its proof
// to be resolved: tuple t of relation ri, derived by compiled rule ci (or
// the program fact of a negative ci, as a provenance), its body facts in
// the loading's arena from off on. It holds no pointer: a store holds
// millions of them, and a string and slices per fact were a fifth of a
// resume, in allocation, copying and collection.
type storedProof struct {
	ri, t, ci int32
	off       int32
}

// loadDerived adds the store's derived facts to the relations, with their
// proofs as provenance records, and computes their confidences again. The
// facts are read and decoded ahead, by another goroutine (readDerived),
// while this one adds them: on two cores a resume of 4.0M facts
// overlapped the store's scan with the indexing.
func (m *Materialisation) loadDerived() error {
	e := m.e
	rs, err := m.st.Relations()
	if err != nil {
		return err
	}
	// The references the current rules and facts would write.
	refs := map[string]int32{}
	for _, ci := range m.ruleOf {
		refs[ruleRefOf(m.u, e.Rules[ci])] = int32(ci)
	}
	for k := range m.u.FactSrc {
		refs[eval.EncodeRule(m.u.Fact(k))] = int32(eval.ProvFact0 - k)
	}
	var reads []derivedRead
	n := 0
	for _, rs := range rs {
		if rs.Derived == 0 {
			continue
		}
		ri, ok := e.RelIdx[eval.RelKey(rs.Name, rs.Arity)]
		if !ok {
			return fmt.Errorf("%w: derived facts of %s/%d, which the program does not have", ErrStaleRecord, rs.Name, rs.Arity)
		}
		r := e.Rels[ri]
		// A derived fact is never one of the base or program facts
		// loaded: look it up only when the relation has some.
		reads = append(reads, derivedRead{rel: rs.Rel, ri: ri, arity: rs.Arity, display: r.Display, had: r.Len() > 0})
		n += rs.Derived
		if need := 2 * (r.Len() + rs.Derived); r.Arity > 0 && need > len(r.Unique.Slots) {
			r.Unique.Grow(r, need) // once, not doubling as the facts come
		}
	}
	facts := make([]storedProof, 0, n)
	// The body facts of each proof, one after another: their number, then
	// each one's relation, arity and arguments.
	var arena []uint32
	ctx, cancel := context.WithCancel(e.Ctx)
	defer cancel()
	batches := make(chan derivedBatch, 4)
	go readDerived(ctx, m.st, reads, refs, batches)
	for b := range batches {
		if b.err != nil {
			cancel()
			for range batches { // until the reader has stopped
			}
			return b.err
		}
		rd := reads[b.read]
		r := e.Rels[rd.ri]
		base := int32(len(arena))
		arena = append(arena, b.arena...)
		for i, ci := range b.ci {
			args := b.args[i*rd.arity : (i+1)*rd.arity]
			t := int32(-1)
			if rd.had {
				t = r.Find(args)
			}
			if t < 0 {
				t = r.Add(args, float64(b.conf[i]), eval.ProvUnknown)
			}
			facts = append(facts, storedProof{ri: rd.ri, t: t, ci: ci, off: base + b.off[i]})
		}
	}
	if err := e.Ctx.Err(); err != nil {
		return err // the reader stopped early
	}
	var ids []uint32
	for _, f := range facts {
		if err := m.resolve(f, arena, &ids); err != nil {
			return err
		}
	}
	return m.reconfirm(facts)
}

// derivedRead is a relation whose derived facts loadDerived reads: its
// store id, its index among the evaluator's relations, arity and name, and
// whether it held facts before them.
type derivedRead struct {
	rel     store.ID
	ri      int32
	arity   int
	display string
	had     bool
}

// derivedBatch is a run of stored derived facts of one relation (reads
// index read), decoded ahead of their loading: their arguments (arity
// each, one after another), confidences, rules and body facts (in arena,
// each fact's from off on, as loadDerived keeps them); err is set on a last
// batch that failed.
type derivedBatch struct {
	read  int
	args  []uint32
	conf  []float32
	ci    []int32
	off   []int32
	arena []uint32
	err   error
}

// derivedBatchLen is the number of facts in a full derivedBatch.
const derivedBatchLen = 4096

// readDerived sends the derived facts of the relations reads, in batches,
// on out, which it closes when done, when a batch fails (its err set) or
// when ctx is done.
func readDerived(ctx context.Context, st store.Store, reads []derivedRead, refs map[string]int32, out chan<- derivedBatch) {
	defer close(out)
	send := func(b derivedBatch) bool {
		select {
		case out <- b:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for i, rd := range reads {
		b := derivedBatch{read: i}
		for d, err := range st.ScanDerived(rd.rel) {
			if err != nil {
				send(derivedBatch{err: err})
				return
			}
			if len(d.Fact.Args) != rd.arity {
				continue
			}
			ci, ok := refs[d.Prov.Rule]
			if !ok {
				send(derivedBatch{err: fmt.Errorf("%w: %s is derived by a rule the record lacks: %q", ErrStaleRecord, rd.display, d.Prov.Rule)})
				return
			}
			b.args = append(b.args, d.Fact.Args...)
			b.conf = append(b.conf, d.Confidence)
			b.ci = append(b.ci, ci)
			b.off = append(b.off, int32(len(b.arena)))
			b.arena = append(b.arena, uint32(len(d.Prov.Body)))
			for _, f := range d.Prov.Body {
				b.arena = append(b.arena, uint32(f.Rel), uint32(len(f.Args)))
				b.arena = append(b.arena, f.Args...)
			}
			if len(b.ci) == derivedBatchLen {
				if !send(b) {
					return
				}
				b = derivedBatch{read: i}
			}
		}
		if len(b.ci) > 0 && !send(b) {
			return
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// ruleRefOf is the reference derivedWriter.ruleRef writes for rule r.
func ruleRefOf(u *eval.Unit, r *eval.Crule) string {
	desc := u.Descs[r.Src]
	if r.Nprov > r.Npos {
		desc.Npos = r.Npos
	}
	return eval.EncodeRule(desc)
}

// resolve turns a stored proof into the tuple's provenance; its body facts
// are in arena (see loadDerived); ids is scratch memory.
func (m *Materialisation) resolve(f storedProof, arena []uint32, scratch *[]uint32) error {
	e := m.e
	r := e.Rels[f.ri]
	ci := f.ci
	if ci < 0 {
		r.Set(f.t, r.ConfAt(f.t), ci)
		return nil
	}
	rule := e.Rules[ci]
	// The aggregates' words (stored proofs do not keep them) are zero: no
	// value recorded.
	ids := slices.Grow((*scratch)[:0], rule.RefWords())[:rule.RefWords()]
	*scratch = ids
	clear(ids)
	for j := range rule.Nprov {
		ids[2*j], ids[2*j+1] = eval.NoMatch, eval.NoMatch
	}
	next := rule.Npos // the next negated literal to match
	body := arena[f.off:]
	nb := int(body[0])
	body = body[1:]
	for j := range nb {
		rel, arity := body[0], int(body[1])
		args := body[2 : 2+arity]
		body = body[2+arity:]
		name, err := e.Syms.Name(rel)
		if err != nil {
			return err
		}
		bi, ok := e.RelIdx[eval.RelKey(name, arity)]
		t := int32(-1)
		if ok {
			t = e.Rels[bi].Find(args)
		}
		if t < 0 {
			return fmt.Errorf("%w: a proof of %s uses %s, which is not there", ErrStaleRecord, r.Display, name)
		}
		k := j
		if j >= rule.Npos {
			// Negated literals that matched nothing are left out of a
			// stored proof: give the fact to the next one over its
			// relation.
			for next < rule.Nprov && negRel(rule, next) != bi {
				next++
			}
			if next == rule.Nprov {
				return fmt.Errorf("%w: a proof of %s has a negated fact no literal reads", ErrStaleRecord, r.Display)
			}
			k = next
			next++
		}
		ids[2*k], ids[2*k+1] = uint32(bi), uint32(t)
	}
	r.Set(f.t, r.ConfAt(f.t), e.Pool.Add(uint32(ci), ids))
	return nil
}

// negRel is the relation of the negated literal with provenance slot k.
func negRel(r *eval.Crule, k int) int32 {
	for j := range r.Body {
		if l := &r.Body[j]; l.Kind == datalog.Negated && l.Prov == k {
			return l.Atom.Rel
		}
	}
	return -1
}

// reconfirm computes the confidence of every stored fact from its proof, in
// float64, body facts first; a cycle of proofs is a stale record.
func (m *Materialisation) reconfirm(facts []storedProof) error {
	e := m.e
	const (
		visiting = 1
		done     = 2
	)
	state := make([][]uint8, len(e.Rels))
	for ri, r := range e.Rels {
		if !r.Internal {
			state[ri] = make([]uint8, r.Len())
		}
	}
	var value func(ri, t int32) (float64, error)
	value = func(ri, t int32) (float64, error) {
		r := e.Rels[ri]
		p := r.ProvAt(t)
		switch {
		case p == eval.ProvBase:
			return 1, nil
		case p == eval.ProvDeleted || p == eval.ProvUnknown:
			// A base fact the change log calls added since the record
			// was written, yet a stored proof uses it: it was retracted
			// and loaded again, which the log does not tell apart.
			return 0, fmt.Errorf("%w: a proof uses %s, which was not there (a base fact retracted and loaded again since?)", ErrStaleRecord, r.Display)
		case p <= eval.ProvFact0:
			return eval.WeightOf(m.u.Prog.Facts[eval.ProvFact0-p].Weight), nil
		case p < 0:
			return 0, fmt.Errorf("%w: %s has no proof", ErrStaleRecord, r.Display)
		}
		switch state[ri][t] {
		case done:
			return r.ConfAt(t), nil
		case visiting:
			return 0, fmt.Errorf("%w: the proofs of %s form a cycle", ErrStaleRecord, r.Display)
		}
		state[ri][t] = visiting
		rule := e.Rules[e.Pool.Rule(p)]
		_, refs := e.Pool.Record(p, rule.Nprov)
		c := rule.Weight
		for j := range rule.Nprov {
			if refs[2*j] == eval.NoMatch {
				continue
			}
			v, err := value(int32(refs[2*j]), int32(refs[2*j+1]))
			if err != nil {
				return 0, err
			}
			if j < rule.Npos {
				c *= v
			} else {
				c *= 1 - v
			}
		}
		r.Conf[t>>eval.ChunkBits][t&eval.ChunkMask] = c
		state[ri][t] = done
		return c, nil
	}
	for _, f := range facts {
		if _, err := value(f.ri, f.t); err != nil {
			return err
		}
	}
	// The chains were ordered (if at all) by the float32 confidences.
	for _, r := range e.Rels {
		for _, ix := range r.Idx {
			ix.OrderChains(r, r.ByConfidence())
		}
	}
	return nil
}

// Write replaces the store's derived facts by the materialisation's, with
// its Record, in one atomic write.
func (m *Materialisation) Write(ctx context.Context) (int, error) {
	e := m.e
	e.Ctx = ctx
	w, err := e.PrepareWrite(m.u, map[string]int{})
	if err != nil {
		return 0, pkgerr.Newf("reasoner: write: %w", err)
	}
	if err := m.st.ReplaceDerivedRecord(ctx, w.Size, m.Record(), w.Facts(e.ReportWrite(w.N))); err != nil {
		return 0, pkgerr.Newf("reasoner: write: %w", err)
	}
	return w.N, nil
}

// WriteUpdate stores what the last Apply changed (derived facts added,
// changed and removed) with the new Record, in one atomic write; after a
// recomputation (Change.Full) it writes everything, as Write.
func (m *Materialisation) WriteUpdate(ctx context.Context, ch Change) error {
	if ch.Full || m.touch == nil {
		_, err := m.Write(ctx)
		return err
	}
	e := m.e
	e.Ctx = ctx
	w := &eval.DerivedWriter{E: e, U: m.u, RelIDs: make([]uint32, len(e.Rels)),
		Rules: make([]string, len(e.Rules)), Facts0: make([]string, len(m.u.FactSrc)), Remap: map[uint32]uint32{},
		Interned: make([]bool, len(e.Rels))}
	var up store.DerivedUpdate
	up.Program = m.Record()
	up.Renames = m.storedRenames()
	for i, k := range m.touch.Order {
		ri, t := eval.Untkey(k)
		r := e.Rels[ri]
		if r.Internal {
			continue
		}
		o := m.touch.Old[i]
		np := r.ProvAt(t)
		oldD := o.Conf > 0 && o.Prov != eval.ProvBase && o.Prov != eval.ProvDeleted
		newD := r.ConfAt(t) > 0 && np != eval.ProvBase && np != eval.ProvDeleted
		if !oldD && !newD || oldD && newD && o.Conf == r.ConfAt(t) && o.Prov == np {
			continue
		}
		if err := w.PrepareTuple(ri, t, newD); err != nil {
			return pkgerr.Newf("reasoner: write: %w", err)
		}
		if !newD {
			f := w.Fact(ri, t)
			f.Args = slices.Clone(f.Args)
			up.Delete = append(up.Delete, f)
			continue
		}
		d := *w.Convert(ri, t)
		d.Fact.Args = slices.Clone(d.Fact.Args)
		body := make([]store.Fact, len(d.Prov.Body))
		for i, b := range d.Prov.Body {
			body[i] = store.Fact{Rel: b.Rel, Args: slices.Clone(b.Args)}
		}
		d.Prov.Body = body
		up.Put = append(up.Put, d)
	}
	if err := m.st.UpdateDerived(ctx, up); err != nil {
		return pkgerr.Newf("reasoner: write: %w", err)
	}
	return nil
}

// storedRenames returns the renames an update passes the store: those of
// program facts, and those of the rules that are the best proof of a
// derived fact. A line removed near the top of a mined file moves the
// rules below it, a hundred thousand, most of which derive nothing: their
// references are in no stored proof, and renaming them made the update
// too large for one transaction (the store then copies every derived
// fact). The tuples the update changed are written with their new
// references, so the state after the update decides.
func (m *Materialisation) storedRenames() map[string]string {
	if len(m.renamedRule) <= fewRenames {
		return m.renames
	}
	e := m.e
	used := make([]bool, len(e.Rules))
	for _, r := range e.Rels {
		if r.Internal {
			continue
		}
		for t := range int32(r.N) {
			if p := r.ProvAt(t); p >= 0 && r.ConfAt(t) > 0 {
				used[m.main[e.Pool.Rule(p)]] = true
			}
		}
	}
	out := make(map[string]string, len(m.renames))
	for before, after := range m.renames {
		if ci, ok := m.renamedRule[before]; ok && !used[ci] {
			continue
		}
		out[before] = after
	}
	return out
}

// fewRenames is the number of renamed rules below which storedRenames
// passes them all without looking for their facts.
const fewRenames = 64
