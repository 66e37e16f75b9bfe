package query

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/csr"
	"github.com/drumql/drumql/reasoner/internal/eval"
)

// StoredChains holds the chain rules of one binary head predicate
// (chainPath) in two tries, walked from a given entity over relations
// whose facts are weighted by their confidences (the store's base and
// derived facts for StoredNoisyOr; the graph's and the auxiliary relations'
// for rule scores): a frontier per step, each entity once with the best
// product that reaches it, instead of a join that enumerates every path
// (through a hub, millions of them for a few thousand answers).
type StoredChains struct {
	Fwd, Inv *trieNode // from the head's first argument, from its second
	// adj holds each relation's facts as two adjacencies over entity ids,
	// out (by first argument) and in (by second), with the facts'
	// confidences in out's order.
	adj  []*weightedAdj
	nsym int // entity ids are below it
}

// weightedAdj is one relation's facts with their confidences.
type weightedAdj struct {
	out, in         csr.Matrix
	outConf, inConf []float64 // by position in out.Col, in in.Col
}

// row returns x's neighbours through the relation (out: x is the first
// argument) and the facts' confidences, position by position.
func (a *weightedAdj) row(out bool, x uint32) ([]int32, []float64) {
	if out {
		lo, hi := a.out.Span(int32(x))
		return a.out.Col[lo:hi], a.outConf[lo:hi]
	}
	lo, hi := a.in.Span(int32(x))
	return a.in.Col[lo:hi], a.inConf[lo:hi]
}

// newWeightedAdj builds the adjacencies of r's facts (those of positive
// confidence), dense when dense is set (see csr.Adjacency); ok is false
// when an argument is not below nsym.
func newWeightedAdj(r *eval.Relation, nsym int, dense bool) (weightedAdj, bool) {
	type fact struct {
		s, o int32
		c    float64
	}
	fs := make([]fact, 0, r.Len())
	for t := range int32(r.Len()) {
		c := r.ConfAt(t)
		if c <= 0 {
			continue
		}
		tu := r.Tuple(t)
		if int(tu[0]) >= nsym || int(tu[1]) >= nsym {
			return weightedAdj{}, false
		}
		fs = append(fs, fact{int32(tu[0]), int32(tu[1]), c})
	}
	slices.SortFunc(fs, func(a, b fact) int {
		if a.s != b.s {
			return cmp.Compare(a.s, b.s)
		}
		return cmp.Compare(a.o, b.o)
	})
	subs, objs := make([]int32, len(fs)), make([]int32, len(fs))
	a := weightedAdj{outConf: make([]float64, len(fs)), inConf: make([]float64, len(fs))}
	for k, f := range fs {
		subs[k], objs[k], a.outConf[k] = f.s, f.o, f.c
	}
	a.out, a.in = csr.Adjacency(nsym, subs, objs, dense)
	for p, e := range a.in.Edge {
		a.inConf[p] = a.outConf[e]
	}
	a.in.Edge = nil
	return a, true
}

// WeightedAdjs builds each relation's weighted adjacencies once, for every
// head's chains: dense (a row found in constant time, where the walk
// spends most of its time on a hypersparse row's binary search) while the
// dense row pointers of all of them fit csr.DenseBudget, then as
// csr.Adjacency chooses. Safe for concurrent use.
type WeightedAdjs struct {
	mu        sync.Mutex
	nsym      int
	relOf     func(ctx context.Context, pred string) (*eval.Relation, error)
	adj       map[string]*weightedAdj // nil: a relation with a symbol at or above nsym
	denseLeft int64
}

// NewWeightedAdjs returns the weighted adjacencies of nsym symbols, built
// lazily from the relations relOf returns.
func NewWeightedAdjs(nsym int, relOf func(ctx context.Context, pred string) (*eval.Relation, error)) *WeightedAdjs {
	return &WeightedAdjs{nsym: nsym, relOf: relOf, adj: map[string]*weightedAdj{}, denseLeft: csr.DenseBudget}
}

