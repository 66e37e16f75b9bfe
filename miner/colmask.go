package miner

import (
	"math/bits"
	"slices"

	"github.com/drumql/drumql/miner/internal/sparse"
)

// Column masks. A block's column b is the propagation of one query: its
// nonzero rows are the entities the query's paths reach, a small part of
// the rows the whole block has active. The path of a step that uses masks
// keeps, per active row y of v_t, the set of columns in which that row may
// be nonzero (cm[t][y], one bit per column). A step then visits every
// operator entry out of a row once, for all operators together (the
// scatter incidence lists), and moves only the columns of the row's mask,
// or the whole row with the vector kernels when the row is nonzero in many
// columns. Its cost is the entries out of the active rows, weighted by how
// many columns each row carries, instead of the entries times the block's
// width plus one row pointer per operator and active row. A block wider
// than maskCols columns (a batch over 64) keeps masks only to mark its
// active rows and moves whole rows.
//
// A mask is structural: it depends on the graph, the masked edges and the
// given entities, never on the attention, so every rank of a group has the
// same masks and active rows. A bit may be set where the value is zero
// (a superset is safe); a value outside the mask is always zero.

// maskCols is the widest block that column masks cover.
const maskCols = 64

// wideRow is the number of columns from which a row is moved whole with the
// vector kernels rather than column by column.
const wideRow = 8

// Step paths, decided by the forward pass and followed by the backward pass.
const (
	pathMasked uint8 = iota // column masks over the scatter incidence lists
	pathRows                // row lists, whole rows, per operator
	pathFull                // full-matrix kernels
)

// buildScatter fills g.sinc from g.sct: per entity y, every entry of row
// y of every operator's scatter matrix sct[k] (where y's mass goes):
// operator k, column x (u[x] += A_k[x, y] v[y]) and edge id, in operator
// order.
func (g *Graph) buildScatter() {
	order := make([]int, len(g.sct))
	for k := range order {
		order[k] = k
	}
	l := byEntity(g.NumEntities(), g.sct, order, true)
	sc := sparse.Incidence{Ptr: l.ptr, Op: l.op, Col: l.col, Edge: l.edge}
	g.sinc = sc
}

// choosePath decides how step t (input rows prev, masks cm) of a block of
// B columns is computed.
func (e *engine) choosePath(prev []int32, cm []uint64, B int) uint8 {
	switch e.mode {
	case 1:
		return pathRows
	case 2:
		return pathFull
	case 3, 4:
		return pathMasked
	}
	if !e.isDense(prev) {
		return pathMasked
	}
	if B > maskCols {
		return pathFull
	}
	// A dense frontier: the gather kernels, unless its rows are sparse in
	// columns (then the masked path does a fraction of their work).
	ones := 0
	for _, y := range prev {
		ones += bits.OnesCount64(cm[y])
	}
	if ones*2 > len(prev)*B {
		return pathFull
	}
	return pathMasked
}

// fullMask is the mask of every column of a B-column block.
func fullMask(B int) uint64 {
	if B >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(B) - 1
}

// skip returns the entries propagation leaves out: the masked edges of the
// masked relation, in both directions.
func (e *engine) skip() sparse.Skip {
	if e.mask == nil || e.maskRel < 0 {
		return sparse.Skip{Op0: -1, Op1: -1}
	}
	return sparse.Skip{Op0: int32(e.maskRel), Op1: int32(e.R + e.maskRel), Mask: e.mask}
}

// stepMasked computes u = A x for step t with column masks: x = v_{t−1} on
// the rows act[t−1], u = v_t (zero on entry). It sets act[t] and cm[t].
func (e *engine) stepMasked(tk *task, t int, at []float32) {
	B := tk.B
	x, u := tk.v[t-1], tk.v[t]
	cin, cout := tk.cm[t-1], tk.cm[t]
	prev := tk.act[t-1]
	out := tk.act[t][:0]
	sc := &e.g.sinc
	sk := e.skip()
	aI := at[2*e.R]
	for _, y := range prev {
		m := cin[y]
		if m == 0 {
			continue
		}
		xr := x[int(y)*B : int(y)*B+B]
		wide := !tk.narrow(m)
		if cout[y] == 0 {
			out = append(out, y)
		}
		cout[y] |= m
		addMasked(u[int(y)*B:int(y)*B+B], aI, xr, m, wide)
		for p := sc.Ptr[y]; p < sc.Ptr[y+1]; p++ {
			k := sc.Op[p]
			if sk.Has(k, sc.Edge[p]) {
				continue
			}
			c := sc.Col[p]
			if cout[c] == 0 {
				out = append(out, c)
			}
			cout[c] |= m
			addMasked(u[int(c)*B:int(c)*B+B], at[k], xr, m, wide)
		}
	}
	tk.act[t] = sortRows(out, cout)
}

