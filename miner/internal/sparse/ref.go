package sparse

// Pure-Go reference kernels. They are always built, they are the fallback
// when no SIMD kernel is available, and they are the oracle in tests.

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
