//go:build goexperiment.simd && amd64

package sparse

import "simd/archsimd"

// AVX-512 column kernels: 8 columns at a time, float32 widened to float64.

var cols512 = colKernels{add: colAdd512, mulAdd: colMulAdd512, prodAdd: colProdAdd512, div: colDiv512, subDiv: colSubDiv512, set: colSet512, dot: colDot512}

func ld8w(s []float32, o int) archsimd.Float64x8 {
	return archsimd.LoadFloat32x8((*[8]float32)(s[o : o+8])).ConvertToFloat64()
}

func ld8d(s []float64, o int) archsimd.Float64x8 {
	return archsimd.LoadFloat64x8((*[8]float64)(s[o : o+8]))
}

func st8d(v archsimd.Float64x8, s []float64, o int) { v.Store((*[8]float64)(s[o : o+8])) }

func st8n(v archsimd.Float64x8, s []float32, o int) {
	v.ConvertToFloat32().Store((*[8]float32)(s[o : o+8]))
}

func colAdd512(acc []float64, x []float32) {
	b := 0
	for ; b+8 <= len(acc); b += 8 {
		st8d(ld8d(acc, b).Add(ld8w(x, b)), acc, b)
	}
	archsimd.ClearAVXUpperBits()
	refCols.add(acc[b:], x[b:])
}

func colMulAdd512(acc []float64, d float64, x []float32) {
	vd := archsimd.BroadcastFloat64x8(d)
	b := 0
	for ; b+8 <= len(acc); b += 8 {
		st8d(ld8d(acc, b).Add(vd.Mul(ld8w(x, b))), acc, b)
	}
	archsimd.ClearAVXUpperBits()
	refCols.mulAdd(acc[b:], d, x[b:])
}

func colProdAdd512(acc []float64, g, x []float32) {
	b := 0
	for ; b+8 <= len(acc); b += 8 {
		st8d(ld8d(acc, b).Add(ld8w(g, b).Mul(ld8w(x, b))), acc, b)
	}
	archsimd.ClearAVXUpperBits()
	refCols.prodAdd(acc[b:], g[b:], x[b:])
}

func colDiv512(x []float32, n []float64) {
	b := 0
	for ; b+8 <= len(x); b += 8 {
		st8n(ld8w(x, b).Div(ld8d(n, b)), x, b)
	}
	archsimd.ClearAVXUpperBits()
	refCols.div(x[b:], n[b:])
}

func colSubDiv512(x []float32, c, n []float64) {
	b := 0
	for ; b+8 <= len(x); b += 8 {
		st8n(ld8w(x, b).Sub(ld8d(c, b)).Div(ld8d(n, b)), x, b)
	}
	archsimd.ClearAVXUpperBits()
	refCols.subDiv(x[b:], c[b:], n[b:])
}

func colSet512(dst []float32, d float64, w []float64) {
	vd := archsimd.BroadcastFloat64x8(d)
	b := 0
	for ; b+8 <= len(dst); b += 8 {
		st8n(ld8d(w, b).Mul(vd), dst, b)
	}
	archsimd.ClearAVXUpperBits()
	refCols.set(dst[b:], d, w[b:])
}

func colDot512(w []float64, x []float32) float64 {
	var s archsimd.Float64x8
	b := 0
	for ; b+8 <= len(w); b += 8 {
		s = s.Add(ld8d(w, b).Mul(ld8w(x, b)))
	}
	var a [8]float64
	s.Store(&a)
	archsimd.ClearAVXUpperBits()
	return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])) + refCols.dot(w[b:], x[b:])
}

// gather512 keeps a tile of dst row i in registers while it accumulates
// a[Op[p]]·x[Col[p], tile] over the row's entries (fused multiply-add).
func gather512(dst []float32, in *Incidence, a []float32, skip Skip, x []float32, B int, rows []int32) {
	if B < 16 {
		refGather(dst, in, a, skip, x, B, rows)
		return
	}
	var cbuf [256]int32
	var wbuf [256]float32
	for _, i := range rows {
		p0, p1 := in.Ptr[i], in.Ptr[i+1]
		if p0 == p1 {
			continue
		}
		d := dst[int(i)*B : int(i)*B+B]
		// The row's columns and weights, a chunk at a time.
		for p0 < p1 {
			n := 0
			for ; p0 < p1 && n < len(cbuf); p0++ {
				if skip.Has(in.Op[p0], in.Edge[p0]) {
					continue
				}
				cbuf[n], wbuf[n] = in.Col[p0], a[in.Op[p0]]
				n++
			}
			gatherTile(d, cbuf[:n], wbuf[:n], x, B)
		}
	}
	archsimd.ClearAVXUpperBits()
}

// gatherTile adds Σ_k ws[k]·x[cs[k],:] to the row d.
func gatherTile(d []float32, cs []int32, ws []float32, x []float32, B int) {
	c := 0
	for ; c+64 <= B; c += 64 {
		a0, a1, a2, a3 := ld16(d, c), ld16(d, c+16), ld16(d, c+32), ld16(d, c+48)
		for k, j := range cs {
			va := archsimd.BroadcastFloat32x16(ws[k])
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
		for k, j := range cs {
			a0 = archsimd.BroadcastFloat32x16(ws[k]).MulAdd(ld16(x, int(j)*B+c), a0)
		}
		st16(a0, d, c)
	}
	for ; c < B; c++ {
		s := d[c]
		for k, j := range cs {
			s += ws[k] * x[int(j)*B+c]
		}
		d[c] = s
	}
}

// adam512 is refAdam, 8 parameters at a time.
func adam512(p, g, m, v []float64, a AdamParams) {
	lo, hi := archsimd.BroadcastFloat64x8(-a.Clip), archsimd.BroadcastFloat64x8(a.Clip)
	b1, c1 := archsimd.BroadcastFloat64x8(a.Beta1), archsimd.BroadcastFloat64x8(1-a.Beta1)
	b2, c2 := archsimd.BroadcastFloat64x8(a.Beta2), archsimd.BroadcastFloat64x8(1-a.Beta2)
	lr, eps := archsimd.BroadcastFloat64x8(a.LR), archsimd.BroadcastFloat64x8(a.Eps)
	i := 0
	for ; i+8 <= len(p); i += 8 {
		gi := ld8d(g, i).Max(lo).Min(hi)
		mo := b1.Mul(ld8d(m, i)).Add(c1.Mul(gi))
		ve := b2.Mul(ld8d(v, i)).Add(c2.Mul(gi).Mul(gi))
		st8d(mo, m, i)
		st8d(ve, v, i)
		st8d(ld8d(p, i).Sub(lr.Mul(mo).Div(ve.Sqrt().Add(eps))), p, i)
	}
	archsimd.ClearAVXUpperBits()
	refAdam(p[i:], g[i:], m[i:], v[i:], a)
}
