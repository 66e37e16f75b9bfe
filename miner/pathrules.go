package miner

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// maxSampledLen is the longest body the path sampler enumerates: the
// paths of length n between two entities grow as the mean degree to the
// power n − 1, and rules of length four or more are rare and weak.
const maxSampledLen = 3

// pathKey identifies an operator sequence of at most maxSampledLen
// operators (in the incidence lists' numbering: op < R is a fact op(cur,
// next), op = R+r a fact r(next, cur)); unused slots are −1.
type pathKey [maxSampledLen]int32

// sampledPath is a body proposed by the graph: its operator sequence from
// A to B and the number of sampled head facts it connects.
type sampledPath struct {
	key  pathKey
	n    int // length
	hits int
}

// steps returns the body of p as path steps from A to B.
func (p sampledPath) steps(R int) []pathStep {
	out := make([]pathStep, p.n)
	for i := range p.n {
		op := int(p.key[i])
		out[i] = pathStep{rel: op % R, rev: op >= R}
	}
	return out
}

// pathScratch is the reusable memory of samplePaths.
type pathScratch struct {
	predAt  []int32             // entity z -> 1 + its index in predOps, or 0
	predOps [][]int32           // the operators of the edges z → b, per z in touched
	touched []int32             // the entities of predAt filled for this fact
	hits    map[uint64]pathHits // by packKey
	// mapOnly counts in the map even when the dense table would do
	// (tests: both ways must agree).
	mapOnly bool
}

// pathHits counts the sampled facts a body joins; last is the number of
// the last fact (from 1) that counted it, so a fact counts a body once.
type pathHits struct{ n, last int32 }

// packKey packs an operator sequence into 21 bits per operator (op+1;
// 0 = unused), which holds operators below 2^21 − 1.
func packKey(k pathKey) uint64 {
	var v uint64
	for _, op := range k {
		v = v<<21 | uint64(op+1)
	}
	return v
}

// unpackKey is the inverse of packKey.
func unpackKey(v uint64) pathKey {
	var k pathKey
	for i := maxSampledLen - 1; i >= 0; i-- {
		k[i] = int32(v&(1<<21-1)) - 1
		v >>= 21
	}
	return k
}

// samplePaths proposes chain bodies for head relation r from the graph
// itself, as bottom-up rule learners do: it draws up to n facts r(a, b)
// with rng and enumerates the paths of 1 to maxLen (at most maxSampledLen)
// steps from a to b through distinct entities, in both directions of every
// relation, the fact r(a, b) itself excluded. Each body counts once per
// fact it connects; enumerating one fact's paths of the longest length
// stops after budget edge visits. The result holds the bodies that connect
// at least minHits sampled facts, most first, then by operator sequence
// (so it depends only on the graph, r, the draws and the bounds).
func (g *Graph) samplePaths(r, maxLen, n, budget, minHits int, rng *rand.Rand, sc *pathScratch) []sampledPath {
	maxLen = min(maxLen, maxSampledLen)
	R := len(g.fwd)
	if maxLen < 1 || n <= 0 || 2*R >= 1<<21-1 {
		return nil // (operators past packKey's 21 bits: no sampling)
	}
	fw := g.fwd[r]
	facts := fw.NNZ()
	if facts == 0 {
		return nil
	}
	if sc.hits == nil {
		sc.hits = map[uint64]pathHits{}
	}
	if len(sc.predAt) != g.NumEntities() {
		sc.predAt, sc.touched = make([]int32, g.NumEntities()), sc.touched[:0]
	}
	clear(sc.hits)
	w := &pathWalk{g: g, r: r, R: R, K: 2 * R, maxLen: maxLen, budget: budget, sc: sc}
	// Few operators: the counts in a dense table indexed by the sequence,
	// instead of a map (the same counts, much faster on dense graphs).
	if (w.K+1)*(w.K+1)*(w.K+1) <= denseSampleTable && !sc.mapOnly {
		w.dense = make([]pathHits, (w.K+1)*(w.K+1)*(w.K+1))
	}
	k := 0 // the stored row of fw that holds position p
	for _, p := range pickFacts(facts, n, rng) {
		for fw.RowPtr[k+1] <= int32(p) {
			k++
		}
		if a, b := fw.RowAt(k), fw.Col[p]; a != b {
			w.walk(a, b)
		}
	}
	return w.collect(minHits)
}

