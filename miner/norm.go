package miner

import (
	"math/bits"

	"github.com/drumql/drumql/miner/internal/sparse"
)

// normalise divides every column of v_t by its sum, n = max(thr, Σ u),
// into tk.norm[t]. Only the columns of a row's mask are visited: the others
// are zero.
func (tk *task) normalise(t int) {
	B, u, cm := tk.B, tk.v[t], tk.cm[t]
	norm := tk.norm[t][:B]
	clear(norm)
	for _, y := range tk.act[t] {
		row := u[int(y)*B : int(y)*B+B]
		if m := cm[y]; tk.narrow(m) {
			for ; m != 0; m &= m - 1 {
				b := bits.TrailingZeros64(m)
				norm[b] += float64(row[b])
			}
			continue
		}
		sparse.ColAdd(norm, row)
	}
	for b := range norm {
		norm[b] = max(norm[b], thr)
	}
	for _, y := range tk.act[t] {
		row := u[int(y)*B : int(y)*B+B]
		if m := cm[y]; tk.narrow(m) {
			for ; m != 0; m &= m - 1 {
				b := bits.TrailingZeros64(m)
				row[b] = float32(float64(row[b]) / norm[b])
			}
			continue
		}
		sparse.ColDiv(row, norm)
	}
}

// normaliseBack turns gv, the gradient with respect to v_t on the rows
// act[t], into the gradient with respect to u_t (v = u / n): (g − c)/n with
// c = Σ_y g[y]·v[y], per column; c is scratch of B float64. Only the
// columns of a row's mask are computed (v is zero elsewhere, and nothing
// reads the gradient there).
func (tk *task) normaliseBack(t int, gv []float32, c []float64) {
	B, vt, cm, norm := tk.B, tk.v[t], tk.cm[t], tk.norm[t]
	clear(c)
	for _, y := range tk.act[t] {
		o := int(y) * B
		if m := cm[y]; tk.narrow(m) {
			for ; m != 0; m &= m - 1 {
				b := bits.TrailingZeros64(m)
				c[b] += float64(float64(gv[o+b]) * float64(vt[o+b]))
			}
			continue
		}
		sparse.ColProdAdd(c, gv[o:o+B], vt[o:o+B])
	}
	// (g − c)/n, or g/thr for a column whose sum is below thr.
	n := tk.nb[:B]
	for b := range B {
		n[b] = norm[b]
		if norm[b] <= thr {
			c[b], n[b] = 0, thr
		}
	}
	for _, y := range tk.act[t] {
		row := gv[int(y)*B : int(y)*B+B]
		if m := cm[y]; tk.narrow(m) {
			for ; m != 0; m &= m - 1 {
				b := bits.TrailingZeros64(m)
				row[b] = float32((float64(row[b]) - c[b]) / n[b])
			}
			continue
		}
		sparse.ColSubDiv(row, c, n)
	}
}
