package eval

import (
	"cmp"
	"context"
	"slices"
)

// CompareAnswers is the order of Query's answers: confidence descending,
// then values in byte order.
func CompareAnswers(a, b *Answer) int {
	if c := cmp.Compare(b.Confidence, a.Confidence); c != 0 {
		return c
	}
	return slices.Compare(a.Values, b.Values)
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
