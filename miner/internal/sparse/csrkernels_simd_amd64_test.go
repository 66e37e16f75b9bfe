//go:build goexperiment.simd && amd64

package sparse

import "simd/archsimd"

func init() {
	csrKernelsOf["avx512"] = csrKernels{mulAdd512, edgeDot512}
	csrKernelsOf["avx2"] = csrKernels{mulAdd256, edgeDot256}
}

// simdKernels returns the SIMD kernel sets usable on this CPU (for tests).
func simdKernels() []kernels {
	var ks []kernels
	if archsimd.X86.AVX512() {
		ks = append(ks, kernels{name: "avx512", axpy: axpy512, dot: dot512, col: cols512, gather: gather512, adam: adam512})
	}
	if archsimd.X86.AVX2() && archsimd.X86.FMA() {
		ks = append(ks, kernels{name: "avx2", axpy: axpy256, dot: dot256, col: refCols, gather: refGather, adam: refAdam})
	}
	return ks
}

// rowCols returns the column indices of the unmasked entries p0..p1-1 of m:
// m.Col[p0:p1] itself when mask is nil, else a filtered copy in buf[:0]
// (grown if needed). It also returns the buffer to reuse.
func rowCols(m *CSR, mask *Mask, p0, p1 int32, buf []int32) (cols, nbuf []int32) {
	cols = m.Col[p0:p1]
	if mask == nil {
		return cols, buf
	}
	b := buf[:0]
	w := mask.w
	for k, j := range cols {
		e := uint(m.EdgeID(p0 + int32(k)))
		if e>>6 < uint(len(w)) && w[e>>6]&(1<<(e&63)) != 0 {
			continue
		}
		b = append(b, j)
	}
	return b, b
}

// mulAdd512 keeps a tile of dst row i in registers while it accumulates
// alpha*x[j,tile] over the unmasked entries of row i (fused multiply-add),
// in entry order, so each dst element sees the same sequence of additions
// as the reference.
func mulAdd512(dst []float32, m *CSR, x []float32, B int, alpha float32, mask *Mask, r0, r1 int) {
	if B < 16 {
		refMulAddRange(dst, m, x, B, alpha, mask, r0, r1)
		return
	}
	if mask.empty() {
		mask = nil
	}
	var stack [256]int32
	buf := stack[:0]
	va := archsimd.BroadcastFloat32x16(alpha)
	for k := r0; k < r1; k++ {
		p0, p1 := m.RowPtr[k], m.RowPtr[k+1]
		if p0 == p1 {
			continue
		}
		var cols []int32
		cols, buf = rowCols(m, mask, p0, p1, buf)
		if len(cols) == 0 {
			continue
		}
		i := int(m.RowAt(k))
		d := dst[i*B : i*B+B]
		c := 0
		for ; c+64 <= B; c += 64 {
			a0, a1, a2, a3 := ld16(d, c), ld16(d, c+16), ld16(d, c+32), ld16(d, c+48)
			for _, j := range cols {
				o := int(j)*B + c
				xs := x[o : o+64 : o+64]
				a0 = va.MulAdd(ld16(xs, 0), a0)
				a1 = va.MulAdd(ld16(xs, 16), a1)
				a2 = va.MulAdd(ld16(xs, 32), a2)
				a3 = va.MulAdd(ld16(xs, 48), a3)
			}
			st16(a0, d, c)
			st16(a1, d, c+16)
			st16(a2, d, c+32)
			st16(a3, d, c+48)
		}
		for ; c+16 <= B; c += 16 {
			a0 := ld16(d, c)
			for _, j := range cols {
				a0 = va.MulAdd(ld16(x, int(j)*B+c), a0)
			}
			st16(a0, d, c)
		}
		if c < B {
			mulAddTail(d, cols, x, B, alpha, c)
		}
	}
	archsimd.ClearAVXUpperBits()
}

// mulAddTail is the scalar tail: columns c..B-1 of one dst row, for the x
// rows cols.
func mulAddTail(d []float32, cols []int32, x []float32, B int, alpha float32, c int) {
	t := d[c:]
	for _, j := range cols {
		o := int(j)*B + c
		xs := x[o : o+len(t)]
		for k := range t {
			t[k] += alpha * xs[k]
		}
	}
}

// edgeDotTail returns the scalar dot of columns c..B-1 of g row gi with the
// x rows cols.
func edgeDotTail(gi []float32, cols []int32, x []float32, B int, c int) float32 {
	t := gi[c:]
	var s float32
	for _, j := range cols {
		o := int(j)*B + c
		xs := x[o : o+len(t)]
		for k := range t {
			s += t[k] * xs[k]
		}
	}
	return s
}