// pickFacts returns the facts samplePaths walks, as positions among the
// relation's facts: all of them when there are at most n, else n draws
// without replacement, in increasing order.
func pickFacts(facts, n int, rng *rand.Rand) []int {
	if facts <= n {
		picks := make([]int, facts)
		for i := range picks {
			picks[i] = i
		}
		return picks
	}
	picks := rng.Perm(facts)[:n]
	slices.Sort(picks)
	return picks
}

// pathWalk counts, for samplePaths, the bodies that connect the sampled
// facts of head relation r: in sc.hits, or in dense when the operators are
// few (indexed by the operator sequence).
type pathWalk struct {
	g              *Graph
	r, R, K        int // head relation, relations, operators (2R)
	maxLen, budget int
	sc             *pathScratch
	dense          []pathHits
	fact           int32 // the number of the fact being walked, from 1
}

// emit counts body k once for the fact being walked.
func (w *pathWalk) emit(k pathKey) {
	if w.dense != nil {
		// (three operators: maxSampledLen)
		K := w.K
		i := (int(k[0]+1)*(K+1)+int(k[1]+1))*(K+1) + int(k[2]+1)
		if h := &w.dense[i]; h.last != w.fact {
			h.n, h.last = h.n+1, w.fact
		}
		return
	}
	v := packKey(k)
	if h := w.sc.hits[v]; h.last != w.fact {
		w.sc.hits[v] = pathHits{n: h.n + 1, last: w.fact}
	}
}

// inv is the operator of the other direction.
func (w *pathWalk) inv(op int32) int32 {
	if int(op) < w.R {
		return op + int32(w.R)
	}
	return op - int32(w.R)
}

// pred returns the operators of an edge from z to the fact's tail (see
// markPreds).
func (w *pathWalk) pred(z int32) []int32 {
	if i := w.sc.predAt[z]; i != 0 {
		return w.sc.predOps[i-1]
	}
	return nil
}

// walk counts the paths of 1 to maxLen steps from a to b, the fact r(a, b)
// itself excluded.
func (w *pathWalk) walk(a, b int32) {
	w.fact++
	in := &w.g.inc
	// n = 1: an edge from a to b other than the fact itself.
	for q := in.Ptr[a]; q < in.Ptr[a+1]; q++ {
		if in.Col[q] == b && int(in.Op[q]) != w.r {
			w.emit(pathKey{in.Op[q], -1, -1})
		}
	}
	if w.maxLen < 2 {
		return
	}
	w.markPreds(b)
	for q := in.Ptr[a]; q < in.Ptr[a+1]; q++ {
		c := in.Col[q]
		if c == a || c == b {
			continue
		}
		for _, op2 := range w.pred(c) {
			w.emit(pathKey{in.Op[q], op2, -1})
		}
	}
	if w.maxLen >= 3 {
		w.walkThree(a, b)
	}
}

// markPreds records, for every entity z with an edge to b, the operators
// of those edges (pred), forgetting the last fact's.
func (w *pathWalk) markPreds(b int32) {
	sc, in := w.sc, &w.g.inc
	for _, z := range sc.touched { // only the last fact's entries
		sc.predAt[z] = 0
	}
	sc.touched = sc.touched[:0]
	for q := in.Ptr[b]; q < in.Ptr[b+1]; q++ {
		z := in.Col[q]
		i := sc.predAt[z]
		if i == 0 {
			if len(sc.touched) == len(sc.predOps) {
				sc.predOps = append(sc.predOps, nil)
			}
			sc.predOps[len(sc.touched)] = sc.predOps[len(sc.touched)][:0]
			sc.touched = append(sc.touched, z)
			i = int32(len(sc.touched))
			sc.predAt[z] = i
		}
		sc.predOps[i-1] = append(sc.predOps[i-1], w.inv(in.Op[q]))
	}
}

