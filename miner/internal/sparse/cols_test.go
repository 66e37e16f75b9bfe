package sparse

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestColKernels checks the column kernels of every kernel set of this
// build against the scalar reference: bit for bit for the element-wise
// ones, within rounding for ColDot, at lengths around the vector width.
func TestColKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	sets := append([]kernels{genericKernels}, simdKernels()...)
	f64 := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	pos := func(n int) []float64 {
		v := f64(n)
		for i := range v {
			v[i] = math.Abs(v[i]) + 0.1
		}
		return v
	}
	for _, k := range sets {
		for _, n := range []int{0, 1, 7, 8, 9, 16, 31, 64} {
			x, g := randBlock(rng, n), randBlock(rng, n)
			acc, c, nn, w := f64(n), f64(n), pos(n), f64(n)
			d := rng.NormFloat64()
			same64 := func(op string, got, want []float64) {
				t.Helper()
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%s %s n=%d [%d]: %v, reference %v", k.name, op, n, i, got[i], want[i])
					}
				}
			}
			same32 := func(op string, got, want []float32) {
				t.Helper()
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s %s n=%d [%d]: %v, reference %v", k.name, op, n, i, got[i], want[i])
					}
				}
			}
			got, want := slices.Clone(acc), slices.Clone(acc)
			k.col.add(got, x)
			for i := range want {
				want[i] += float64(x[i])
			}
			same64("add", got, want)
			got, want = slices.Clone(acc), slices.Clone(acc)
			k.col.mulAdd(got, d, x)
			for i := range want {
				want[i] += float64(d * float64(x[i]))
			}
			same64("mulAdd", got, want)
			got, want = slices.Clone(acc), slices.Clone(acc)
			k.col.prodAdd(got, g, x)
			for i := range want {
				want[i] += float64(float64(g[i]) * float64(x[i]))
			}
			same64("prodAdd", got, want)
			g32, w32 := slices.Clone(x), slices.Clone(x)
			k.col.div(g32, nn)
			for i := range w32 {
				w32[i] = float32(float64(w32[i]) / nn[i])
			}
			same32("div", g32, w32)
			g32, w32 = slices.Clone(x), slices.Clone(x)
			k.col.subDiv(g32, c, nn)
			for i := range w32 {
				w32[i] = float32((float64(w32[i]) - c[i]) / nn[i])
			}
			same32("subDiv", g32, w32)
			g32, w32 = make([]float32, n), make([]float32, n)
			k.col.set(g32, d, w)
			for i := range w32 {
				w32[i] = float32(w[i] * d)
			}
			same32("set", g32, w32)
			var s, sc float64
			for i := range w {
				s += w[i] * float64(x[i])
				sc += math.Abs(w[i] * float64(x[i]))
			}
			if got := k.col.dot(w, x); math.Abs(got-s) > 1e-12*sc+1e-300 {
				t.Fatalf("%s dot n=%d: %v, reference %v", k.name, n, got, s)
			}
		}
	}
}