// edgeDot512 accumulates, per row and column tile, the products
// g[i,tile]*x[j,tile] over the row's unmasked entries in float32 lanes,
// reduces the lanes per row and adds the row sum in float64.
func edgeDot512(m *CSR, g, x []float32, B int, mask *Mask, r0, r1 int) float64 {
	if B < 16 {
		return refEdgeDotRange(m, g, x, B, mask, r0, r1)
	}
	if mask.empty() {
		mask = nil
	}
	var stack [256]int32
	buf := stack[:0]
	var s float64
	for k := r0; k < r1; k++ {
		p0, p1 := m.RowPtr[k], m.RowPtr[k+1]
		if p0 == p1 {
			continue
		}
		var cols []int32
		cols, buf = rowCols(m, mask, p0, p1, buf)
		if len(cols) == 0 {
			continue
		}
		i := int(m.RowAt(k))
		gi := g[i*B : i*B+B]
		var rs float32
		c := 0
		for ; c+64 <= B; c += 64 {
			g0, g1, g2, g3 := ld16(gi, c), ld16(gi, c+16), ld16(gi, c+32), ld16(gi, c+48)
			var a0, a1, a2, a3 archsimd.Float32x16
			for _, j := range cols {
				o := int(j)*B + c
				xs := x[o : o+64 : o+64]
				a0 = g0.MulAdd(ld16(xs, 0), a0)
				a1 = g1.MulAdd(ld16(xs, 16), a1)
				a2 = g2.MulAdd(ld16(xs, 32), a2)
				a3 = g3.MulAdd(ld16(xs, 48), a3)
			}
			rs += hsum16(a0.Add(a1).Add(a2.Add(a3)))
		}
		for ; c+16 <= B; c += 16 {
			g0 := ld16(gi, c)
			var a0 archsimd.Float32x16
			for _, j := range cols {
				a0 = g0.MulAdd(ld16(x, int(j)*B+c), a0)
			}
			rs += hsum16(a0)
		}
		if c < B {
			rs += edgeDotTail(gi, cols, x, B, c)
		}
		s += float64(rs)
	}
	archsimd.ClearAVXUpperBits()
	return s
}

// mulAdd256 is mulAdd512 with 8-lane vectors and column tiles of 32.
func mulAdd256(dst []float32, m *CSR, x []float32, B int, alpha float32, mask *Mask, r0, r1 int) {
	if B < 8 {
		refMulAddRange(dst, m, x, B, alpha, mask, r0, r1)
		return
	}
	if mask.empty() {
		mask = nil
	}
	var stack [256]int32
	buf := stack[:0]
	va := archsimd.BroadcastFloat32x8(alpha)
	for k := r0; k < r1; k++ {
		p0, p1 := m.RowPtr[k], m.RowPtr[k+1]
		if p0 == p1 {
			continue
		}
		var cols []int32
		cols, buf = rowCols(m, mask, p0, p1, buf)
		if len(cols) == 0 {
			continue
		}
		i := int(m.RowAt(k))
		d := dst[i*B : i*B+B]
		c := 0
		for ; c+32 <= B; c += 32 {
			a0, a1, a2, a3 := ld8(d, c), ld8(d, c+8), ld8(d, c+16), ld8(d, c+24)
			for _, j := range cols {
				o := int(j)*B + c
				xs := x[o : o+32 : o+32]
				a0 = va.MulAdd(ld8(xs, 0), a0)
				a1 = va.MulAdd(ld8(xs, 8), a1)
				a2 = va.MulAdd(ld8(xs, 16), a2)
				a3 = va.MulAdd(ld8(xs, 24), a3)
			}
			st8(a0, d, c)
			st8(a1, d, c+8)
			st8(a2, d, c+16)
			st8(a3, d, c+24)
		}
		for ; c+8 <= B; c += 8 {
			a0 := ld8(d, c)
			for _, j := range cols {
				a0 = va.MulAdd(ld8(x, int(j)*B+c), a0)
			}
			st8(a0, d, c)
		}
		if c < B {
			mulAddTail(d, cols, x, B, alpha, c)
		}
	}
	archsimd.ClearAVXUpperBits()
}

// edgeDot256 is edgeDot512 with 8-lane vectors and column tiles of 32.
func edgeDot256(m *CSR, g, x []float32, B int, mask *Mask, r0, r1 int) float64 {
	if B < 8 {
		return refEdgeDotRange(m, g, x, B, mask, r0, r1)
	}
	if mask.empty() {
		mask = nil
	}
	var stack [256]int32
	buf := stack[:0]
	var s float64
	for k := r0; k < r1; k++ {
		p0, p1 := m.RowPtr[k], m.RowPtr[k+1]
		if p0 == p1 {
			continue
		}
		var cols []int32
		cols, buf = rowCols(m, mask, p0, p1, buf)
		if len(cols) == 0 {
			continue
		}
		i := int(m.RowAt(k))
		gi := g[i*B : i*B+B]
		var rs float32
		c := 0
		for ; c+32 <= B; c += 32 {
			g0, g1, g2, g3 := ld8(gi, c), ld8(gi, c+8), ld8(gi, c+16), ld8(gi, c+24)
			var a0, a1, a2, a3 archsimd.Float32x8
			for _, j := range cols {
				o := int(j)*B + c
				xs := x[o : o+32 : o+32]
				a0 = g0.MulAdd(ld8(xs, 0), a0)
				a1 = g1.MulAdd(ld8(xs, 8), a1)
				a2 = g2.MulAdd(ld8(xs, 16), a2)
				a3 = g3.MulAdd(ld8(xs, 24), a3)
			}
			rs += hsum8(a0.Add(a1).Add(a2.Add(a3)))
		}
		for ; c+8 <= B; c += 8 {
			g0 := ld8(gi, c)
			var a0 archsimd.Float32x8
			for _, j := range cols {
				a0 = g0.MulAdd(ld8(x, int(j)*B+c), a0)
			}
			rs += hsum8(a0)
		}
		if c < B {
			rs += edgeDotTail(gi, cols, x, B, c)
		}
		s += float64(rs)
	}
	archsimd.ClearAVXUpperBits()
	return s
}
