package miner

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// Model is a trained (or loaded) DRUM model: the configuration, the head
// relation names and the parameters. Its methods are safe for concurrent use
// once training has returned.
type Model struct {
	cfg    Config
	rels   []string
	relIdx map[string]int
	lay    layout
	params []float64

	// Set by Train.
	graph   *Graph
	history []EpochStats
}

// EpochStats summarises one training epoch.
type EpochStats struct {
	Epoch       int     `json:"epoch"`
	TrainLoss   float64 `json:"train_loss"`
	ValidLoss   float64 `json:"valid_loss"`
	ValidHits10 float64 `json:"valid_hits10"`
}

// block is a named parameter block, row-major rows × cols at params[off:].
type block struct {
	Name       string `json:"name"`
	Rows, Cols int
	off        int
}

// layout places the parameter blocks in one flat vector.
type layout struct {
	blocks         []block
	emb            int   // (2R+1) × d
	fwW, fwB       []int // per rank: (d+H) × 4H, 4H
	bwW, bwB       []int
	w0, b0         int // 2H × (2R+1), 2R+1
	size           int
	nOps, d, h, nT int
	L              int
}

func newLayout(cfg Config, R int) layout {
	lay := layout{nOps: 2*R + 1, d: cfg.Embed, h: cfg.Hidden, nT: cfg.MaxLen, L: cfg.Rank}
	add := func(name string, rows, cols int) int {
		off := lay.size
		lay.blocks = append(lay.blocks, block{Name: name, Rows: rows, Cols: cols, off: off})
		lay.size += rows * cols
		return off
	}
	d, H := cfg.Embed, cfg.Hidden
	lay.emb = add("embedding", lay.nOps, d)
	for j := range cfg.Rank {
		lay.fwW = append(lay.fwW, add(fmt.Sprintf("rank%d/fw/kernel", j), d+H, 4*H))
		lay.fwB = append(lay.fwB, add(fmt.Sprintf("rank%d/fw/bias", j), 1, 4*H))
		lay.bwW = append(lay.bwW, add(fmt.Sprintf("rank%d/bw/kernel", j), d+H, 4*H))
		lay.bwB = append(lay.bwB, add(fmt.Sprintf("rank%d/bw/bias", j), 1, 4*H))
	}
	lay.w0 = add("W0", 2*H, lay.nOps)
	lay.b0 = add("b0", 1, lay.nOps)
	return lay
}

// newModel allocates and initialises a model for relations rels.
func newModel(cfg Config, rels []string) *Model {
	m := &Model{cfg: cfg, rels: rels, relIdx: make(map[string]int, len(rels))}
	for i, r := range rels {
		m.relIdx[r] = i
	}
	m.lay = newLayout(cfg, len(rels))
	m.params = make([]float64, m.lay.size)
	m.init()
	return m
}

// init draws the initial parameters from a PCG generator seeded with
// cfg.Seed: embedding rows uniform(−6/√d, 6/√d) then L2-normalised, W0
// standard normal, LSTM kernels glorot-uniform, biases zero.
func (m *Model) init() {
	rng := rand.New(rand.NewPCG(m.cfg.Seed, m.cfg.Seed^0x9e3779b97f4a7c15))
	lay := &m.lay
	d := lay.d
	lim := 6 / math.Sqrt(float64(d))
	for q := range lay.nOps {
		row := m.params[lay.emb+q*d : lay.emb+(q+1)*d]
		var n2 float64
		for i := range row {
			row[i] = (2*rng.Float64() - 1) * lim
			n2 += row[i] * row[i]
		}
		n := math.Sqrt(n2)
		for i := range row {
			row[i] /= n
		}
	}
	w0 := m.params[lay.w0 : lay.w0+2*lay.h*lay.nOps]
	for i := range w0 {
		w0[i] = rng.NormFloat64()
	}
	gl := math.Sqrt(6 / float64(d+lay.h+4*lay.h))
	for j := range lay.L {
		for _, off := range []int{lay.fwW[j], lay.bwW[j]} {
			w := m.params[off : off+(d+lay.h)*4*lay.h]
			for i := range w {
				w[i] = (2*rng.Float64() - 1) * gl
			}
		}
	}
}

// Config returns the model's configuration, with defaults filled in.
func (m *Model) Config() Config { return m.cfg }

// Relations returns the relation names the model knows, in index order.
func (m *Model) Relations() []string { return append([]string(nil), m.rels...) }

// History returns the per-epoch statistics of training (empty for a loaded
// model).
func (m *Model) History() []EpochStats { return append([]EpochStats(nil), m.history...) }

