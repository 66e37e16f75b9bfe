package miner

import (
	"cmp"
	"container/heap"
	"context"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/gainheap"
	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/internal/workpool"
)

// ConstOptions control the learning of rules with constants
// ([Graph.ConstantRules]). The zero value means the defaults.
type ConstOptions struct {
	// Heads lists the head relations to learn rules for; empty means every
	// relation of the graph.
	Heads []string `json:"heads,omitempty"`
	// MinSupport is the smallest number of facts of the graph a rule must
	// predict correctly. Default DefaultConstMinSupport (AnyBURL's
	// threshold): a rule seen once is an anecdote; a negative value keeps
	// every rule.
	MinSupport int `json:"min_support,omitempty"`
	// Budget bounds the edge visits of counting one two-step body; a body
	// that would take more is left out. Default DefaultConstBudget.
	Budget int `json:"budget,omitempty"`
	// MinConf is the smallest smoothed confidence kept. Default
	// DefaultConstMinConf.
	MinConf float64 `json:"min_conf,omitempty"`
	// Smoothing is the number of unseen counter-examples added to the body
	// count: the weight is support/(body+Smoothing). Default
	// DefaultSmoothing, as for the chain rules; negative means 0.
	Smoothing int `json:"smoothing,omitempty"`
	// PerConstant bounds the rules kept for one head relation, constant and
	// position (the best by confidence), the pool PerHead are chosen from.
	// Default DefaultPerConstant.
	PerConstant int `json:"per_constant,omitempty"`
	// PerHead bounds the rules with constants kept per head relation.
	// Default DefaultConstantRules. They are chosen greedily by coverage (see
	// [Graph.ConstantRules]) unless ByConfidence is set.
	PerHead int `json:"per_head,omitempty"`
	// ByConfidence chooses a head's PerHead rules as the best by confidence,
	// then support, instead of by coverage.
	ByConfidence bool `json:"by_confidence,omitempty"`
	// Sample bounds the facts of one head relation and constant whose
	// neighbourhoods propose candidate bodies (a seeded sample when there
	// are more); the support of every candidate is then counted exactly
	// over all of them. Default DefaultConstSample.
	Sample int `json:"sample,omitempty"`
	// Len is the most atoms of a rule's body: 1 for the forms with one atom,
	// 2 (DefaultConstLen) also for h(X, c) :- b1(X, Y), b2(Y, d), with either
	// argument order in each atom (AnyBURL's acyclic rules of length 2).
	Len int `json:"len,omitempty"`
	// TwoStepCands bounds the two-step bodies counted per head relation,
	// constant and position: those proposed by the most sampled entities.
	// Default DefaultTwoStepCands.
	TwoStepCands int `json:"two_step_cands,omitempty"`
	// Seed seeds the sample (with the head relation's name, so a head's
	// rules do not depend on the other heads); 0 means DefaultSeed.
	Seed uint64 `json:"seed,omitempty"`
	// Threads bounds the goroutines that learn head relations in
	// parallel; 0 means runtime.GOMAXPROCS(0). The result does not depend
	// on it.
	Threads int `json:"-"`
}

// Defaults of ConstOptions (Smoothing's is the chain rules'
// DefaultSmoothing).
const (
	DefaultConstMinSupport = 2
	DefaultConstBudget     = 100_000
	DefaultConstMinConf    = 0.01
	DefaultPerConstant     = 1000
	DefaultConstantRules   = 300
	DefaultConstSample     = 500
	DefaultConstLen        = 2
	DefaultTwoStepCands    = 50
)

// WithDefaults returns o with every unset field replaced by its default
// (Heads are left as they are).
func (o ConstOptions) WithDefaults() ConstOptions {
	if o.MinSupport == 0 {
		o.MinSupport = DefaultConstMinSupport
	}
	orDefault(&o.Budget, DefaultConstBudget)
	orDefault(&o.MinConf, DefaultConstMinConf)
	o.Smoothing = smoothing(o.Smoothing)
	orDefault(&o.PerConstant, DefaultPerConstant)
	orDefault(&o.PerHead, DefaultConstantRules)
	orDefault(&o.Sample, DefaultConstSample)
	orDefault(&o.Len, DefaultConstLen)
	orDefault(&o.TwoStepCands, DefaultTwoStepCands)
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	orDefault(&o.Threads, runtime.GOMAXPROCS(0))
	return o
}

