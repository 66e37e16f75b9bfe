package miner

import (
	"context"
	"math"
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
	nnz      int

	// What propagation uses, per operator k (k < R: M_k; k = R+r: M_rᵀ):
	// gat[k] is the operator (row = output entity, u[x] += Σ_y A[x, y] v[y])
	// and sct[k] its transpose (row = input entity, whose entries are where
	// its mass goes). Without capped hubs they are fwd and bwd; capHubs
	// removes the entries out of hub entities (see Config.MaxFanOut).
	gat, sct []*sparse.CSR
	nb       *sparse.CSR      // undirected neighbourhood: row i = ∪_k row i of sct[k] (pattern)
	inc      incidence        // gather form: row = output entity
	sinc     sparse.Incidence // the scatter form: row = input entity (buildScatter)
	capped   int              // entries removed by capHubs
	hubs     [][]int32        // per operator, the entities capHubs cut off (sorted), or nil
}

// isHub reports whether capHubs cut entity y off as an input of operator k.
func (g *Graph) isHub(k int, y int32) bool {
	if g.hubs == nil || g.hubs[k] == nil {
		return false
	}
	_, ok := slices.BinarySearch(g.hubs[k], y)
	return ok
}

// incidence lists, per entity x, every entry of row x of every operator
// gat[k] (operator k, column y, edge id), and per entity y the column
// degrees of every operator (Σ_x gat[k][x, y], the length of row y of
// sct[k]), as (operator, count) pairs.
type incidence struct {
	sparse.Incidence // Ptr, Op, Col, Edge: the entries of the rows
	dptr             []int32
	dop              []int32
	dcnt             []float32
}

// setOps sets the propagation operators to the exact graph: gat = (fwd,
// bwd), sct = (bwd, fwd).
func (g *Graph) setOps() {
	g.gat = append(slices.Clone(g.fwd), g.bwd...)
	g.sct = append(slices.Clone(g.bwd), g.fwd...)
	g.capped, g.hubs = 0, nil
}

// buildOps fills g.nb and g.inc from g.gat and g.sct.
func (g *Graph) buildOps() {
	E, K := g.NumEntities(), len(g.gat)
	R := K / 2
	// Undirected neighbourhood: union of the rows of every scatter operator.
	nb := &sparse.CSR{Rows: E, Cols: E, RowPtr: make([]int32, E+1)}
	var row []int32
	for i := range E {
		row = row[:0]
		for r := range R {
			for _, m := range []*sparse.CSR{g.sct[R+r], g.sct[r]} {
				row = append(row, m.Col[m.RowPtr[i]:m.RowPtr[i+1]]...)
			}
		}
		slices.Sort(row)
		row = slices.Compact(row)
		nb.Col = append(nb.Col, row...)
		nb.RowPtr[i+1] = int32(len(nb.Col))
	}
	g.nb = nb
	in := incidence{Incidence: sparse.Incidence{Ptr: make([]int32, E+1)}, dptr: make([]int32, E+1)}
	for x := range E {
		for r := range R {
			for _, k := range []int{r, R + r} {
				m := g.gat[k]
				for p := m.RowPtr[x]; p < m.RowPtr[x+1]; p++ {
					in.Op, in.Col, in.Edge = append(in.Op, int32(k)), append(in.Col, m.Col[p]), append(in.Edge, m.EdgeID(p))
				}
			}
		}
		in.Ptr[x+1] = int32(len(in.Op))
		for k := range K {
			k = k/2 + (k%2)*R // r, R+r, r+1, R+r+1, …
			if n := g.sct[k].RowPtr[x+1] - g.sct[k].RowPtr[x]; n > 0 {
				in.dop, in.dcnt = append(in.dop, int32(k)), append(in.dcnt, float32(n))
			}
		}
		in.dptr[x+1] = int32(len(in.dop))
	}
	g.inc = in
	g.buildScatter()
}

