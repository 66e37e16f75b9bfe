package sparse

// Pure-Go reference kernels. They are always built, they are the fallback
// when no SIMD kernel is available, and they are the oracle in tests.

// refMulAddRange computes, for the stored rows r0..r1-1 (row i = m.RowAt(k)),
// dst[i,:] += alpha * Σ_{p in row i, edge not masked} x[Col[p],:]
// entry by entry in storage order.
func refMulAddRange(dst []float32, m *CSR, x []float32, B int, alpha float32, mask *Mask, r0, r1 int) {
	if mask.empty() {
		mask = nil
	}
	if B == 1 {
		// Same additions in the same order, without per-entry calls.
		for k := r0; k < r1; k++ {
			i := m.RowAt(k)
			d := dst[i]
			for p := m.RowPtr[k]; p < m.RowPtr[k+1]; p++ {
				if mask != nil && mask.Has(m.EdgeID(p)) {
					continue
				}
				d += alpha * x[m.Col[p]]
			}
			dst[i] = d
		}
		return
	}
	for k := r0; k < r1; k++ {
		i := int(m.RowAt(k))
		d := dst[i*B : i*B+B]
		for p := m.RowPtr[k]; p < m.RowPtr[k+1]; p++ {
			if mask != nil && mask.Has(m.EdgeID(p)) {
				continue
			}
			j := int(m.Col[p])
			refAxpy(d, alpha, x[j*B:j*B+B])
		}
	}
}

// refEdgeDotRange returns, over the stored rows r0..r1-1, Σ_i Σ_{p in row i, not masked}
// dot(g[i,:], x[Col[p],:]); each per-entry dot is a float32 sum, the sum
// over entries and rows is float64.
func refEdgeDotRange(m *CSR, g, x []float32, B int, mask *Mask, r0, r1 int) float64 {
	if mask.empty() {
		mask = nil
	}
	var s float64
	if B == 1 {
		for k := r0; k < r1; k++ {
			gi := g[m.RowAt(k)]
			for p := m.RowPtr[k]; p < m.RowPtr[k+1]; p++ {
				if mask != nil && mask.Has(m.EdgeID(p)) {
					continue
				}
				s += float64(gi * x[m.Col[p]])
			}
		}
		return s
	}
	for k := r0; k < r1; k++ {
		i := int(m.RowAt(k))
		gi := g[i*B : i*B+B]
		for p := m.RowPtr[k]; p < m.RowPtr[k+1]; p++ {
			if mask != nil && mask.Has(m.EdgeID(p)) {
				continue
			}
			j := int(m.Col[p])
			s += float64(refDot32(gi, x[j*B:j*B+B]))
		}
	}
	return s
}

// refAxpy computes d += alpha*x elementwise (len(x) >= len(d)).
func refAxpy(d []float32, alpha float32, x []float32) {
	x = x[:len(d)]
	n := len(d) &^ 3
	for c := 0; c < n; c += 4 {
		dd := d[c : c+4 : c+4]
		xx := x[c : c+4 : c+4]
		dd[0] += alpha * xx[0]
		dd[1] += alpha * xx[1]
		dd[2] += alpha * xx[2]
		dd[3] += alpha * xx[3]
	}
	for c := n; c < len(d); c++ {
		d[c] += alpha * x[c]
	}
}

// refDot32 returns Σ a[c]*b[c] in float32 with four partial sums
// (len(b) >= len(a)).
func refDot32(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	n := len(a) &^ 3
	for c := 0; c < n; c += 4 {
		aa := a[c : c+4 : c+4]
		bb := b[c : c+4 : c+4]
		s0 += aa[0] * bb[0]
		s1 += aa[1] * bb[1]
		s2 += aa[2] * bb[2]
		s3 += aa[3] * bb[3]
	}
	for c := n; c < len(a); c++ {
		s0 += a[c] * b[c]
	}
	return (s0 + s1) + (s2 + s3)
}

// refDot64 returns Σ a[c]*b[c] as float64 (float32 products and partial
// sums, see refDot32, widened once).
func refDot64(a, b []float32) float64 { return float64(refDot32(a, b)) }

// refScale computes d *= alpha.
func refScale(d []float32, alpha float32) {
	for c := range d {
		d[c] *= alpha
	}
}