// constCand is a candidate body for a head relation, constant and
// position: operator op (r < R: fact r(X, y); R+r: fact r(y, X)) and, for
// the form with two constants, the entity y (-1: any y). A two-step body
// (op1 ≥ 0) steps from X to some Z by operator op1 first, then from Z to y
// by op: b1(X, Z), b2(Z, y).
type constCand struct {
	op1  int32
	op   int32
	y    int32
	sup  int
	body int
	conf float64
}

// headCand is a candidate of one head relation: its constant c at head
// position pos.
type headCand struct {
	pos int8
	c   int32
	constCand
	// lo, hi delimit the rule's support in the head's arena (coverage
	// choice): the indices of the head's facts it predicts, the facts of
	// each (pos, c) numbered from that pair's base.
	lo, hi int32
}

// ConstantRules learns, for every head relation h (opt.Heads, or all), the
// rules with a constant in the forms AnyBURL learns:
//
//	h(X, c) :- b(X, d).     h(X, c) :- b(d, X).
//	h(X, c) :- b(X, Y).     h(X, c) :- b(Y, X).
//	h(X, c) :- b1(X, Y), b2(Y, d).   (opt.Len 2; either order in each atom)
//
// and the same with the constant in the head's first argument, h(c, X).
// Candidates are proposed by the neighbourhoods of the entities that fill
// the variable slot of h's facts with constant c (at most opt.Sample of them
// per constant, sampled with opt.Seed; two-step bodies, for constants with
// at least twoStepMinFacts facts, by the paths through entities of at most
// twoStepFan edges, never through h itself), then
// counted exactly on the graph (a two-step body that would take more than
// opt.Budget edge visits is left out):
// Body is the number of entities X the body holds for, Support those for
// which the head fact holds too. A rule whose body is its own head fact
// (h(X, c) :- h(X, c)) is never proposed. The result is sorted by head, then
// by decreasing confidence and support, then by position, constant and body
// (dense indices: the order of the graph). Each rule's weight is its
// smoothed confidence support/(body+Smoothing), rounded to 4 significant
// digits; Support and Body are the counts (Counted, FromGraph set).
func (g *Graph) ConstantRules(ctx context.Context, opt ConstOptions) ([]MinedRule, error) {
	opt = opt.WithDefaults()
	heads := opt.Heads
	if len(heads) == 0 {
		heads = g.Relations()
	}
	heads = slices.Clone(heads)
	slices.Sort(heads)
	heads = slices.Compact(heads)
	R := len(g.fwd)
	// nonEmpty[op]: the entities whose row of operator op is not empty.
	nonEmpty := make([]int, 2*R)
	for r := range R {
		nonEmpty[r], nonEmpty[R+r] = nonEmptyRows(g.fwd[r]), nonEmptyRows(g.bwd[r])
	}
	perHead := make([][]MinedRule, len(heads))
	var failed atomic.Bool
	workpool.Run(opt.Threads, len(heads), func(_, i int) bool {
		if ctx.Err() != nil {
			failed.Store(true)
			return false
		}
		if r, ok := g.relIndex[heads[i]]; ok {
			perHead[i] = g.headConstRules(heads[i], r, opt, nonEmpty)
		}
		return true
	})
	if failed.Load() {
		return nil, pkgerr.Newf("miner: rules with constants: %w", ctx.Err())
	}
	var out []MinedRule
	for _, rs := range perHead {
		out = append(out, rs...)
	}
	return out, nil
}