// walkThree counts the paths of three steps from a to b through distinct
// entities, until budget edge visits.
func (w *pathWalk) walkThree(a, b int32) {
	in := &w.g.inc
	work := 0
	for q := in.Ptr[a]; q < in.Ptr[a+1]; q++ {
		c := in.Col[q]
		if c == a || c == b {
			continue
		}
		lo, hi := in.Ptr[c], in.Ptr[c+1]
		work += int(hi - lo)
		if work > w.budget {
			return
		}
		for s := lo; s < hi; s++ {
			d := in.Col[s]
			if d == a || d == b || d == c {
				continue
			}
			for _, op3 := range w.pred(d) {
				w.emit(pathKey{in.Op[q], in.Op[s], op3})
			}
		}
	}
}

// collect returns the bodies that connect at least minHits sampled facts,
// most first, then by operator sequence.
func (w *pathWalk) collect(minHits int) []sampledPath {
	K, sc := w.K, w.sc
	for i, h := range w.dense {
		if h.n > 0 {
			k := pathKey{int32(i/((K+1)*(K+1))) - 1, int32(i/(K+1)%(K+1)) - 1, int32(i%(K+1)) - 1}
			sc.hits[packKey(k)] = h
		}
	}
	var out []sampledPath
	for v, hv := range sc.hits {
		k, h := unpackKey(v), int(hv.n)
		if h < minHits {
			continue
		}
		l := 0
		for l < maxSampledLen && k[l] >= 0 {
			l++
		}
		out = append(out, sampledPath{key: k, n: l, hits: h})
	}
	slices.SortFunc(out, func(x, y sampledPath) int {
		if c := cmp.Compare(y.hits, x.hits); c != 0 {
			return c
		}
		for i := range maxSampledLen {
			if c := cmp.Compare(x.key[i], y.key[i]); c != 0 {
				return c
			}
		}
		return 0
	})
	return out
}

// bodyScore returns the DRUM score of a body, given as path steps from A to
// B, under the attention a of the query relation r (inverse false: the
// chain starts at B) or inv_r (inverse true: it starts at A): the sum over
// the ways of spreading its n operators over the T steps, the other steps
// taking the identity, of Σ_j Π_t a[j][t][k_t], with the per-rank terms.
// It is what the beam search adds up for the body (see beam), exactly.
func (m *Model) bodyScore(a [][][]float64, path []pathStep, inverse bool) (float64, []float64) {
	R := m.numRel()
	L, T := m.lay.L, m.lay.nT
	id := m.lay.nOps - 1
	n := len(path)
	ops := make([]int, n)
	for i := range n {
		if inverse {
			// toPath: path[i] = {k % R, k < R}.
			st := path[i]
			ops[i] = st.rel + R
			if st.rev {
				ops[i] = st.rel
			}
		} else {
			// toPath: path[n−1−i] = {k % R, k ≥ R}.
			st := path[n-1-i]
			ops[i] = st.rel
			if st.rev {
				ops[i] = st.rel + R
			}
		}
	}
	ranks := make([]float64, L)
	if n > T {
		return 0, ranks
	}
	// Every increasing choice of n positions among T steps.
	pos := make([]int, n)
	var place func(i, from int)
	place = func(i, from int) {
		if i == n {
			for j := range L {
				prod, next := 1.0, 0
				for t := range T {
					k := id
					if next < n && pos[next] == t {
						k = ops[next]
						next++
					}
					prod *= a[j][t][k]
				}
				ranks[j] += prod
			}
			return
		}
		for t := from; t <= T-(n-i); t++ {
			pos[i] = t
			place(i+1, t+1)
		}
	}
	place(0, 0)
	var s float64
	for _, v := range ranks {
		s += v
	}
	return s, ranks
}

// denseSampleTable bounds the entries of samplePaths' dense count table
// ((2R+1)^3 for R relations: R ≤ 63).
const denseSampleTable = 1 << 21

// pathSeedSalt separates the path samples' random stream from the other
// uses of the seed.
const pathSeedSalt = 0x7061746873 // "paths"
