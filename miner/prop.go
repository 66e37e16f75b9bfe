package miner

import (
	"math/bits"
	"slices"

	"github.com/drumql/drumql/internal/workpool"
	"github.com/drumql/drumql/miner/internal/sparse"
)

// group is a block of queries that share a query relation q (0..2R−1; q ≥ R
// is inv_(q−R)): query i asks for the answer of given[i].
//
// Queries with the same given entity propagate identically (the same start,
// the same masked edges), so they may share a column of the block: cols[i]
// is then query i's column and start[c] the given entity of column c (see
// share). With cols nil, query i is column i.
type group struct {
	q      int
	given  []int32
	answer []int32 // −1 when unknown (scoring)
	cols   []int32
	start  []int32
}

// width is the number of columns of the group's blocks.
func (g *group) width() int {
	if g.cols == nil {
		return len(g.given)
	}
	return len(g.start)
}

// starts returns the given entity of every column.
func (g *group) starts() []int32 {
	if g.cols == nil {
		return g.given
	}
	return g.start
}

// col returns query i's column.
func (g *group) col(i int) int {
	if g.cols == nil {
		return i
	}
	return int(g.cols[i])
}

// share gives the queries with the same given entity one column, in the
// order of their first query; seen is scratch (cleared here).
func (g *group) share(seen map[int32]int32) {
	clear(seen)
	g.cols, g.start = g.cols[:0], g.start[:0]
	for _, y := range g.given {
		c, ok := seen[y]
		if !ok {
			c = int32(len(g.start))
			seen[y] = c
			g.start = append(g.start, y)
		}
		g.cols = append(g.cols, c)
	}
}

// task is the propagation of one (group, rank): the blocks v_0..v_T
// (entities × B, row-major float32), their active rows (a sorted superset of
// the nonzero rows) and the column norms of every step.
type task struct {
	B    int
	v    [][]float32 // T+1 blocks
	act  [][]int32   // T+1 active row lists
	cm   [][]uint64  // T+1 column masks, valid on the active rows (colmask.go)
	wide int         // rows with this many columns in their mask are moved whole
	path []uint8     // [t]: how step t was computed (pathMasked, …)
	norm [][]float64 // [t] per column (t = 1..T; index 0 unused)
	nb   []float64   // per column scratch of the backward normalisation
	dA   [][]float64 // [t−1][k] gradient with respect to the attention

	// Last-step shortcut (training): v_T is only computed at the answers.
	last  []float64 // per query i: v_T[answer[i], col(i)]
	D     []float64 // per entity: column sum of A_T (valid on act[T−1])
	w     []float64 // per entity scratch of the backward pass
	mark  []uint32  // membership of act[T−1]
	stamp uint32
}

// scratch is per-worker memory for the backward pass.
type scratch struct {
	g0, g1 []float32
	c      []float64
	mark   []uint32
	stamp  uint32
}

// engine runs forward and backward propagation over a Graph.
type engine struct {
	g       *Graph
	R, K, T int
	E       int
	threads int
	all     []int32 // 0..E−1
	tasks   []*task
	work    []*scratch
	mask    *sparse.Mask // the masked relation's mask, or nil
	maskRel int
	mode    int        // tests: 0 choose per step, 1 always row lists, 2 always full kernels, 3 and 4 always column masks (rows never / always whole)
	masked  [][2]int32 // (head, tail) of the masked edges of maskRel
	// fullLast disables the last-step shortcut of training (tests).
	fullLast bool
	// budget bounds the bytes of a batch's blocks (blockBudget; tests lower
	// it to force chunks).
	budget int
}

// isDense reports whether a step whose input has the active rows act uses
// the full-matrix kernels rather than the row-list ones.
func (e *engine) isDense(act []int32) bool {
	switch e.mode {
	case 1:
		return false
	case 2:
		return true
	}
	return len(act)*2 > e.E
}

func newEngine(g *Graph, R, T, threads int) *engine {
	e := &engine{g: g, R: R, K: 2*R + 1, T: T, E: g.NumEntities(), threads: max(threads, 1), maskRel: -1, budget: blockBudget}
	e.all = make([]int32, e.E)
	for i := range e.all {
		e.all[i] = int32(i)
	}
	return e
}

