package miner

import (
	"cmp"
	"math"
	"slices"
)

// Two-step rules with constants, h(X, c) :- b1(X, Z), b2(Z, d): their
// bodies are proposed by the paths of two steps out of the sampled X that
// do not pass through an entity Z with more than twoStepFan edges (a hub
// proposes every constant of the graph and ranks nothing); the
// ConstOptions.TwoStepCands proposed by the most sampled X (ties: the lower
// operators and entity) are counted exactly, unless that takes more than
// ConstOptions.Budget edge visits (default DefaultConstBudget; the body is then
// left out).
// Only a constant with at least twoStepMinFacts facts of the head proposes
// two-step bodies: with fewer, its two-step rules restate one family or
// one neighbourhood (on a graph of a million people, a mother's two
// children propose the paths through their father), and the work would
// grow with the number of constants.
// A head stops proposing two-step bodies once its two-step work (paths
// proposed and edges visited counting bodies) passes twoStepHeadBudget,
// so large graphs stay bounded.
const (
	twoStepFan        = 20
	twoStepMinFacts   = 5
	twoStepHeadBudget = 20_000_000
)

// twoSteps proposes and counts the two-step bodies of one head relation.
type twoSteps struct {
	g       *Graph
	holders func(op, y int32) []int32 // the sorted x with an op-edge from x to y
	mark    []int32                   // per entity: the generation of the last body that holds for it
	gen     int32
	buf     []uint64            // one sampled entity's paths (twoStepPath)
	all     []uint64            // every sampled entity's distinct paths
	keys    []twoStepKey        // the paths reached often enough
	over    map[uint64]struct{} // the bodies past budget
	budget  int                 // edge visits allowed to count one body (ConstOptions.Budget)
	work    int                 // paths proposed and edges visited so far (twoStepHeadBudget)
}

// twoStepKey is a proposed two-step body and the number of sampled
// entities that proposed it.
type twoStepKey struct {
	key uint64 // twoStepPath(op1, op, y)
	n   int32
}

// twoStepPath packs a two-step body: operators op1 and op (each below 2^16)
// and the entity y.
func twoStepPath(op1, op, y int32) uint64 {
	return uint64(op1)<<48 | uint64(op)<<32 | uint64(uint32(y))
}

// propose appends to cands the two-step bodies (op1, op, y) reached from at
// least need of the sampled entities, at most most of them (the most often
// reached), in a deterministic order. Steps through the head
// relation r itself (either direction) are not taken: the head fact h(X, c)
// would support its own body.
func (t *twoSteps) propose(sample []int32, r int, need int32, most int, cands []constCand) []constCand {
	inc, R := &t.g.inc, len(t.g.fwd)
	if 2*R > 0xffff || t.work > twoStepHeadBudget {
		return cands // the operators do not fit the path key, or the head's budget is spent
	}
	// Each sampled entity's distinct paths, then all of them sorted: a
	// path's run is the number of sampled entities that reach it. (A map
	// cleared for each constant would cost its largest size every time, on
	// graphs of a million constants.)
	t.all = t.all[:0]
	for _, x := range sample {
		t.buf = t.buf[:0]
		for p := inc.Ptr[x]; p < inc.Ptr[x+1]; p++ {
			op1, z := inc.Op[p], inc.Col[p]
			if int(op1)%R == r || inc.Ptr[z+1]-inc.Ptr[z] > twoStepFan {
				continue
			}
			for q := inc.Ptr[z]; q < inc.Ptr[z+1]; q++ {
				if op, y := inc.Op[q], inc.Col[q]; y != x {
					t.buf = append(t.buf, twoStepPath(op1, op, y))
				}
			}
		}
		t.work += len(t.buf)
		slices.Sort(t.buf)
		t.all = append(t.all, slices.Compact(t.buf)...)
	}
	slices.Sort(t.all)
	t.keys = t.keys[:0]
	for i := 0; i < len(t.all); {
		j := i + 1
		for j < len(t.all) && t.all[j] == t.all[i] {
			j++
		}
		if int32(j-i) >= need {
			t.keys = append(t.keys, twoStepKey{t.all[i], int32(j - i)})
		}
		i = j
	}
	slices.SortFunc(t.keys, func(a, b twoStepKey) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.key, b.key)) })
	for _, k := range t.keys[:min(len(t.keys), most)] {
		cands = append(cands, constCand{op1: int32(k.key >> 48), op: int32(k.key >> 32 & 0xffff), y: int32(uint32(k.key))})
	}
	return cands
}

// body marks the entities X for which b1(X, Z), b2(Z, y) holds for some Z
// (operators op1 then op; see has) and returns how many there are, or false
// past t.budget edge visits.
func (t *twoSteps) body(op1, op, y int32) (int, bool) {
	key := twoStepPath(op1, op, y)
	if _, ok := t.over[key]; ok {
		return 0, false
	}
	zs, visits := t.holders(op, y), 0
	defer func() { t.work += visits }()
	for _, z := range zs {
		if visits += 1 + len(t.holders(op1, z)); visits > t.budget {
			// Remembered: the same body is proposed for many constants.
			t.over[key] = struct{}{}
			return 0, false
		}
	}
	t.nextGen()
	n := 0
	for _, z := range zs {
		for _, x := range t.holders(op1, z) {
			if t.mark[x] != t.gen {
				t.mark[x] = t.gen
				n++
			}
		}
	}
	return n, true
}

// nextGen starts a new generation of marks.
func (t *twoSteps) nextGen() {
	if t.gen++; t.gen == math.MaxInt32 {
		clear(t.mark)
		t.gen = 1
	}
}

// has reports whether the last body counted holds for x.
func (t *twoSteps) has(x int32) bool { return t.mark[x] == t.gen }
