package miner

import (
	"context"
	"fmt"
	"slices"

	"github.com/drumql/drumql/miner/internal/sparse"
	"github.com/drumql/drumql/store"
)

// Graph is a store snapshot prepared for propagation: per relation the
// operator M_r (rows = heads, columns = tails, M_r[h, t] = 1 for a fact
// r(h, t)) and its transpose, with shared edge ids, plus names. Entity
// indices are the snapshot's dense indices. A Graph is immutable and safe for
// concurrent use.
type Graph struct {
	snap     *store.Snapshot
	relNames []string
	relIndex map[string]int
	entNames []string
	symToEnt map[store.ID]int32
	fwd      []*sparse.CSR // fwd[r] = M_r: row head, column tail; edge id = position
	bwd      []*sparse.CSR // bwd[r] = M_rᵀ: row tail, column head; same edge ids
	nb       *sparse.CSR   // undirected neighbourhood over all relations (pattern)
	nnz      int
	inc      incidence
}

// incidence lists, per entity x, every entry of row x of every operator:
// operator r < R holds y with M_r[x, y] = 1, operator R+r holds y with
// M_r[y, x] = 1; and per entity y the column degrees of every operator
// (Σ_x M_k[x, y]), as (operator, count) pairs.
type incidence struct {
	ptr  []int32
	op   []int32
	col  []int32
	edge []int32
	dptr []int32
	dop  []int32
	dcnt []float32
}

// buildIncidence fills g.inc from g.fwd and g.bwd (in g's relation order).
func (g *Graph) buildIncidence() {
	E, R := g.NumEntities(), len(g.fwd)
	in := incidence{ptr: make([]int32, E+1), dptr: make([]int32, E+1)}
	for x := range E {
		for r := range R {
			f, b := g.fwd[r], g.bwd[r]
			for p := f.RowPtr[x]; p < f.RowPtr[x+1]; p++ {
				in.op, in.col, in.edge = append(in.op, int32(r)), append(in.col, f.Col[p]), append(in.edge, p)
			}
			for p := b.RowPtr[x]; p < b.RowPtr[x+1]; p++ {
				in.op, in.col, in.edge = append(in.op, int32(R+r)), append(in.col, b.Col[p]), append(in.edge, b.Edge[p])
			}
		}
		in.ptr[x+1] = int32(len(in.op))
		// Column degree of y = x: operator r counts heads h with r(h, x)
		// (row x of M_rᵀ), operator R+r counts tails with r(x, t).
		for r := range R {
			if n := g.bwd[r].RowPtr[x+1] - g.bwd[r].RowPtr[x]; n > 0 {
				in.dop, in.dcnt = append(in.dop, int32(r)), append(in.dcnt, float32(n))
			}
			if n := g.fwd[r].RowPtr[x+1] - g.fwd[r].RowPtr[x]; n > 0 {
				in.dop, in.dcnt = append(in.dop, int32(R+r)), append(in.dcnt, float32(n))
			}
		}
		in.dptr[x+1] = int32(len(in.dop))
	}
	g.inc = in
}

// LoadGraph takes a snapshot of st's binary base facts (a store or a
// snapshot file) and prepares it.
func LoadGraph(ctx context.Context, st GraphSource) (*Graph, error) {
	snap, err := st.Snapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("miner: load graph: %w", err)
	}
	return NewGraph(st, snap)
}

// NewGraph prepares snap, a snapshot of st (st resolves names).
func NewGraph(st Source, snap *store.Snapshot) (*Graph, error) {
	g := &Graph{snap: snap, relIndex: make(map[string]int), symToEnt: make(map[store.ID]int32, len(snap.Entities))}
	for i, id := range snap.Relations {
		name, err := st.Name(id)
		if err != nil {
			return nil, fmt.Errorf("miner: relation %d: %w", id, err)
		}
		g.relNames = append(g.relNames, name)
		g.relIndex[name] = i
	}
	g.entNames = make([]string, len(snap.Entities))
	for i, id := range snap.Entities {
		name, err := st.Name(id)
		if err != nil {
			return nil, fmt.Errorf("miner: entity %d: %w", id, err)
		}
		g.entNames[i] = name
		g.symToEnt[id] = int32(i)
	}
	E := len(snap.Entities)
	for r := range snap.Relations {
		out, in := &snap.Out[r], &snap.In[r]
		g.fwd = append(g.fwd, &sparse.CSR{Rows: E, Cols: E, RowPtr: out.RowPtr, Col: out.Col})
		g.bwd = append(g.bwd, &sparse.CSR{Rows: E, Cols: E, RowPtr: in.RowPtr, Col: in.Col, Edge: in.Edge})
		g.nnz += len(out.Col)
	}
	// Undirected neighbourhood: union of the rows of every M_r and M_rᵀ.
	nb := &sparse.CSR{Rows: E, Cols: E, RowPtr: make([]int32, E+1)}
	var row []int32
	for i := range E {
		row = row[:0]
		for r := range g.fwd {
			for _, m := range []*sparse.CSR{g.fwd[r], g.bwd[r]} {
				row = append(row, m.Col[m.RowPtr[i]:m.RowPtr[i+1]]...)
			}
		}
		slices.Sort(row)
		row = slices.Compact(row)
		nb.Col = append(nb.Col, row...)
		nb.RowPtr[i+1] = int32(len(nb.Col))
	}
	g.nb = nb
	g.buildIncidence()
	return g, nil
}

// NumEntities is the number of entities (dense indices 0..NumEntities()-1).
func (g *Graph) NumEntities() int { return len(g.entNames) }

// Relations returns the relation names, in dense index order.
func (g *Graph) Relations() []string { return slices.Clone(g.relNames) }

// EntityName returns the name of dense entity index i.
func (g *Graph) EntityName(i int32) string { return g.entNames[i] }

// EntityIndex returns the dense index of the entity with store id id.
func (g *Graph) EntityIndex(id store.ID) (int32, bool) {
	i, ok := g.symToEnt[id]
	return i, ok
}

// Snapshot returns the underlying snapshot.
func (g *Graph) Snapshot() *store.Snapshot { return g.snap }

// edgeID returns the edge id of the fact r(h, t), or -1.
func (g *Graph) edgeID(r int, h, t int32) int32 {
	m := g.fwd[r]
	lo, hi := m.RowPtr[h], m.RowPtr[h+1]
	p, ok := slices.BinarySearch(m.Col[lo:hi], t)
	if !ok {
		return -1
	}
	return lo + int32(p)
}

// view returns g with its operators reordered to follow rels: operator r of
// the view is g's relation named rels[r], or an empty matrix when g has no
// such relation. Entities are unchanged.
func (g *Graph) view(rels []string) *Graph {
	if slices.Equal(rels, g.relNames) {
		return g
	}
	v := *g
	E := g.NumEntities()
	v.relNames = slices.Clone(rels)
	v.relIndex = make(map[string]int, len(rels))
	v.fwd = make([]*sparse.CSR, len(rels))
	v.bwd = make([]*sparse.CSR, len(rels))
	for i, name := range rels {
		v.relIndex[name] = i
		if r, ok := g.relIndex[name]; ok {
			v.fwd[i], v.bwd[i] = g.fwd[r], g.bwd[r]
		} else {
			empty := &sparse.CSR{Rows: E, Cols: E, RowPtr: make([]int32, E+1)}
			v.fwd[i], v.bwd[i] = empty, empty
		}
	}
	v.buildIncidence()
	return &v
}
