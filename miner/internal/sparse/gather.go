package sparse

// Incidence lists every entry of several operators row by row: row i holds
// the entries Ptr[i]..Ptr[i+1]−1, each an operator Op[p], a column Col[p]
// and an edge id Edge[p]. The gather kernels make one pass over the lists
// for all operators at once, so their cost is the entries, not the
// operators times the rows.
//
// Ptr holds 64-bit offsets: the lists hold every operator's entries, more
// than 2^31 on a graph of a billion facts. Op, Col and Edge stay 32-bit (an
// operator, an entity, an edge id within one relation).
type Incidence struct {
	Ptr           []int64
	Op, Col, Edge []int32
}

// Skip names entries the kernels leave out: those of operators Op0 and Op1
// whose edge id Mask holds (a nil Mask leaves out nothing).
type Skip struct {
	Op0, Op1 int32
	Mask     *Mask
}

// Has reports whether the entry of operator op and edge id edge is left out.
func (s Skip) Has(op, edge int32) bool {
	return s.Mask != nil && (op == s.Op0 || op == s.Op1) && s.Mask.Has(edge)
}

// GatherAdd computes, for every row i in rows, dst[i,:] += Σ_p a[Op[p]] ·
// x[Col[p],:] over the entries p of row i not skipped, in entry order. dst
// and x are blocks of B columns. It runs serially.
func GatherAdd(dst []float32, in *Incidence, a []float32, skip Skip, x []float32, B int, rows []int32) {
	if B <= 0 {
		return
	}
	if skip.Mask.empty() {
		skip.Mask = nil
	}
	kern.gather(dst, in, a, skip, x, B, rows)
}

// GatherDot adds to acc[Op[p]], for every entry p not skipped of every row
// i in rows, the dot product of g[i,:] and x[Col[p],:] (float32 per entry,
// added in float64). It runs serially.
func GatherDot(acc []float64, in *Incidence, skip Skip, g, x []float32, B int, rows []int32) {
	if B <= 0 {
		return
	}
	if skip.Mask.empty() {
		skip.Mask = nil
	}
	for _, i := range rows {
		gi := g[int(i)*B : int(i)*B+B]
		for p := in.Ptr[i]; p < in.Ptr[i+1]; p++ {
			if skip.Has(in.Op[p], in.Edge[p]) {
				continue
			}
			j := int(in.Col[p]) * B
			acc[in.Op[p]] += kern.dot(gi, x[j:j+B])
		}
	}
}

func refGather(dst []float32, in *Incidence, a []float32, skip Skip, x []float32, B int, rows []int32) {
	for _, i := range rows {
		d := dst[int(i)*B : int(i)*B+B]
		for p := in.Ptr[i]; p < in.Ptr[i+1]; p++ {
			if skip.Has(in.Op[p], in.Edge[p]) {
				continue
			}
			j := int(in.Col[p]) * B
			refAxpy(d, a[in.Op[p]], x[j:j+B])
		}
	}
}