// get returns pred's adjacencies, nil when it holds a symbol at or above
// nsym (one the program made).
func (w *WeightedAdjs) get(ctx context.Context, pred string) (*weightedAdj, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if a, ok := w.adj[pred]; ok {
		return a, nil
	}
	r, err := w.relOf(ctx, pred)
	if err != nil {
		return nil, err
	}
	cost := 8 * int64(w.nsym+1) // both directions' row pointers
	dense := cost <= w.denseLeft
	var a *weightedAdj
	if wa, ok := newWeightedAdj(r, w.nsym, dense); ok {
		a = &wa
		if !a.out.Hypersparse() {
			w.denseLeft -= cost / 2
		}
		if !a.in.Hypersparse() {
			w.denseLeft -= cost / 2
		}
	}
	w.adj[pred] = a
	return a, nil
}

// NewStoredChains builds the tries of rules rs of prog (chain rules of one
// binary head) over the relations adjs holds, each rule known in the walk
// by ids[k] (nil: its index in prog); nil when a relation holds a symbol
// the store does not (one the program made).
func NewStoredChains(ctx context.Context, prog *datalog.Program, rs []int, ids []int32, adjs *WeightedAdjs) (*StoredChains, error) {
	sc := &StoredChains{Fwd: &trieNode{}, Inv: &trieNode{}, nsym: adjs.nsym}
	relIdx := map[string]int32{}
	rel := func(pred string) (int32, error) {
		if i, ok := relIdx[pred]; ok {
			return i, nil
		}
		a, err := adjs.get(ctx, pred)
		if err != nil || a == nil {
			return -1, err
		}
		relIdx[pred] = int32(len(sc.adj))
		sc.adj = append(sc.adj, a)
		return int32(len(sc.adj) - 1), nil
	}
	for i, ri := range rs {
		r := &prog.Rules[ri]
		path, neq, oi, _ := ChainPath(r)
		w := eval.WeightOf(r.Weight)
		rels := make([]int32, len(path))
		for k, s := range path {
			var err error
			if rels[k], err = rel(s.pred); err != nil || rels[k] < 0 {
				return nil, err
			}
		}
		id := int32(ri)
		if ids != nil {
			id = ids[i]
		}
		node := sc.Fwd
		for k, s := range path {
			node = node.child(rels[k], s.out, oi)
		}
		node.add(id, w, neq)
		node = sc.Inv
		for k := len(path) - 1; k >= 0; k-- {
			node = node.child(rels[k], !path[k].out, oi)
		}
		node.add(id, w, neq)
	}
	sc.Fwd.setMaxW()
	sc.Inv.setMaxW()
	return sc, nil
}

// Wscratch is the walk's state, dense over entity ids, for one goroutine
// at a time: per depth the entities reached (levels), their best product
// (val) when stamp matches the depth's epoch; at depth 1 of object
// identity paths, the parent of the best product (par) and the best
// product from any other parent (alt).
type Wscratch struct {
	levels [][]uint32
	val    [][]float64
	stamp  [][]uint32
	epoch  []uint32
	par    []uint32
	alt    []float64
	// The hits of a query and their grouping by candidate
	// (candidateConfs).
	Hits    []HitEntry
	Buckets hitBuckets
	Top     *TopHits // the k best hits per candidate, for noisy_or(top = k)
	// byRank's counts and buffer.
	RankCounts []int32
	RankTmp    []HitEntry
}

// NewWScratch returns the scratch space of a walk over nsym symbols.
func NewWScratch(nsym int) *Wscratch {
	return &Wscratch{par: make([]uint32, nsym), alt: make([]float64, nsym)}
}

// level returns depth's scratch, started afresh.
func (sc *Wscratch) level(depth, nsym int) ([]uint32, []float64, []uint32, uint32) {
	for len(sc.levels) <= depth {
		sc.levels = append(sc.levels, nil)
		sc.val = append(sc.val, make([]float64, nsym))
		sc.stamp = append(sc.stamp, make([]uint32, nsym))
		sc.epoch = append(sc.epoch, 0)
	}
	sc.epoch[depth]++
	if sc.epoch[depth] == 0 {
		clear(sc.stamp[depth])
		sc.epoch[depth] = 1
	}
	return sc.levels[depth][:0], sc.val[depth], sc.stamp[depth], sc.epoch[depth]
}