// addMasked adds a·x to dst on the columns of m (all of them when wide).
func addMasked(dst []float32, a float32, x []float32, m uint64, wide bool) {
	if wide {
		sparse.Axpy(dst, a, x)
		return
	}
	for ; m != 0; m &= m - 1 {
		b := bits.TrailingZeros64(m)
		dst[b] += a * x[b]
	}
}

// sortRows returns the rows of out (distinct, unordered) in increasing
// order: sorted, or, when they are many, read back from the masks in
// entity order.
func sortRows(out []int32, cm []uint64) []int32 {
	if len(out)*8 <= len(cm) {
		slices.Sort(out)
		return out
	}
	out = out[:0]
	for y, m := range cm {
		if m != 0 {
			out = append(out, int32(y))
		}
	}
	return out
}

// backMasked is the backward pass of stepMasked: given gv, the gradient
// with respect to u_t on the rows act[t], it writes dA (the gradient with
// respect to the step's attention) and, when adj is set, adds the gradient
// with respect to v_{t−1} on the rows act[t−1] to gp (zero there on
// entry). Only the columns of a row's mask are computed: elsewhere v_{t−1}
// is zero, and so is what depends on those entries.
func (e *engine) backMasked(tk *task, t int, at []float32, gv, gp []float32, dA []float64, adj bool) {
	B := tk.B
	x, prev, cin := tk.v[t-1], tk.act[t-1], tk.cm[t-1]
	sc := &e.g.sinc
	sk := e.skip()
	clear(dA)
	iOp := 2 * e.R
	aI := at[iOp]
	for _, y := range prev {
		m := cin[y]
		if m == 0 {
			continue
		}
		o := int(y) * B
		xr := x[o : o+B]
		var dst []float32
		if adj {
			dst = gp[o : o+B]
		}
		wide := !tk.narrow(m)
		dA[iOp] += dotAdd(dst, aI, gv[o:o+B], xr, m, wide)
		for p := sc.Ptr[y]; p < sc.Ptr[y+1]; p++ {
			k := sc.Op[p]
			if sk.Has(k, sc.Edge[p]) {
				continue
			}
			c := int(sc.Col[p]) * B
			dA[k] += dotAdd(dst, at[k], gv[c:c+B], xr, m, wide)
		}
	}
}

// dotAdd returns ⟨g, x⟩ over the columns of m (all of them when wide) and,
// when dst is not nil, adds a·g to dst on those columns.
func dotAdd(dst []float32, a float32, g, x []float32, m uint64, wide bool) float64 {
	if wide {
		if dst != nil {
			sparse.Axpy(dst, a, g)
		}
		return sparse.Dot(g, x)
	}
	var s float32
	if dst == nil {
		for ; m != 0; m &= m - 1 {
			b := bits.TrailingZeros64(m)
			s += g[b] * x[b]
		}
		return float64(s)
	}
	for ; m != 0; m &= m - 1 {
		b := bits.TrailingZeros64(m)
		s += g[b] * x[b]
		dst[b] += a * g[b]
	}
	return float64(s)
}

// narrow reports whether a row of mask m is handled column by column
// rather than whole.
func (tk *task) narrow(m uint64) bool {
	return tk.B <= maskCols && bits.OnesCount64(m) < tk.wide
}

// wideFrom returns the number of columns from which a row is moved whole:
// wideRow, or in the test modes 3 and 4 never and always.
func (e *engine) wideFrom() int {
	switch e.mode {
	case 3:
		return maskCols + 1
	case 4:
		return 0
	}
	return wideRow
}
