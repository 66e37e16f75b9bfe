package eval

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
)

// CompareAnswers is the order of Query's answers: confidence descending,
// then values in the order of CompareValues.
func CompareAnswers(a, b *Answer) int {
	if c := cmp.Compare(b.Confidence, a.Confidence); c != 0 {
		return c
	}
	return CompareValues(a.Values, b.Values)
}

// CompareValues orders the values of two answers position by position
// (compareValue), a shorter list first when one is a prefix.
func CompareValues(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if c := compareValue(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// compareValue orders names: numbers (a name that starts with a digit, or
// a sign and a digit, and reads as a number) first, by value (2 before
// 10), then the other names in byte order; numbers of equal value in
// byte order ("1" before "1.0").
func compareValue(x, y string) int {
	if x == y {
		return 0
	}
	nx, xok := numberName(x)
	ny, yok := numberName(y)
	switch {
	case xok && yok:
		if c := cmp.Compare(nx, ny); c != 0 {
			return c
		}
	case xok:
		return -1
	case yok:
		return 1
	}
	return strings.Compare(x, y)
}

// numberName reads a name as a number, when it is one.
func numberName(s string) (float64, bool) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	if i >= len(s) || s[i] < '0' || s[i] > '9' {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// SortAnswers sorts answers in the order of Query.
func SortAnswers(as []Answer) {
	slices.SortStableFunc(as, func(a, b Answer) int { return CompareAnswers(&a, &b) })
}

// sortRun is the number of answers sortAnswersCtx sorts at a time; it
// checks the context between runs and every sortRun answers merged.
const sortRun = 1 << 13

// SortAnswersCtx is sortAnswers that honours ctx: a stable merge sort of a
// permutation (runs of sortRun answers sorted, then merged pairwise), which
// stops within sortRun steps of a cancellation and returns ctx's error,
// leaving as in some order. Sorting millions of answers takes seconds,
// and a Ctrl-C after the fixpoint must not wait for it. The permutation
// costs 8 bytes an answer; the answers are moved in place at the end.
func SortAnswersCtx(ctx context.Context, as []Answer) error {
	n := len(as)
	if n <= sortRun {
		SortAnswers(as)
		return ctx.Err()
	}
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	order := func(i, j int32) int {
		if c := CompareAnswers(&as[i], &as[j]); c != 0 {
			return c
		}
		return cmp.Compare(i, j) // stable
	}
	for lo := 0; lo < n; lo += sortRun {
		if err := ctx.Err(); err != nil {
			return err
		}
		slices.SortFunc(perm[lo:min(lo+sortRun, n)], order)
	}
	buf := make([]int32, n)
	for w := sortRun; w < n; w *= 2 {
		for lo := 0; lo < n; lo += 2 * w {
			mid, hi := min(lo+w, n), min(lo+2*w, n)
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if k%sortRun == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				if order(perm[j], perm[i]) < 0 {
					buf[k] = perm[j]
					j++
				} else {
					buf[k] = perm[i]
					i++
				}
				k++
			}
			k += copy(buf[k:], perm[i:mid])
			copy(buf[k:], perm[j:hi])
		}
		perm, buf = buf, perm
	}
	// as[k] = old as[perm[k]], one cycle of the permutation at a time.
	for s := range perm {
		if perm[s] < 0 {
			continue
		}
		tmp := as[s]
		j := s
		for {
			p := int(perm[j])
			perm[j] = -1
			if p == s {
				as[j] = tmp
				break
			}
			as[j] = as[p]
			j = p
		}
	}
	return nil
}
