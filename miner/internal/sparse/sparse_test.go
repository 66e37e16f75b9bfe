package sparse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randEdges returns n random pairs in [0,rows)×[0,cols); a fraction of the
// rows is left empty and some pairs are duplicated.
func randEdges(rng *rand.Rand, rows, cols, n int) (src, dst []int32) {
	src = make([]int32, n)
	dst = make([]int32, n)
	for e := range n {
		r := rng.IntN(rows)
		if r%5 == 0 && rows > 1 { // leave rows ≡ 0 mod 5 mostly empty
			r = (r + 1) % rows
		}
		src[e] = int32(r)
		dst[e] = int32(rng.IntN(cols))
		if e > 0 && rng.IntN(20) == 0 {
			src[e], dst[e] = src[e-1], dst[e-1]
		}
	}
	return src, dst
}

func randBlock(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = rng.Float32()*2 - 1
	}
	return x
}

func randMask(rng *rand.Rand, n int, p float64) *Mask {
	k := NewMask(n)
	for e := range n {
		if rng.Float64() < p {
			k.Set(int32(e))
		}
	}
	return k
}

// denseOf returns M (and |M|, the same here) as a gonum matrix, without the
// masked edges; transpose selects Mᵀ.
func denseOf(rows, cols int, src, dst []int32, mask *Mask, transpose bool) *mat.Dense {
	r, c := rows, cols
	if transpose {
		r, c = cols, rows
	}
	d := mat.NewDense(max(r, 1), max(c, 1), nil)
	for e := range src {
		if mask.Has(int32(e)) {
			continue
		}
		i, j := int(src[e]), int(dst[e])
		if transpose {
			i, j = j, i
		}
		d.Set(i, j, d.At(i, j)+1)
	}
	return d
}

func toDense(x []float32, rows, B int, abs bool) *mat.Dense {
	d := mat.NewDense(max(rows, 1), max(B, 1), nil)
	for i := range rows {
		for b := range B {
			v := float64(x[i*B+b])
			if abs {
				v = math.Abs(v)
			}
			d.Set(i, b, v)
		}
	}
	return d
}

const relTol = 1e-5

type shape struct{ rows, cols, nnz, B int }

var shapes = []shape{
	{1, 1, 0, 1}, {1, 1, 1, 1}, {5, 3, 7, 1}, {17, 13, 40, 7}, {40, 40, 0, 8},
	{33, 29, 120, 16}, {50, 70, 300, 33}, {64, 64, 500, 64}, {100, 80, 700, 128},
	{31, 47, 200, 130}, {200, 150, 1500, 72}, {9, 9, 81, 15}, {3, 300, 900, 24},
}

// TestMulAddVsGonum checks MulAdd on M and Mᵀ, with and without a mask,
// against dense gonum products.
func TestMulAddVsGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range shapes {
		for _, maskP := range []float64{0, 0.3} {
			for _, tr := range []bool{false, true} {
				name := fmt.Sprintf("%dx%d/nnz%d/B%d/mask%v/T%v", s.rows, s.cols, s.nnz, s.B, maskP, tr)
				t.Run(name, func(t *testing.T) {
					src, dst := randEdges(rng, s.rows, s.cols, s.nnz)
					m := FromEdges(s.rows, s.cols, src, dst)
					if tr {
						m = m.Transpose()
					}
					var mask *Mask
					if maskP > 0 {
						mask = randMask(rng, s.nnz, maskP)
					}
					x := randBlock(rng, m.Cols*s.B)
					out0 := randBlock(rng, m.Rows*s.B)
					alpha := float32(0.75)
					got := slices.Clone(out0)
					MulAdd(got, m, x, s.B, alpha, mask)

					md := denseOf(s.rows, s.cols, src, dst, mask, tr)
					var want, scale mat.Dense
					want.Mul(md, toDense(x, m.Cols, s.B, false))
					scale.Mul(md, toDense(x, m.Cols, s.B, true))
					for i := range m.Rows {
						for b := range s.B {
							w := float64(out0[i*s.B+b]) + float64(alpha)*want.At(i, b)
							sc := math.Abs(float64(out0[i*s.B+b])) + math.Abs(float64(alpha))*scale.At(i, b)
							if d := math.Abs(float64(got[i*s.B+b]) - w); d > relTol*sc+1e-30 {
								t.Fatalf("[%d,%d]: got %v want %v (scale %v)", i, b, got[i*s.B+b], w, sc)
							}
						}
					}
				})
			}
		}
	}
}

