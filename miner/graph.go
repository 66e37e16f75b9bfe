package miner

import (
	"context"
	"math"
	"slices"

	"github.com/drumql/drumql/internal/csr"
	"github.com/drumql/drumql/internal/pkgerr"
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
	nb       *entityLists     // undirected neighbourhood: row i = ∪_k row i of sct[k] (pattern)
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
	dptr             []int64
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

// buildOps fills g.nb and g.inc from g.gat and g.sct. Each list is built
// by a counting sort over the operators' stored rows, so the cost is the
// entries plus the entities, not the entities times the operators.
func (g *Graph) buildOps() {
	E, K := g.NumEntities(), len(g.gat)
	R := K / 2
	// The order in which an entity's entries are listed: per relation r,
	// operator r then R+r.
	order := make([]int, 0, K)
	for r := range R {
		order = append(order, r, R+r)
	}
	// Undirected neighbourhood: row i = ∪_k row i of sct[k], sorted.
	nbRows := byEntity(E, g.sct, order, false)
	// Sort and deduplicate each row in place, moving it down.
	w, lo := int64(0), int64(0)
	for i := range E {
		hi := nbRows.ptr[i+1]
		row := nbRows.col[lo:hi]
		slices.Sort(row)
		w += int64(copy(nbRows.col[w:], slices.Compact(row)))
		lo, nbRows.ptr[i+1] = hi, w
	}
	nbRows.col = nbRows.col[:w]
	g.nb = nbRows
	// Gather form: row x lists the entries of row x of every gat[k].
	rows := byEntity(E, g.gat, order, true)
	in := incidence{Incidence: sparse.Incidence{Ptr: rows.ptr, Op: rows.op, Col: rows.col, Edge: rows.edge}, dptr: make([]int64, E+1)}
	// Column degrees: per entity, (k, length of row x of sct[k]) for the
	// operators with a nonempty row, in the same operator order.
	for _, k := range order {
		m := g.sct[k]
		for j := range m.Stored() {
			if m.RowPtr[j+1] > m.RowPtr[j] {
				in.dptr[m.RowAt(j)+1]++
			}
		}
	}
	for x := range E {
		in.dptr[x+1] += in.dptr[x]
	}
	in.dop, in.dcnt = make([]int32, in.dptr[E]), make([]float32, in.dptr[E])
	next := slices.Clone(in.dptr[:E])
	for _, k := range order {
		m := g.sct[k]
		for j := range m.Stored() {
			if n := m.RowPtr[j+1] - m.RowPtr[j]; n > 0 {
				x := m.RowAt(j)
				in.dop[next[x]], in.dcnt[next[x]] = int32(k), float32(n)
				next[x]++
			}
		}
	}
	g.inc = in
	g.buildScatter()
}

// entityLists holds, per entity, a list of entries: those of entity i are
// at ptr[i]..ptr[i+1]-1 of col (and of op and edge, when kept).
type entityLists struct {
	ptr           []int64 // 64-bit: the lists hold every operator's entries
	op, col, edge []int32
}

// row returns the columns of entity i's list.
func (l *entityLists) row(i int32) []int32 { return l.col[l.ptr[i]:l.ptr[i+1]] }

// byEntity lists, per entity x, the entries of row x of every matrix ms[k],
// k taken in order, each in its row's order: a counting sort over the
// stored rows. Each entry's column goes in col; withOps also records its
// operator k in op and its edge id in edge.
func byEntity(E int, ms []*sparse.CSR, order []int, withOps bool) *entityLists {
	l := &entityLists{ptr: make([]int64, E+1)}
	for _, k := range order {
		m := ms[k]
		for j := range m.Stored() {
			l.ptr[m.RowAt(j)+1] += int64(m.RowPtr[j+1] - m.RowPtr[j])
		}
	}
	for x := range E {
		l.ptr[x+1] += l.ptr[x]
	}
	n := l.ptr[E]
	l.col = make([]int32, n)
	if withOps {
		l.op, l.edge = make([]int32, n), make([]int32, n)
	}
	next := slices.Clone(l.ptr[:E])
	for _, k := range order {
		m := ms[k]
		for j := range m.Stored() {
			x := m.RowAt(j)
			for p := m.RowPtr[j]; p < m.RowPtr[j+1]; p++ {
				d := next[x]
				next[x]++
				l.col[d] = m.Col[p]
				if withOps {
					l.op[d], l.edge[d] = int32(k), m.EdgeID(p)
				}
			}
		}
	}
	return l
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
		for j := range s.Stored() {
			if int(s.RowPtr[j+1]-s.RowPtr[j]) > maxFanOut {
				hubs[k] = append(hubs[k], s.RowAt(j))
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
		keep := func(y int32) bool { return int(s.Degree(y)) <= maxFanOut }
		v.gat[k] = filterCSR(g.gat[k], func(_, y int32) bool { return keep(y) })
		v.sct[k] = filterCSR(s, func(y, _ int32) bool { return keep(y) })
		v.capped += g.gat[k].NNZ() - v.gat[k].NNZ()
	}
	v.buildOps()
	return &v
}

// nonEmptyRows counts the rows of m with at least one entry.
func nonEmptyRows(m *sparse.CSR) int {
	n := 0
	for k := range m.Stored() {
		if m.RowPtr[k+1] > m.RowPtr[k] {
			n++
		}
	}
	return n
}

// filterCSR returns the entries (row, column) of m that keep accepts, with
// their edge ids, in m's layout (a hypersparse result stores only the rows
// left with entries).
func filterCSR(m *sparse.CSR, keep func(row, col int32) bool) *sparse.CSR {
	out := &sparse.CSR{Rows: m.Rows, Cols: m.Cols, Matrix: csr.Matrix{RowPtr: make([]int32, 1, m.Stored()+1)}}
	if m.RowIDs != nil {
		out.RowIDs = []int32{}
	}
	for j := range m.Stored() {
		i := m.RowAt(j)
		for p := m.RowPtr[j]; p < m.RowPtr[j+1]; p++ {
			if keep(i, m.Col[p]) {
				out.Col, out.Edge = append(out.Col, m.Col[p]), append(out.Edge, m.EdgeID(p))
			}
		}
		if n := int32(len(out.Col)); m.RowIDs == nil {
			out.RowPtr = append(out.RowPtr, n)
		} else if n > out.RowPtr[len(out.RowPtr)-1] {
			out.RowIDs = append(out.RowIDs, i)
			out.RowPtr = append(out.RowPtr, n)
		}
	}
	return out
}

// LoadGraph takes a snapshot of st's binary base facts (a store or a
// snapshot file) and prepares it.
func LoadGraph(ctx context.Context, st GraphSource) (*Graph, error) {
	snap, err := st.Snapshot(ctx)
	if err != nil {
		return nil, pkgerr.Newf("miner: load graph: %w", err)
	}
	return NewGraph(st, snap)
}

// NewGraph prepares snap, a snapshot of st (st resolves names).
func NewGraph(st Source, snap *store.Snapshot) (*Graph, error) {
	g := &Graph{snap: snap, relIndex: make(map[string]int), symToEnt: make(map[store.ID]int32, len(snap.Entities))}
	for i, id := range snap.Relations {
		name, err := st.Name(id)
		if err != nil {
			return nil, pkgerr.Newf("miner: relation %d: %w", id, err)
		}
		g.relNames = append(g.relNames, name)
		g.relIndex[name] = i
	}
	g.entNames = make([]string, len(snap.Entities))
	for i, id := range snap.Entities {
		name, err := st.Name(id)
		if err != nil {
			return nil, pkgerr.Newf("miner: entity %d: %w", id, err)
		}
		g.entNames[i] = name
		g.symToEnt[id] = int32(i)
	}
	E := len(snap.Entities)
	for r := range snap.Relations {
		out, in := &snap.Out[r], &snap.In[r]
		// Edge ids and row pointers within one relation are 32-bit; the
		// lists over all relations have 64-bit offsets.
		if len(out.Col) > math.MaxInt32 {
			return nil, pkgerr.Newf("miner: relation %s has %d facts; at most %d facts per relation are supported", g.relNames[r], len(out.Col), math.MaxInt32)
		}
		g.fwd = append(g.fwd, &sparse.CSR{Rows: E, Cols: E, Matrix: *out})
		g.bwd = append(g.bwd, &sparse.CSR{Rows: E, Cols: E, Matrix: *in})
		g.nnz += len(out.Col)
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
	lo, hi := m.Span(h)
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
			empty := &sparse.CSR{Rows: E, Cols: E, Matrix: csr.Matrix{RowPtr: []int32{0}, RowIDs: []int32{}}}
			v.fwd[i], v.bwd[i] = empty, empty
		}
	}
	v.setOps()
	v.buildOps()
	return &v
}
