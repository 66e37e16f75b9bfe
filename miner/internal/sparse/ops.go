package sparse

import "fmt"

// kernels is a set of row-range kernels; one set is chosen at start-up.
type kernels struct {
	name    string
	mulAdd  func(dst []float32, m *CSR, x []float32, B int, alpha float32, mask *Mask, r0, r1 int)
	edgeDot func(m *CSR, g, x []float32, B int, mask *Mask, r0, r1 int) float64
	axpy    func(d []float32, alpha float32, x []float32)
	dot     func(a, b []float32) float64
	scale   func(d []float32, alpha float32)
	col     colKernels
	gather  func(dst []float32, in *Incidence, a []float32, skip Skip, x []float32, B int, rows []int32)
	adam    func(p, g, m, v []float64, a AdamParams)
}

var genericKernels = kernels{
	name:    "generic",
	mulAdd:  refMulAddRange,
	edgeDot: refEdgeDotRange,
	axpy:    refAxpy,
	dot:     refDot64,
	scale:   refScale,
	col:     refCols,
	gather:  refGather,
	adam:    refAdam,
}

// kern is the kernel set in use.
var kern = selectKernels()

// Kernel returns the name of the kernel set in use: "generic" (pure Go),
// "avx2" or "avx512".
func Kernel() string { return kern.name }

const (
	// RowChunk is the number of rows of one partial sum of EdgeDot.
	RowChunk = 64
	// VecChunk is the number of elements of one partial sum of Dot.
	VecChunk = 4096
)

func checkMul(who string, dstLen int, m *CSR, xLen, B int) {
	if B < 0 {
		panic(fmt.Sprintf("sparse.%s: negative B %d", who, B))
	}
	if dstLen < m.Rows*B || xLen < m.Cols*B {
		panic(fmt.Sprintf("sparse.%s: short operand: dst %d < %d*%d or x %d < %d*%d", who, dstLen, m.Rows, B, xLen, m.Cols, B))
	}
}

// MulAdd computes dst += alpha * M x, skipping masked edges:
//
//	dst[i,:] += alpha * Σ_{p in row i of m, edge not masked} x[m.Col[p],:]
//
// dst is m.Rows×B and x is m.Cols×B, both row-major. mask may be nil.
// Entries are added one by one in storage order. dst and x must not overlap.
func MulAdd(dst []float32, m *CSR, x []float32, B int, alpha float32, mask *Mask) {
	checkMul("MulAdd", len(dst), m, len(x), B)
	if B == 0 || m.Stored() == 0 {
		return
	}
	kern.mulAdd(dst, m, x, B, alpha, mask, 0, m.Stored())
}

// EdgeDot returns Σ_{(i,j) ∈ m, edge not masked} dot(g[i,:], x[j,:]), i.e.
// ⟨G, M X⟩, the gradient of a loss with respect to the scalar weight of
// operator M when G is the gradient with respect to the operator output.
// g is m.Rows×B, x is m.Cols×B. Each block of RowChunk rows is summed
// separately (float32 per entry or per row, float64 across entries and
// rows), and the block sums are added in float64 in row order.
func EdgeDot(m *CSR, g, x []float32, B int, mask *Mask) float64 {
	checkMul("EdgeDot", len(g), m, len(x), B)
	var s float64
	if m.RowIDs == nil {
		for r0 := 0; r0 < m.Rows; r0 += RowChunk {
			s += kern.edgeDot(m, g, x, B, mask, r0, min(r0+RowChunk, m.Rows))
		}
		return s
	}
	// Hypersparse: the stored rows of one block of RowChunk rows make one
	// partial sum, so the sum is the dense layout's, bit for bit (a block
	// without stored rows adds zero).
	for k0 := 0; k0 < len(m.RowIDs); {
		k1, block := k0+1, m.RowIDs[k0]/RowChunk
		for k1 < len(m.RowIDs) && m.RowIDs[k1]/RowChunk == block {
			k1++
		}
		s += kern.edgeDot(m, g, x, B, mask, k0, k1)
		k0 = k1
	}
	return s
}

// Axpy computes dst += alpha*x (len(x) must be >= len(dst)); with dst and x
// the operator input and output blocks this is the identity operator.
func Axpy(dst []float32, alpha float32, x []float32) {
	if len(x) < len(dst) {
		panic("sparse.Axpy: len(x) < len(dst)")
	}
	kern.axpy(dst, alpha, x)
}

// Dot returns Σ a[c]*b[c] (len(b) must be >= len(a)), summed per block of
// VecChunk elements in float32 and across blocks in float64.
func Dot(a, b []float32) float64 {
	if len(b) < len(a) {
		panic("sparse.Dot: len(b) < len(a)")
	}
	var s float64
	for c := 0; c < len(a); c += VecChunk {
		e := min(c+VecChunk, len(a))
		s += kern.dot(a[c:e], b[c:e])
	}
	return s
}

// Scale computes dst *= alpha.
func Scale(dst []float32, alpha float32) { kern.scale(dst, alpha) }
