package query

import (
	"context"
	"github.com/drumql/drumql/internal/pkgerr"
	"sync/atomic"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// givenName is the placeholder constant that otherSet compiles in place of
// the given entity; no name of a program or a store can contain a NUL.
const givenName = "\x00given"

// OtherSet is a head's rules that neither fast path of RuleScores takes
// (chainHead.lpOther: rules over auxiliary predicates, with negation, or of
// other shapes), compiled once for both directions with the given entity
// as a constant that each query patches: applying them is then a join from
// that constant, with no rewrite, compilation or planning per query (a
// goal-directed evaluation of each rule for each query cost about a tenth
// of a millisecond, fifty times the join). An otherSet is used by one
// goroutine at a time.
type OtherSet struct {
	E     *eval.Evaluator
	w     *eval.Worker
	rules []int // program rule index, per compiled rule
	// per direction (0: given is the head's first argument): the plans,
	// by compiled rule (nil when the head's constant at that position
	// rules the direction out), and the terms to patch.
	plans   [2][]*eval.Plan
	head    [2][]int64 // per plan: the head's constant that must equal given, or -1
	patches [2][]patch
	// The best confidence of each candidate of the rule being applied:
	// best[cand] when mark[cand] == epoch, or local[cand] for a symbol
	// only the program names (ids from localBase on); touched lists them.
	best    []float64
	mark    []uint32
	epoch   uint32
	local   map[uint32]float64
	touched []uint32
	other   int // the head argument that is the candidate, for sink
}

// sink keeps the best confidence of each candidate a rule derives.
func (o *OtherSet) sink(h []uint32, c float64) {
	cand := h[o.other]
	if cand >= eval.LocalBase {
		if b, ok := o.local[cand]; !ok {
			if o.local == nil {
				o.local = map[uint32]float64{}
			}
			o.local[cand] = c
			o.touched = append(o.touched, cand)
		} else if c > b {
			o.local[cand] = c
		}
		return
	}
	if int(cand) >= len(o.mark) {
		n := max(2*len(o.mark), int(cand)+1)
		o.best = append(o.best, make([]float64, n-len(o.best))...)
		o.mark = append(o.mark, make([]uint32, n-len(o.mark))...)
	}
	switch {
	case o.mark[cand] != o.epoch:
		o.mark[cand], o.best[cand] = o.epoch, c
		o.touched = append(o.touched, cand)
	case c > o.best[cand]:
		o.best[cand] = c
	}
}

// bestOf is the best confidence of candidate cand of the rule applied.
func (o *OtherSet) bestOf(cand uint32) float64 {
	if cand >= eval.LocalBase {
		return o.local[cand]
	}
	return o.best[cand]
}

// nextRule starts the candidates of the next rule.
func (o *OtherSet) nextRule() {
	o.touched = o.touched[:0]
	clear(o.local)
	o.epoch++
	if o.epoch == 0 {
		clear(o.mark)
		o.epoch = 1
	}
}

// patch is a term that stands for the given entity: in an atom it is a
// symbol constant (a key), in a comparison a constant that is a number when
// the entity's name is one, as a variable's value would be.
type patch struct {
	t   *eval.Term
	cmp bool
}

// NewOtherSet compiles rules rs of prog (en's program, or one with the
// same facts) over the store's relations as en reads them and the
// auxiliary relations aux.
func (en *Engine) NewOtherSet(ctx context.Context, prog *datalog.Program, rs []int, aux map[string]*eval.Relation) (*OtherSet, error) {
	e := eval.NewEvaluator(ctx, en.St, en.Syms, en.Opt)
	e.Stored = true
	e.Shared = func(pred string, arity int) *eval.Relation {
		if r := aux[eval.RelKey(pred, arity)]; r != nil {
			return r
		}
		r, err := en.Relation(ctx, pred, arity)
		if err != nil {
			return nil
		}
		return r
	}
	gid, err := en.Syms.Id(givenName)
	if err != nil {
		return nil, err
	}
	o := &OtherSet{E: e, rules: rs}
	compiled := &datalog.Program{Facts: prog.Facts}
	u := &eval.Unit{Prog: compiled, Internal: map[string]string{}}
	const pred = "\x00other"
	type origin struct{ dir, k int }
	var origins []origin
	for dir := range 2 {
		for k, ri := range rs {
			r := prog.Rules[ri]
			a := r.Head.Args[dir]
			g := datalog.Term{Kind: datalog.Symbol, Value: givenName}
			if a.Kind == datalog.Var {
				r = substitute(r, a.Value, g)
			}
			r.Head = datalog.Atom{Pred: pred, Args: r.Head.Args}
			compiled.Rules = append(compiled.Rules, r)
			u.Meta = append(u.Meta, eval.RuleMeta{Src: -1})
			origins = append(origins, origin{dir, k})
		}
	}
	if err := e.Load(u); err != nil {
		return nil, pkgerr.Newf("reasoner: rule scores: %w", err)
	}
	for i, cr := range e.Rules {
		og := origins[i]
		e.Rels[cr.Head.Rel].CheckEmit = false
		hc := int64(-1)
		if a := cr.Head.Args[og.dir]; a.V == eval.SlotConst && a.C != gid {
			hc = int64(a.C)
		}
		o.plans[og.dir] = append(o.plans[og.dir], e.MakePlan(cr, i, -1, nil))
		o.head[og.dir] = append(o.head[og.dir], hc)
		for j := range cr.Body {
			l := &cr.Body[j]
			if l.Kind == datalog.Comparison {
				for _, t := range []*eval.Term{&l.L, &l.R} {
					if t.V == eval.SlotConst && t.C == gid {
						o.patches[og.dir] = append(o.patches[og.dir], patch{t, true})
					}
				}
				continue
			}
			for k := range l.Atom.Args {
				if t := &l.Atom.Args[k]; t.V == eval.SlotConst && t.C == gid {
					o.patches[og.dir] = append(o.patches[og.dir], patch{t, false})
				}
			}
		}
		for k := range cr.Head.Args {
			if t := &cr.Head.Args[k]; t.V == eval.SlotConst && t.C == gid {
				o.patches[og.dir] = append(o.patches[og.dir], patch{t, false})
			}
		}
	}
	o.w = &eval.Worker{E: e, Stop: new(atomic.Bool)}
	return o, nil
}

// substitute returns r with every occurrence of variable v replaced by t.
func substitute(r datalog.Rule, v string, t datalog.Term) datalog.Rule {
	sub := func(args []datalog.Term) []datalog.Term {
		out := make([]datalog.Term, len(args))
		for i, a := range args {
			if a.Kind == datalog.Var && a.Value == v {
				a = datalog.Term{Kind: t.Kind, Value: t.Value, Pos: a.Pos}
			}
			out[i] = a
		}
		return out
	}
	r.Head.Args = sub(r.Head.Args)
	body := make([]datalog.Literal, len(r.Body))
	for i, l := range r.Body {
		if l.Kind == datalog.Comparison {
			lr := sub([]datalog.Term{l.Left, l.Right})
			l.Left, l.Right = lr[0], lr[1]
		} else {
			l.Atom.Args = sub(l.Atom.Args)
		}
		body[i] = l
	}
	r.Body = body
	return r
}

// Hits appends to ents, for each rule, the best confidence it gives each
// candidate when the given entity is id (the head's second argument when
// inverse).
func (o *OtherSet) Hits(ents []HitEntry, id store.ID, inverse bool) []HitEntry {
	dir, other := 0, 1
	if inverse {
		dir, other = 1, 0
	}
	f, num := o.E.Syms.Number(uint32(id))
	for _, p := range o.patches[dir] {
		p.t.C = uint32(id)
		p.t.V = eval.SlotConst
		if p.cmp && num {
			p.t.V, p.t.F = eval.SlotNumber, f
		}
	}
	w := o.w
	o.other = other
	w.Sink = o.sink
	defer func() { w.Sink = nil }()
	for k, p := range o.plans[dir] {
		if hc := o.head[dir][k]; hc >= 0 && hc != int64(id) {
			continue
		}
		w.Prepare(p.Rule)
		o.nextRule()
		w.Join(p, 0, 1)
		for _, cand := range o.touched {
			ents = append(ents, HitEntry{int32(cand), int32(o.rules[k]), o.bestOf(cand)})
		}
	}
	return ents
}

// otherHits appends to ents the hits of h's other rules (h.lpOther) for the
// given entity id (known: whether the store or the program knows it).
func (en *Engine) otherHits(ctx context.Context, h *chainHead, ents []HitEntry, id uint32, known, inverse bool) ([]HitEntry, error) {
	if !known {
		return ents, nil
	}
	o, _ := h.others.Get().(*OtherSet)
	if o == nil {
		aux, err := en.auxRelations(ctx)
		if err != nil {
			return ents, err
		}
		if o, err = en.NewOtherSet(ctx, en.prog, h.lpOther, aux); err != nil {
			return ents, err
		}
	}
	o.E.Ctx = ctx
	ents = o.Hits(ents, store.ID(id), inverse)
	h.others.Put(o)
	return ents, ctx.Err()
}