// TestEdgeDotVsGonum checks EdgeDot = ⟨G, M X⟩ against gonum.
func TestEdgeDotVsGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range shapes {
		for _, maskP := range []float64{0, 0.5} {
			for _, tr := range []bool{false, true} {
				src, dst := randEdges(rng, s.rows, s.cols, s.nnz)
				m := FromEdges(s.rows, s.cols, src, dst)
				if tr {
					m = m.Transpose()
				}
				var mask *Mask
				if maskP > 0 {
					mask = randMask(rng, s.nnz, maskP)
				}
				x := randBlock(rng, m.Cols*s.B)
				g := randBlock(rng, m.Rows*s.B)
				got := EdgeDot(m, g, x, s.B, mask)
				md := denseOf(s.rows, s.cols, src, dst, mask, tr)
				var mx, mxa mat.Dense
				mx.Mul(md, toDense(x, m.Cols, s.B, false))
				mxa.Mul(md, toDense(x, m.Cols, s.B, true))
				var want, sc float64
				for i := range m.Rows {
					for b := range s.B {
						want += float64(g[i*s.B+b]) * mx.At(i, b)
						sc += math.Abs(float64(g[i*s.B+b])) * mxa.At(i, b)
					}
				}
				if d := math.Abs(got - want); d > relTol*sc+1e-30 {
					t.Errorf("%+v mask %v T %v: got %v want %v (scale %v)", s, maskP, tr, got, want, sc)
				}
			}
		}
	}
}