// ensure allocates n tasks and the worker scratch for blocks of B columns.
func (e *engine) ensure(n, B int) {
	for len(e.tasks) < n {
		tk := &task{
			v:    make([][]float32, e.T+1),
			act:  make([][]int32, e.T+1),
			cm:   make([][]uint64, e.T+1),
			path: make([]uint8, e.T+1),
			norm: make([][]float64, e.T+1),
			dA:   make([][]float64, e.T),
		}
		for t := range e.T {
			tk.dA[t] = make([]float64, e.K)
		}
		e.tasks = append(e.tasks, tk)
	}
	for _, tk := range e.tasks[:n] {
		for t := range tk.v {
			if cap(tk.v[t]) < e.E*B {
				tk.v[t] = make([]float32, e.E*B)
				tk.act[t] = tk.act[t][:0]
				if tk.cm[t] != nil {
					clear(tk.cm[t])
				}
			}
			if cap(tk.norm[t]) < B {
				tk.norm[t] = make([]float64, B)
			}
		}
		if cap(tk.last) < B {
			tk.last = make([]float64, B)
		}
		if cap(tk.nb) < B {
			tk.nb = make([]float64, B)
		}
		if tk.D == nil {
			for t := range tk.cm {
				tk.cm[t] = make([]uint64, e.E)
			}
			tk.D = make([]float64, e.E)
			tk.w = make([]float64, e.E)
			tk.mark = make([]uint32, e.E)
		}
	}
	nw := min(e.threads, n)
	for len(e.work) < nw {
		e.work = append(e.work, &scratch{mark: make([]uint32, e.E)})
	}
	for _, w := range e.work {
		if cap(w.g0) < e.E*B {
			w.g0 = make([]float32, e.E*B)
			w.g1 = make([]float32, e.E*B)
		}
	}
}

// run calls f(i, worker) for i in [0, n) on up to e.threads goroutines,
// each with its own scratch (see workpool.Run).
func (e *engine) run(n int, f func(i int, w *scratch)) {
	workpool.Run(e.threads, n, func(w, i int) bool {
		f(i, e.work[w])
		return true
	})
}

// each calls f(i) for i in [0, n) on up to e.threads goroutines, without
// worker scratch.
func (e *engine) each(n int, f func(i int)) {
	workpool.Run(e.threads, n, func(_, i int) bool {
		f(i)
		return true
	})
}

// clearRows zeroes rows of the B-column block x (all rows when rows covers
// more than half of them).
func clearRows(x []float32, B int, rows []int32, E int) {
	if len(rows)*2 > E {
		clear(x[:E*B])
		return
	}
	for _, y := range rows {
		clear(x[int(y)*B : int(y)*B+B])
	}
}

// expand returns the sorted union of act and its neighbours, in dst.
func (e *engine) expand(dst, act []int32, w *scratch) []int32 {
	if len(act)*2 > e.E {
		return append(dst[:0], e.all...)
	}
	w.stamp++
	if w.stamp == 0 {
		clear(w.mark)
		w.stamp = 1
	}
	s := w.stamp
	dst = dst[:0]
	nb := e.g.nb
	for _, y := range act {
		if w.mark[y] != s {
			w.mark[y] = s
			dst = append(dst, y)
		}
		for _, x := range nb.row(y) {
			if w.mark[x] != s {
				w.mark[x] = s
				dst = append(dst, x)
			}
		}
	}
	if len(dst)*8 > e.E {
		dst = dst[:0]
		for i, m := range w.mark {
			if m == s {
				dst = append(dst, int32(i))
			}
		}
	} else {
		slices.Sort(dst)
	}
	return dst
}

// maskOf returns the mask to use for relation r.
func (e *engine) maskOf(r int) *sparse.Mask {
	if r == e.maskRel {
		return e.mask
	}
	return nil
}

// forward propagates group gr through T steps with attention a[t][k] into
// tk, reusing its buffers.
//
// With short set (training), the last step is not materialised: only
// v_T[answer[i], col(i)] is computed, into tk.last, from the column sums of the
// last operator (see lastForward).
func (e *engine) forward(tk *task, gr *group, a [][]float32, w *scratch, short bool) {
	B := gr.width()
	E, T := e.E, e.T
	// Clear what the previous use left behind.
	for t := range tk.v {
		if tk.B > 0 {
			clearRows(tk.v[t], tk.B, tk.act[t], E)
			clearMasks(tk.cm[t], tk.act[t])
		}
		tk.v[t] = tk.v[t][:E*B]
	}
	tk.B, tk.wide = B, e.wideFrom()
	v0, cm0 := tk.v[0], tk.cm[0]
	act := tk.act[0][:0]
	for b, y := range gr.starts() {
		if y < 0 {
			continue // an entity outside the graph: no mass in the graph
		}
		v0[int(y)*B+b] = 1
		cm0[y] |= 1 << uint(b%64)
		act = append(act, y)
	}
	slices.Sort(act)
	tk.act[0] = slices.Compact(act)
	steps := T
	if short {
		steps = T - 1
		tk.act[T] = tk.act[T][:0]
	}
	for t := 1; t <= steps; t++ {
		prev, at := tk.act[t-1], a[t-1]
		tk.path[t] = e.choosePath(prev, tk.cm[t-1], B)
		switch tk.path[t] {
		case pathMasked:
			e.stepMasked(tk, t, at)
		case pathFull:
			e.stepFull(tk, t, at, w)
		default:
			e.stepRows(tk, t, at, w)
		}
		tk.normalise(t)
	}
	if short {
		e.lastForward(tk, gr, a[T-1])
	}
}