// capHubs returns g with its propagation operators capped: an entity with
// more than maxFanOut entries in a row of sct[k] (a hub for operator k: a
// gender value for inv_gender, a country for inv_citizen_of) sends no mass
// through operator k. The exact matrices (fwd, bwd: rules, support counts)
// are unchanged. It returns g itself when maxFanOut ≤ 0 or no row exceeds
// it.
func (g *Graph) capHubs(maxFanOut int) *Graph {
	if maxFanOut <= 0 {
		return g
	}
	// The hubs of every operator: the rows of its scatter matrix (its
	// inputs) with more than maxFanOut entries.
	hubs, found := make([][]int32, len(g.sct)), false
	for k, s := range g.sct {
		for y := range s.Rows {
			if int(s.RowPtr[y+1]-s.RowPtr[y]) > maxFanOut {
				hubs[k] = append(hubs[k], int32(y))
			}
		}
		found = found || hubs[k] != nil
	}
	if !found {
		return g
	}
	v := *g
	v.gat, v.sct = slices.Clone(g.gat), slices.Clone(g.sct)
	v.capped, v.hubs = 0, hubs
	for k, s := range g.sct {
		if hubs[k] == nil {
			continue
		}
		// Drop the entries whose input y is a hub: columns of gat[k], rows
		// of sct[k].
		keep := func(y int32) bool { return int(s.RowPtr[y+1]-s.RowPtr[y]) <= maxFanOut }
		v.gat[k] = filterCSR(g.gat[k], func(_, y int32) bool { return keep(y) })
		v.sct[k] = filterCSR(s, func(y, _ int32) bool { return keep(y) })
		v.capped += g.gat[k].NNZ() - v.gat[k].NNZ()
	}
	v.buildOps()
	return &v
}

// filterCSR returns the entries (row, column) of m that keep accepts, with
// their edge ids.
func filterCSR(m *sparse.CSR, keep func(row, col int32) bool) *sparse.CSR {
	out := &sparse.CSR{Rows: m.Rows, Cols: m.Cols, RowPtr: make([]int32, m.Rows+1)}
	for i := range m.Rows {
		for p := m.RowPtr[i]; p < m.RowPtr[i+1]; p++ {
			if keep(int32(i), m.Col[p]) {
				out.Col, out.Edge = append(out.Col, m.Col[p]), append(out.Edge, m.EdgeID(p))
			}
		}
		out.RowPtr[i+1] = int32(len(out.Col))
	}
	return out
}

// LoadGraph takes a snapshot of st's binary base facts (a store or a
// snapshot file) and prepares it.
func LoadGraph(ctx context.Context, st GraphSource) (*Graph, error) {
	snap, err := st.Snapshot(ctx)
	if err != nil {
		return nil, errorf("miner: load graph: %w", err)
	}
	return NewGraph(st, snap)
}

// NewGraph prepares snap, a snapshot of st (st resolves names).
func NewGraph(st Source, snap *store.Snapshot) (*Graph, error) {
	g := &Graph{snap: snap, relIndex: make(map[string]int), symToEnt: make(map[store.ID]int32, len(snap.Entities))}
	for i, id := range snap.Relations {
		name, err := st.Name(id)
		if err != nil {
			return nil, errorf("miner: relation %d: %w", id, err)
		}
		g.relNames = append(g.relNames, name)
		g.relIndex[name] = i
	}
	g.entNames = make([]string, len(snap.Entities))
	for i, id := range snap.Entities {
		name, err := st.Name(id)
		if err != nil {
			return nil, errorf("miner: entity %d: %w", id, err)
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
	// The incidence lists hold every fact twice, indexed by int32.
	if 2*g.nnz > math.MaxInt32 {
		return nil, errorf("miner: the graph has %d facts; mining indexes each twice with 32-bit offsets, so at most %d facts are supported", g.nnz, math.MaxInt32/2)
	}
	g.setOps()
	g.buildOps()
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
	v.setOps()
	v.buildOps()
	return &v
}