// TestKernelsVsReference runs every SIMD kernel set this CPU supports
// against the pure-Go reference (only with GOEXPERIMENT=simd on amd64).
func TestKernelsVsReference(t *testing.T) {
	ks := simdKernels()
	if len(ks) == 0 {
		t.Skipf("no SIMD kernels in this build (kernel %q)", Kernel())
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, k := range ks {
		t.Run(k.name, func(t *testing.T) {
			for _, s := range shapes {
				for _, B := range []int{s.B, 1, 7, 8, 9, 16, 17, 31, 48, 64, 65, 128, 129} {
					src, dst := randEdges(rng, s.rows, s.cols, s.nnz)
					m := FromEdges(s.rows, s.cols, src, dst)
					mask := randMask(rng, s.nnz, 0.2)
					if B%2 == 0 {
						mask = nil
					}
					x := randBlock(rng, m.Cols*B)
					g := randBlock(rng, m.Rows*B)
					want := slices.Clone(g)
					got := slices.Clone(g)
					refMulAddRange(want, m, x, B, -1.5, mask, 0, m.Rows)
					csrKernelsOf[k.name].mulAdd(got, m, x, B, -1.5, mask, 0, m.Rows)
					absOut := make([]float32, len(g))
					for i := range absOut {
						absOut[i] = float32(math.Abs(float64(g[i])))
					}
					absX := make([]float32, len(x))
					for i := range absX {
						absX[i] = float32(math.Abs(float64(x[i])))
					}
					refMulAddRange(absOut, m, absX, B, 1.5, mask, 0, m.Rows)
					for i := range got {
						if d := math.Abs(float64(got[i] - want[i])); d > relTol*float64(absOut[i]) {
							t.Fatalf("mulAdd %+v B=%d [%d]: got %v want %v", s, B, i, got[i], want[i])
						}
					}
					ed, er := csrKernelsOf[k.name].edgeDot(m, g, x, B, mask, 0, m.Rows), refEdgeDotRange(m, g, x, B, mask, 0, m.Rows)
					absG := make([]float32, len(g))
					for i := range absG {
						absG[i] = float32(math.Abs(float64(g[i])))
					}
					sc := refEdgeDotRange(m, absG, absX, B, mask, 0, m.Rows)
					if math.Abs(ed-er) > relTol*sc+1e-30 {
						t.Fatalf("edgeDot %+v B=%d: got %v want %v", s, B, ed, er)
					}
				}
			}
			for _, n := range []int{0, 1, 7, 8, 15, 16, 33, 64, 100, 4096, 5000} {
				a, b := randBlock(rng, n), randBlock(rng, n)
				w, g := slices.Clone(a), slices.Clone(a)
				refAxpy(w, 0.3, b)
				k.axpy(g, 0.3, b)
				for i := range w {
					if math.Abs(float64(w[i]-g[i])) > 1e-6 {
						t.Fatalf("axpy n=%d [%d]: %v vs %v", n, i, g[i], w[i])
					}
				}
				var sc float64
				for i := range a {
					sc += math.Abs(float64(a[i] * b[i]))
				}
				if d := math.Abs(k.dot(a, b) - refDot64(a, b)); d > relTol*sc+1e-30 {
					t.Fatalf("dot n=%d: %v vs %v", n, k.dot(a, b), refDot64(a, b))
				}
			}
		})
	}
}

// TestRowsVariants checks MulAddRows and EdgeDotRows (scatter from the
// active rows through the transpose) against MulAdd and EdgeDot on a sparse
// block.
func TestRowsVariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const rows, cols, nnz = 300, 250, 3000
	src, dst := randEdges(rng, rows, cols, nnz)
	m := FromEdges(rows, cols, src, dst)
	mt := m.Transpose()
	for _, B := range []int{1, 7, 64, 128} {
		for _, mask := range []*Mask{nil, randMask(rng, nnz, 0.3)} {
			x := make([]float32, cols*B)
			for b := range B { // one-hot per column, plus a few extra rows
				x[rng.IntN(cols)*B+b] = 1
				x[rng.IntN(cols)*B+b] = rng.Float32()
			}
			active := NonzeroRows(x, B, nil)
			g := randBlock(rng, rows*B)
			want := slices.Clone(g)
			MulAdd(want, m, x, B, 0.9, mask)
			got := slices.Clone(g)
			MulAddRows(got, mt, x, B, 0.9, mask, active)
			for i := range got {
				if math.Abs(float64(got[i]-want[i])) > 1e-5*(1+math.Abs(float64(want[i]))) {
					t.Fatalf("B=%d MulAddRows [%d]: %v vs %v", B, i, got[i], want[i])
				}
			}
			e1, e2 := EdgeDot(m, g, x, B, mask), EdgeDotRows(mt, g, x, B, mask, active)
			if math.Abs(e1-e2) > 1e-5*(1+math.Abs(e1)) {
				t.Fatalf("B=%d EdgeDotRows %v vs EdgeDot %v", B, e2, e1)
			}
		}
	}
	if r := NonzeroRows([]float32{0, 0, 1, 0, 0, 0, 0, 2}, 2, nil); !slices.Equal(r, []int32{1, 3}) {
		t.Fatalf("NonzeroRows = %v", r)
	}
}

func TestMask(t *testing.T) {
	k := NewMask(130)
	var nilMask *Mask
	if nilMask.Has(3) || nilMask.Count() != 0 || !nilMask.empty() {
		t.Fatal("nil mask not empty")
	}
	for _, e := range []int32{0, 63, 64, 129} {
		k.Set(e)
	}
	if !k.Has(63) || !k.Has(64) || k.Has(65) || k.Has(-1) || k.Has(130) || k.Count() != 4 || k.Len() != 130 {
		t.Fatal("Set/Has/Count")
	}
	k.Clear(64)
	if k.Has(64) || k.Count() != 3 || k.empty() {
		t.Fatal("Clear")
	}
	k.Reset()
	if k.Count() != 0 || !k.empty() {
		t.Fatal("Reset")
	}
}

