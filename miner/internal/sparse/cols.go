package sparse

// Column kernels: element-wise operations between a row of a float32 block
// and per-column float64 vectors (the column sums and scales of DRUM's
// normalisation). Every kernel set computes the element-wise ones with the
// same IEEE operations in the same order per element (no fused
// multiply-add), so their results are identical across kernel sets; only
// ColDot's summation order differs.

// colKernels is the set of column kernels of a kernel set.
type colKernels struct {
	add     func(acc []float64, x []float32)
	mulAdd  func(acc []float64, d float64, x []float32)
	prodAdd func(acc []float64, g, x []float32)
	div     func(x []float32, n []float64)
	subDiv  func(x []float32, c, n []float64)
	set     func(dst []float32, d float64, w []float64)
	dot     func(w []float64, x []float32) float64
}

// ColAdd computes acc[b] += float64(x[b]) for b < len(acc).
func ColAdd(acc []float64, x []float32) { kern.col.add(acc, x[:len(acc)]) }

// ColMulAdd computes acc[b] += d · float64(x[b]) for b < len(acc).
func ColMulAdd(acc []float64, d float64, x []float32) { kern.col.mulAdd(acc, d, x[:len(acc)]) }

// ColProdAdd computes acc[b] += float64(g[b]) · float64(x[b]) for
// b < len(acc).
func ColProdAdd(acc []float64, g, x []float32) {
	kern.col.prodAdd(acc, g[:len(acc)], x[:len(acc)])
}

// ColDiv computes x[b] = float32(float64(x[b]) / n[b]) for b < len(x).
func ColDiv(x []float32, n []float64) { kern.col.div(x, n[:len(x)]) }

// ColSubDiv computes x[b] = float32((float64(x[b]) − c[b]) / n[b]) for
// b < len(x).
func ColSubDiv(x []float32, c, n []float64) { kern.col.subDiv(x, c[:len(x)], n[:len(x)]) }

// ColSet computes dst[b] = float32(w[b] · d) for b < len(dst).
func ColSet(dst []float32, d float64, w []float64) { kern.col.set(dst, d, w[:len(dst)]) }

// ColDot returns Σ w[b] · float64(x[b]) over b < len(w); the summation
// order depends on the kernel set.
func ColDot(w []float64, x []float32) float64 { return kern.col.dot(w, x[:len(w)]) }

var refCols = colKernels{
	add: func(acc []float64, x []float32) {
		for b, v := range x {
			acc[b] += float64(v)
		}
	},
	mulAdd: func(acc []float64, d float64, x []float32) {
		for b, v := range x {
			acc[b] += float64(d * float64(v)) // the conversion forbids a fused multiply-add
		}
	},
	prodAdd: func(acc []float64, g, x []float32) {
		for b, v := range x {
			acc[b] += float64(float64(g[b]) * float64(v))
		}
	},
	div: func(x []float32, n []float64) {
		for b, v := range x {
			x[b] = float32(float64(v) / n[b])
		}
	},
	subDiv: func(x []float32, c, n []float64) {
		for b, v := range x {
			x[b] = float32((float64(v) - c[b]) / n[b])
		}
	},
	set: func(dst []float32, d float64, w []float64) {
		for b := range dst {
			dst[b] = float32(w[b] * d)
		}
	},
	dot: func(w []float64, x []float32) float64 {
		var s float64
		for b, v := range x {
			s += float64(w[b] * float64(v))
		}
		return s
	},
}