// clearMasks zeroes the masks of rows (all of them when rows covers more
// than half).
func clearMasks(cm []uint64, rows []int32) {
	if len(rows)*2 > len(cm) {
		clear(cm)
		return
	}
	for _, y := range rows {
		cm[y] = 0
	}
}

// opMasked reports whether entry p of the incidence list is a masked edge.
func (e *engine) opMasked(p int64) bool {
	return e.skip().Has(e.g.inc.Op[p], e.g.inc.Edge[p])
}

// lastForward computes the last step at the answers only. With
// x = v_{T−1} and A = Σ_k a_k M_k + a_I I, the column sum of u = A x is
// Σ_y D(y) x[y,b] with D(y) = Σ_k a_k Σ_x M_k[x,y] + a_I (column degrees,
// less the masked edges), and u[ans,b] = Σ_y A[ans,y] x[y,b] is a gather
// over the row of the answer.
func (e *engine) lastForward(tk *task, gr *group, at []float32) {
	T, R, B := e.T, e.R, tk.B
	x, prev := tk.v[T-1], tk.act[T-1]
	in := &e.g.inc
	aI := float64(at[2*R])
	D := tk.D
	for _, y := range prev {
		d := aI
		for p := in.dptr[y]; p < in.dptr[y+1]; p++ {
			d += float64(at[in.dop[p]]) * float64(in.dcnt[p])
		}
		D[y] = d
	}
	for _, ht := range e.masked {
		// M_r[h, t]: column t of M_r; M_rᵀ[t, h]: column h of M_rᵀ (unless
		// a capped hub removed the entry already).
		if !e.g.isHub(e.maskRel, ht[1]) {
			D[ht[1]] -= float64(at[e.maskRel])
		}
		if !e.g.isHub(R+e.maskRel, ht[0]) {
			D[ht[0]] -= float64(at[R+e.maskRel])
		}
	}
	norm := tk.norm[T][:B]
	clear(norm)
	cm := tk.cm[T-1]
	for _, y := range prev {
		row := x[int(y)*B : int(y)*B+B]
		if m := cm[y]; tk.narrow(m) {
			for ; m != 0; m &= m - 1 {
				b := bits.TrailingZeros64(m)
				norm[b] += float64(D[y] * float64(row[b]))
			}
			continue
		}
		sparse.ColMulAdd(norm, D[y], row)
	}
	for b := range norm {
		norm[b] = max(norm[b], thr)
	}
	if n := len(gr.answer); cap(tk.last) < n {
		tk.last = make([]float64, n)
	}
	tk.last = tk.last[:len(gr.answer)]
	for i, ans := range gr.answer {
		b := gr.col(i)
		u := aI * float64(x[int(ans)*B+b])
		for p := in.Ptr[ans]; p < in.Ptr[ans+1]; p++ {
			if e.opMasked(p) {
				continue
			}
			u += float64(at[in.Op[p]]) * float64(x[int(in.Col[p])*B+b])
		}
		tk.last[i] = u / norm[b]
	}
}

