package english

import (
	"strconv"
	"strings"
)

// Integer is the constraint of Plural and Thousands.
type Integer interface {
	~int | ~int64
}

// Plural returns one when n is 1 and many otherwise (0 and negative
// numbers included): Plural(n, "rule", "rules"). It formats nothing:
// callers that show the number write it themselves, with or without
// [Thousands].
func Plural[N Integer](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Thousands formats n in base 10 with a comma between every group of three
// digits, counted from the right: "0", "999", "1,000", "-12,345,678".
func Thousands[N Integer](n N) string {
	s := strconv.FormatInt(int64(n), 10)
	digits := strings.TrimPrefix(s, "-")
	if len(digits) <= 3 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + (len(digits)-1)/3)
	if len(digits) < len(s) {
		b.WriteByte('-')
	}
	for i := range len(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(digits[i])
	}
	return b.String()
}
