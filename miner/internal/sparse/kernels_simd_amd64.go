//go:build goexperiment.simd && amd64

package sparse

import "simd/archsimd"

// selectKernels picks the widest SIMD kernel set the CPU supports.
func selectKernels() kernels {
	switch {
	case archsimd.X86.AVX512():
		return kernels{name: "avx512", axpy: axpy512, dot: dot512, col: cols512, gather: gather512, adam: adam512}
	case archsimd.X86.AVX2() && archsimd.X86.FMA():
		return kernels{name: "avx2", axpy: axpy256, dot: dot256, col: refCols, gather: refGather, adam: refAdam}
	}
	return genericKernels
}

// ---- AVX-512: 16 lanes, column tiles of 64 (4 registers) ----

func ld16(s []float32, o int) archsimd.Float32x16 {
	return archsimd.LoadFloat32x16((*[16]float32)(s[o : o+16]))
}

func st16(v archsimd.Float32x16, s []float32, o int) {
	v.Store((*[16]float32)(s[o : o+16]))
}

func hsum16(v archsimd.Float32x16) float32 {
	var a [16]float32
	v.Store(&a)
	return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])) +
		(((a[8] + a[9]) + (a[10] + a[11])) + ((a[12] + a[13]) + (a[14] + a[15])))
}

func axpy512(d []float32, alpha float32, x []float32) {
	x = x[:len(d)]
	va := archsimd.BroadcastFloat32x16(alpha)
	c := 0
	for ; c+64 <= len(d); c += 64 {
		st16(va.MulAdd(ld16(x, c), ld16(d, c)), d, c)
		st16(va.MulAdd(ld16(x, c+16), ld16(d, c+16)), d, c+16)
		st16(va.MulAdd(ld16(x, c+32), ld16(d, c+32)), d, c+32)
		st16(va.MulAdd(ld16(x, c+48), ld16(d, c+48)), d, c+48)
	}
	for ; c+16 <= len(d); c += 16 {
		st16(va.MulAdd(ld16(x, c), ld16(d, c)), d, c)
	}
	for ; c < len(d); c++ {
		d[c] += alpha * x[c]
	}
	archsimd.ClearAVXUpperBits()
}

func dot512(a, b []float32) float64 {
	b = b[:len(a)]
	var a0, a1, a2, a3 archsimd.Float32x16
	c := 0
	for ; c+64 <= len(a); c += 64 {
		a0 = ld16(a, c).MulAdd(ld16(b, c), a0)
		a1 = ld16(a, c+16).MulAdd(ld16(b, c+16), a1)
		a2 = ld16(a, c+32).MulAdd(ld16(b, c+32), a2)
		a3 = ld16(a, c+48).MulAdd(ld16(b, c+48), a3)
	}
	for ; c+16 <= len(a); c += 16 {
		a0 = ld16(a, c).MulAdd(ld16(b, c), a0)
	}
	s := hsum16(a0.Add(a1).Add(a2.Add(a3)))
	for ; c < len(a); c++ {
		s += a[c] * b[c]
	}
	archsimd.ClearAVXUpperBits()
	return float64(s)
}

// ---- AVX2 + FMA: 8 lanes, column tiles of 32 (4 registers) ----

func ld8(s []float32, o int) archsimd.Float32x8 {
	return archsimd.LoadFloat32x8((*[8]float32)(s[o : o+8]))
}

func st8(v archsimd.Float32x8, s []float32, o int) {
	v.Store((*[8]float32)(s[o : o+8]))
}

func hsum8(v archsimd.Float32x8) float32 {
	var a [8]float32
	v.Store(&a)
	return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))
}

func axpy256(d []float32, alpha float32, x []float32) {
	x = x[:len(d)]
	va := archsimd.BroadcastFloat32x8(alpha)
	c := 0
	for ; c+32 <= len(d); c += 32 {
		st8(va.MulAdd(ld8(x, c), ld8(d, c)), d, c)
		st8(va.MulAdd(ld8(x, c+8), ld8(d, c+8)), d, c+8)
		st8(va.MulAdd(ld8(x, c+16), ld8(d, c+16)), d, c+16)
		st8(va.MulAdd(ld8(x, c+24), ld8(d, c+24)), d, c+24)
	}
	for ; c+8 <= len(d); c += 8 {
		st8(va.MulAdd(ld8(x, c), ld8(d, c)), d, c)
	}
	for ; c < len(d); c++ {
		d[c] += alpha * x[c]
	}
	archsimd.ClearAVXUpperBits()
}

func dot256(a, b []float32) float64 {
	b = b[:len(a)]
	var a0, a1, a2, a3 archsimd.Float32x8
	c := 0
	for ; c+32 <= len(a); c += 32 {
		a0 = ld8(a, c).MulAdd(ld8(b, c), a0)
		a1 = ld8(a, c+8).MulAdd(ld8(b, c+8), a1)
		a2 = ld8(a, c+16).MulAdd(ld8(b, c+16), a2)
		a3 = ld8(a, c+24).MulAdd(ld8(b, c+24), a3)
	}
	for ; c+8 <= len(a); c += 8 {
		a0 = ld8(a, c).MulAdd(ld8(b, c), a0)
	}
	s := hsum8(a0.Add(a1).Add(a2.Add(a3)))
	for ; c < len(a); c++ {
		s += a[c] * b[c]
	}
	archsimd.ClearAVXUpperBits()
	return float64(s)
}
