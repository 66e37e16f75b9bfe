package sparse

// CSR row-range kernels and the helpers built on them, kept for tests and
// benchmarks only: the miner multiplies through incidence lists (GatherAdd,
// GatherDot) and MulAddRows/EdgeDotRows, and docs/BENCHMARKS.md compares
// those with MulAdd on the same entries.

import (
	"fmt"

	"github.com/drumql/drumql/internal/csr"
)

// csrKernels is a set of CSR row-range kernels, of the kernel set of the same
// name: for the stored rows r0..r1-1, mulAdd adds alpha times the unmasked
// entries' x rows to dst, edgeDot sums their dots with g.
type csrKernels struct {
	mulAdd  func(dst []float32, m *CSR, x []float32, B int, alpha float32, mask *Mask, r0, r1 int)
	edgeDot func(m *CSR, g, x []float32, B int, mask *Mask, r0, r1 int) float64
}

// csrKernelsOf holds the CSR kernels of each kernel set by name (the SIMD
// ones are added by csrkernels_simd_amd64_test.go).
var csrKernelsOf = map[string]csrKernels{"generic": {refMulAddRange, refEdgeDotRange}}

// RowChunk is the number of rows of one partial sum of EdgeDot.
const RowChunk = 64

// FromEdges builds the rows×cols CSR matrix with one entry (src[e], dst[e])
// per edge e: src gives the row and dst the column. Edge[p] is the index e
// of the edge stored at position p. Within a row, entries are sorted by
// column, and duplicate pairs keep increasing edge-id order, so the result
// is deterministic. It panics if len(src) != len(dst), if an index is out of
// range, or if there are more than 2^31-1 edges.
func FromEdges(rows, cols int, src, dst []int32) *CSR {
	if len(src) != len(dst) {
		panic("sparse.FromEdges: len(src) != len(dst)")
	}
	n := len(src)
	if n > 1<<31-1 {
		panic("sparse.FromEdges: too many edges")
	}
	for e := 0; e < n; e++ {
		if src[e] < 0 || int(src[e]) >= rows || dst[e] < 0 || int(dst[e]) >= cols {
			panic(fmt.Sprintf("sparse.FromEdges: edge %d (%d,%d) out of range %dx%d", e, src[e], dst[e], rows, cols))
		}
	}
	// Pass 1: stable counting sort of edge ids by column.
	cnt := make([]int32, cols+1)
	for _, d := range dst {
		cnt[d+1]++
	}
	for c := 0; c < cols; c++ {
		cnt[c+1] += cnt[c]
	}
	byCol := make([]int32, n)
	for e := 0; e < n; e++ {
		d := dst[e]
		byCol[cnt[d]] = int32(e)
		cnt[d]++
	}
	// Pass 2: stable counting sort by row; the result is ordered by
	// (row, column, edge id).
	m := &CSR{Rows: rows, Cols: cols, Matrix: csr.Matrix{RowPtr: make([]int32, rows+1), Col: make([]int32, n), Edge: make([]int32, n)}}
	for _, s := range src {
		m.RowPtr[s+1]++
	}
	for r := 0; r < rows; r++ {
		m.RowPtr[r+1] += m.RowPtr[r]
	}
	next := make([]int32, rows)
	copy(next, m.RowPtr[:rows])
	for _, e := range byCol {
		s := src[e]
		p := next[s]
		next[s]++
		m.Col[p] = dst[e]
		m.Edge[p] = e
	}
	return m
}

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
	csrKernelsOf[kern.name].mulAdd(dst, m, x, B, alpha, mask, 0, m.Stored())
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
			s += csrKernelsOf[kern.name].edgeDot(m, g, x, B, mask, r0, min(r0+RowChunk, m.Rows))
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
		s += csrKernelsOf[kern.name].edgeDot(m, g, x, B, mask, k0, k1)
		k0 = k1
	}
	return s
}

// NonzeroRows appends to buf[:0] the indices of the rows of the n×B block x
// that have at least one nonzero element, in increasing order, and returns
// it.
func NonzeroRows(x []float32, B int, buf []int32) []int32 {
	buf = buf[:0]
	if B <= 0 {
		return buf
	}
	n := len(x) / B
	for i := 0; i < n; i++ {
		for _, v := range x[i*B : i*B+B] {
			if v != 0 {
				buf = append(buf, int32(i))
				break
			}
		}
	}
	return buf
}

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
