package eval

import (
	"cmp"
	"math/bits"
	"slices"
)

// The order of a memo's far ends (facBuild): confidence descending, then
// far end ascending. Far ends of one V1 are distinct, so the order is
// total and any correct sort gives the same slice. sortFarEnds sorts
// without calling a comparison through a function value, which
// slices.SortFunc does for every comparison; it falls back to
// slices.SortFunc when its partitions go too deep.

// farBefore reports whether x comes before y in the memo's order.
func farBefore(x, y *facEntry) bool {
	return x.c > y.c || (x.c == y.c && x.far < y.far)
}

// compareFar is farBefore as slices.SortFunc takes it.
func compareFar(x, y facEntry) int {
	if c := cmp.Compare(y.c, x.c); c != 0 {
		return c
	}
	return cmp.Compare(x.far, y.far)
}

// farInsertion is the length up to which sortFar sorts by insertion.
const farInsertion = 16

// sortFarEnds sorts a memo's far ends a in the memo's order.
func sortFarEnds(a []facEntry) {
	sortFar(a, 2*bits.Len(uint(len(a))))
}

// sortFar sorts a by quicksort (median of three, Hoare's partition) down
// to farInsertion entries, then by insertion; after depth partitions it
// hands what is left to slices.SortFunc.
func sortFar(a []facEntry, depth int) {
	for len(a) > farInsertion {
		if depth == 0 {
			slices.SortFunc(a, compareFar)
			return
		}
		depth--
		n, m := len(a), len(a)/2
		if farBefore(&a[m], &a[0]) {
			a[0], a[m] = a[m], a[0]
		}
		if farBefore(&a[n-1], &a[m]) {
			a[m], a[n-1] = a[n-1], a[m]
			if farBefore(&a[m], &a[0]) {
				a[0], a[m] = a[m], a[0]
			}
		}
		// a[0] <= a[m] <= a[n-1]: each scan below stops inside a.
		p := a[m]
		i, j := 0, n-1
		for {
			for farBefore(&a[i], &p) {
				i++
			}
			for farBefore(&p, &a[j]) {
				j--
			}
			if i >= j {
				break
			}
			a[i], a[j] = a[j], a[i]
			i++
			j--
		}
		// a[:j+1] <= p <= a[j+1:], both parts non-empty (a[n-1] > p).
		if j+1 < n-j-1 {
			sortFar(a[:j+1], depth)
			a = a[j+1:]
		} else {
			sortFar(a[j+1:], depth)
			a = a[:j+1]
		}
	}
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i
		for ; j > 0 && farBefore(&x, &a[j-1]); j-- {
			a[j] = a[j-1]
		}
		a[j] = x
	}
}
