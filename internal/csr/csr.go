// Package csr is the compressed sparse row layout of one relation's
// adjacency, shared by the store's snapshots (store.CSR) and the miner's
// operators (which embed it): dense, with one row pointer per entity, or
// hypersparse, with only the rows that have columns.
package csr

import "slices"

// HypersparseRatio decides the layout of an adjacency: a relation whose rows
// with at least one column number fewer than 1/HypersparseRatio of the
// entities stores only those rows (hypersparse, Matrix.RowIDs set); others keep
// one row pointer per entity. Row pointers then never take more than
// HypersparseRatio entries per fact, so a snapshot is O(facts + entities)
// whatever the number of relations, and a relation that touches most
// entities keeps its constant-time row lookup.
const HypersparseRatio = 16

// DenseBudget and DensePerFact bound the row pointers of a graph stored
// all dense: while one row pointer per entity for every relation and
// direction takes at most DenseBudget bytes, or at most DensePerFact bytes
// per fact, every adjacency is dense, as a dense row is found in constant
// time and a hypersparse one by binary search (on FB15k-237, with 237
// relations over 14,541 entities, the dense layout takes 28 MB, and the rule
// step of mine --from-model took 52 s on it against 70 s with its sparse
// relations hypersparse, both under the soft memory limit). Past both, HypersparseRatio decides
// relation by relation, so the row pointers take at most
// max(DenseBudget, DensePerFact·facts) bytes, or O(facts + entities).
const (
	DenseBudget  = 64 << 20
	DensePerFact = 16
)

// AllDense reports whether a graph of that many relations, entities and
// facts stores every adjacency dense (see DenseBudget).
func AllDense(relations, entities, facts int) bool {
	d := int64(8) * int64(relations) * int64(entities+1)
	return d <= DenseBudget || d <= DensePerFact*int64(facts)
}

// Matrix is a compressed sparse row adjacency over a graph's entities, in
// one of two layouts:
//
//   - dense (RowIDs nil): one row per entity; the columns of row i are
//     Col[RowPtr[i]:RowPtr[i+1]], and len(RowPtr) is the number of entities
//     plus one;
//   - hypersparse (RowIDs non-nil): only the rows with columns are stored,
//     RowIDs lists them in increasing order, and the columns of row
//     RowIDs[k] are Col[RowPtr[k]:RowPtr[k+1]].
//
// Read it through Span, Row, Degree, Stored and RowAt, which work in both.
type Matrix struct {
	RowPtr []int32
	Col    []int32
	Edge   []int32 // optional: edge id of each entry (set on Snapshot.In)
	RowIDs []int32 // nil (dense) or the stored rows, ascending (hypersparse)
}

// Span returns the positions lo..hi-1 of row i's entries in Col (and Edge);
// lo == hi for a row without columns.
func (m *Matrix) Span(i int32) (lo, hi int32) {
	if m.RowIDs == nil {
		return m.RowPtr[i], m.RowPtr[i+1]
	}
	return m.hyperSpan(i)
}

// hyperSpan is Span on the hypersparse layout: a binary search of the
// stored rows. It is kept out of line so that Span, Row and Degree, on the
// dense layout's path, inline into the loops that read rows.
//
//go:noinline
func (m *Matrix) hyperSpan(i int32) (lo, hi int32) {
	k, ok := slices.BinarySearch(m.RowIDs, i)
	if !ok {
		return 0, 0
	}
	return m.RowPtr[k], m.RowPtr[k+1]
}

// Row returns the columns of row i (sorted), sharing m's storage.
func (m *Matrix) Row(i int32) []int32 {
	if m.RowIDs == nil {
		return m.Col[m.RowPtr[i]:m.RowPtr[i+1]]
	}
	lo, hi := m.hyperSpan(i)
	return m.Col[lo:hi]
}

// Degree returns the number of columns of row i.
func (m *Matrix) Degree(i int32) int32 {
	if m.RowIDs == nil {
		return m.RowPtr[i+1] - m.RowPtr[i]
	}
	lo, hi := m.hyperSpan(i)
	return hi - lo
}

// Stored returns the number of rows m stores: every entity's when dense,
// the rows with columns when hypersparse.
func (m *Matrix) Stored() int { return max(len(m.RowPtr)-1, 0) }

// RowAt returns the entity of stored row k (0 ≤ k < Stored()): k itself when
// dense.
func (m *Matrix) RowAt(k int) int32 {
	if m.RowIDs == nil {
		return int32(k)
	}
	return m.RowIDs[k]
}

// Hypersparse reports whether m stores only its rows with columns.
func (m *Matrix) Hypersparse() bool { return m.RowIDs != nil }

