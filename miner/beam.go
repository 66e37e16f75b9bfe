package miner

import (
	"cmp"
	"fmt"
	"slices"
)

// seq is a body as a sequence of T operators with its score.
type seq struct {
	ops   []int
	score float64
	ranks []float64
}

// beam enumerates operator sequences k_1..k_T with score Σ_j Π_t a[j][t][k_t]
// ≥ opt.MinScore by beam search, and merges sequences that are the same body
// once identities are skipped (their scores add up, as in the expansion of
// the model without normalisation).
func (m *Model) beam(a [][][]float64, opt ExtractOptions) []seq {
	L, T, K := m.lay.L, m.lay.nT, m.lay.nOps
	type item struct {
		ops  []int
		prod []float64 // per rank
		sum  float64
	}
	// ext is an extension of item parent by operator k, before it is
	// materialised: only the opt.Beam best of a step are.
	type ext struct {
		sum    float64
		parent int32
		k      int32
	}
	cur := []item{{prod: slices.Repeat([]float64{1}, L), sum: float64(L)}}
	var exts []ext
	var sums []float64
	acc := make([]float64, K)
	for t := range T {
		exts = exts[:0]
		for i, it := range cur {
			// acc[k] = Σ_j prod[j]·a[j][t][k], summed in rank order, one
			// rank's row at a time (contiguous).
			clear(acc)
			for j := range L {
				p, row := it.prod[j], a[j][t][:K]
				for k, v := range row {
					acc[k] += p * v
				}
			}
			for k, s := range acc {
				if s >= opt.MinScore {
					exts = append(exts, ext{sum: s, parent: int32(i), k: int32(k)})
				}
			}
		}
		// Best first; among equal scores, in the order enumerated (parent,
		// then operator), as a stable sort by score would leave them. Only
		// the opt.Beam best are sorted: those above the opt.Beam-th best
		// score, then the first enumerated of those equal to it.
		if len(exts) > opt.Beam {
			sums = sums[:0]
			for _, x := range exts {
				sums = append(sums, x.sum)
			}
			thr := nthLargest(sums, opt.Beam)
			room := opt.Beam
			for _, x := range exts {
				if x.sum > thr {
					room--
				}
			}
			kept := exts[:0]
			for _, x := range exts {
				if x.sum > thr || x.sum == thr && room > 0 {
					if x.sum == thr {
						room--
					}
					kept = append(kept, x)
				}
			}
			exts = kept
		}
		slices.SortFunc(exts, func(x, y ext) int {
			if x.sum != y.sum {
				if x.sum > y.sum {
					return -1
				}
				return 1
			}
			if c := cmp.Compare(x.parent, y.parent); c != 0 {
				return c
			}
			return cmp.Compare(x.k, y.k)
		})
		next := make([]item, len(exts))
		for i, x := range exts {
			it := cur[x.parent]
			p := make([]float64, L)
			var s float64
			for j := range L {
				p[j] = it.prod[j] * a[j][t][x.k]
				s += p[j]
			}
			next[i] = item{ops: append(slices.Clone(it.ops), int(x.k)), prod: p, sum: s}
		}
		cur = next
	}
	id := K - 1
	merged := map[string]*seq{}
	var order []string
	for _, it := range cur {
		var ops []int
		for _, k := range it.ops {
			if k != id {
				ops = append(ops, k)
			}
		}
		if len(ops) == 0 {
			continue
		}
		key := fmt.Sprint(ops)
		s, ok := merged[key]
		if !ok {
			s = &seq{ops: ops, ranks: make([]float64, L)}
			merged[key] = s
			order = append(order, key)
		}
		s.score += it.sum
		for j := range L {
			s.ranks[j] += it.prod[j]
		}
	}
	out := make([]seq, 0, len(order))
	for _, k := range order {
		out = append(out, *merged[k])
	}
	return out
}

// nthLargest returns the n-th largest of xs (n from 1 to len(xs)),
// reordering xs: a quickselect with the median of three as pivot.
func nthLargest(xs []float64, n int) float64 {
	lo, hi, k := 0, len(xs)-1, n-1 // k: the index in decreasing order
	for lo < hi {
		mid := lo + (hi-lo)/2
		// The median of xs[lo], xs[mid], xs[hi] as pivot.
		a, b, c := xs[lo], xs[mid], xs[hi]
		p := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for xs[i] > p {
				i++
			}
			for xs[j] < p {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		// Now xs[lo..j] ≥ p, xs[j+1..i-1] = p, xs[i..hi] ≤ p.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return p
		}
	}
	return xs[k]
}

// toPath turns the operators of a query (applied from the given entity to
// the answer) into a path from A to B, where the head is r(A, B). Operator
// k < R moves from y to x with fact k(x, y); operator R+p moves from y to x
