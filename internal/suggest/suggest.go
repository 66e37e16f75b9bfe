// Package suggest finds the names nearest to a misspelt one, for "did you
// mean" hints.
//
// It is a leaf: it imports only the standard library, and every package of
// the module may import it (docs/ARCHITECTURE.md, "The dependency rule"). The query checks of
// package datalog and the CLI's warnings about unknown body predicates use
// the same rule, [Nearest].
package suggest

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Nearest returns up to k of names nearest to s by edit distance
// (Levenshtein, counted in runes), nearest first and ties by name. Only
// names within a third of the length of s (in runes), and at least 2 edits,
// are suggested; s itself and repeated names are skipped. It returns nil
// when no name is near enough or k <= 0. names is not modified.
func Nearest(s string, names []string, k int) []string {
	if k <= 0 {
		return nil
	}
	type cand struct {
		name string
		d    int
	}
	limit := Limit(s)
	var cs []cand
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] || n == s {
			continue
		}
		seen[n] = true
		if d := bounded(s, n, limit); d <= limit {
			cs = append(cs, cand{n, d})
		}
	}
	slices.SortFunc(cs, func(a, b cand) int { return cmp.Or(cmp.Compare(a.d, b.d), strings.Compare(a.name, b.name)) })
	var out []string
	for i := 0; i < len(cs) && i < k; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// Limit is the largest edit distance at which [Nearest] suggests a name for
// s: a third of the length of s in runes, at least 2.
func Limit(s string) int {
	return max(2, len([]rune(s))/3)
}

// bounded returns the Levenshtein distance between a and b (by runes), or
// math.MaxInt as soon as it is known to exceed limit.
func bounded(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return math.MaxInt
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			c := prev[j-1]
			if ra[i-1] != rb[j-1] {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1)
			cur[j] = c
			best = min(best, c)
		}
		if best > limit {
			return math.MaxInt
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
