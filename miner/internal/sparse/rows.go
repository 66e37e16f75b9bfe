package sparse

// Kernels for a sparse dense block: when only a few rows of x are nonzero
// (at step 1 of DRUM x is one-hot per column), iterate the transpose from the
// active source rows instead of scanning every row of M.

// MulAddRows computes dst += alpha * M x for an x whose only nonzero rows
// are listed in rows (rows of x not listed are ignored). It takes t = Mᵀ
// (for example m.Transpose(), which keeps the edge ids, so the same mask
// applies) and scatters from the active rows:
//
//	for y in rows, for each entry (y, i) of t not masked: dst[i,:] += alpha*x[y,:]
//
// dst is t.Cols×B and x is t.Rows×B. The cost is proportional to the entries
// of the listed rows only. The summation order (rows order, then t's entry
// order) differs from a row-by-row product (MulAdd in the tests), so results
// agree with it up to rounding; they are deterministic for a given rows
// order. rows must not repeat an index unless the repeated contribution is
// intended. It runs serially.
func MulAddRows(dst []float32, t *CSR, x []float32, B int, alpha float32, mask *Mask, rows []int32) {
	if B < 0 || len(dst) < t.Cols*B || len(x) < t.Rows*B {
		panic("sparse.MulAddRows: short operand")
	}
	if B == 0 {
		return
	}
	if mask.empty() {
		mask = nil
	}
	for _, y := range rows {
		xy := x[int(y)*B : int(y)*B+B]
		lo, hi := t.Span(y)
		for p := lo; p < hi; p++ {
			if mask != nil && mask.Has(t.EdgeID(p)) {
				continue
			}
			i := int(t.Col[p])
			kern.axpy(dst[i*B:i*B+B], alpha, xy)
		}
	}
}

// EdgeDotRows returns ⟨G, M X⟩ (the gradient of a loss with respect to the
// scalar weight of operator M when G is the gradient with respect to the
// operator output) for an x whose only nonzero rows are listed in rows,
// given t = Mᵀ:
//
//	Σ_{y in rows} Σ_{entries (y, i) of t not masked} dot(g[i,:], x[y,:])
//
// g is t.Cols×B and x is t.Rows×B. Per-entry dots are float32, the total is
// float64 in rows order. It runs serially.
func EdgeDotRows(t *CSR, g, x []float32, B int, mask *Mask, rows []int32) float64 {
	if B < 0 || len(g) < t.Cols*B || len(x) < t.Rows*B {
		panic("sparse.EdgeDotRows: short operand")
	}
	if B == 0 {
		return 0
	}
	if mask.empty() {
		mask = nil
	}
	var s float64
	for _, y := range rows {
		xy := x[int(y)*B : int(y)*B+B]
		lo, hi := t.Span(y)
		for p := lo; p < hi; p++ {
			if mask != nil && mask.Has(t.EdgeID(p)) {
				continue
			}
			i := int(t.Col[p])
			s += kern.dot(g[i*B:i*B+B], xy)
		}
	}
	return s
}