// checkFromEdges verifies the invariants of FromEdges and Transpose.
func checkFromEdges(t *testing.T, rows, cols int, src, dst []int32) {
	t.Helper()
	m := FromEdges(rows, cols, src, dst)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.NNZ() != len(src) {
		t.Fatalf("NNZ %d want %d", m.NNZ(), len(src))
	}
	seen := make([]bool, len(src))
	for i := range rows {
		for p := m.RowPtr[i]; p < m.RowPtr[i+1]; p++ {
			e := m.Edge[p]
			if seen[e] {
				t.Fatalf("edge %d twice", e)
			}
			seen[e] = true
			if int(src[e]) != i || dst[e] != m.Col[p] {
				t.Fatalf("entry %d = (%d,%d), edge %d is (%d,%d)", p, i, m.Col[p], e, src[e], dst[e])
			}
			if p > m.RowPtr[i] && (m.Col[p-1] > m.Col[p] || m.Col[p-1] == m.Col[p] && m.Edge[p-1] > e) {
				t.Fatalf("row %d not sorted by (col, edge)", i)
			}
		}
	}
	tr := m.Transpose()
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	if tr.Rows != cols || tr.Cols != rows || tr.NNZ() != m.NNZ() {
		t.Fatal("transpose shape")
	}
	for j := range cols {
		for p := tr.RowPtr[j]; p < tr.RowPtr[j+1]; p++ {
			e := tr.Edge[p]
			if int(dst[e]) != j || src[e] != tr.Col[p] {
				t.Fatalf("transpose entry (%d,%d) has edge %d = (%d,%d)", j, tr.Col[p], e, src[e], dst[e])
			}
		}
	}
	tt := tr.Transpose()
	if !slices.Equal(tt.RowPtr, m.RowPtr) || !slices.Equal(tt.Col, m.Col) || !slices.Equal(tt.Edge, m.Edge) {
		t.Fatal("Transpose(Transpose(m)) != m")
	}
	// Same edges in another order give the same pattern.
	perm := rand.New(rand.NewPCG(uint64(len(src)), 1)).Perm(len(src))
	ps, pd := make([]int32, len(src)), make([]int32, len(src))
	for k, e := range perm {
		ps[k], pd[k] = src[e], dst[e]
	}
	m2 := FromEdges(rows, cols, ps, pd)
	if !slices.Equal(m2.RowPtr, m.RowPtr) || !slices.Equal(m2.Col, m.Col) {
		t.Fatal("pattern depends on edge order")
	}
}

func TestFromEdgesProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	checkFromEdges(t, 0, 0, nil, nil)
	checkFromEdges(t, 3, 0, nil, nil)
	for range 200 {
		rows, cols := 1+rng.IntN(40), 1+rng.IntN(40)
		src, dst := randEdges(rng, rows, cols, rng.IntN(300))
		checkFromEdges(t, rows, cols, src, dst)
	}
	// Edge == nil: entry positions are the ids.
	m := FromEdges(4, 4, []int32{0, 1, 1, 3}, []int32{1, 0, 2, 3})
	m.Edge = nil
	tr := m.Transpose()
	if !slices.Equal(tr.Edge, []int32{1, 0, 2, 3}) {
		t.Fatalf("ids from positions: %v", tr.Edge)
	}
}

func FuzzFromEdges(f *testing.F) {
	f.Add(uint8(3), uint8(4), []byte{0, 1, 2, 3, 1, 1, 0, 0})
	f.Add(uint8(1), uint8(1), []byte{})
	f.Fuzz(func(t *testing.T, r, c uint8, data []byte) {
		rows, cols := int(r%64)+1, int(c%64)+1
		n := len(data) / 2
		src, dst := make([]int32, n), make([]int32, n)
		for e := range n {
			src[e] = int32(int(data[2*e]) % rows)
			dst[e] = int32(int(data[2*e+1]) % cols)
		}
		checkFromEdges(t, rows, cols, src, dst)
	})
}