// headConstRules learns the rules with constants of head relation h (index
// r; see ConstantRules); nonEmpty counts, per operator, the entities with a
// nonempty row.
func (g *Graph) headConstRules(h string, r int, opt ConstOptions, nonEmpty []int) []MinedRule {
	R, E := len(g.fwd), g.NumEntities()
	hf := fnv.New64a()
	hf.Write([]byte(h))
	cl := &constLearner{g: g, r: r, R: R, opt: opt, nonEmpty: nonEmpty,
		rng:    rand.New(rand.NewPCG(opt.Seed, 0x636f6e7374^hf.Sum64())),
		counts: map[int64]int32{}, anyOp: make([]int32, 2*R), stamp: make([]int32, 2*R)}
	if opt.Len >= 2 {
		cl.ts = &twoSteps{g: g, holders: cl.holders, mark: make([]int32, E), over: map[uint64]struct{}{}, budget: opt.Budget}
	}
	// pos 1: h(X, c), X among the heads of c; pos 0: h(c, X), X among
	// the tails of c.
	for _, pos := range []int{1, 0} {
		byConst := g.bwd[r]
		if pos == 0 {
			byConst = g.fwd[r]
		}
		for k := range byConst.Stored() {
			c := byConst.RowAt(k)
			xs := byConst.Col[byConst.RowPtr[k]:byConst.RowPtr[k+1]]
			if len(xs) < opt.MinSupport {
				continue
			}
			cands := cl.count(cl.propose(pos, c, xs), xs)
			for _, cd := range cands[:min(len(cands), opt.PerConstant)] {
				hc := headCand{pos: int8(pos), c: c, constCand: cd, lo: int32(len(cl.arena))}
				if !opt.ByConfidence {
					cl.addSupport(cd, xs)
				}
				hc.hi = int32(len(cl.arena))
				cl.perHead = append(cl.perHead, hc)
			}
			cl.base += int32(len(xs))
		}
	}
	perHead := cl.perHead
	slices.SortFunc(perHead, func(a, b headCand) int {
		return cmp.Or(cmp.Compare(b.conf, a.conf), cmp.Compare(b.sup, a.sup),
			cmp.Compare(a.pos, b.pos), cmp.Compare(a.c, b.c), cmp.Compare(a.op1, b.op1), cmp.Compare(a.op, b.op), cmp.Compare(a.y, b.y))
	})
	if !opt.ByConfidence && len(perHead) > opt.PerHead {
		perHead = chooseByCoverage(perHead, cl.arena, int(cl.base), opt.PerHead)
	}
	var out []MinedRule
	for _, hc := range perHead[:min(len(perHead), opt.PerHead)] {
		out = append(out, g.constRule(h, int(hc.pos), hc.c, hc.constCand))
	}
	return out
}

// constLearner learns the rules with constants of one head relation r (see
// headConstRules).
type constLearner struct {
	g        *Graph
	r, R     int
	opt      ConstOptions
	nonEmpty []int // per operator, the entities with a nonempty row
	rng      *rand.Rand
	ts       *twoSteps // nil: rules of one body atom only (opt.Len 1)
	// Scratch of propose: counts of (operator, entity), and per operator
	// the sampled entities with an edge (anyOp, stamped by entity).
	counts       map[int64]int32
	anyOp, stamp []int32
	perHead      []headCand
	arena        []int32 // the candidates' supports (coverage choice)
	base         int32   // the index of the first fact of (pos, c)
}

// rowLen is the number of op-edges out of x.
func (cl *constLearner) rowLen(op int, x int32) int32 {
	m := cl.g.fwd[op%cl.R]
	if op >= cl.R {
		m = cl.g.bwd[op%cl.R]
	}
	return m.Degree(x)
}

// holders returns the sorted entities x with an op-edge from x to y.
func (cl *constLearner) holders(op int32, y int32) []int32 {
	m := cl.g.bwd[int(op)%cl.R] // op = r: facts r(x, y): heads of y
	if int(op) >= cl.R {
		m = cl.g.fwd[int(op)%cl.R] // op = R+r: facts r(y, x): tails of y
	}
	return m.Row(y)
}

// sample returns the entities of xs whose neighbourhoods propose bodies:
// all of them, or opt.Sample drawn without replacement, in xs's order.
func (cl *constLearner) sample(xs []int32) []int32 {
	if len(xs) <= cl.opt.Sample {
		return xs
	}
	idx := cl.rng.Perm(len(xs))[:cl.opt.Sample]
	slices.Sort(idx)
	sample := make([]int32, len(idx))
	for i, k := range idx {
		sample[i] = xs[k]
	}
	return sample
}