// numRel is R.
func (m *Model) numRel() int { return len(m.rels) }

// ---------------------------------------------------------------------------
// Attention: per rank a BiLSTM over T copies of e_q, then a shared softmax
// layer. Everything here is float64.

// cellCache holds one LSTM direction's activations over T steps.
type cellCache struct {
	xh      [][]float64 // per step: [x ; h_prev] (d+H)
	i, g, f []float64   // per step concatenated: step s at [s*H:(s+1)*H]
	o, c    []float64
	tc, h   []float64 // tanh(c), h
}

// attnCache holds the forward pass of the attention for one query relation.
type attnCache struct {
	q      int
	fw, bw []cellCache   // per rank
	hcat   [][][]float64 // [rank][step] [fw_t ; bw_t] (2H)
	a      [][][]float64 // [rank][step] softmax over nOps
}

func newAttnCache(lay *layout) *attnCache {
	c := &attnCache{}
	H, T := lay.h, lay.nT
	newCell := func() cellCache {
		cc := cellCache{xh: make([][]float64, T)}
		for s := range T {
			cc.xh[s] = make([]float64, lay.d+H)
		}
		for _, p := range []*[]float64{&cc.i, &cc.g, &cc.f, &cc.o, &cc.c, &cc.tc, &cc.h} {
			*p = make([]float64, T*H)
		}
		return cc
	}
	for range lay.L {
		c.fw = append(c.fw, newCell())
		c.bw = append(c.bw, newCell())
		hc := make([][]float64, T)
		a := make([][]float64, T)
		for s := range T {
			hc[s] = make([]float64, 2*H)
			a[s] = make([]float64, lay.nOps)
		}
		c.hcat = append(c.hcat, hc)
		c.a = append(c.a, a)
	}
	return c
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// cellForward runs an LSTM cell (kernel at wOff, bias at bOff) T steps over
// the constant input x.
func (m *Model) cellForward(cc *cellCache, x []float64, wOff, bOff int) {
	lay := &m.lay
	d, H, T := lay.d, lay.h, lay.nT
	W := m.params[wOff : wOff+(d+H)*4*H]
	b := m.params[bOff : bOff+4*H]
	z := make([]float64, 4*H)
	for s := range T {
		xh := cc.xh[s]
		copy(xh, x)
		if s == 0 {
			clear(xh[d:])
		} else {
			copy(xh[d:], cc.h[(s-1)*H:s*H])
		}
		// z = b + Wᵀ·[x; h_{s−1}].
		copy(z, b)
		blas64.Gemv(blas.Trans, 1, dense(W, d+H, 4*H), vec(xh), 1, vec(z))
		for k := range H {
			i := sigmoid(z[k])
			g := math.Tanh(z[H+k])
			f := sigmoid(z[2*H+k] + forgetBias)
			o := sigmoid(z[3*H+k])
			cPrev := 0.0
			if s > 0 {
				cPrev = cc.c[(s-1)*H+k]
			}
			c := f*cPrev + i*g
			tc := math.Tanh(c)
			p := s*H + k
			cc.i[p], cc.g[p], cc.f[p], cc.o[p] = i, g, f, o
			cc.c[p], cc.tc[p], cc.h[p] = c, tc, o*tc
		}
	}
}

// attnForward computes the attention of query relation q into c.
func (m *Model) attnForward(q int, c *attnCache) {
	lay := &m.lay
	d, H, T, K := lay.d, lay.h, lay.nT, lay.nOps
	c.q = q
	x := m.params[lay.emb+q*d : lay.emb+(q+1)*d]
	W0 := m.params[lay.w0 : lay.w0+2*H*K]
	b0 := m.params[lay.b0 : lay.b0+K]
	for j := range lay.L {
		m.cellForward(&c.fw[j], x, lay.fwW[j], lay.fwB[j])
		m.cellForward(&c.bw[j], x, lay.bwW[j], lay.bwB[j])
		for t := range T {
			hc := c.hcat[j][t]
			copy(hc[:H], c.fw[j].h[t*H:(t+1)*H])
			// The backward direction reads the inputs from the end: its
			// output at position t is its state after T−t steps.
			sb := T - 1 - t
			copy(hc[H:], c.bw[j].h[sb*H:(sb+1)*H])
			a := c.a[j][t]
			copy(a, b0)
			blas64.Gemv(blas.Trans, 1, dense(W0, 2*H, K), vec(hc), 1, vec(a))
			softmax(a)
		}
	}
}

// softmax replaces x by softmax(x).
func softmax(x []float64) {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = max(mx, v)
	}
	var s float64
	for i, v := range x {
		x[i] = math.Exp(v - mx)
		s += x[i]
	}
	for i := range x {
		x[i] /= s
	}
}