// Walk propagates the frontier of depth-1 (its products in prev) from
// node through its children, calling emit with every rule whose path ends
// there, for each entity reached and the rule's best confidence for it
// (the weight times the best product), when that is at least min: an
// entity whose product times the best weight below a node (maxW) is under
// min is not followed there, as every hit it leads to would be (a
// confidence is at most 1, and rounding is monotone). Every id is below
// c.nsym: the adjacencies hold no other (newWeightedAdj), and the callers
// start from an entity of the store.
func (c *StoredChains) Walk(sc *Wscratch, node *trieNode, start uint32, frontier []uint32, prev []float64, depth int, min float64, emit func(cand uint32, rule int32, s float64)) {
	for _, ch := range node.children {
		next, val, stamp, ep := sc.level(depth, c.nsym)
		a, maxW := c.adj[ch.rel], ch.maxW
		for _, x := range frontier {
			vx := 1.0
			if depth > 0 {
				vx = prev[x]
			}
			if vx*maxW < min {
				continue
			}
			ys, confs := a.row(ch.out, x)
			confs = confs[:len(ys)]
			switch {
			case ch.oi && depth == 1:
				// A -> C -> D: D != A; the best product per D and its C,
				// and the best from another C (for B != C at depth 2).
				for j, yy := range ys {
					y, v := uint32(yy), vx*confs[j]
					if y == start || v*maxW < min {
						continue
					}
					switch {
					case stamp[y] != ep:
						stamp[y], val[y] = ep, v
						next = append(next, y)
						sc.par[y], sc.alt[y] = x, 0
					case v > val[y]:
						sc.alt[y], sc.par[y] = val[y], x
						val[y] = v
					case v > sc.alt[y]:
						sc.alt[y] = v
					}
				}
			case ch.oi && depth == 2:
				// D -> B: B != A, and B != the C of the product.
				par, alt := sc.par[x], sc.alt[x]
				for j, yy := range ys {
					y, p := uint32(yy), vx
					if y == start {
						continue
					}
					if y == par {
						p = alt
					}
					if v := p * confs[j]; p > 0 && v*maxW >= min {
						if stamp[y] != ep {
							stamp[y], val[y] = ep, v
							next = append(next, y)
						} else if v > val[y] {
							val[y] = v
						}
					}
				}
			default:
				for j, yy := range ys {
					y, v := uint32(yy), vx*confs[j]
					if v*maxW < min {
						continue
					}
					if stamp[y] != ep {
						stamp[y], val[y] = ep, v
						next = append(next, y)
					} else if v > val[y] {
						val[y] = v
					}
				}
			}
		}
		sc.levels[depth] = next
		if len(next) == 0 {
			continue
		}
		for k, rule := range ch.rules {
			w := ch.weights[k]
			for _, y := range next {
				if s := w * val[y]; s >= min && (y != start || !ch.neq[k]) {
					emit(y, rule, s)
				}
			}
		}
		if len(ch.children) > 0 {
			c.Walk(sc, ch, start, next, val, depth+1, min, emit)
		}
	}
}

// ByRank sorts hits by their rule's rank (below rules), stably, by
// counting.
func (sc *Wscratch) ByRank(hits []HitEntry, rules int) {
	counts := slices.Grow(sc.RankCounts[:0], rules+1)[:rules+1]
	clear(counts)
	for _, h := range hits {
		counts[h.R+1]++
	}
	for r := range rules {
		counts[r+1] += counts[r]
	}
	tmp := slices.Grow(sc.RankTmp[:0], len(hits))[:len(hits)]
	for _, h := range hits {
		tmp[counts[h.R]] = h
		counts[h.R]++
	}
	copy(hits, tmp)
	sc.RankCounts, sc.RankTmp = counts, tmp
}