// propose returns the candidate bodies for constant c at head position pos
// (xs: the entities that fill the variable slot of its facts): those seen
// at least twice in the sample's neighbourhoods (or once when MinSupport
// allows it), and the two-step bodies.
func (cl *constLearner) propose(pos int, c int32, xs []int32) []constCand {
	g, r, R, opt := cl.g, cl.r, cl.R, cl.opt
	sample := cl.sample(xs)
	clear(cl.counts)
	clear(cl.anyOp)
	clear(cl.stamp)
	for i, x := range sample {
		for p := g.inc.Ptr[x]; p < g.inc.Ptr[x+1]; p++ {
			op, y := g.inc.Op[p], g.inc.Col[p]
			if y != c || !(pos == 1 && int(op) == r || pos == 0 && int(op) == R+r) {
				cl.counts[int64(op)<<32|int64(y)]++ // not the head fact itself
			}
			if cl.stamp[op] != int32(i+1) {
				cl.stamp[op] = int32(i + 1)
				cl.anyOp[op]++
			}
		}
	}
	// Candidates seen at least twice in the sample (or once when the
	// sample is everything and MinSupport allows it).
	need := int32(min(opt.MinSupport, 2))
	var cands []constCand
	for key, n := range cl.counts {
		if n >= need {
			cands = append(cands, constCand{op1: -1, op: int32(key >> 32), y: int32(key)})
		}
	}
	for op, n := range cl.anyOp {
		if n >= need {
			cands = append(cands, constCand{op1: -1, op: int32(op), y: -1})
		}
	}
	if opt.Len >= 2 && len(xs) >= twoStepMinFacts {
		cands = cl.ts.propose(sample, r, need, opt.TwoStepCands, cands)
	}
	return cands
}

// count counts the body and support of every candidate over all of xs and
// returns those with enough support and confidence, the best first.
func (cl *constLearner) count(cands []constCand, xs []int32) []constCand {
	opt, ts := cl.opt, cl.ts
	kept := cands[:0]
	for _, cd := range cands {
		if cd.op1 >= 0 {
			n, ok := ts.body(cd.op1, cd.op, cd.y)
			if !ok {
				continue // past opt.Budget
			}
			cd.body = n
			for _, x := range xs {
				if ts.has(x) {
					cd.sup++
				}
			}
		} else if cd.y >= 0 {
			hs := cl.holders(cd.op, cd.y)
			cd.body = len(hs)
			cd.sup = intersectCount(xs, hs)
		} else {
			cd.body = cl.nonEmpty[cd.op]
			for _, x := range xs {
				if cl.rowLen(int(cd.op), x) > 0 {
					cd.sup++
				}
			}
		}
		cd.conf = float64(cd.sup) / float64(cd.body+opt.Smoothing)
		if cd.sup >= opt.MinSupport && cd.conf >= opt.MinConf {
			kept = append(kept, cd)
		}
	}
	slices.SortFunc(kept, func(a, b constCand) int {
		return cmp.Or(cmp.Compare(b.conf, a.conf), cmp.Compare(b.sup, a.sup),
			cmp.Compare(a.op1, b.op1), cmp.Compare(a.op, b.op), cmp.Compare(a.y, b.y))
	})
	return kept
}

// addSupport appends the support of cd, the facts it predicts as indices
// (base + positions in xs), to the arena (the coverage choice).
func (cl *constLearner) addSupport(cd constCand, xs []int32) {
	base := cl.base
	switch {
	case cd.op1 >= 0:
		cl.ts.body(cd.op1, cd.op, cd.y)
		for i, x := range xs {
			if cl.ts.has(x) {
				cl.arena = append(cl.arena, base+int32(i))
			}
		}
	case cd.y >= 0:
		cl.arena = intersectPos(xs, cl.holders(cd.op, cd.y), base, cl.arena)
	default:
		for i, x := range xs {
			if cl.rowLen(int(cd.op), x) > 0 {
				cl.arena = append(cl.arena, base+int32(i))
			}
		}
	}
}