// lastBackward is the backward pass of lastForward: it writes tk.dA[T−1]
// and, when T > 1, the gradient with respect to v_{T−1} on the rows
// act[T−1] into gv (zero on entry).
func (e *engine) lastBackward(tk *task, gr *group, at []float32, seed []float64, gv []float32) {
	T, R, B := e.T, e.R, tk.B
	x, prev := tk.v[T-1], tk.act[T-1]
	in := &e.g.inc
	norm := tk.norm[T]
	// The gradient with respect to column b of u_T is Σ_i α_i [x = ans_i]
	// − β_b over its queries i, with β_b = Σ_i α_i last_i.
	alpha, beta := make([]float64, len(gr.answer)), make([]float64, B)
	for i := range gr.answer {
		b := gr.col(i)
		if norm[b] > thr {
			alpha[i] = seed[i] / norm[b]
			beta[b] += alpha[i] * tk.last[i]
		} else {
			alpha[i] = seed[i] / thr
		}
	}
	dA := tk.dA[T-1]
	clear(dA)
	aI := float64(at[2*R])
	// Spike: α_i (M_k x)[ans_i, col(i)].
	for i, ans := range gr.answer {
		if alpha[i] == 0 {
			continue
		}
		b := gr.col(i)
		dA[2*R] += alpha[i] * float64(x[int(ans)*B+b])
		for p := in.Ptr[ans]; p < in.Ptr[ans+1]; p++ {
			if e.opMasked(p) {
				continue
			}
			dA[in.Op[p]] += alpha[i] * float64(x[int(in.Col[p])*B+b])
		}
	}
	// Constant: −Σ_y deg_k(y) w[y] with w[y] = Σ_b β_b x[y,b].
	wv, cm := tk.w, tk.cm[T-1]
	for _, y := range prev {
		row := x[int(y)*B : int(y)*B+B]
		var s float64
		if m := cm[y]; tk.narrow(m) {
			for ; m != 0; m &= m - 1 {
				b := bits.TrailingZeros64(m)
				s += float64(beta[b] * float64(row[b]))
			}
		} else {
			s = sparse.ColDot(beta, row)
		}
		wv[y] = s
		dA[2*R] -= s
		for p := in.dptr[y]; p < in.dptr[y+1]; p++ {
			dA[in.dop[p]] -= float64(in.dcnt[p]) * s
		}
	}
	tk.stamp++
	if tk.stamp == 0 {
		clear(tk.mark)
		tk.stamp = 1
	}
	st := tk.stamp
	for _, y := range prev {
		tk.mark[y] = st
	}
	for _, ht := range e.masked {
		if tk.mark[ht[1]] == st && !e.g.isHub(e.maskRel, ht[1]) {
			dA[e.maskRel] += wv[ht[1]]
		}
		if tk.mark[ht[0]] == st && !e.g.isHub(R+e.maskRel, ht[0]) {
			dA[R+e.maskRel] += wv[ht[0]]
		}
	}
	if T == 1 {
		return
	}
	// Adjoint: gv[y,b] = α_b A[ans_b, y] − β_b D(y) on the rows prev.
	for _, y := range prev {
		row := gv[int(y)*B : int(y)*B+B]
		d := tk.D[y]
		if m := cm[y]; tk.narrow(m) {
			// Only the columns where v_{T−1} may be nonzero are read.
			for ; m != 0; m &= m - 1 {
				b := bits.TrailingZeros64(m)
				row[b] = float32(beta[b] * -d)
			}
			continue
		}
		sparse.ColSet(row, -d, beta)
	}
	for i, ans := range gr.answer {
		if alpha[i] == 0 {
			continue
		}
		b := gr.col(i)
		if tk.mark[ans] == st {
			gv[int(ans)*B+b] += float32(alpha[i] * aI)
		}
		for p := in.Ptr[ans]; p < in.Ptr[ans+1]; p++ {
			y := in.Col[p]
			if tk.mark[y] != st || e.opMasked(p) {
				continue
			}
			gv[int(y)*B+b] += float32(alpha[i] * float64(at[in.Op[p]]))
		}
	}
}

// backward backpropagates the seed gradient (seed[i] with respect to
// v_T[answer[i], col(i)]) through tk's propagation, writing tk.dA.
func (e *engine) backward(tk *task, gr *group, a [][]float32, seed []float64, w *scratch, short bool) {
	B := tk.B
	E, T := e.E, e.T
	gv, gp := w.g0[:E*B], w.g1[:E*B]
	start := T
	if short {
		e.lastBackward(tk, gr, a[T-1], seed, gv)
		start = T - 1
	} else {
		for i, y := range gr.answer {
			if y >= 0 && seed[i] != 0 {
				gv[int(y)*B+gr.col(i)] += float32(seed[i])
			}
		}
	}
	if cap(w.c) < B {
		w.c = make([]float64, B)
	}
	c := w.c[:B]
	for t := start; t >= 1; t-- {
		act := tk.act[t]
		tk.normaliseBack(t, gv, c)
		// gv now holds the gradient with respect to u_t on the rows act.
		switch tk.path[t] {
		case pathMasked:
			e.backMasked(tk, t, a[t-1], gv, gp, tk.dA[t-1], t > 1)
		case pathFull:
			e.backFull(tk, t, a[t-1], gv, gp, tk.dA[t-1], t > 1)
		default:
			e.backRows(tk, t, a[t-1], gv, gp)
		}
		clearRows(gv, B, act, E)
		if t == 1 {
			break
		}
		gv, gp = gp, gv
	}
	// gv is clean (cleared above); gp may hold nothing. Both scratch blocks
	// are zero again.
}

// gatherRow adds alpha · Σ_{entries (y, c) of m, edge not masked} x[c,:] to dst.
func gatherRow(dst []float32, m *sparse.CSR, y int, x []float32, B int, alpha float32, mask *sparse.Mask) {
	lo, hi := m.Span(int32(y))
	for p := lo; p < hi; p++ {
		if mask != nil && mask.Has(m.EdgeID(p)) {
			continue
		}
		c := int(m.Col[p])
		sparse.Axpy(dst, alpha, x[c*B:c*B+B])
	}
}
