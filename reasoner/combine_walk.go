package reasoner

import (
	"cmp"
	"slices"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/csr"
)

// storedChains holds the chain rules of one binary head predicate
// (chainPath) in two tries, walked from a given entity over relations
// whose facts are weighted by their confidences (the store's base and
// derived facts for StoredNoisyOr; the graph's and the auxiliary relations'
// for rule scores): a frontier per step, each entity once with the best
// product that reaches it, instead of a join that enumerates every path
// (through a hub, millions of them for a few thousand answers).
type storedChains struct {
	fwd, inv *trieNode // from the head's first argument, from its second
	// adj holds each relation's facts as two adjacencies over entity ids,
	// out (by first argument) and in (by second), with the facts'
	// confidences in out's order.
	adj  []weightedAdj
	nsym int // entity ids are below it
}

// weightedAdj is one relation's facts with their confidences.
type weightedAdj struct {
	out, in csr.Matrix
	conf    []float64 // by position in out.Col
}

// newWeightedAdj builds the adjacencies of r's facts (those of positive
// confidence); ok is false when an argument is not below nsym.
func newWeightedAdj(r *relation, nsym int) (weightedAdj, bool) {
	type fact struct {
		s, o int32
		c    float64
	}
	fs := make([]fact, 0, r.len())
	for t := range int32(r.len()) {
		c := r.confAt(t)
		if c <= 0 {
			continue
		}
		tu := r.tuple(t)
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
	a := weightedAdj{conf: make([]float64, len(fs))}
	for k, f := range fs {
		subs[k], objs[k], a.conf[k] = f.s, f.o, f.c
	}
	a.out, a.in = csr.Adjacency(nsym, subs, objs, false)
	return a, true
}

// newStoredChains builds the tries of rules rs of prog (chain rules of one
// binary head) over the relations relOf returns, with nsym symbols in the
// store; nil when a relation holds a symbol the store does not (one the
// program made).
func newStoredChains(prog *datalog.Program, rs []int, nsym int, relOf func(pred string) (*relation, error)) (*storedChains, error) {
	sc := &storedChains{fwd: &trieNode{}, inv: &trieNode{}, nsym: nsym}
	relIdx := map[string]int32{}
	rel := func(pred string) (int32, error) {
		if i, ok := relIdx[pred]; ok {
			return i, nil
		}
		r, err := relOf(pred)
		if err != nil {
			return 0, err
		}
		a, ok := newWeightedAdj(r, sc.nsym)
		if !ok {
			return -1, nil
		}
		relIdx[pred] = int32(len(sc.adj))
		sc.adj = append(sc.adj, a)
		return int32(len(sc.adj) - 1), nil
	}
	for _, ri := range rs {
		r := &prog.Rules[ri]
		path, neq, oi, _ := chainPath(r)
		w := weightOf(r.Weight)
		ids := make([]int32, len(path))
		for k, s := range path {
			var err error
			if ids[k], err = rel(s.pred); err != nil || ids[k] < 0 {
				return nil, err
			}
		}
		node := sc.fwd
		for k, s := range path {
			node = node.child(ids[k], s.out, oi)
		}
		node.add(int32(ri), w, neq)
		node = sc.inv
		for k := len(path) - 1; k >= 0; k-- {
			node = node.child(ids[k], !path[k].out, oi)
		}
		node.add(int32(ri), w, neq)
	}
	return sc, nil
}

// wscratch is the walk's state, dense over entity ids, for one goroutine
// at a time: per depth the entities reached (levels), their best product
// (val) when stamp matches the depth's epoch; at depth 1 of object
// identity paths, the parent of the best product (par) and the best
// product from any other parent (alt).
type wscratch struct {
	levels [][]uint32
	val    [][]float64
	stamp  [][]uint32
	epoch  []uint32
	par    []uint32
	alt    []float64
	// The hits of a query and their grouping by candidate
	// (confsByCandidate).
	hits    []hitEntry
	buckets hitBuckets
}

func newWScratch(nsym int) *wscratch {
	return &wscratch{par: make([]uint32, nsym), alt: make([]float64, nsym)}
}

// level returns depth's scratch, started afresh.
func (sc *wscratch) level(depth, nsym int) ([]uint32, []float64, []uint32, uint32) {
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

// edges calls fn with each neighbour of x through relation ri (out: x is
// the first argument) and the fact's confidence.
func (c *storedChains) edges(ri int32, out bool, x uint32, fn func(y uint32, c float64)) {
	a := &c.adj[ri]
	if out {
		lo, hi := a.out.Span(int32(x))
		for p := lo; p < hi; p++ {
			fn(uint32(a.out.Col[p]), a.conf[p])
		}
		return
	}
	lo, hi := a.in.Span(int32(x))
	for p := lo; p < hi; p++ {
		fn(uint32(a.in.Col[p]), a.conf[a.in.Edge[p]])
	}
}

// walk propagates the frontier of depth-1 (its products in prev) from
// node through its children, calling emit with every rule whose path ends
// there, for each entity reached and the rule's best confidence for it
// (the weight times the best product). Every id is below c.nsym: the
// adjacencies hold no other (newWeightedAdj), and the callers start from
// an entity of the store.
func (c *storedChains) walk(sc *wscratch, node *trieNode, start uint32, frontier []uint32, prev []float64, depth int, emit func(cand uint32, rule int32, s float64)) {
	for _, ch := range node.children {
		next, val, stamp, ep := sc.level(depth, c.nsym)
		reach := func(y uint32, v float64) {
			if stamp[y] != ep {
				stamp[y], val[y] = ep, v
				next = append(next, y)
			} else if v > val[y] {
				val[y] = v
			}
		}
		for _, x := range frontier {
			vx := 1.0
			if depth > 0 {
				vx = prev[x]
			}
			switch {
			case ch.oi && depth == 1:
				// A -> C -> D: D != A; the best product per D and its C,
				// and the best from another C (for B != C at depth 2).
				c.edges(ch.rel, ch.out, x, func(y uint32, conf float64) {
					if y == start {
						return
					}
					v := vx * conf
					switch {
					case stamp[y] != ep:
						sc.par[y], sc.alt[y] = x, 0
					case v > val[y]:
						sc.alt[y], sc.par[y] = val[y], x
					case v > sc.alt[y]:
						sc.alt[y] = v
					}
					reach(y, v)
				})
			case ch.oi && depth == 2:
				// D -> B: B != A, and B != the C of the product.
				c.edges(ch.rel, ch.out, x, func(y uint32, conf float64) {
					if y == start {
						return
					}
					p := vx
					if y == sc.par[x] {
						p = sc.alt[x]
					}
					if p > 0 {
						reach(y, p*conf)
					}
				})
			default:
				c.edges(ch.rel, ch.out, x, func(y uint32, conf float64) { reach(y, vx*conf) })
			}
		}
		sc.levels[depth] = next
		if len(next) == 0 {
			continue
		}
		for k, rule := range ch.rules {
			for _, y := range next {
				if y != start || !ch.neq[k] {
					emit(y, rule, ch.weights[k]*val[y])
				}
			}
		}
		if len(ch.children) > 0 {
			c.walk(sc, ch, start, next, val, depth+1, emit)
		}
	}
}