// Compact returns m in the hypersparse layout (m itself when it already
// is). The columns and edge ids are shared.
func (m *Matrix) Compact() Matrix {
	if m.RowIDs != nil {
		return *m
	}
	out := Matrix{Col: m.Col, Edge: m.Edge, RowIDs: []int32{}, RowPtr: []int32{0}}
	for i := range m.Stored() {
		if m.RowPtr[i+1] > m.RowPtr[i] {
			out.RowIDs = append(out.RowIDs, int32(i))
			out.RowPtr = append(out.RowPtr, m.RowPtr[i+1])
		}
	}
	return out
}

// Expand returns m in the dense layout over n entities (m itself when it
// already is). The columns and edge ids are shared.
func (m *Matrix) Expand(n int) Matrix {
	if m.RowIDs == nil {
		return *m
	}
	out := Matrix{Col: m.Col, Edge: m.Edge, RowPtr: make([]int32, n+1)}
	k := 0
	for i := range n {
		for k < len(m.RowIDs) && int(m.RowIDs[k]) == i {
			k++
		}
		out.RowPtr[i+1] = m.RowPtr[k]
	}
	return out
}

// Adjacency builds the two adjacencies of one relation's facts over n
// entities: out (row = subject, columns = objects) and in (row = object,
// columns = subjects, Edge = the position of the fact in out.Col). The facts
// are (subs[k], objs[k]), sorted by subject then object, so that fact k is
// entry k of out. Both are dense when allDense is set (see AllDense);
// otherwise each takes the layout HypersparseRatio chooses for it. out.Col
// is objs itself; subs is not kept.
func Adjacency(n int, subs, objs []int32, allDense bool) (out, in Matrix) {
	m := len(subs)
	out = Matrix{Col: objs}
	in = Matrix{Col: make([]int32, m), Edge: make([]int32, m)}
	// out: the rows are runs of equal subjects.
	outRows := 0
	for k := range m {
		if k == 0 || subs[k] != subs[k-1] {
			outRows++
		}
	}
	if !allDense && hypersparse(outRows, n) {
		out.RowIDs = make([]int32, 0, outRows)
		out.RowPtr = make([]int32, 1, outRows+1)
		for k := range m {
			if k == 0 || subs[k] != subs[k-1] {
				if k > 0 {
					out.RowPtr = append(out.RowPtr, int32(k))
				}
				out.RowIDs = append(out.RowIDs, subs[k])
			}
		}
		if m > 0 {
			out.RowPtr = append(out.RowPtr, int32(m))
		}
	} else {
		out.RowPtr = make([]int32, n+1)
		for _, s := range subs {
			out.RowPtr[s+1]++
		}
		for i := range n {
			out.RowPtr[i+1] += out.RowPtr[i]
		}
	}
	// in: a counting sort of the facts by object, stable in fact order.
	if !allDense && hypersparse(countDistinct(objs, n), n) {
		ids := slices.Clone(objs)
		slices.Sort(ids)
		ids = slices.Compact(ids)
		in.RowIDs = ids
		in.RowPtr = make([]int32, len(ids)+1)
		for _, o := range objs {
			k, _ := slices.BinarySearch(ids, o)
			in.RowPtr[k+1]++
		}
	} else {
		in.RowPtr = make([]int32, n+1)
		for _, o := range objs {
			in.RowPtr[o+1]++
		}
	}
	for k := range in.Stored() {
		in.RowPtr[k+1] += in.RowPtr[k]
	}
	next := slices.Clone(in.RowPtr[:in.Stored()])
	for k, o := range objs {
		j := int(o)
		if in.RowIDs != nil {
			j, _ = slices.BinarySearch(in.RowIDs, o)
		}
		p := next[j]
		next[j]++
		in.Col[p] = subs[k]
		in.Edge[p] = int32(k)
	}
	return out, in
}

// hypersparse reports whether an adjacency with rows non-empty rows over n
// entities is stored hypersparse.
func hypersparse(rows, n int) bool { return rows*HypersparseRatio < n }

// countDistinct counts the distinct values of xs, all in [0, n).
func countDistinct(xs []int32, n int) int {
	if len(xs)*HypersparseRatio < n {
		// Few values: at most len(xs) distinct, so the result is
		// hypersparse either way; avoid an n-bit set.
		return len(xs)
	}
	seen := make([]uint64, (n+63)/64)
	d := 0
	for _, x := range xs {
		if w, b := x/64, uint64(1)<<(x%64); seen[w]&b == 0 {
			seen[w] |= b
			d++
		}
	}
	return d
}
