package miner

import (
	"github.com/drumql/drumql/miner/internal/sparse"
)

// stepRows computes u = A x for step t with whole rows, per operator, with
// the row-list kernels from the rows act[t−1] (test mode 1: the reference
// the other paths are compared with). It sets act[t] and marks every
// column of its rows in cm[t].
func (e *engine) stepRows(tk *task, t int, at []float32, w *scratch) {
	B, R := tk.B, e.R
	x, u := tk.v[t-1], tk.v[t]
	prev := tk.act[t-1]
	tk.act[t] = e.expand(tk.act[t], prev, w)
	for r := range R {
		mask := e.maskOf(r)
		sparse.MulAddRows(u, e.g.sct[r], x, B, at[r], mask, prev)
		sparse.MulAddRows(u, e.g.sct[R+r], x, B, at[R+r], mask, prev)
	}
	aI := at[2*R]
	for _, y := range prev {
		sparse.Axpy(u[int(y)*B:int(y)*B+B], aI, x[int(y)*B:int(y)*B+B])
	}
	full, cm := fullMask(B), tk.cm[t]
	for _, y := range tk.act[t] {
		cm[y] = full
	}
}

// backRows is the backward pass of stepRows: given gv, the gradient with
// respect to u_t on the rows act[t], it writes tk.dA[t−1] and, for t > 1,
// the gradient with respect to v_{t−1} on the rows act[t−1] into gp (zero
// on entry).
func (e *engine) backRows(tk *task, t int, at []float32, gv, gp []float32) {
	B, R := tk.B, e.R
	x, prev := tk.v[t-1], tk.act[t-1]
	dA := tk.dA[t-1]
	for r := range R {
		mask := e.maskOf(r)
		dA[r] = sparse.EdgeDotRows(e.g.sct[r], gv, x, B, mask, prev)
		dA[R+r] = sparse.EdgeDotRows(e.g.sct[R+r], gv, x, B, mask, prev)
	}
	var s float64
	for _, y := range prev {
		s += sparse.Dot(gv[int(y)*B:int(y)*B+B], x[int(y)*B:int(y)*B+B])
	}
	dA[2*R] = s
	if t == 1 {
		return
	}
	// Adjoint: gp = A_tᵀ gv on the rows prev.
	for _, y := range prev {
		dst := gp[int(y)*B : int(y)*B+B]
		for r := range R {
			mask := e.maskOf(r)
			gatherRow(dst, e.g.sct[r], int(y), gv, B, at[r], mask)
			gatherRow(dst, e.g.sct[R+r], int(y), gv, B, at[R+r], mask)
		}
		sparse.Axpy(dst, at[2*R], gv[int(y)*B:int(y)*B+B])
	}
}

// stepFull computes u = A x for step t with the gather kernel over every
// row that may become nonzero (a dense frontier). It sets act[t] and marks
// every column of its rows in cm[t].
func (e *engine) stepFull(tk *task, t int, at []float32, w *scratch) {
	B := tk.B
	x, u, prev := tk.v[t-1], tk.v[t], tk.act[t-1]
	tk.act[t] = e.expand(tk.act[t], prev, w)
	sparse.GatherAdd(u, &e.g.inc.Incidence, at, e.skip(), x, B, tk.act[t])
	aI := at[2*e.R]
	for _, y := range prev {
		sparse.Axpy(u[int(y)*B:int(y)*B+B], aI, x[int(y)*B:int(y)*B+B])
	}
	full, cm := fullMask(B), tk.cm[t]
	for _, y := range tk.act[t] {
		cm[y] = full
	}
}

// backFull is the backward pass of stepFull: given gv, the gradient with
// respect to u_t on the rows act[t], it writes dA and, when adj is set, the
// gradient with respect to v_{t−1} on the rows act[t−1] into gp (zero
// there on entry).
func (e *engine) backFull(tk *task, t int, at []float32, gv, gp []float32, dA []float64, adj bool) {
	B := tk.B
	x, prev := tk.v[t-1], tk.act[t-1]
	sk := e.skip()
	clear(dA)
	sparse.GatherDot(dA, &e.g.inc.Incidence, sk, gv, x, B, tk.act[t])
	var s float64
	for _, y := range prev {
		s += sparse.Dot(gv[int(y)*B:int(y)*B+B], x[int(y)*B:int(y)*B+B])
	}
	dA[2*e.R] = s
	if !adj {
		return
	}
	sparse.GatherAdd(gp, &e.g.sinc, at, sk, gv, B, prev)
	aI := at[2*e.R]
	for _, y := range prev {
		sparse.Axpy(gp[int(y)*B:int(y)*B+B], aI, gv[int(y)*B:int(y)*B+B])
	}
}
