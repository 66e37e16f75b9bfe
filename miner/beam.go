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
	cur := []beamItem{{prod: slices.Repeat([]float64{1}, L), sum: float64(L)}}
	var exts []beamExt
	var sums []float64
	acc := make([]float64, K)
	for t := range T {
		exts = extensions(exts[:0], cur, a, t, opt.MinScore, acc)
		// Best first; among equal scores, in the order enumerated (parent,
		// then operator), as a stable sort by score would leave them.
		if len(exts) > opt.Beam {
			exts, sums = bestExtensions(exts, opt.Beam, sums)
		}
		sortExtensions(exts)
		cur = materialise(cur, exts, a, t)
	}
	return mergeIdentities(cur, K-1, L)
}

// beamItem is a sequence of operators the beam keeps, with its product
// Π_t a[j][t][k_t] per rank j and their sum.
type beamItem struct {
	ops  []int
	prod []float64 // per rank
	sum  float64
}

// beamExt is an extension of item parent by operator k, before it is
// materialised: only the opt.Beam best of a step are.
type beamExt struct {
	sum    float64
	parent int32
	k      int32
}

// extensions appends to exts the extensions of the items of cur by an
// operator at step t whose score is at least minScore, in the order
// enumerated (parent, then operator). acc, as long as the operators, is
// scratch.
func extensions(exts []beamExt, cur []beamItem, a [][][]float64, t int, minScore float64, acc []float64) []beamExt {
	K := len(acc)
	for i, it := range cur {
		// acc[k] = Σ_j prod[j]·a[j][t][k], summed in rank order, one
		// rank's row at a time (contiguous).
		clear(acc)
		for j, p := range it.prod {
			row := a[j][t][:K]
			for k, v := range row {
				acc[k] += p * v
			}
		}
		for k, s := range acc {
			if s >= minScore {
				exts = append(exts, beamExt{sum: s, parent: int32(i), k: int32(k)})
			}
		}
	}
	return exts
}

// bestExtensions keeps the n best of exts, in their order: those above the
// n-th best score, then the first enumerated of those equal to it. sums is
// scratch, returned for the next step.
func bestExtensions(exts []beamExt, n int, sums []float64) ([]beamExt, []float64) {
	sums = sums[:0]
	for _, x := range exts {
		sums = append(sums, x.sum)
	}
	thr := nthLargest(sums, n)
	room := n
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
	return kept, sums
}

// sortExtensions sorts exts best first, equal scores by parent, then
// operator.
func sortExtensions(exts []beamExt) {
	slices.SortFunc(exts, func(x, y beamExt) int {
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
}

// materialise returns the items exts make of the items of cur at step t.
func materialise(cur []beamItem, exts []beamExt, a [][][]float64, t int) []beamItem {
	next := make([]beamItem, len(exts))
	for i, x := range exts {
		it := cur[x.parent]
		L := len(it.prod)
		p := make([]float64, L)
		var s float64
		for j := range L {
			p[j] = it.prod[j] * a[j][t][x.k]
			s += p[j]
		}
		next[i] = beamItem{ops: append(slices.Clone(it.ops), int(x.k)), prod: p, sum: s}
	}
	return next
}

// mergeIdentities returns the sequences of items with the identity
// operator id skipped, those that become the same body merged (their
// scores and per-rank products add up), in the order first met; a
// sequence of identities alone is dropped. L is the number of ranks.
func mergeIdentities(items []beamItem, id, L int) []seq {
	merged := map[string]*seq{}
	var order []string
	for _, it := range items {
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
