package sparse

import (
	"fmt"

	"github.com/drumql/drumql/internal/csr"
)

// CSR is a pattern-only sparse matrix (all stored entries are 1) in
// compressed sparse row form with int32 column indices.
//
// Its rows are stored in one of two layouts (store.CSR's): dense, RowIDs
// nil, where the entries of row i are at positions RowPtr[i]..RowPtr[i+1]-1
// of Col (and of Edge); or hypersparse, RowIDs non-nil, where only the rows
// with entries are stored, RowIDs lists them in increasing order and the
// entries of row RowIDs[k] are at RowPtr[k]..RowPtr[k+1]-1. Span, Row and
// Degree read a row in either; Stored and RowAt iterate the stored rows.
// Edge is optional: when non-nil, Edge[p] is the edge id of entry p and is
// what a Mask is tested against; when nil, the entry position p is its edge
// id.
type CSR struct {
	Rows, Cols int
	// The layout: RowPtr (len Stored()+1, RowPtr[0] = 0, non-decreasing),
	// Col (len NNZ, column index of each entry), Edge (nil or len NNZ, edge
	// id of each entry) and RowIDs (nil when dense, Stored() = Rows; else
	// the stored rows, ascending), with Span, Row, Degree, Stored and RowAt.
	csr.Matrix
}

// NNZ returns the number of stored entries.
func (m *CSR) NNZ() int {
	if len(m.RowPtr) == 0 {
		return 0
	}
	return int(m.RowPtr[len(m.RowPtr)-1])
}

// Compact returns m in the hypersparse layout (m itself if it already is);
// columns and edge ids are shared.
func (m *CSR) Compact() *CSR {
	if m.RowIDs != nil {
		return m
	}
	return &CSR{Rows: m.Rows, Cols: m.Cols, Matrix: m.Matrix.Compact()}
}

// Transpose returns mᵀ as a new CSR. Edge ids are kept (entry (i,j) with
// id e becomes entry (j,i) with id e; if m.Edge is nil the ids are m's entry
// positions), so one Mask masks the same edges in m and mᵀ. Within a row of
// the result, columns are ascending and ties keep m's entry order. The
// result is dense.
func (m *CSR) Transpose() *CSR {
	nnz := m.NNZ()
	t := &CSR{Rows: m.Cols, Cols: m.Rows, Matrix: csr.Matrix{RowPtr: make([]int32, m.Cols+1), Col: make([]int32, nnz), Edge: make([]int32, nnz)}}
	for _, c := range m.Col[:nnz] {
		t.RowPtr[c+1]++
	}
	for c := 0; c < m.Cols; c++ {
		t.RowPtr[c+1] += t.RowPtr[c]
	}
	next := make([]int32, m.Cols)
	copy(next, t.RowPtr[:m.Cols])
	for k := range m.Stored() {
		i := m.RowAt(k)
		for p := m.RowPtr[k]; p < m.RowPtr[k+1]; p++ {
			c := m.Col[p]
			q := next[c]
			next[c]++
			t.Col[q] = i
			if m.Edge != nil {
				t.Edge[q] = m.Edge[p]
			} else {
				t.Edge[q] = p
			}
		}
	}
	return t
}

// Validate checks the structural invariants of m (lengths, monotone RowPtr,
// ascending RowIDs, columns in range) and returns a descriptive error for the first violation.
func (m *CSR) Validate() error {
	if m.Rows < 0 || m.Cols < 0 {
		return fmt.Errorf("sparse: negative shape %dx%d", m.Rows, m.Cols)
	}
	want := m.Rows + 1
	if m.RowIDs != nil {
		want = len(m.RowIDs) + 1
		for k, i := range m.RowIDs {
			if i < 0 || int(i) >= m.Rows || k > 0 && i <= m.RowIDs[k-1] {
				return fmt.Errorf("sparse: RowIDs[%d]=%d not ascending in [0,%d)", k, i, m.Rows)
			}
		}
	}
	if len(m.RowPtr) != want {
		return fmt.Errorf("sparse: len(RowPtr)=%d, want %d", len(m.RowPtr), want)
	}
	if m.RowPtr[0] != 0 {
		return fmt.Errorf("sparse: RowPtr[0]=%d, want 0", m.RowPtr[0])
	}
	for k := 0; k+1 < len(m.RowPtr); k++ {
		if m.RowPtr[k+1] < m.RowPtr[k] {
			return fmt.Errorf("sparse: RowPtr decreases at stored row %d", k)
		}
	}
	nnz := int(m.RowPtr[len(m.RowPtr)-1])
	if len(m.Col) != nnz {
		return fmt.Errorf("sparse: len(Col)=%d, want %d", len(m.Col), nnz)
	}
	if m.Edge != nil && len(m.Edge) != nnz {
		return fmt.Errorf("sparse: len(Edge)=%d, want 0 or %d", len(m.Edge), nnz)
	}
	for p, c := range m.Col {
		if c < 0 || int(c) >= m.Cols {
			return fmt.Errorf("sparse: Col[%d]=%d out of range [0,%d)", p, c, m.Cols)
		}
	}
	return nil
}

// EdgeID returns the edge id of entry p: Edge[p], or p when Edge is nil.
func (m *CSR) EdgeID(p int32) int32 {
	if m.Edge != nil {
		return m.Edge[p]
	}
	return p
}