func TestPanics(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	mustPanic("len", func() { FromEdges(2, 2, []int32{0}, nil) })
	mustPanic("range", func() { FromEdges(2, 2, []int32{2}, []int32{0}) })
	m := FromEdges(2, 3, []int32{0, 1}, []int32{2, 0})
	mustPanic("short x", func() { MulAdd(make([]float32, 4), m, make([]float32, 5), 2, 1, nil) })
	mustPanic("short g", func() { EdgeDot(m, make([]float32, 3), make([]float32, 6), 2, nil) })
	mustPanic("mask", func() { NewMask(3).Set(3) })
}

// TestHypersparseSameBits checks that every operation gives the same bits
// on the hypersparse layout of a matrix as on its dense one, on matrices
// with mostly empty rows (the layout's case) and with full ones, and that
// Span, Row, Degree and RowAt read the same rows.
func TestHypersparseSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, s := range []struct{ rows, cols, nnz int }{{1000, 800, 40}, {500, 500, 3000}, {300, 200, 0}, {129, 64, 1}} {
		src, dst := randEdges(rng, s.rows, s.cols, s.nnz)
		d := FromEdges(s.rows, s.cols, src, dst)
		h := d.Compact()
		if err := h.Validate(); err != nil {
			t.Fatal(err)
		}
		if h.RowIDs == nil || h.Compact() != h || h.NNZ() != d.NNZ() {
			t.Fatalf("%+v: Compact gave %d stored rows, NNZ %d", s, h.Stored(), h.NNZ())
		}
		for i := range int32(s.rows) {
			if !slices.Equal(h.Row(i), d.Row(i)) || h.Degree(i) != d.Degree(i) {
				t.Fatalf("%+v: row %d: %v vs %v", s, i, h.Row(i), d.Row(i))
			}
			if lo, hi := h.Span(i); hi > lo && (h.RowAt(slices.Index(h.RowIDs, i)) != i) {
				t.Fatalf("%+v: RowAt of row %d", s, i)
			}
		}
		for _, B := range []int{1, 7, 64} {
			for _, mask := range []*Mask{nil, randMask(rng, max(s.nnz, 1), 0.3)} {
				x := randBlock(rng, s.cols*B)
				g := randBlock(rng, s.rows*B)
				a, b := slices.Clone(g), slices.Clone(g)
				MulAdd(a, d, x, B, 0.7, mask)
				MulAdd(b, h, x, B, 0.7, mask)
				if !slices.Equal(a, b) {
					t.Fatalf("%+v B=%d: MulAdd differs", s, B)
				}
				if e1, e2 := EdgeDot(d, g, x, B, mask), EdgeDot(h, g, x, B, mask); e1 != e2 {
					t.Fatalf("%+v B=%d: EdgeDot %v vs %v", s, B, e1, e2)
				}
				// The transposed forms, through a hypersparse transpose.
				dt := d.Transpose()
				ht := dt.Compact()
				xt := randBlock(rng, s.cols*B)
				active := NonzeroRows(xt, B, nil)
				gt := randBlock(rng, s.rows*B)
				a, b = slices.Clone(gt), slices.Clone(gt)
				MulAddRows(a, dt, xt, B, 0.3, mask, active)
				MulAddRows(b, ht, xt, B, 0.3, mask, active)
				if !slices.Equal(a, b) {
					t.Fatalf("%+v B=%d: MulAddRows differs", s, B)
				}
				if e1, e2 := EdgeDotRows(dt, gt, xt, B, mask, active), EdgeDotRows(ht, gt, xt, B, mask, active); e1 != e2 {
					t.Fatalf("%+v B=%d: EdgeDotRows %v vs %v", s, B, e1, e2)
				}
			}
		}
		if tt := h.Transpose(); !slices.Equal(tt.Col, d.Transpose().Col) || !slices.Equal(tt.Edge, d.Transpose().Edge) {
			t.Fatalf("%+v: Transpose of the hypersparse layout differs", s)
		}
	}
}