// chooseByCoverage returns n of the candidates cands (sorted by decreasing
// confidence, then support, ...; their supports are ranges of arena over
// nFacts facts), in the same order, chosen greedily to maximise the sum over
// the head's facts of the highest confidence among the chosen rules that
// predict the fact: the score max aggregation gives the true answers. A
// rule's gain is the sum, over the facts it predicts, of how much it raises
// that fact's best confidence. Rules that predict the same facts as a more
// confident rule gain nothing, so a head's few hundred rules spread over its
// constants and facts instead of piling on the few facts that the most
// confident rules predict. When no candidate gains anything, the rest of the
// n are the first candidates not chosen (by confidence). The gains only
// shrink as rules are chosen (the objective is submodular), so a candidate
// whose recomputed gain is still the best is chosen without recomputing the
// others (lazy greedy); ties go to the earlier candidate.
func chooseByCoverage(cands []headCand, arena []int32, nFacts, n int) []headCand {
	best := make([]float64, nFacts)
	gain := func(hc *headCand) float64 {
		g := 0.0
		for _, f := range arena[hc.lo:hc.hi] {
			if d := hc.conf - best[f]; d > 0 {
				g += d
			}
		}
		return g
	}
	h := &gainheap.Heap{}
	for i := range cands {
		h.Items = append(h.Items, gainheap.Item{Gain: gain(&cands[i]), Rank: i, I: i})
	}
	heap.Init(h)
	chosen := make([]bool, len(cands))
	for k := 0; k < n && h.Len() > 0; {
		top := &h.Items[0]
		g := gain(&cands[top.I])
		if g < top.Gain {
			top.Gain = g
			heap.Fix(h, 0)
			continue
		}
		it := heap.Pop(h).(gainheap.Item)
		if g <= 0 {
			// Every fact is predicted at the best confidence the candidates
			// reach: the rest are chosen by confidence (they still break
			// ties and add evidence for noisy-or).
			for i := range cands {
				if k < n && !chosen[i] {
					chosen[i] = true
					k++
				}
			}
			break
		}
		chosen[it.I] = true
		hc := &cands[it.I]
		for _, f := range arena[hc.lo:hc.hi] {
			best[f] = max(best[f], hc.conf)
		}
		k++
	}
	out := cands[:0:0]
	for i, ok := range chosen {
		if ok {
			out = append(out, cands[i])
		}
	}
	return out
}

// constRule builds the rule of candidate cd for head h with constant c at
// position pos (1: h(X, c); 0: h(c, X)).
func (g *Graph) constRule(h string, pos int, c int32, cd constCand) MinedRule {
	R := len(g.fwd)
	v := func(s string) datalog.Term { return datalog.Term{Kind: datalog.Var, Value: s} }
	k := func(i int32) datalog.Term { return datalog.Term{Kind: datalog.Symbol, Value: g.entNames[i]} }
	head := datalog.Atom{Pred: h, Args: []datalog.Term{v("X"), k(c)}}
	if pos == 0 {
		head.Args[0], head.Args[1] = k(c), v("X")
	}
	// atom is the fact of operator op from a to b.
	atom := func(op int32, a, b datalog.Term) datalog.Literal {
		if int(op) >= R {
			a, b = b, a
		}
		return datalog.Literal{Kind: datalog.Positive, Atom: datalog.Atom{Pred: g.relNames[int(op)%R], Args: []datalog.Term{a, b}}}
	}
	other := v("_")
	if cd.y >= 0 {
		other = k(cd.y)
	}
	var body []datalog.Literal
	if cd.op1 >= 0 {
		body = []datalog.Literal{atom(cd.op1, v("X"), v("Y")), atom(cd.op, v("Y"), other)}
	} else {
		body = []datalog.Literal{atom(cd.op, v("X"), other)}
	}
	rule := datalog.Rule{Weight: roundSig(cd.conf, 4), Head: head, Body: body}
	return MinedRule{Rule: rule, Head: h, Counted: true, Support: cd.sup, Body: cd.body,
		Confidence: float64(cd.sup) / float64(cd.body), FromGraph: true}
}

// intersectPos appends to out base+i for every a[i] that is also in b (both
// sorted) and returns it.
func intersectPos(a, b []int32, base int32, out []int32) []int32 {
	forCommon(a, b, func(i int) { out = append(out, base+int32(i)) })
	return out
}

// intersectCount returns the size of the intersection of two sorted lists.
func intersectCount(a, b []int32) int {
	n := 0
	forCommon(a, b, func(int) { n++ })
	return n
}

// forCommon calls f(i) for every a[i] that is also in b (both sorted), in
// order.
func forCommon(a, b []int32, f func(i int)) {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			f(i)
			i++
			j++
		}
	}
}

// bodyAtoms returns the number of atoms (positive or negated literals) in
// r's body.
func bodyAtoms(r datalog.Rule) int {
	n := 0
	for _, l := range r.Body {
		if l.Kind != datalog.Comparison {
			n++
		}
	}
	return n
}
