package miner

import (
	"math"

	"github.com/drumql/drumql/miner/internal/sparse"
)

// trainer holds everything one training run reuses across batches.
type trainer struct {
	m       *Model
	g       *Graph
	eng     *engine
	caches  [2]*attnCache
	a32     [2][][][]float32 // [group][rank][step][op]
	dA      [2][][][]float64
	groups  [2]group
	chunk   [2]group // columns of groups propagated together
	seen    map[int32]int32
	noShare bool // tests: one column per query
	evalBuf [2][]float64
	seeds   [2][]float64
	grad    []float64
	grad1   []float64 // the second group's attention gradient
	mom     []float64 // Adam first moment
	vel     []float64 // Adam second moment
	steps   int
	masks   []*sparse.Mask
}

func newTrainer(m *Model, g *Graph) *trainer {
	lay := &m.lay
	tr := &trainer{m: m, g: g, eng: newEngine(g.view(m.rels).capHubs(m.cfg.MaxFanOut), m.numRel(), lay.nT, m.cfg.Threads)}
	for i := range 2 {
		tr.caches[i] = newAttnCache(lay)
		tr.a32[i] = make([][][]float32, lay.L)
		tr.dA[i] = make([][][]float64, lay.L)
		for j := range lay.L {
			tr.a32[i][j] = make([][]float32, lay.nT)
			tr.dA[i][j] = make([][]float64, lay.nT)
			for t := range lay.nT {
				tr.a32[i][j][t] = make([]float32, lay.nOps)
				tr.dA[i][j][t] = make([]float64, lay.nOps)
			}
		}
	}
	return tr
}

// setGroups fills the two groups (r and inv_r) of a batch.
func (tr *trainer) setGroups(b *batch) {
	R := tr.m.numRel()
	g0, g1 := &tr.groups[0], &tr.groups[1]
	g0.q, g1.q = b.r, b.r+R
	g0.given, g0.answer = g0.given[:0], g0.answer[:0]
	g1.given, g1.answer = g1.given[:0], g1.answer[:0]
	for _, x := range b.ts {
		// Query r: given the tail, find the head; inv_r the other way.
		g0.given, g0.answer = append(g0.given, x.t), append(g0.answer, x.h)
		g1.given, g1.answer = append(g1.given, x.h), append(g1.answer, x.t)
	}
}

// attention computes the attention of both groups, in parallel.
func (tr *trainer) attention() {
	lay := &tr.m.lay
	tr.eng.each(2, func(i int) {
		tr.m.attnForward(tr.groups[i].q, tr.caches[i])
		for j := range lay.L {
			for t := range lay.nT {
				for k, v := range tr.caches[i].a[j][t] {
					tr.a32[i][j][t][k] = float32(v)
				}
			}
		}
	})
}

// lossGrad computes the mean loss of batch b under the current parameters
// and writes its gradient into grad (overwritten).
func (tr *trainer) lossGrad(b *batch, grad []float64) float64 {
	m, e := tr.m, tr.eng
	L, T := m.lay.L, m.lay.nT
	tr.setGroups(b)
	tr.attention()
	// Mask the batch's own edges.
	mask := tr.maskFor(b.r)
	for _, x := range b.ts {
		if x.edge >= 0 {
			mask.Set(x.edge)
		}
	}
	e.mask, e.maskRel = mask, b.r
	e.masked = e.masked[:0]
	for _, x := range b.ts {
		if x.edge >= 0 {
			e.masked = append(e.masked, [2]int32{x.h, x.t})
		}
	}
	short := !e.fullLast
	defer func() {
		for _, x := range b.ts {
			if x.edge >= 0 {
				mask.Clear(x.edge)
			}
		}
		e.mask, e.maskRel, e.masked = nil, -1, e.masked[:0]
	}()
	B := len(b.ts)
	N := float64(2 * B)
	var loss float64
	W := chunkWidth(e.budget, e.E, L, T, B)
	for lo := 0; lo < B; lo += W {
		hi := min(lo+W, B)
		loss += tr.chunkLossGrad(lo, hi, N, short, lo > 0)
	}
	// The two groups' attention gradients in parallel, then summed.
	if len(tr.grad1) != len(grad) {
		tr.grad1 = make([]float64, len(grad))
	}
	e.each(2, func(gi int) {
		dst := grad
		if gi == 1 {
			dst = tr.grad1
		}
		clear(dst)
		m.attnBackward(tr.caches[gi], tr.dA[gi], dst)
	})
	tr.ranges(len(grad), func(lo, hi int) {
		for i, v := range tr.grad1[lo:hi] {
			grad[lo+i] += v
		}
	})
	return loss / N
}

// paramChunk is the number of parameters of one unit of the parallel
// element-wise passes over the parameters.
const paramChunk = 1 << 14

