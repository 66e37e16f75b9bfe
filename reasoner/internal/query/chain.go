package query

import (
	"context"
	"github.com/drumql/drumql/internal/pkgerr"
	"slices"
	"sync"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// chainData is the fast path of chain rules: the CSR snapshot and, per
// head predicate, tries of the rules' body paths.
type chainData struct {
	snap  *store.Snapshot
	dense []int32  // symbol id -> entity index, -1 when absent
	names []string // entity index -> name
	heads map[string]*chainHead
	anyOf map[[2]int32][]int32 // see needAny
}

// chainHead holds the rules of one binary head predicate, split twice: for
// queries (chain/other: a chain rule whose body relations are all plain
// base relations, which no rule defines) and for link prediction
// (lpChain/lpOther: a chain rule whose body relations are read from the
// graph, see RuleScores).
type chainHead struct {
	chain    []int // chain rules, by rule index
	other    []int // other rules
	fwd, inv *trieNode
	pure     bool // every rule is a chain rule and the predicate has no facts of its own

	lpChain, lpOther []int
	lpFwd, lpInv     *trieNode
	lpConst          []constRule // rules with a constant over a graph relation (construles.go)
	// lpAux are the chain rules over graph and auxiliary relations (at
	// least one of these), walked with the facts' confidences
	// (auxChains, built on first use; nil when it cannot be, and the
	// rules then join lpOther).
	lpAux     []int
	auxOnce   sync.Once
	auxChains *StoredChains
	auxErr    error
	auxWalks  sync.Pool // *wscratch

	// others holds compiled sets of the lpOther rules (otherHits), one
	// per goroutine at a time.
	others sync.Pool
}

// trieNode is a step of body paths: the relation (dense snapshot index, -1
// for a relation the snapshot lacks) and its direction; rules whose path
// ends here.
type trieNode struct {
	rel      int32
	out      bool
	oi       bool // a node of three-step paths with object identity (see walk)
	children []*trieNode
	rules    []int32
	weights  []float64
	neq      []bool  // the rule excludes an answer equal to the start
	maxW     float64 // the highest weight of a rule here or below (setMaxW)
}

// setMaxW sets maxW in n and below, and returns n's.
func (n *trieNode) setMaxW() float64 {
	n.maxW = 0
	for _, w := range n.weights {
		n.maxW = max(n.maxW, w)
	}
	for _, c := range n.children {
		n.maxW = max(n.maxW, c.setMaxW())
	}
	return n.maxW
}

func (n *trieNode) add(rule int32, w float64, neq bool) {
	n.rules = append(n.rules, rule)
	n.weights = append(n.weights, w)
	n.neq = append(n.neq, neq)
}

type pathStep struct {
	pred string
	out  bool
}

// ChainPath returns the body path of r from its head's first argument to
// its second when r is a chain rule: binary positive atoms forming a path
// of distinct variables, and optionally comparisons != between them: the
// comparison A != B of the head's two variables (neq), which the miner
// writes on rules of length two or more, and, on a path of three steps
// A -> C -> D -> B, with it A != D and C != B (oi: object identity, which
// the miner writes on rules of length three).
func ChainPath(r *datalog.Rule) (path []pathStep, neq, oi bool, ok bool) {
	if len(r.Head.Args) != 2 || len(r.Body) == 0 || r.HasCompound() {
		return nil, false, false, false
	}
	a, b := r.Head.Args[0], r.Head.Args[1]
	if a.Kind != datalog.Var || b.Kind != datalog.Var || a.Value == b.Value {
		return nil, false, false, false
	}
	body := r.Body
	var ne [][2]string // the comparisons (neqPair)
	if slices.ContainsFunc(body, func(l datalog.Literal) bool { return l.Kind == datalog.Comparison }) {
		body = nil
		for _, l := range r.Body {
			if l.Kind != datalog.Comparison {
				body = append(body, l)
				continue
			}
			if l.Op != datalog.OpNe || l.Left.Kind != datalog.Var || l.Right.Kind != datalog.Var {
				return nil, false, false, false
			}
			p := neqPair(l.Left.Value, l.Right.Value)
			if !slices.Contains(ne, p) {
				ne = append(ne, p)
			}
		}
		if len(body) == 0 {
			return nil, false, false, false
		}
	}
	p, vars, ok := bodyPath(body, a.Value, b.Value)
	if !ok {
		return nil, false, false, false
	}
	has := func(ps ...[2]string) bool {
		if len(ps) != len(ne) {
			return false
		}
		for _, p := range ps {
			if !slices.Contains(ne, p) {
				return false
			}
		}
		return true
	}
	switch {
	case len(ne) == 0:
		return p, false, false, true
	case has(neqPair(a.Value, b.Value)):
		return p, true, false, true
	case len(p) == 3 && has(neqPair(a.Value, b.Value), neqPair(vars[0], vars[2]), neqPair(vars[1], vars[3])):
		return p, true, true, true
	}
	return nil, false, false, false
}

// neqPair is the comparison x != y as an unordered pair of variables.
func neqPair(x, y string) [2]string { return [2]string{min(x, y), max(x, y)} }

// bodyPath returns the path of positive binary atoms from variable a to b,
// and the variables along it (a first, b last).
func bodyPath(body []datalog.Literal, a, b string) ([]pathStep, []string, bool) {
	for _, l := range body {
		if l.Kind != datalog.Positive || len(l.Atom.Args) != 2 {
			return nil, nil, false
		}
		x, y := l.Atom.Args[0], l.Atom.Args[1]
		if x.Kind != datalog.Var || y.Kind != datalog.Var || x.Value == "_" || y.Value == "_" || x.Value == y.Value {
			return nil, nil, false
		}
	}
	used := make([]bool, len(body))
	seen := map[string]bool{a: true}
	cur := a
	vars := []string{a}
	var path []pathStep
	for range body {
		found := -1
		for j, l := range body {
			if !used[j] && (l.Atom.Args[0].Value == cur || l.Atom.Args[1].Value == cur) {
				if found >= 0 {
					return nil, nil, false
				}
				found = j
			}
		}
		if found < 0 {
			return nil, nil, false
		}
		used[found] = true
		l := body[found].Atom
		out := l.Args[0].Value == cur
		next := l.Args[1].Value
		if !out {
			next = l.Args[0].Value
		}
		if seen[next] {
			return nil, nil, false
		}
		seen[next] = true
		path = append(path, pathStep{l.Pred, out})
		vars = append(vars, next)
		cur = next
	}
	if cur != b {
		return nil, nil, false
	}
	return path, vars, true
}

// chainInfo builds the fast-path data once.
func (en *Engine) chainInfo(ctx context.Context) (*chainData, error) {
	en.chainOnce.Do(func() {
		cd := en.classifyChainRules()
		if len(cd.heads) == 0 {
			en.chain = cd
			return
		}
		rel, err := cd.indexSnapshot(ctx, en)
		if err != nil {
			en.chainErr = err
			return
		}
		cd.buildTries(en, rel)
		en.chain = cd
	})
	return en.chain, en.chainErr
}

// classifyChainRules sorts the binary rules of every head predicate into
// the fast path's kinds: chain rules over base relations (and those over
// the graph's relations, for link prediction), rules with constants, and
// the others.
func (en *Engine) classifyChainRules() *chainData {
	cd := &chainData{heads: map[string]*chainHead{}}
	edb := func(pred string) bool {
		return len(en.defs[pred]) == 0 && len(en.facts[pred]) == 0 && !en.derived[pred]
	}
	for i := range en.prog.Rules {
		r := &en.prog.Rules[i]
		if len(r.Head.Args) != 2 {
			continue
		}
		h := cd.heads[r.Head.Pred]
		if h == nil {
			h = &chainHead{pure: len(en.facts[r.Head.Pred]) == 0 && !en.derived[r.Head.Pred],
				fwd: &trieNode{}, inv: &trieNode{}, lpFwd: &trieNode{}, lpInv: &trieNode{}}
			if _, ok, _ := en.St.Lookup(r.Head.Pred); ok {
				// base facts of the head predicate are answers too
				if n, err := en.countBase(r.Head.Pred); err != nil || n > 0 {
					h.pure = false
				}
			}
			cd.heads[r.Head.Pred] = h
		}
		if en.dead[i] {
			continue // it derives nothing: no work, no hit
		}
		path, _, _, ok := ChainPath(r)
		lp := ok
		if ok {
			for _, s := range path {
				ok = ok && edb(s.pred)
				lp = lp && en.graphRel(s.pred)
			}
		}
		if cr, isConst := constRuleOf(r); lp {
			h.lpChain = append(h.lpChain, i)
		} else if isConst && en.graphRel(cr.pred) && (cr.pred1 == "" || en.graphRel(cr.pred1)) {
			cr.rule = int32(i)
			h.lpConst = append(h.lpConst, cr)
		} else if path != nil && en.auxPath(path) {
			h.lpAux = append(h.lpAux, i)
		} else {
			h.lpOther = append(h.lpOther, i)
		}
		if !ok {
			h.other = append(h.other, i)
			h.pure = false
			continue
		}
		h.chain = append(h.chain, i)
	}
	return cd
}

// indexSnapshot takes the graph's snapshot (the engine's, or the store's)
// into cd, with the dense index of its entities and their names, and
// returns the dense index of a relation name (-1: none).
func (cd *chainData) indexSnapshot(ctx context.Context, en *Engine) (func(pred string) int32, error) {
	var err error
	snap := en.Opt.Snapshot
	if snap == nil {
		if snap, err = en.St.Snapshot(ctx); err != nil {
			return nil, pkgerr.Newf("reasoner: snapshot: %w", err)
		}
	}
	cd.snap = snap
	relDense := map[string]int32{}
	for i, id := range snap.Relations {
		n, err := en.Syms.Name(id)
		if err != nil {
			return nil, err
		}
		relDense[n] = int32(i)
	}
	nsym := 0
	for _, id := range snap.Entities {
		nsym = max(nsym, int(id)+1)
	}
	cd.dense = make([]int32, nsym)
	for i := range cd.dense {
		cd.dense[i] = -1
	}
	cd.names = make([]string, len(snap.Entities))
	for i, id := range snap.Entities {
		cd.dense[id] = int32(i)
		if cd.names[i], err = en.Syms.Name(id); err != nil {
			return nil, err
		}
	}
	rel := func(pred string) int32 {
		if d, ok := relDense[pred]; ok {
			return d
		}
		return -1
	}
	return rel, nil
}

// buildTries inserts the chain rules of every head into its tries, both
// ways, and resolves its rules with constants; rel is the dense index of a
// relation name.
func (cd *chainData) buildTries(en *Engine, rel func(pred string) int32) {
	insert := func(fwd, inv *trieNode, ri int) {
		r := &en.prog.Rules[ri]
		path, neq, oi, _ := ChainPath(r)
		w := eval.WeightOf(r.Weight)
		node := fwd
		for _, s := range path {
			node = node.child(rel(s.pred), s.out, oi)
		}
		node.add(int32(ri), w, neq)
		node = inv
		for k := len(path) - 1; k >= 0; k-- {
			node = node.child(rel(path[k].pred), !path[k].out, oi)
		}
		node.add(int32(ri), w, neq)
	}
	for _, h := range cd.heads {
		for _, ri := range h.chain {
			insert(h.fwd, h.inv, ri)
		}
		for _, ri := range h.lpChain {
			insert(h.lpFwd, h.lpInv, ri)
		}
		for i := range h.lpConst {
			cd.resolveConst(en, &h.lpConst[i], rel)
		}
		h.fwd.setMaxW()
		h.inv.setMaxW()
		h.lpFwd.setMaxW()
		h.lpInv.setMaxW()
	}
}

// auxPath reports whether every relation of a chain rule's body path is a
// graph relation (graphRel) or an auxiliary one (no base and no program
// facts: the facts live rules derive, see auxRelations).
func (en *Engine) auxPath(path []pathStep) bool {
	aux := func(pred string) bool {
		return !en.base[pred] && !en.derived[pred] && len(en.facts[pred]) == 0 && len(en.defs[pred]) > 0
	}
	for _, s := range path {
		if !en.graphRel(s.pred) && !aux(s.pred) {
			return false
		}
	}
	return true
}

func (en *Engine) countBase(pred string) (int, error) {
	id, ok, err := en.St.Lookup(pred)
	if err != nil || !ok {
		return 0, err
	}
	return en.St.Count(id)
}

func (n *trieNode) child(rel int32, out, oi bool) *trieNode {
	for _, c := range n.children {
		if c.rel == rel && c.out == out && c.oi == oi {
			return c
		}
	}
	c := &trieNode{rel: rel, out: out, oi: oi}
	n.children = append(n.children, c)
	return c
}

// chainScratch is per-call scratch space.
type chainScratch struct {
	stamp  []uint32 // entity -> epoch of the last frontier that held it
	epoch  uint32
	levels [][]int32
	best   []float64
	par    []int32  // see walk
	pmul   []uint32 // see walk
	cands  []int32
	ents   []HitEntry
	rs     []eval.RuleScore // EachRuleHit
	// buckets groups hits by candidate (bucketByCandidate); chainQuery
	// marks its candidates with the same stamps.
	buckets hitBuckets
}

// HitEntry is one hit of a rule application: candidate C, through rule R,
// with confidence S.
type HitEntry struct {
	C int32
	R int32
	S float64
}

func (en *Engine) getScratch(n int) *chainScratch {
	if s, ok := en.scratch.Get().(*chainScratch); ok && len(s.stamp) == n {
		return s
	}
	return &chainScratch{stamp: make([]uint32, n), best: make([]float64, n), par: make([]int32, n), pmul: make([]uint32, n),
		buckets: NewHitBuckets(n)}
}

// walk propagates frontier from the node's parent through the trie, calling
// emit for every rule of weight at least min and every entity at the end of
// its path; a node below which no rule weighs min (maxW) is not walked, as
// every rule's confidence is its weight here. Nodes of
// three-step paths with object identity (oi; A -> C -> D -> B from start A)
// keep, at depth 1, only the entities D != A, each with the first C it was
// reached from (par) and whether another C reaches it too (pmul = the
// level's epoch); at depth 2 an entity B reached from D counts unless it is
// A, or the only C that reaches D. pepoch is the epoch of the depth-1 level
// of the current path.
func (cd *chainData) walk(sc *chainScratch, node *trieNode, start int32, frontier []int32, depth int, pepoch uint32, min float64, emit func(c int32, rule int32, w float64)) {
	for _, ch := range node.children {
		if ch.rel < 0 || ch.maxW < min {
			continue
		}
		csr := &cd.snap.Out[ch.rel]
		if !ch.out {
			csr = &cd.snap.In[ch.rel]
		}
		sc.epoch++
		if sc.epoch == 0 {
			clear(sc.stamp)
			clear(sc.pmul)
			sc.epoch = 1
		}
		for len(sc.levels) <= depth {
			sc.levels = append(sc.levels, nil)
		}
		next := sc.levels[depth][:0]
		switch {
		case ch.oi && depth == 1:
			for _, x := range frontier {
				for _, y := range csr.Row(x) {
					switch {
					case y == start:
					case sc.stamp[y] != sc.epoch:
						sc.stamp[y] = sc.epoch
						sc.par[y] = x
						next = append(next, y)
					case sc.par[y] != x:
						sc.pmul[y] = sc.epoch
					}
				}
			}
		case ch.oi && depth == 2:
			for _, x := range frontier {
				only := sc.pmul[x] != pepoch
				for _, y := range csr.Row(x) {
					if y != start && sc.stamp[y] != sc.epoch && !(only && sc.par[x] == y) {
						sc.stamp[y] = sc.epoch
						next = append(next, y)
					}
				}
			}
		default:
			for _, x := range frontier {
				for _, y := range csr.Row(x) {
					if sc.stamp[y] != sc.epoch {
						sc.stamp[y] = sc.epoch
						next = append(next, y)
					}
				}
			}
		}
		sc.levels[depth] = next
		if len(next) == 0 {
			continue
		}
		for k, r := range ch.rules {
			if ch.weights[k] < min {
				continue
			}
			for _, c := range next {
				if c != start || !ch.neq[k] {
					emit(c, r, ch.weights[k])
				}
			}
		}
		if len(ch.children) > 0 {
			pe := pepoch
			if depth == 1 {
				pe = sc.epoch
			}
			cd.walk(sc, ch, start, next, depth+1, pe, min, emit)
		}
	}
}

// chainQuery answers q by the fast path when it applies.
func (en *Engine) chainQuery(ctx context.Context, q datalog.Atom) ([]eval.Answer, bool, error) {
	if len(q.Args) != 2 || len(en.defs[q.Pred]) == 0 {
		return nil, false, nil
	}
	a, b := q.Args[0], q.Args[1]
	var given datalog.Term
	var inverse bool
	switch {
	case a.Kind != datalog.Var && b.Kind == datalog.Var:
		given = a
	case a.Kind == datalog.Var && b.Kind != datalog.Var:
		given, inverse = b, true
	default:
		return nil, false, nil
	}
	if given.Kind != datalog.Symbol {
		return nil, false, nil // a number matches several symbols
	}
	cd, err := en.chainInfo(ctx)
	if err != nil {
		return nil, false, err
	}
	h := cd.heads[q.Pred]
	if h == nil || !h.pure {
		return nil, false, nil
	}
	id, ok := en.Syms.Lookup(given.Value)
	if !ok || int(id) >= len(cd.dense) || cd.dense[id] < 0 {
		return nil, true, nil
	}
	sc := en.getScratch(len(cd.names))
	defer en.scratch.Put(sc)
	seen, epoch := sc.buckets.next()
	cands := sc.cands[:0]
	min := en.Opt.Min
	root := h.fwd
	if inverse {
		root = h.inv
	}
	cd.walk(sc, root, cd.dense[id], []int32{cd.dense[id]}, 0, 0, min, func(c int32, _ int32, w float64) {
		if w < min {
			return
		}
		if seen[c] != epoch {
			seen[c] = epoch
			sc.best[c] = w
			cands = append(cands, c)
		} else if w > sc.best[c] {
			sc.best[c] = w
		}
	})
	sc.cands = cands
	if err := ctx.Err(); err != nil {
		return nil, true, pkgerr.Newf("reasoner: query %s: %w", q, err)
	}
	free := b
	if inverse {
		free = a
	}
	if free.Value == "_" {
		if len(cands) == 0 {
			return nil, true, nil
		}
		bestC := 0.0
		for _, c := range cands {
			bestC = max(bestC, sc.best[c])
		}
		return []eval.Answer{{Confidence: bestC, Fact: q}}, true, nil
	}
	answers := make([]eval.Answer, 0, len(cands))
	for _, c := range cands {
		name := cd.names[c]
		t := eval.SymTerm(name)
		fact := datalog.Atom{Pred: q.Pred, Args: []datalog.Term{given, t}}
		if inverse {
			fact.Args = []datalog.Term{t, given}
		}
		answers = append(answers, eval.Answer{Values: []string{name}, Confidence: sc.best[c], Fact: fact})
	}
	eval.SortAnswers(answers)
	return answers, true, nil
}