// attnBackward accumulates into grad the gradient of the loss given dA, the
// gradient with respect to the attention ([rank][step][op]).
func (m *Model) attnBackward(c *attnCache, dA [][][]float64, grad []float64) {
	lay := &m.lay
	d, H, T, K := lay.d, lay.h, lay.nT, lay.nOps
	W0 := m.params[lay.w0 : lay.w0+2*H*K]
	gW0 := grad[lay.w0 : lay.w0+2*H*K]
	gb0 := grad[lay.b0 : lay.b0+K]
	gx := grad[lay.emb+c.q*d : lay.emb+(c.q+1)*d]
	dl := make([]float64, K)
	dh := make([]float64, 2*H)
	dhFw := make([]float64, T*H)
	dhBw := make([]float64, T*H)
	for j := range lay.L {
		clear(dhFw)
		clear(dhBw)
		for t := range T {
			a := c.a[j][t]
			da := dA[j][t]
			var dot float64
			for k := range K {
				dot += a[k] * da[k]
			}
			for k := range K {
				dl[k] = a[k] * (da[k] - dot)
				gb0[k] += dl[k]
			}
			hc := c.hcat[j][t]
			sb := T - 1 - t
			// gW0 += hc ⊗ dl; the gradient of hc is W0·dl.
			blas64.Ger(1, vec(hc), vec(dl), dense(gW0, 2*H, K))
			blas64.Gemv(blas.NoTrans, 1, dense(W0, 2*H, K), vec(dl), 0, vec(dh))
			floats.Add(dhFw[t*H:(t+1)*H], dh[:H])
			floats.Add(dhBw[sb*H:(sb+1)*H], dh[H:])
		}
		m.cellBackward(&c.fw[j], dhFw, lay.fwW[j], lay.fwB[j], grad, gx)
		m.cellBackward(&c.bw[j], dhBw, lay.bwW[j], lay.bwB[j], grad, gx)
	}
}

// cellBackward backpropagates dh (per step, T×H, gradients with respect to
// the cell's outputs h_s) through time, accumulating kernel and bias
// gradients into grad and the input gradient into gx.
func (m *Model) cellBackward(cc *cellCache, dh []float64, wOff, bOff int, grad, gx []float64) {
	lay := &m.lay
	d, H, T := lay.d, lay.h, lay.nT
	W := m.params[wOff : wOff+(d+H)*4*H]
	gW := grad[wOff : wOff+(d+H)*4*H]
	gb := grad[bOff : bOff+4*H]
	dz := make([]float64, 4*H)
	dxh := make([]float64, d+H)
	dhNext := make([]float64, H)
	dcNext := make([]float64, H)
	for s := T - 1; s >= 0; s-- {
		for k := range H {
			p := s*H + k
			i, g, f, o, tc := cc.i[p], cc.g[p], cc.f[p], cc.o[p], cc.tc[p]
			dhk := dh[p] + dhNext[k]
			do := dhk * tc
			dc := dcNext[k] + dhk*o*(1-tc*tc)
			cPrev := 0.0
			if s > 0 {
				cPrev = cc.c[p-H]
			}
			dz[k] = dc * g * i * (1 - i)
			dz[H+k] = dc * i * (1 - g*g)
			dz[2*H+k] = dc * cPrev * f * (1 - f)
			dz[3*H+k] = do * o * (1 - o)
			dcNext[k] = dc * f
		}
		for k, v := range dz {
			gb[k] += v
		}
		// gW += [x; h_{s−1}] ⊗ dz; the gradient of [x; h_{s−1}] is W·dz.
		xh := cc.xh[s]
		blas64.Ger(1, vec(xh), vec(dz), dense(gW, d+H, 4*H))
		blas64.Gemv(blas.NoTrans, 1, dense(W, d+H, 4*H), vec(dz), 0, vec(dxh))
		floats.Add(gx, dxh[:d])
		copy(dhNext, dxh[d:])
	}
}

// dense views data as a row-major rows × cols matrix.
func dense(data []float64, rows, cols int) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: data[:rows*cols]}
}

// vec views x as a unit-stride vector.
func vec(x []float64) blas64.Vector { return blas64.Vector{N: len(x), Inc: 1, Data: x} }
