package query

import (
	"context"
	"encoding/binary"
	"github.com/drumql/drumql/internal/pkgerr"
	"iter"
	"slices"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// storeQuery is a query answered from the store alone, without a program:
// its base facts (confidence 1) and the derived facts a previous Infer
// stored (with their confidences, those below the minimum left out).
type storeQuery struct {
	st   store.Store
	syms *eval.Symtab
	q    datalog.Atom
	min  float64
	rel  uint32
	// Per argument: the symbol of a symbol constant (isConst), or the
	// symbol (^0 when the store has none) and value of a number constant
	// (which matches every symbol equal to it as a number).
	consts  []uint32
	isConst []bool
	nums    []float64
	ground  bool // symbol constants only: at most one fact matches
	// distinct is set when every matching fact is an answer of its own:
	// no anonymous argument and no number constant, whose projections may
	// make several facts one answer.
	distinct bool
	vars     []int // argument positions of the query's variables, first occurrences
}

// newStoreQuery prepares q over the store; nil when nothing can match (a
// predicate or a symbol constant the store does not know).
func newStoreQuery(st store.Store, syms *eval.Symtab, q datalog.Atom, opt eval.Options) (*storeQuery, error) {
	opt = opt.WithDefaults()
	rel, ok := syms.Lookup(q.Pred)
	if !ok || syms.IsLocal(rel) {
		return nil, nil
	}
	n := len(q.Args)
	sq := &storeQuery{st: st, syms: syms, q: q, min: opt.Min, rel: rel, consts: make([]uint32, n),
		isConst: make([]bool, n), nums: make([]float64, n), ground: true, distinct: true}
	var seen []string
	for i, t := range q.Args {
		switch t.Kind {
		case datalog.Symbol:
			id, ok := syms.Lookup(t.Value)
			if !ok || syms.IsLocal(id) {
				return nil, nil
			}
			sq.consts[i], sq.isConst[i] = id, true
		case datalog.Number:
			f, ok := eval.NumberValue(t.Value)
			if !ok {
				return nil, pkgerr.Newf("reasoner: query %s: malformed number %s", q, t.Value)
			}
			id, ok := syms.Lookup(t.Value)
			if !ok {
				id = ^uint32(0) // no symbol has the canonical text
			}
			sq.consts[i], sq.nums[i] = id, f
			sq.ground, sq.distinct = false, false
		default:
			sq.ground = false
			if t.Value == "_" {
				sq.distinct = false
			} else if !slices.Contains(seen, t.Value) {
				seen = append(seen, t.Value)
				sq.vars = append(sq.vars, i)
			}
		}
	}
	return sq, nil
}

// match reports whether the arguments of a fact of the relation match the
// query.
func (sq *storeQuery) match(args []uint32) bool {
	if len(args) != len(sq.q.Args) {
		return false
	}
	for i, t := range sq.q.Args {
		if sq.isConst[i] && args[i] != sq.consts[i] {
			return false
		}
		if t.Kind == datalog.Number && !sq.syms.EqualsNumber(args[i], sq.consts[i], sq.nums[i]) {
			return false
		}
		if t.Kind == datalog.Var && t.Value != "_" {
			for j := range i {
				if sq.q.Args[j].Kind == datalog.Var && sq.q.Args[j].Value == t.Value && args[j] != args[i] {
					return false
				}
			}
		}
	}
	return true
}

// facts calls yield with every fact matching the query and its confidence,
// in the order of their arguments, until yield returns false: the base
// facts with confidence 1 and the derived facts at or above the minimum,
// a fact that is both (a base fact loaded after an Infer derived it) once,
// as the base fact. The two scans are merged as they are read (both come
// sorted by arguments), so nothing is collected. ctx is checked every 4096
// facts.
func (sq *storeQuery) facts(ctx context.Context, yield func(args []uint32, conf float64) bool) error {
	if sq.ground {
		f := store.Fact{Rel: sq.rel, Args: sq.consts}
		base, err := sq.st.Has(f)
		if err != nil {
			return pkgerr.Newf("reasoner: query %s: %w", sq.q, err)
		}
		if base {
			yield(f.Args, 1)
			return nil
		}
		d, ok, err := sq.st.GetDerived(f)
		if err != nil {
			return pkgerr.Newf("reasoner: query %s: %w", sq.q, err)
		}
		if ok && float64(d.Confidence) >= sq.min {
			yield(d.Fact.Args, float64(d.Confidence))
		}
		return nil
	}
	var scan iter.Seq2[store.Fact, error]
	switch n := len(sq.q.Args); {
	case n > 0 && sq.isConst[0]:
		scan = sq.st.ScanFirst(sq.rel, sq.consts[0])
	case n == 2 && sq.isConst[1]:
		scan = sq.st.ScanObject(sq.rel, sq.consts[1])
	default:
		scan = sq.st.Scan(sq.rel)
	}
	next, stop := iter.Pull2(scan)
	defer stop()
	var base []uint32 // the next matching base fact, nil when none is left
	read := 0
	check := func() error {
		if read++; read&0xfff == 0 {
			if err := ctx.Err(); err != nil {
				return pkgerr.Newf("reasoner: query %s: %w", sq.q, err)
			}
		}
		return nil
	}
	advance := func() error {
		for {
			f, err, ok := next()
			if !ok {
				base = nil
				return nil
			}
			if err != nil {
				return pkgerr.Newf("reasoner: query %s: %w", sq.q, err)
			}
			if err := check(); err != nil {
				return err
			}
			if sq.match(f.Args) {
				base = f.Args
				return nil
			}
		}
	}
	if err := advance(); err != nil {
		return err
	}
	for d, err := range sq.st.ScanDerived(sq.rel) {
		if err != nil {
			return pkgerr.Newf("reasoner: query %s: %w", sq.q, err)
		}
		if err := check(); err != nil {
			return err
		}
		if float64(d.Confidence) < sq.min || !sq.match(d.Fact.Args) {
			continue
		}
		c := -1
		for base != nil {
			if c = slices.Compare(base, d.Fact.Args); c > 0 {
				break
			}
			if !yield(base, 1) {
				return nil
			}
			if err := advance(); err != nil {
				return err
			}
			if c == 0 {
				break // d is that base fact
			}
		}
		if c != 0 && !yield(d.Fact.Args, float64(d.Confidence)) {
			return nil
		}
	}
	for base != nil {
		if !yield(base, 1) {
			return nil
		}
		if err := advance(); err != nil {
			return err
		}
	}
	return nil
}

// answers calls yield with every distinct answer, as the arguments of its
// best matching fact (the first in argument order on ties) and its
// confidence, until yield returns false. When every fact is an answer of
// its own (no anonymous argument, no number constant) the facts stream
// through as they are read; otherwise the answers are collected as symbol
// ids first, since a later fact may improve an answer's confidence.
func (sq *storeQuery) answers(ctx context.Context, yield func(args []uint32, conf float64) bool) error {
	if sq.distinct {
		return sq.facts(ctx, yield)
	}
	type best struct {
		args []uint32
		conf float64
	}
	var order []best
	index := map[string]int{}
	var key []byte
	err := sq.facts(ctx, func(args []uint32, conf float64) bool {
		key = key[:0]
		for _, i := range sq.vars {
			key = binary.LittleEndian.AppendUint32(key, args[i])
		}
		if j, ok := index[string(key)]; ok {
			if conf > order[j].conf {
				order[j] = best{slices.Clone(args), conf}
			}
			return true
		}
		index[string(key)] = len(order)
		order = append(order, best{slices.Clone(args), conf})
		return true
	})
	if err != nil {
		return err
	}
	for _, b := range order {
		if !yield(b.args, b.conf) {
			return nil
		}
	}
	return nil
}

// storeAnswers answers q from the store alone, sorted as Query sorts, with
// proofs when opt.Explain is set.
func storeAnswers(ctx context.Context, st store.Store, syms *eval.Symtab, q datalog.Atom, opt eval.Options) ([]eval.Answer, error) {
	sq, err := newStoreQuery(st, syms, q, opt)
	if sq == nil || err != nil {
		return nil, err
	}
	var answers []eval.Answer
	var aerr error
	m := eval.NewAnswerMaker(syms, q, false)
	err = sq.answers(ctx, func(args []uint32, conf float64) bool {
		a, err := m.Answer(args, conf)
		if err == nil && opt.Explain {
			a.Proof, err = eval.StoreProof(st, syms, store.Fact{Rel: sq.rel, Args: args}, 0)
		}
		if err != nil {
			aerr = err
			return false
		}
		answers = append(answers, a)
		return true
	})
	if err = firstErr(err, aerr); err != nil {
		return nil, err
	}
	if err := eval.SortAnswersCtx(ctx, answers); err != nil {
		return nil, pkgerr.Newf("reasoner: query %s: %w", q, err)
	}
	return answers, nil
}

// eachStoreAnswer calls yield with every answer of q from the store alone,
// without proofs, in argument order, as they are read (see
// storeQuery.answers); the answers share their slices (see answerMaker).
func eachStoreAnswer(ctx context.Context, st store.Store, syms *eval.Symtab, q datalog.Atom, opt eval.Options, yield func(eval.Answer) bool) error {
	sq, err := newStoreQuery(st, syms, q, opt)
	if sq == nil || err != nil {
		return err
	}
	var aerr error
	m := eval.NewAnswerMaker(syms, q, true)
	err = sq.answers(ctx, func(args []uint32, conf float64) bool {
		a, err := m.Answer(args, conf)
		if err != nil {
			aerr = err
			return false
		}
		return yield(a)
	})
	return firstErr(err, aerr)
}

// countStoreAnswers is the number of answers of q from the store alone.
func countStoreAnswers(ctx context.Context, st store.Store, syms *eval.Symtab, q datalog.Atom, opt eval.Options) (int, error) {
	sq, err := newStoreQuery(st, syms, q, opt)
	if sq == nil || err != nil {
		return 0, err
	}
	n := 0
	err = sq.answers(ctx, func([]uint32, float64) bool { n++; return true })
	return n, err
}

// firstErr returns the first of errs that is not nil.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