// TestGather checks GatherAdd (every kernel set of this build) and
// GatherDot against direct sums over random incidence lists with skipped
// entries, for widths around the vector tiles.
func TestGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	sets := append([]kernels{genericKernels}, simdKernels()...)
	const n, nOps = 40, 5
	in := &Incidence{Ptr: []int64{0}}
	for i := range n {
		// Row 7 is long enough to take several chunks of the SIMD kernel.
		m := rng.IntN(9)
		if i == 7 {
			m = 600
		}
		for range m {
			in.Col, in.Op = append(in.Col, int32(rng.IntN(n))), append(in.Op, int32(rng.IntN(nOps)))
			in.Edge = append(in.Edge, int32(len(in.Edge)))
		}
		in.Ptr = append(in.Ptr, int64(len(in.Col)))
	}
	mask := randMask(rng, len(in.Edge), 0.3)
	skip := Skip{Op0: 1, Op1: 3, Mask: mask}
	skipped := func(p int64) bool { return (in.Op[p] == 1 || in.Op[p] == 3) && mask.Has(in.Edge[p]) }
	a := randBlock(rng, nOps)
	rows := []int32{0, 3, 4, 7, 9, 17, 18, 30, 39}
	for _, B := range []int{1, 7, 16, 20, 48, 64, 65, 80} {
		x, g := randBlock(rng, n*B), randBlock(rng, n*B)
		base := randBlock(rng, n*B)
		want := slices.Clone(base)
		scale := make([]float64, len(base))
		for _, i := range rows {
			for b := range B {
				var s, sc float64
				for p := in.Ptr[i]; p < in.Ptr[i+1]; p++ {
					if !skipped(p) {
						v := float64(a[in.Op[p]]) * float64(x[int(in.Col[p])*B+b])
						s, sc = s+v, sc+math.Abs(v)
					}
				}
				o := int(i)*B + b
				want[o] += float32(s)
				scale[o] = sc + math.Abs(float64(base[o]))
			}
		}
		for _, k := range sets {
			got := slices.Clone(base)
			k.gather(got, in, a, skip, x, B, rows)
			for i := range got {
				if !slices.Contains(rows, int32(i/B)) {
					if got[i] != base[i] {
						t.Fatalf("%s B=%d: row %d not listed was written", k.name, B, i/B)
					}
					continue
				}
				if d := math.Abs(float64(got[i] - want[i])); d > 1e-5*scale[i]+1e-6 {
					t.Fatalf("%s B=%d [%d]: %v, want %v", k.name, B, i, got[i], want[i])
				}
			}
		}
		acc := make([]float64, nOps)
		GatherDot(acc, in, skip, g, x, B, rows)
		ref := make([]float64, nOps)
		for _, i := range rows {
			for p := in.Ptr[i]; p < in.Ptr[i+1]; p++ {
				if skipped(p) {
					continue
				}
				for b := range B {
					ref[in.Op[p]] += float64(g[int(i)*B+b]) * float64(x[int(in.Col[p])*B+b])
				}
			}
		}
		for k := range acc {
			if math.Abs(acc[k]-ref[k]) > 1e-4*(1+math.Abs(ref[k])) {
				t.Fatalf("GatherDot B=%d op %d: %v, want %v", B, k, acc[k], ref[k])
			}
		}
	}
}

// TestAdam checks every kernel set's Adam step against the formula, bit
// for bit, with gradients inside and outside the clip.
func TestAdam(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	a := AdamParams{LR: 0.01, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Clip: 1.5}
	for _, k := range append([]kernels{genericKernels}, simdKernels()...) {
		for _, n := range []int{0, 3, 8, 19, 64} {
			p, g, m, v := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
			for i := range n {
				p[i], g[i], m[i], v[i] = rng.NormFloat64(), 3*rng.NormFloat64(), rng.NormFloat64(), rng.Float64()
			}
			wp, wm, wv := slices.Clone(p), slices.Clone(m), slices.Clone(v)
			for i := range n {
				gi := math.Min(math.Max(g[i], -a.Clip), a.Clip)
				wm[i] = float64(a.Beta1*wm[i]) + float64((1-a.Beta1)*gi)
				wv[i] = float64(a.Beta2*wv[i]) + float64(float64((1-a.Beta2)*gi)*gi)
				wp[i] -= float64(a.LR*wm[i]) / (math.Sqrt(wv[i]) + a.Eps)
			}
			k.adam(p, g, m, v, a)
			for i := range n {
				if p[i] != wp[i] || m[i] != wm[i] || v[i] != wv[i] {
					t.Fatalf("%s n=%d [%d]: p %v m %v v %v, want %v %v %v", k.name, n, i, p[i], m[i], v[i], wp[i], wm[i], wv[i])
				}
			}
		}
	}
}