// ranges calls f on consecutive ranges [lo, hi) covering [0, n), on the
// engine's workers. f must treat each element independently: the result
// then does not depend on the number of workers.
func (tr *trainer) ranges(n int, f func(lo, hi int)) {
	tr.eng.each((n+paramChunk-1)/paramChunk, func(i int) {
		f(i*paramChunk, min((i+1)*paramChunk, n))
	})
}

// blockBudget bounds the bytes of a batch's propagation blocks (2·L tasks
// of T+1 entity × column float32 blocks): a batch whose blocks would need
// more is propagated in chunks of columns. It depends on the graph and the
// configuration only, so the chunks, and with them the bytes of the model,
// do not depend on the machine.
const blockBudget = 1 << 30

// chunkWidth returns the number of columns propagated together for batches
// of B queries per direction on a graph of E entities: all B unless their
// blocks exceed budget (blockBudget; tests lower it), then the most that
// fit, a multiple of 8 (the kernels' vector width) when at least 8 fit.
func chunkWidth(budget, E, L, T, B int) int {
	per := 2 * L * (T + 1) * E * 4
	w := budget / max(per, 1)
	if w >= B {
		return B
	}
	if w >= 8 {
		w &^= 7
	}
	return max(w, 1)
}

// chunkLossGrad propagates columns [lo, hi) of both groups forward and
// back, with the seed of each query −1/(N·s), and returns their summed
// loss; the attention gradients go to tr.dA, added to what is there when
// add is set (later chunks) and overwriting it otherwise.
func (tr *trainer) chunkLossGrad(lo, hi int, N float64, short, add bool) float64 {
	m, e := tr.m, tr.eng
	L, T := m.lay.L, m.lay.nT
	groups := tr.sub(lo, hi)
	B := hi - lo
	e.ensure(2*L, B)
	e.run(2*L, func(i int, w *scratch) {
		gi, j := i/L, i%L
		e.forward(e.tasks[i], &groups[gi], tr.a32[gi][j], w, short)
	})
	var loss float64
	for gi := range 2 {
		gr := &groups[gi]
		if cap(tr.seeds[gi]) < B {
			tr.seeds[gi] = make([]float64, B)
		}
		seed := tr.seeds[gi][:B]
		for col, y := range gr.answer {
			var s float64
			for j := range L {
				tk := e.tasks[gi*L+j]
				if short {
					s += tk.last[col]
				} else {
					s += float64(tk.v[T][int(y)*tk.B+gr.col(col)])
				}
			}
			loss -= math.Log(max(s, thr))
			seed[col] = 0
			if s > thr {
				seed[col] = -1 / (N * s)
			}
		}
	}
	e.run(2*L, func(i int, w *scratch) {
		gi := i / L
		e.backward(e.tasks[i], &groups[gi], tr.a32[gi][i%L], tr.seeds[gi][:B], w, short)
	})
	for gi := range 2 {
		for j := range L {
			for t := range T {
				dst, src := tr.dA[gi][j][t], e.tasks[gi*L+j].dA[t]
				if !add {
					copy(dst, src)
					continue
				}
				for k, v := range src {
					dst[k] += v
				}
			}
		}
	}
	return loss
}

// sub returns columns [lo, hi) of the two groups (all of them when the
// range covers them).
func (tr *trainer) sub(lo, hi int) *[2]group {
	if tr.seen == nil {
		tr.seen = make(map[int32]int32)
	}
	for i := range 2 {
		g, c := &tr.groups[i], &tr.chunk[i]
		c.q, c.given, c.answer = g.q, g.given[lo:hi], g.answer[lo:hi]
		if tr.noShare {
			c.cols = nil
			continue
		}
		c.share(tr.seen)
	}
	return &tr.chunk
}

func (tr *trainer) maskFor(r int) *sparse.Mask {
	if tr.masks == nil {
		tr.masks = make([]*sparse.Mask, tr.m.numRel())
	}
	if tr.masks[r] == nil {
		tr.masks[r] = sparse.NewMask(len(tr.eng.g.fwd[r].Col))
	}
	return tr.masks[r]
}

// step trains on one batch: gradient, element-wise clipping, Adam.
func (tr *trainer) step(b *batch) float64 {
	if tr.grad == nil {
		n := tr.m.lay.size
		tr.grad, tr.mom, tr.vel = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	loss := tr.lossGrad(b, tr.grad)
	cfg := &tr.m.cfg
	tr.steps++
	t := float64(tr.steps)
	lr := cfg.LR * math.Sqrt(1-math.Pow(adamBeta2, t)) / (1 - math.Pow(adamBeta1, t))
	p := tr.m.params
	ap := sparse.AdamParams{LR: lr, Beta1: adamBeta1, Beta2: adamBeta2, Eps: adamEps, Clip: cfg.Clip}
	tr.ranges(len(p), func(lo, hi int) {
		sparse.Adam(p[lo:hi], tr.grad[lo:hi], tr.mom[lo:hi], tr.vel[lo:hi], ap)
	})
	return loss
}
